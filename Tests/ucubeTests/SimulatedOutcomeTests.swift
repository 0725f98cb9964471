import Foundation
import Testing

/// Never a simulator by surprise (issue 25, item 1): with no terminal named, `pay` says on stderr, every time, that the
/// built-in simulator takes it, and every outcome from a simulator is marked: the summary's and the JSON's `device`,
/// the receipt's test banner, the journal and `history`.
@Suite struct SimulatedOutcomeTests {
    static let warning = "using the built-in simulator"

    @Test func noTerminalNamedSaysSoAndMarksEveryOutcome() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try await sandbox.run(["pay", "5", "--authorize", "approve", "--receipt", "--request-id", "sim-1"])
        #expect(pay.status == 0, "\(pay.stderr)")
        #expect(pay.stderr.contains(Self.warning), "\(pay.stderr)")
        #expect(pay.stdout.contains("device: sim (simulated: not a real payment)"), "\(pay.stdout)")
        #expect(pay.stdout.components(separatedBy: "*** TEST – NOT A VALID TRANSACTION ***").count == 3, "\(pay.stdout)")

        // Every time, not once per user.
        let again = try await sandbox.run(["--json", "pay", "5", "--authorize", "approve", "--request-id", "sim-2"])
        #expect(again.stderr.contains(Self.warning))
        let result = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(result["device"] as? String == "sim")
        #expect(result["simulated"] as? Bool == true)

        let history = try await sandbox.run(["history"])
        #expect(history.stdout.split(separator: "\n").allSatisfy { $0.contains("APPROVED (simulated)") }, "\(history.stdout)")
        let entries = try await sandbox.run(["--json", "history"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(entries.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 2 && list.allSatisfy { $0["simulated"] as? Bool == true })
        let receipt = try await sandbox.run(["history", "show", "sim-1", "--receipt"])
        #expect(receipt.stdout.contains("*** TEST – NOT A VALID TRANSACTION ***"), "\(receipt.stdout)")
    }

    /// Naming the simulator is a choice: no warning, but the outcome is still marked.
    @Test func aNamedSimulatorIsStillMarked() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try await sandbox.run(["--device", "sim", "pay", "5", "--authorize", "approve", "--receipt"])
        #expect(pay.status == 0)
        #expect(!pay.stderr.contains(Self.warning), "\(pay.stderr)")
        #expect(pay.stdout.contains("*** TEST – NOT A VALID TRANSACTION ***"))
    }

    /// A terminal named by `$UCUBE_DEVICE` (here a TCP one) is no simulator by surprise: no warning.
    @Test func aTerminalFromTheEnvironmentGetsNoWarning() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator()
        defer { server.terminate() }
        sandbox.environment["UCUBE_DEVICE"] = "tcp://127.0.0.1:\(port)"
        let info = try await sandbox.run(["info"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(!info.stderr.contains(Self.warning))
    }
}
