import Foundation
import Testing

/// Running is not unknown (issue 25, item 3): while `pay` waits for the card, its payment is "running" in `history`,
/// is not listed as unresolved, cannot be resolved, and `diagnose` names its process. Once the process is gone, the
/// same payment is unknown and can be resolved.
@Suite struct RunningPaymentTests {
    @Test func aPaymentWaitingForTheCardIsRunningNotUnknown() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--card", "card-timeout"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let pay = try sandbox.startCapturing(
            ["--device", device, "pay", "10", "--card-timeout", "120", "--events", "--request-id", "running-1"])
        let seen = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        #expect(seen.contains("START_TRANSACTION"))
        let pid = pay.process.processIdentifier

        let list = try await sandbox.run(["history"])
        #expect(list.stdout.contains("running (pid \(pid))"), "\(list.stdout)")
        let unresolved = try await sandbox.run(["history", "--unresolved"])
        #expect(!unresolved.stdout.contains("running-1"), "\(unresolved.stdout)")
        let resolve = try await sandbox.run(["history", "resolve", "running-1", "--status", "approved"])
        #expect(resolve.status == 7, "\(resolve.stderr)")
        #expect(resolve.stderr.contains("still running (pid \(pid))"), "\(resolve.stderr)")
        let diagnose = try await sandbox.run(["--json", "--device", "sim", "diagnose"])
        #expect(
            diagnose.stdout.replacingOccurrences(of: " ", with: "").contains("\"pid\":\(pid)"), "\(diagnose.stdout)")
        #expect(!diagnose.stdout.contains("unresolved-payments"), "\(diagnose.stdout)")

        // The process dies without an outcome: now the payment is unknown, and an operator can resolve it.
        kill(pid, SIGKILL)
        _ = await pay.process.exit()
        let after = try await sandbox.run(["history", "--unresolved"])
        #expect(after.stdout.contains("running-1"), "\(after.stdout)")
        let resolved = try await sandbox.run(["history", "resolve", "running-1", "--status", "cancelled"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
    }
}
