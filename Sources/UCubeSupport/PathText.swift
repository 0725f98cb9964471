/// Paths as text, without Foundation: `NSString.deletingLastPathComponent` cost every command that holds a terminal
/// 66 k instructions at start-up (callgrind), for the directory of its session file and control socket.
package enum PathText {
    /// The directory part of `path`, as `NSString.deletingLastPathComponent` gives it: trailing slashes are ignored,
    /// "/" for a path at the root, "" for a bare name.
    package static func directory(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }
}
