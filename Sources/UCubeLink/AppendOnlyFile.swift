import Foundation
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file of lines that only grows, each line on disk when `append` returns: the payment journal, a fleet run's run
/// file. The file is created 0600 (its directory 0700) and opened `O_APPEND`, so processes appending at once never
/// overwrite each other; a last line torn by a process that died mid-write is closed before the next one, so it never
/// swallows a record; the write goes on after EINTR and a short write, and is synced.
package struct AppendOnlyFile: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// Appends `line` (its newline added here); durable on return. Throws a sentence naming the path and the cause.
    package func append(_ line: [UInt8]) throws(AppendError) {
        let directory = PathText.directory(of: path)
        let fd: Int32
        do throws(PrivateFileError) {
            // The directory is this user's alone, and the file is no link to another (`PrivateFile`).
            if !directory.isEmpty { try PrivateFile.ensureDirectory(directory) }
            fd = try PrivateFile.open(path, flags: O_APPEND, read: true)
        } catch {
            throw AppendError(error.isRefusal ? error.description : "cannot open \(error.description)")
        }
        defer { close(fd) }
        // A file created by someone else's umask still ends up private.
        _ = fchmod(fd, 0o600)
        var payload = line + [0x0A]
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A { payload.insert(0x0A, at: 0) }
        }
        if let error = FileDescriptor.writeAll(fd, payload) {
            throw AppendError("cannot write \(path): \(ErrorNumber.text(error))")
        }
        guard fsync(fd) == 0 else { throw AppendError("cannot sync \(path): \(Self.errnoText())") }
    }

    private static func errnoText() -> String { ErrorNumber.text(errno) }
}

/// Why a line could not be appended: one sentence with the path and the system's reason.
package struct AppendError: Error, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}
