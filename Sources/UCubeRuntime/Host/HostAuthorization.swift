import Foundation
import Synchronization
import UCubePayment
import UCubeProtocol
import UCubeSupport

/// `--authorize exec:PROGRAM` (docs/authorization.md): the payment's authorisation step asks a host. The request is
/// journalled as sent ("pending") before it goes, and the host's decision before the card hears it, so that an
/// approval the payment does not keep is reversed even when this process dies in between. A host that gives no usable
/// answer (a timeout, a non-zero exit, a malformed answer) is "unable to go online" (8A "98"): the card decides with the
/// terminal's default action codes, and the outcome names what the host did wrong.
package final class HostAuthorization: AuthorizationTask, Sendable {
    package let hook: HostHook
    package let timeout: Duration
    package let journal: PaymentJournal
    package let terminal: HostDocuments.Terminal
    /// What the host did, for the outcome (the task answers the engine with the card's 8A only).
    private let exchanged = Mutex<HostExchange?>(nil)

    /// The host's part of a payment, as its outcome shows it.
    package struct HostExchange: Sendable, Hashable, Encodable {
        /// approve, decline or unable.
        package var decision: String
        package var responseCode: String
        package var hostReference: String?
        /// What the host did wrong, when it gave no usable answer.
        package var problem: String?
        /// A stable word for `problem`: timeout, bad-exit, killed, unreachable, http-status, malformed-answer.
        package var problemCode: String?
        /// A reversal was owed and: "acknowledged" or "owed" (the host did not acknowledge it yet; the next command
        /// that opens the journal sends it again).
        package var reversal: String?
    }

    package init(hook: HostHook, timeout: Duration, journal: PaymentJournal, terminal: HostDocuments.Terminal) {
        self.hook = hook
        self.timeout = timeout
        self.journal = journal
        self.terminal = terminal
    }

    package var exchange: HostExchange? { exchanged.withLock { $0 } }

    package func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws
        -> AuthorizationResponse
    {
        let requestID = context.request.requestID
        var terminal = terminal
        terminal.firmware = terminal.firmware ?? context.firmwareVersion
        let document = HostDocuments.request(request, context: context, terminal: terminal)
        // Before the request leaves: from here until the host's decision is journalled, a death of this process leaves
        // a reversal owed (the host may have approved).
        try journal.recordAuthorization(
            requestID: requestID, payment: context.payment, decision: "pending", responseCode: nil, hostReference: nil,
            problem: nil,
            hook: hook.spec, hookFiles: hook.files, time: UTCTimestamp.string(Date()))
        let result: HostExchange
        let response: AuthorizationResponse
        do {
            let answer = try HostDocuments.answer(try await hook.exchange(document, timeout: timeout))
            result = HostExchange(
                decision: answer.decision.rawValue, responseCode: answer.responseCode,
                hostReference: answer.hostReference)
            response = answer.response
        } catch {
            result = HostExchange(
                decision: HostAnswer.Decision.unable.rawValue,
                responseCode: String(decoding: AuthorizationResponse.unableToGoOnline.arc, as: UTF8.self),
                problem: error.description, problemCode: error.code)
            response = .unableToGoOnline
            StandardError.write("ucube: unable to go online: \(error)")
        }
        try journal.recordAuthorization(
            requestID: requestID, payment: context.payment, decision: result.decision,
            responseCode: result.responseCode,
            hostReference: result.hostReference, problem: result.problem, hook: hook.spec,
            hookFiles: hook.files, time: UTCTimestamp.string(Date()))
        exchanged.withLock { $0 = result }
        return response
    }

    /// After the payment: an approval it did not keep is reversed (owed first, in the journal; then sent; then
    /// acknowledged). Returns the exchange as the outcome shows it.
    package func settle(_ context: PaymentContext) async -> HostExchange? {
        guard var result = exchange else { return nil }
        guard result.decision == HostAnswer.Decision.approve.rawValue, context.status != .approved else {
            return result
        }
        let status = context.status?.rawValue ?? JournalEntry.unknownStatus
        let owed = OwedReversal(
            requestID: context.request.requestID, payment: context.payment, hostReference: result.hostReference,
            reason: "the payment ended \(status)\(context.statusReason.map { ": " + $0 } ?? "")",
            amount: context.amount, currency: context.request.currency.alpha, hook: hook.spec,
            hookFiles: hook.files)
        result.reversal = await Reversals.send(owed, journal: journal, timeout: timeout) ? "acknowledged" : "owed"
        exchanged.withLock { $0 = result }
        return result
    }
}

/// Owed reversals: sent through the hook their approval came through, journalled owed before and acknowledged after.
package enum Reversals {
    /// Journals `owed` as owed, sends it, and journals the acknowledgement; true when the host acknowledged it. A
    /// reversal whose hook this ucube cannot use (a file it names is gone) stays owed, and says why.
    package static func send(_ owed: OwedReversal, journal: PaymentJournal, timeout: Duration) async -> Bool {
        do {
            try journal.recordReversal(owed, acknowledged: false, time: UTCTimestamp.string(Date()))
        } catch {
            StandardError.write(
                "ucube: a reversal of \(owed.requestID) is owed but cannot be journalled: \(error.reason)")
        }
        let hook: HostHook
        do throws(HostHookError) {
            guard let parsed = try HostHook.parse(owed.hook, files: owed.hookFiles ?? HostTLSFiles()) else {
                throw HostHookError("it names no hook")
            }
            hook = parsed
        } catch {
            StandardError.write(
                "ucube: a reversal of \(owed.requestID) is owed through \(owed.hook), which this ucube cannot use now (\(error.description)): it stays owed (`ucube history --unresolved`)"
            )
            return false
        }
        do {
            let answer = try await hook.exchange(HostDocuments.reversal(owed), timeout: timeout)
            guard HostDocuments.acknowledged(answer) else {
                StandardError.write(
                    "ucube: the host did not acknowledge the reversal of \(owed.requestID): it stays owed (`ucube history --unresolved`)"
                )
                return false
            }
        } catch {
            StandardError.write(
                "ucube: the reversal of \(owed.requestID) could not be sent (\(error)): it stays owed (`ucube history --unresolved`)"
            )
            return false
        }
        do {
            try journal.recordReversal(owed, acknowledged: true, time: UTCTimestamp.string(Date()))
        } catch {
            StandardError.write(
                "ucube: the host acknowledged the reversal of \(owed.requestID); the journal could not record it: \(error.reason)"
            )
        }
        StandardError.write("ucube: reversal of \(owed.requestID) acknowledged by the host (\(owed.reason))")
        return true
    }

    /// Sends every reversal the journal says is owed (a payment that died between the host's approval and its end, or
    /// whose reversal the host did not acknowledge), each once, under the journal's lock so that two processes never
    /// send the same one at once. Called by every command that opens the journal: `pay`, `test`, `history`.
    package static func sendOwed(journalPath: String, timeout: Duration = .seconds(30)) async {
        guard FileStatus.isRegularFile(journalPath) else { return }
        let journal = PaymentJournal(path: journalPath)
        guard let lock = await JournalLock.acquire(journalPath) else { return }
        defer { lock.release() }
        guard let entries = try? PaymentJournal.history(journalPath) else { return }
        for entry in RunningPayments.marked(entries) {
            guard let owed = entry.owedReversal(running: entry.runningPID != nil) else { continue }
            _ = await send(owed, journal: journal, timeout: timeout)
        }
    }
}
