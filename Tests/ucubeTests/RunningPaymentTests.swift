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

    /// Issue 39: a payment whose process died, when its pid now belongs to another ucube holding the same terminal,
    /// showed as running and could not be resolved. The start record's `pidStart` tells the two processes apart.
    /// The kernel hands out pids in turn, so the reuse is made by writing the second process's pid into the dead
    /// payment's start record (its `pidStart` stays the dead process's).
    @Test func aDeadPaymentIsNotRunningBecauseItsPidWasReused() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--card", "card-timeout"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let arguments = ["--device", device, "pay", "10", "--card-timeout", "120", "--events", "--request-id"]
        let first = try sandbox.startCapturing(arguments + ["reused-1"])
        _ = await UCubeSandbox.readUntil(first.stderr, contains: "START_TRANSACTION")
        let dead = first.process.processIdentifier
        kill(dead, SIGKILL)
        _ = await first.process.exit()
        let second = try sandbox.startCapturing(arguments + ["reused-2"])
        defer { kill(second.process.processIdentifier, SIGKILL) }
        _ = await UCubeSandbox.readUntil(second.stderr, contains: "START_TRANSACTION")
        let alive = second.process.processIdentifier

        let journal = sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl")
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.contains("\"pidStart\""), "the start records carry their process's start")
        let reused = text.split(separator: "\n").map { line in
            line.contains("\"kind\":\"start\"") && line.contains("reused-1")
                ? line.replacingOccurrences(of: "\"pid\":\(dead),", with: "\"pid\":\(alive),") : String(line)
        }
        try (reused.joined(separator: "\n") + "\n").write(to: journal, atomically: false, encoding: .utf8)
        #expect(try String(contentsOf: journal, encoding: .utf8).contains("\"pid\":\(alive),\"pidStart\""))

        let list = try await sandbox.run(["history"])
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("reused-2") && $0.contains("running (pid \(alive))") }, "\(list.stdout)")
        #expect(!lines.contains { $0.contains("reused-1") && $0.contains("running") }, "\(list.stdout)")
        let resolved = try await sandbox.run(["history", "resolve", "reused-1", "--status", "cancelled"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
    }
}
