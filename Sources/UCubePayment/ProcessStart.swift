import Foundation

/// When a process started, as the kernel counts it: with its pid, what names one process for good (a pid is reused
/// once its process has ended; a pid and a start time never are). A journal's start and claim records carry both, so
/// that a payment whose process died is not taken for running because another process now has its pid (issue 39).
package enum ProcessStart {
    /// This process's start, read once.
    package static let current: UInt64? = of(getpid())

    /// The start of process `pid` (field 22 of /proc/PID/stat: clock ticks after boot), or nil when there is no such
    /// process or it cannot be read.
    package static func of(_ pid: Int32) -> UInt64? {
        guard pid > 0, let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return parse(text)
    }

    /// The start time in a /proc/PID/stat text: "PID (COMM) STATE PPID …", COMM any bytes (parentheses and spaces
    /// included), so the fields are counted from the last ")". Pure.
    package static func parse(_ stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // After COMM: field 3 (state) is at 0, so field 22 (starttime) is at 19.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// Whether process `pid` is alive and is the process a record made at `start` names: a record without a start
    /// (written before starts were recorded) is taken on its pid alone.
    package static func isSame(pid: Int32, start: UInt64?) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let start else { return true }
        return of(pid) == start
    }
}
