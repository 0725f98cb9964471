import Foundation
import UCubeLink
import UCubePayment

/// Tells a payment that is running from one whose process died (issue: "a running payment can be resolved"). A
/// payment with no outcome is running when the process its start record names is alive and still holds its
/// terminal's lock (`DeviceLock`: the kernel drops the lock when the process ends), and is the process that started
/// the payment: its start time (`ProcessStart`) is the one the start record names, so another ucube given the dead
/// process's pid, holding the same terminal, cannot pass for it.
package enum RunningPayments {
    /// `entries` with `runningPID` set on each payment still running.
    /// Marked in place: the caller's array is taken, not copied (a journal's payments may be a large part of what
    /// `history` holds).
    package static func marked(_ entries: consuming [JournalEntry]) -> [JournalEntry] {
        var entries = entries
        for index in entries.indices where entries[index].isUnknown {
            entries[index].runningPID = runningPID(entries[index])
        }
        return entries
    }

    /// The pid running `entry`, or nil when it has an outcome or its process is gone.
    package static func runningPID(_ entry: JournalEntry) -> Int32? {
        guard entry.isUnknown, let pid = entry.pid, let device = entry.device else { return nil }
        guard DeviceLock.holder(key: Environment.fileKey(device)) == pid else { return nil }
        return ProcessStart.isSame(pid: pid, start: entry.pidStart) ? pid : nil
    }
}
