#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one write(2) loop: every byte written, EINTR retried.
package enum FileDescriptor {
    /// Writes all of `bytes` to `fd`; nil, or the errno of the write that failed (ENOSPC on a full disk, EPIPE on a
    /// closed pipe when SIGPIPE is ignored; EIO for a write that wrote nothing without saying why).
    @discardableResult
    package static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Int32? {
        let contiguous = Array(bytes)
        var offset = 0
        while offset < contiguous.count {
            let n = contiguous.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return nil
    }
}

/// What stat(2) says of a path or a descriptor, for the few checks made before a file is opened. The CLI reads no
/// `stat` field itself: there, whether a member of Glibc's `stat` is visible depended on what a compiler batch
/// imported (MemberImportVisibility), and a whole-module release build saw otherwise than a debug one.
package enum FileStatus {
    /// What one fstat(2) says of the descriptor `fd`, for the checks made on an opened file: whether it is a
    /// directory, and the size of a regular file (nil for anything else: a pipe, a FIFO, a device; or a failed fstat).
    package static func describe(_ fd: Int32) -> (isDirectory: Bool, regularFileSize: Int64?) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return (false, nil) }
        let kind = info.st_mode & S_IFMT
        return (kind == S_IFDIR, kind == S_IFREG ? Int64(info.st_size) : nil)
    }

    /// The device and inode of the regular file open at `fd`, or nil for anything else (or a failed fstat).
    package static func regularFileIdentity(_ fd: Int32) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether `path` names a directory (links followed).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether something (of any kind) is at `path`, links followed, as `FileManager.fileExists` says, without
    /// FileManager (its first use costs a short command's start-up).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` names a regular file (links followed).
    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// What lstat(2) says of `path` itself (a link is not followed): its device, inode and whether it is a socket;
    /// nil when there is nothing there.
    package static func identity(ofLink path: String) -> (device: UInt64, inode: UInt64, isSocket: Bool)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino), info.st_mode & S_IFMT == S_IFSOCK)
    }
}
