import Foundation
import Testing
import UCubePayment
import UCubeProtocol

/// Issue 39, item 4, through the built binary: a journal with two payments of one request id (written with the
/// journal API, as two writers that bypassed the claim would write it) shows both, each with its own outcome; and of
/// two payments with one id, the crashed one can be resolved.
@Suite(.serialized) struct JournalPaymentIdentityTests {
    static func history(_ sandbox: UCubeSandbox) async throws -> [[String: Any]] {
        let run = try await sandbox.run(["--json", "history"])
        #expect(run.status == 0, "\(run.stderr)")
        let value = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        return (value as? [[String: Any]]) ?? ((value as? [String: Any])?["payments"] as? [[String: Any]]) ?? []
    }

    static func context(_ id: String, payment: String, amount: UInt64, _ status: PaymentStatus) -> PaymentContext {
        var context = PaymentContext(request: PaymentRequest(amount: amount, currency: .eur, requestID: id))
        context.status = status
        context.device = "sim"
        context.payment = payment
        return context
    }

    /// A payment of `amount` cents with request id `id` and key `payment` starts at `time` (seconds after 08:00).
    static func start(_ journal: PaymentJournal, _ id: String, _ payment: String, amount: UInt64, at time: Int) throws {
        try journal.recordStart(
            PaymentRequest(amount: amount, currency: .eur, requestID: id), payment: payment, deviceName: "sim",
            time: String(format: "2026-11-28T08:%02d:%02d.000Z", time / 60, time % 60))
    }

    @Test func twoPaymentsOfOneIDEachKeepTheirOutcomeAndTheCrashedOneIsResolved() async throws {
        let sandbox = try UCubeSandbox()
        let state = sandbox.directory.appendingPathComponent("state/ucube")
        try FileManager.default.createDirectory(
            at: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let journal = PaymentJournal(path: state.appendingPathComponent("journal.jsonl").path)
        // Concurrently: A (10.00) and B (5.00) both carry "X"; B is declined before A is approved.
        let (a, b) = (PaymentJournal.newPaymentKey(), PaymentJournal.newPaymentKey())
        try Self.start(journal, "X", a, amount: 1000, at: 0)
        try Self.start(journal, "X", b, amount: 500, at: 1)
        try journal.recordOutcome(
            Self.context("X", payment: b, amount: 500, .declined), time: "2026-11-28T08:00:02.000Z")
        try journal.recordOutcome(
            Self.context("X", payment: a, amount: 1000, .approved), time: "2026-11-28T08:00:03.000Z")
        // After a crash: C's process died before its outcome; D, with the same id, then ran to APPROVED.
        let (c, d) = (PaymentJournal.newPaymentKey(), PaymentJournal.newPaymentKey())
        try Self.start(journal, "Y", c, amount: 700, at: 60)
        try Self.start(journal, "Y", d, amount: 700, at: 120)
        try journal.recordOutcome(
            Self.context("Y", payment: d, amount: 700, .approved), time: "2026-11-28T08:02:05.000Z")

        let before = try await Self.history(sandbox)
        let byKey = Dictionary(
            uniqueKeysWithValues: before.compactMap { e in (e["payment"] as? String).map { ($0, e) } })
        #expect(before.count == 4, "\(before)")
        #expect(byKey[a]?["status"] as? String == "APPROVED" && byKey[a]?["amount"] as? Int == 1000, "\(before)")
        #expect(byKey[b]?["status"] as? String == "DECLINED" && byKey[b]?["amount"] as? Int == 500, "\(before)")
        #expect(byKey[c]?["status"] as? String == "unknown", "\(before)")
        #expect(byKey[d]?["status"] as? String == "APPROVED", "\(before)")

        // `resolve Y` picks the payment of Y whose outcome is unknown, not the last one.
        let resolve = try await sandbox.run([
            "--json", "history", "resolve", "Y", "--status", "DECLINED", "--note", "n",
        ])
        #expect(resolve.status == 0, "\(resolve.stdout) \(resolve.stderr)")
        let after = try await Self.history(sandbox)
        let resolved = after.first { $0["payment"] as? String == c }
        #expect((resolved?["resolution"] as? [String: Any])?["status"] as? String == "DECLINED", "\(after)")
        #expect(after.first { $0["payment"] as? String == d }?["resolution"] == nil)
        // Named by its own key, D (finished) cannot be resolved; C cannot be resolved twice.
        let finished = try await sandbox.run(["history", "resolve", d, "--status", "DECLINED"])
        #expect(finished.status == 64 && finished.stderr.contains("has an outcome"), "\(finished.stderr)")
        let again = try await sandbox.run(["history", "resolve", "Y", "--status", "DECLINED"])
        #expect(again.status == 64, "\(again.stderr)")
        let show = try await sandbox.run(["history", "show", c])
        #expect(show.status == 0 && show.stdout.contains("payment: \(c)"), "\(show.stdout) \(show.stderr)")
    }
}
