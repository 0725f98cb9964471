import Foundation
import UCubeSupport

/// The journal's lock: `flock` on `journal.jsonl.lock` beside it (a file ucube makes and keeps), held while a request
/// id is claimed and while owed reversals are sent, so that two processes never take the same request id nor send
/// the same reversal at once. Taken without blocking a thread: a held lock is asked again every 10 ms.
package final class JournalLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// The lock, once held; nil when its file cannot be opened, or after `wait` (a process that never lets go).
    package static func acquire(_ journalPath: String, wait: Duration = .seconds(60)) async -> JournalLock? {
        let fd = open(journalPath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        let deadline = ContinuousClock.now + wait
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(fd)
                return nil
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return JournalLock(fd: fd)
    }

    package func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
