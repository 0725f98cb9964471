import Foundation
import Testing

/// Once the terminal has decided, `pay` never hides the outcome (issue: "an approved payment the journal never
/// recorded", "a double charge waiting to happen"): when the journal, stdout or the receipt file cannot take it, stderr
/// says the status, the amount and the request id, and the exit code is the documented one for that failure.
@Suite struct OutcomeNeverHiddenTests {
    /// "payment STATUS: AMOUNT, request id ID" from stderr, as `PaymentFate` writes it.
    static func fate(in stderr: String, id: String) -> String? {
        stderr.split(separator: "\n").first { $0.contains("payment ") && $0.contains("request id \(id)") }.map(
            String.init)
    }

    /// The disk fills after the start record (`ulimit -f 1`: the first KiB of the journal is all it gets): the
    /// payment is not reported as an ordinary one. It says at once that the journal failed, exits 19, and its fate on
    /// stderr matches the status in its own JSON result.
    @Test func aJournalThatCannotBeWrittenExits19WithTheOutcomeOnStderr() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(
            ["--device", "sim", "--json", "pay", "10", "--authorize", "approve", "--request-id", "full-disk"],
            fileSizeLimit: 1)
        #expect(run.status == 19, "\(run.stderr)")
        #expect(run.stderr.contains("the journal cannot be written"), "\(run.stderr)")
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        let status = try #require(result["status"] as? String)
        #expect(["APPROVED", "CANCELLED"].contains(status), "\(status)")
        let fate = try #require(Self.fate(in: run.stderr, id: "full-disk"), "\(run.stderr)")
        #expect(fate.contains("payment \(status): 10.00 EUR"), "\(fate)")
        #expect(result["journalFailure"] is String)
        // Without a size limit the same payment is an ordinary approval: the limit is what the test exercises.
        let free = try await sandbox.run(["--device", "sim", "pay", "10", "--authorize", "approve"])
        #expect(free.status == 0, "\(free.stderr)")
        #expect(!free.stderr.contains("journal"))
    }

    /// `pay 10 > /dev/full`: exit 74, and stderr says the payment was APPROVED, with its request id.
    @Test func aFullStdoutStillTellsTheOutcome() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let sandbox = try UCubeSandbox()
        let (run, signalled) = try await sandbox.run(
            ["--device", "sim", "pay", "10", "--authorize", "approve", "--request-id", "full-stdout"], stdout: full)
        #expect(!signalled)
        #expect(run.status == 74, "\(run.stderr)")
        let fate = try #require(Self.fate(in: run.stderr, id: "full-stdout"), "\(run.stderr)")
        #expect(fate.contains("payment APPROVED: 10.00 EUR"))
    }

    /// `--receipt-file /dev/full`: exit 73, and stderr says the payment was APPROVED, with its request id.
    @Test func aReceiptThatCannotBeWrittenStillTellsTheOutcome() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(
            [
                "--device", "sim", "pay", "10", "--authorize", "approve", "--request-id", "full-receipt",
                "--receipt-file", "/dev/full",
            ])
        #expect(run.status == 73, "\(run.stderr)")
        let fate = try #require(Self.fate(in: run.stderr, id: "full-receipt"), "\(run.stderr)")
        #expect(fate.contains("payment APPROVED: 10.00 EUR"))
        #expect(run.stdout.contains("status: APPROVED"))
    }
}
