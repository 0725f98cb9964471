import Foundation
import UCubeLink
import UCubePayment

/// Tells a payment that is running from one whose process died (issue: "a running payment can be resolved"). A
/// payment with no outcome is running when the process its start record names is alive and still holds its
/// terminal's lock (`DeviceLock`: the kernel drops the lock when the process ends, so a reused pid cannot pass for it).
enum RunningPayments {
    /// `entries` with `runningPID` set on each payment still running.
    static func marked(_ entries: [JournalEntry]) -> [JournalEntry] {
        entries.map { entry in
            var entry = entry
            entry.runningPID = runningPID(entry)
            return entry
        }
    }

    /// The pid running `entry`, or nil when it has an outcome or its process is gone.
    static func runningPID(_ entry: JournalEntry) -> Int32? {
        guard entry.isUnknown, let pid = entry.pid, let device = entry.device else { return nil }
        return DeviceLock.holder(key: Connection.fileKey(device)) == pid ? pid : nil
    }
}
