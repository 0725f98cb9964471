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
