#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about this process that cannot change while it runs, read once: ucube never changes its user.
package enum ThisProcess {
    /// The effective user: the owner every state file and directory must have (`PrivateFile`). `geteuid` is a system
    /// call, and a short command checked ownership about ten times.
    package static let effectiveUser: uid_t = geteuid()
}
