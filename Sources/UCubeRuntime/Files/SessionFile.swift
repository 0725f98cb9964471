import Foundation
import UCubeLink
import UCubeSupport

/// The link session file (`$XDG_RUNTIME_DIR/ucube/session-DEVICE`, docs/architecture.md) on disk: the edge of the
/// pure `SessionRecord` (UCubeLink), which says what the line means.
extension SessionRecord {
    package static func load(_ path: String) -> Loaded {
        do {
            return decode(try BoundedFile.readBytes(path, limit: maximumSize))
        } catch {
            switch error {
            case .unreadable: return decode(nil)
            case .tooLarge: return .stale(owner: nil)
            }
        }
    }

    /// Written to a temporary file renamed over the old one, so a reader never sees half a record, but not synced to
    /// disk (`Data.write(options: .atomic)` fsyncs): this is runtime state, lost at a reboot anyway, and a record that
    /// cannot be read is the same as none. Where the runtime directory is on disk (no `$XDG_RUNTIME_DIR`), the fsync
    /// and the rename over a synced file were most of a short command's wall time.
    package func save(to path: String) {
        do {
            try Environment.ensureDirectory(PathText.directory(of: path))
            let bytes = Array(line.utf8)
            let temporary = path + ".\(getpid()).tmp"
            let fd = try Self.createTemporary(temporary)
            let failed = FileDescriptor.writeAll(fd, bytes)
            close(fd)
            guard failed == nil, rename(temporary, path) == 0 else {
                let code = POSIXErrorCode(rawValue: failed ?? errno) ?? .EIO
                unlink(temporary)
                throw POSIXError(code)
            }
        } catch {
            Environment.warnStateUnusable(
                "the link session is not kept in \(path): \(Environment.posixCause(error))",
                variable: Environment.value("XDG_RUNTIME_DIR") == nil ? "XDG_STATE_HOME" : "XDG_RUNTIME_DIR")
        }
    }

    /// Creates `path` (O_EXCL): one left by a process that had this pid and died before its rename is removed first.
    private static func createTemporary(_ path: String) throws(PrivateFileError) -> Int32 {
        do {
            return try PrivateFile.open(path, flags: O_EXCL)
        } catch {
            guard error.problem == .system(EEXIST) else { throw error }
        }
        unlink(path)
        return try PrivateFile.open(path, flags: O_EXCL)
    }
}
