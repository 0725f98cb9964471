import Foundation
import Synchronization
import UCubeLink
import UCubeSupport

/// One process at a time owns a terminal: an exclusive `flock` on `$XDG_RUNTIME_DIR/ucube/lock-<device>`, taken
/// before the link opens and held until the process ends. The kernel releases it when the process dies, however it
/// dies, so a crash never leaves a stale lock; the file holds the owner's pid only to name it in the refusal.
package enum DeviceLock {
    /// Locks already held by this process, by lock-file path (a process reopens its link after a reboot, and the
    /// shell keeps several devices): held once, never released before exit.
    private static let held = Mutex<[String: Int32]>([:])

    /// Takes the lock of the device whose file key is `key`, or throws exit 7 naming the process that holds it.
    /// A runtime directory that cannot be written is no reason to refuse a command: the lock is then skipped. A
    /// directory or lock file that is not safe to use (another user's, a planted link) is: exit 73.
    package static func acquire(key: String, device: String) throws(CLIFailure) {
        let path = Environment.runtimeDirectory + "/lock-" + key
        if held.withLock({ $0[path] != nil }) { return }
        let fd: Int32
        do throws(PrivateFileError) {
            try Environment.ensureDirectory(Environment.runtimeDirectory)
            // Never truncate what a link points to: the pid is written into this file only.
            fd = try PrivateFile.open(path, read: true)
        } catch {
            if error.isRefusal { throw CLIFailure.unsafePath(error) }
            return
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = owner(fd)
            close(fd)
            throw CLIFailure(
                ExitCodes.busy,
                "\(device) is in use by another ucube process\(holder.map { " (pid \($0))" } ?? ""): wait for it to end (`ucube cancel` stops a running payment)"
            )
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        held.withLock { $0[path] = fd }
    }

    /// The pid of the process that holds the lock of the device whose file key is `key` now, if one does. Asking takes
    /// no lock itself: a `history` run beside a `pay` starting can never make that payment find its terminal busy.
    /// The process the file names is asked first, from its own descriptors (`holds(pid:device:inode:)`), which is
    /// exact; when it holds nothing (it has not written its pid yet, or it ended), the kernel's table of locks
    /// (/proc/locks: a FLOCK on the lock file's device and inode) says who does.
    package static func holder(key: String) -> Int32? {
        // Opened without following a link or waiting on a FIFO, and measured on the descriptor that is read: a
        // regular file or nothing. (Closing this descriptor releases no lock: a flock belongs to the descriptor that
        // took it, this process's own included.)
        let fd = open(Environment.runtimeDirectory + "/lock-" + key, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let (device, inode) = FileStatus.regularFileIdentity(fd) else { return nil }
        if let named = owner(fd), holds(pid: named, device: device, inode: inode) { return named }
        return holder(device: device, inode: inode) { try? BoundedFile.read("/proc/locks", limit: 4 << 20) }
    }

    /// Whether process `pid` holds the FLOCK on `device`/`inode` through one of its own descriptors, as its
    /// /proc/PID/fdinfo files show (`lock:\t1: FLOCK  ADVISORY  WRITE 4242 fe:00:1234 0 EOF`). Unlike /proc/locks, a
    /// process's descriptors are its own: no lock taken or dropped elsewhere can hide this one from the read, and the
    /// lock's descriptor stays open as long as its holder lives. False for a process that is gone, another user's,
    /// or a pid reused by a process that holds no such lock.
    package static func holds(pid: Int32, device: UInt64, inode: UInt64) -> Bool {
        guard pid > 0 else { return false }
        let directory = "/proc/\(pid)/fdinfo"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        for descriptor in descriptors where Int32(descriptor) != nil {
            // An epoll or inotify descriptor's lines can be long; a lock's fdinfo is a few lines.
            guard let info = try? BoundedFile.read(directory + "/" + descriptor, limit: 64 << 10) else { continue }
            if holder(in: String(decoding: info, as: UTF8.self), device: device, inode: inode) == pid { return true }
        }
        return false
    }

    /// In how many reads of the table a lock that seems free is looked for (`holder(device:inode:reads:table:)`).
    package static let tableReads = 4

    /// The holder of the FLOCK on `device`/`inode` in the tables `table` reads. The kernel hands /proc/locks out a
    /// page at a time, and a lock taken or dropped elsewhere between two pages shifts the lines after it: a lock held
    /// all along can then be missing from one read (1 read in 2,000 missed one, with 100 other locks taken and
    /// dropped beside it; a cold, loaded test run once took a waiting payment for a dead one so). A holder found is
    /// the holder; a lock that seems free is looked for in a new read, up to `reads` reads, before it is called free.
    package static func holder(device: UInt64, inode: UInt64, reads: Int = tableReads, table: () -> Data?) -> Int32? {
        for _ in 0..<reads {
            guard let data = table() else { return nil }
            if let pid = holder(in: String(decoding: data, as: UTF8.self), device: device, inode: inode) { return pid }
        }
        return nil
    }

    /// The pid of the FLOCK held on `device`/`inode` in a /proc/locks text (`1: FLOCK  ADVISORY  WRITE 4242
    /// 00:2a:1234 0 EOF`; a waiter's line has `->` after the number and is not a holder), or in a /proc/PID/fdinfo
    /// text, whose lock lines start `lock:\t` and whose other lines are skipped. Pure.
    package static func holder(in table: String, device: UInt64, inode: UInt64) -> Int32? {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            let place = fields[5].split(separator: ":")
            guard place.count == 3, UInt64(place[0], radix: 16) == major, UInt64(place[1], radix: 16) == minor,
                UInt64(place[2]) == inode
            else { continue }
            return pid
        }
        return nil
    }

    /// The pid written by the holder, if the file says one.
    private static func owner(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
