import Foundation
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The current log file of one directory, shared by every handler of a process that writes there: appends whole
/// lines and rotates like the SDK (spec §11; sizes and names in `LogChoices`).
///
/// Several ucube processes may write to the same directory at once. Each line is one `write(2)` on an `O_APPEND`
/// descriptor, inside an exclusive `flock` on `LogChoices.lockFileName` taken around check-rotate-write, so lines
/// never interleave and a rotation by one process never loses another's lines: after taking the lock a process
/// that finds `messages.log` is no longer the file it holds open reopens it first.
///
/// Logging never fails the program: a line that cannot be written is dropped and counted (`droppedLines`).
package final class LogFile: @unchecked Sendable {
    package let directory: String
    package let rotationSize: UInt64
    private let lock = NSLock()
    // Guarded by `lock`.
    private var fd: Int32 = -1
    private var lockFD: Int32 = -1
    private var openedIdentity: (dev: UInt64, ino: UInt64)?
    private var dropped = 0
    private var triedDirectory = false

    package init(directory: String, rotationSize: UInt64 = LogChoices.rotationSize) {
        self.directory = directory
        self.rotationSize = rotationSize
    }

    deinit {
        if fd >= 0 { close(fd) }
        if lockFD >= 0 { close(lockFD) }
    }

    package var currentPath: String { directory + "/" + LogChoices.currentFileName }

    /// Lines that could not be written (no directory, disk full, …).
    package var droppedLines: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    /// Appends one line (the caller ends it with a newline), rotating first when the file is over the size.
    package func append(_ line: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        guard openIfNeeded() else {
            dropped += 1
            return
        }
        let locked = lockFD >= 0 && Self.retryingEINTR { flock(lockFD, LOCK_EX) } == 0
        defer { if locked { _ = flock(lockFD, LOCK_UN) } }
        // One stat a line: whether messages.log is still the file held open, and its size.
        if let size = sizeIfStillOurs() ?? reopen(), size > rotationSize {
            rotate()
            reopen()
        }
        guard fd >= 0, writeAll(line) else {
            dropped += 1
            return
        }
    }

    /// Closes the file (tests; `LogBundle.deleteLogs`). The next line reopens it.
    package func closeFile() {
        lock.lock()
        defer { lock.unlock() }
        if fd >= 0 { close(fd) }
        fd = -1
        openedIdentity = nil
    }

    // MARK: Under the lock

    private func openIfNeeded() -> Bool {
        if fd >= 0 { return true }
        // mkdir(2) first: the directory is almost always there, and FileManager's first use costs a start-up.
        if !triedDirectory || !FileStatus.isDirectory(directory) {
            triedDirectory = true
            if mkdir(directory, 0o700) != 0 && errno == ENOENT {
                try? FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        }
        if lockFD < 0 {
            lockFD = open(directory + "/" + LogChoices.lockFileName, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        reopen()
        return fd >= 0
    }

    /// Opens `messages.log` again; its size, or nil when it cannot be opened.
    @discardableResult
    private func reopen() -> UInt64? {
        if fd >= 0 { close(fd) }
        fd = open(currentPath, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            openedIdentity = nil
            return nil
        }
        openedIdentity = (UInt64(info.st_dev), UInt64(info.st_ino))
        return UInt64(info.st_size)
    }

    /// The size of `messages.log` when it is still the file we hold open (no other process rotated it away); nil
    /// otherwise.
    private func sizeIfStillOurs() -> UInt64? {
        guard fd >= 0, let openedIdentity else { return nil }
        var info = stat()
        guard stat(currentPath, &info) == 0, UInt64(info.st_dev) == openedIdentity.dev,
            UInt64(info.st_ino) == openedIdentity.ino
        else { return nil }
        return UInt64(info.st_size)
    }

    /// messages.5.log deleted, N → N+1 (4…1), messages.log → messages.1.log.
    private func rotate() {
        let last = LogChoices.rotatedFileCount
        _ = unlink(path(LogChoices.rotatedFileName(last)))
        for n in stride(from: last - 1, through: 1, by: -1) {
            _ = rename(path(LogChoices.rotatedFileName(n)), path(LogChoices.rotatedFileName(n + 1)))
        }
        _ = rename(currentPath, path(LogChoices.rotatedFileName(1)))
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    private func writeAll(_ bytes: [UInt8]) -> Bool { FileDescriptor.writeAll(fd, bytes) == nil }

    private static func retryingEINTR(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }
}
