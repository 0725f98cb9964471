import UCubeRuntime

/// Every unqualified `print` in this module resolves here rather than to `Swift.print`, so each one goes through
/// `Console.out` (and a failed stdout is noticed) without touching the commands that call it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Console.out(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
