extension Array where Element == String {
    /// `joined(separator:)`, compiled here for `[String]`. The standard library's is generic and not specialised in a
    /// client module: its first call in a process resolves `Array`'s associated types at run time, a scan of the
    /// binary's 11,000 protocol conformances that costs a short command such as `ucube info` a fifth of a millisecond.
    /// Used on the paths every short command takes (Benchmarks/startup.sh); elsewhere `joined` is fine.
    package func joinedWithoutLookup(separator: String) -> String {
        var text = ""
        for (index, element) in enumerated() {
            if index > 0 { text += separator }
            text += element
        }
        return text
    }
}
