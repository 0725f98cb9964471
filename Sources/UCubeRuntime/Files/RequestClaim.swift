import Foundation
import UCubePayment
import UCubeSupport

/// One payment per request id (docs/authorization.md, "Request ids"): before a payment starts, its request id is
/// claimed in the journal under the journal's lock. An id the journal already has takes no payment: a finished one
/// gives its recorded outcome, a running one (or one another live process just claimed) is busy, and one whose
/// outcome is unknown must be resolved first.
package enum RequestClaim {
    package enum Verdict {
        /// This process holds the id: the payment may start.
        case claimed
        /// The id's payment ended (or an operator resolved it): its journal entry.
        case finished(JournalEntry)
        /// Another live process runs (or is about to run) the id's payment.
        case running(pid: Int32)
        /// The id's payment started and its process died without an outcome.
        case unresolved(JournalEntry)
    }

    package static func claim(_ requestID: String, journal: PaymentJournal) async throws -> Verdict {
        guard let lock = await JournalLock.acquire(journal.path) else {
            throw CLIFailure(
                ExitCodes.ioError, "cannot lock the journal (\(journal.path).lock) to claim request id \(requestID)")
        }
        defer { lock.release() }
        let data: Data
        if FileStatus.isRegularFile(journal.path) {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: journal.path))
            } catch {
                throw CLIFailure(ExitCodes.ioError, "cannot read the journal: \(error.localizedDescription)")
            }
        } else {
            data = Data()
        }
        let mine = ProcessInfo.processInfo.processIdentifier
        if let entry = PaymentJournal.history(parsing: data).last(where: { $0.requestID == requestID }) {
            let entry = RunningPayments.marked([entry])[0]
            if !entry.isUnknown || entry.resolution != nil { return .finished(entry) }
            if let pid = entry.runningPID { return .running(pid: pid) }
            return .unresolved(entry)
        }
        // Claimed, not started yet: the claimer is alive (it is opening its link), or died before any command.
        if let claimer = PaymentJournal.claimPIDs(of: requestID, parsing: data).last(where: {
            $0.pid != mine && ProcessStart.isSame(pid: $0.pid, start: $0.start)
        }) {
            return .running(pid: claimer.pid)
        }
        do {
            try journal.recordClaim(requestID: requestID, time: UTCTimestamp.string(Date()))
        } catch {
            throw CLIFailure(
                ExitCodes.journalFailed, "the journal could not record request id \(requestID): \(error.reason)")
        }
        return .claimed
    }
}
