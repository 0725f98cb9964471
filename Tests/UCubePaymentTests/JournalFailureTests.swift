import Foundation
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubePayment

/// The journal is the truth (issue: "an approved payment the journal never recorded"): when a record after the start
/// cannot be written, the engine says so at once (one `journalFailed` event), cancels the payment while the cancel rule
/// allows, completes it otherwise, and the context carries `journalFailure` so the caller never exits as if the journal
/// held it. The journal is broken mid-payment by putting a directory where its file was: `open` then fails (EISDIR).
@Suite struct JournalFailureTests {
    /// A journal in a fresh directory, and a way to break it.
    struct BreakableJournal {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-journal-\(UUID())").path
        var journal: PaymentJournal { PaymentJournal(path: directory + "/journal.jsonl") }

        func breakIt() {
            try? FileManager.default.removeItem(atPath: journal.path)
            try? FileManager.default.createDirectory(atPath: journal.path, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs a payment whose journal breaks as the engine enters `state`: that state's command is answered, and its
    /// step record fails. `cardDelay`: when the card is presented (a long one: a payment cancelled before its card wait
    /// never reads one).
    static func pay(
        breakingAt state: PaymentState, cardDelay: Duration = .seconds(3000)
    ) async throws -> (PaymentContext, PaymentEngineTests.EventLog, TerminalState?) {
        let script = SimulatorScript(cardPresentationDelay: cardDelay)
        let h = try PaymentEngineTests.harness(script: script)
        let store = BreakableJournal()
        defer { store.remove() }
        let engine = PaymentEngine(
            client: h.client, authorization: FixedAuthorization(.approve), journal: store.journal)
        let log = PaymentEngineTests.EventLog()
        let context = await engine.run(PaymentRequest(amount: 1000, currency: .eur, requestID: "journal-\(state)")) {
            event in
            if case .stateChanged(state) = event { store.breakIt() }
            log.append(event)
        }
        let terminal = try await PaymentEngineTests.terminalState(h.client)
        await h.client.close()
        return (context, log, terminal)
    }

    static func journalFailures(_ log: PaymentEngineTests.EventLog) -> Int {
        log.events.filter { if case .journalFailed = $0 { true } else { false } }.count
    }

    /// Before the card is read, a payment whose journal fails is cancelled: no card is read, nothing is charged,
    /// and the terminal is left READY.
    @Test(arguments: [PaymentState.startCancelAll, .startExitSecureSession, .getInfo, .enterSecureSession])
    func beforeTheCardItIsCancelled(_ state: PaymentState) async throws {
        let (context, log, terminal) = try await Self.pay(breakingAt: state)
        #expect(context.status == .cancelled, "\(context.statusReason ?? "") \(context.errors)")
        #expect(context.activatedReader == nil)
        #expect(context.journalFailure?.contains("could not be recorded") == true, "\(context.journalFailure ?? "nil")")
        #expect(Self.journalFailures(log) == 1)
        // Said at once: before the payment's end, not only in its result.
        let failedAt = log.events.firstIndex { if case .journalFailed = $0 { true } else { false } }
        let finishedAt = log.events.firstIndex { if case .finished = $0 { true } else { false } }
        #expect(failedAt != nil && finishedAt != nil && failedAt! < finishedAt!)
        #expect(terminal == .ready)
    }

    /// Once the card is read the payment can no longer be cancelled: it completes (APPROVED here), and the context
    /// still says the journal does not hold it, so the caller cannot report it as an ordinary approval.
    @Test func afterTheCardItCompletesAndSaysSo() async throws {
        let (context, log, terminal) = try await Self.pay(breakingAt: .smcBuildCandidateList, cardDelay: .zero)
        #expect(context.status == .approved, "\(context.statusReason ?? "") \(context.errors)")
        #expect(context.journalFailure != nil)
        #expect(context.errors.contains { $0.reason.hasPrefix("journal:") })
        #expect(Self.journalFailures(log) == 1)
        #expect(terminal == .ready)
    }

    /// A journal that never fails: no event, no failure (the two tests above are not passing by accident).
    @Test func aWorkingJournalReportsNothing() async throws {
        let h = try PaymentEngineTests.harness()
        let store = BreakableJournal()
        defer { store.remove() }
        let engine = PaymentEngine(
            client: h.client, authorization: FixedAuthorization(.approve), journal: store.journal)
        let log = PaymentEngineTests.EventLog()
        let context = await engine.run(PaymentRequest(amount: 1000, currency: .eur, requestID: "journal-ok")) {
            log.append($0)
        }
        #expect(context.status == .approved)
        #expect(context.journalFailure == nil)
        #expect(Self.journalFailures(log) == 0)
        await h.client.close()
    }
}
