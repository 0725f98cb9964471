import Foundation
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How ucube opens the files it creates and checks the directories it keeps them in, so that no file follows a link
/// planted in its place and no directory is shared with another user:
/// - a state file (the journal, a lock, a run file, a session record) is opened `O_NOFOLLOW`, and what is opened must be
///   a regular file owned by this user;
/// - a file the user names (a receipt, a report, a recording) is opened `O_NOFOLLOW` too, and must be a regular file or
///   a character device (`/dev/null`, `/dev/full`), never a FIFO or a socket a write could block on;
/// - a directory ucube keeps state in (`$XDG_STATE_HOME/ucube`, `$XDG_RUNTIME_DIR/ucube`, …) is created 0700, and is
///   refused when another user owns it or when its group or others can write to it.
package enum PrivateFile {
    /// What a file opened for writing may be.
    package enum Kind: Sendable {
        /// A file ucube keeps: regular, owned by this user.
        case state
        /// A file the user named on the command line: regular, or a character device.
        case output
    }

    /// Opens `path` for writing (`flags` adds O_APPEND, O_TRUNC, O_EXCL… to O_WRONLY | O_CREAT | O_NOFOLLOW |
    /// O_CLOEXEC) and checks what was opened. The caller closes the descriptor.
    package static func open(
        _ path: String, flags: Int32 = 0, mode: mode_t = 0o600, kind: Kind = .state, read: Bool = false
    ) throws(PrivateFileError) -> Int32 {
        let access = read ? O_RDWR : O_WRONLY
        // O_NONBLOCK so that a FIFO put in the file's place cannot hang the open; cleared once the kind is checked.
        let fd = Glibc.open(path, access | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | flags, mode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw PrivateFileError(path: path, problem: .symbolicLink) }
            throw PrivateFileError(path: path, problem: .system(code))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw PrivateFileError(path: path, problem: .system(code))
        }
        let type = info.st_mode & S_IFMT
        let problem: PrivateFileError.Problem? =
            switch kind {
            case .state where type != S_IFREG: .notARegularFile
            case .state where info.st_uid != ThisProcess.effectiveUser: .ownedByAnotherUser(uid: info.st_uid)
            case .output where type != S_IFREG && type != S_IFCHR: .notARegularFile
            default: nil
            }
        if let problem {
            close(fd)
            throw PrivateFileError(path: path, problem: problem)
        }
        // On a regular file O_NONBLOCK has no effect (open(2)); a character device gets its blocking writes back.
        if type != S_IFREG { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        return fd
    }

    /// Refuses `path` before any work when it is a symbolic link (what `open` would refuse once the work is done: a
    /// receipt after the payment, say). A path that does not exist yet passes.
    package static func checkNotALink(_ path: String) throws(PrivateFileError) {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw PrivateFileError(path: path, problem: .symbolicLink)
        }
    }

    /// Writes `bytes` to `path` (created or truncated; see `open`), whole or not at all said. A file created now gets
    /// `mode` exactly, whatever the process's umask (an existing one keeps its own).
    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, kind: Kind)
        throws(PrivateFileError)
    {
        var existing = stat()
        let created = lstat(path, &existing) != 0
        let fd = try open(path, flags: O_TRUNC, mode: mode, kind: kind)
        defer { close(fd) }
        if created { _ = fchmod(fd, mode) }
        if let error = FileDescriptor.writeAll(fd, bytes) {
            throw PrivateFileError(path: path, problem: .system(error))
        }
    }

    /// Creates `path` (and its parents) 0700 when missing, then checks it (`checkDirectory`).
    package static func ensureDirectory(_ path: String) throws(PrivateFileError) {
        var info = stat()
        if stat(path, &info) == 0 { return try checkDirectory(path, info) }
        try createDirectory(path)
        try checkDirectory(path)
    }

    /// `path` and its missing parents made 0700. Apart from `ensureDirectory`'s usual path (the directory is there),
    /// which then touches none of Foundation's error types.
    @inline(never)
    private static func createDirectory(_ path: String) throws(PrivateFileError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            let code = (error as? CocoaError)?.underlying.flatMap { ($0 as? POSIXError)?.code.rawValue } ?? EACCES
            throw PrivateFileError(path: path, problem: .system(code))
        }
    }

    /// A directory ucube keeps state in must be a directory (a link to one is followed: it is the target that is
    /// checked), owned by this user, and writable by no one else.
    package static func checkDirectory(_ path: String) throws(PrivateFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw PrivateFileError(path: path, problem: .system(errno)) }
        try checkDirectory(path, info)
    }

    /// `checkDirectory` on what stat(2) said of `path`.
    private static func checkDirectory(_ path: String, _ info: stat) throws(PrivateFileError) {
        guard info.st_mode & S_IFMT == S_IFDIR else { throw PrivateFileError(path: path, problem: .notADirectory) }
        guard info.st_uid == ThisProcess.effectiveUser else {
            throw PrivateFileError(path: path, problem: .ownedByAnotherUser(uid: info.st_uid))
        }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw PrivateFileError(path: path, problem: .writableByOthers(mode: info.st_mode & 0o777))
        }
    }
}

/// Why a file or directory was refused or could not be opened: the path, and a sentence that says what to do.
package struct PrivateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Problem: Hashable, Sendable {
        case symbolicLink
        case notARegularFile
        case notADirectory
        case ownedByAnotherUser(uid: uid_t)
        case writableByOthers(mode: mode_t)
        case system(Int32)
    }

    package let path: String
    package let problem: Problem

    /// Whether ucube refused the path for its safety (rather than the system failing to open it).
    package var isRefusal: Bool {
        if case .system = problem { false } else { true }
    }

    package var description: String {
        switch problem {
        case .symbolicLink:
            "\(path) is a symbolic link: ucube does not follow links for the files it writes; remove it"
        case .notARegularFile:
            "\(path) is not a regular file"
        case .notADirectory:
            "\(path) is not a directory"
        case .ownedByAnotherUser(let uid):
            "\(path) belongs to another user (uid \(uid)), not to you (uid \(ThisProcess.effectiveUser)): refusing to use it"
        case .writableByOthers(let mode):
            "\(path) can be written by other users (mode \(String(mode, radix: 8))): refusing to use it; `chmod go-w \(path)`"
        case .system(let code):
            "\(path): \(ErrorNumber.text(code).lowercased())"
        }
    }
}
