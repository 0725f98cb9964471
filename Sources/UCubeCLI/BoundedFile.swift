import Foundation

/// A file named on the command line or kept on disk, read whole but never past a limit: one too large, or one that
/// never ends (`/dev/zero`, a FIFO), is refused instead of filling the memory. The capture of `decode`, a suite of
/// `test`, a fleet run's devices file and run file.
enum BoundedFile {
    enum Failure: Error {
        /// Missing, a directory, not permitted or a failed read: the words say which.
        case unreadable(String)
        /// More than the limit.
        case tooLarge
    }

    static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .unreadable("no such file") }
        guard !isDirectory.boolValue else { throw .unreadable("it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable("permission denied") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw .unreadable(Environment.posixCause(error))
        }
        guard data.count <= limit else { throw .tooLarge }
        return data
    }
}
