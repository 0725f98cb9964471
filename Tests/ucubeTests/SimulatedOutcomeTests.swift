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
        #expect(
            pay.stdout.components(separatedBy: "*** TEST – NOT A VALID TRANSACTION ***").count == 3, "\(pay.stdout)")

        // Every time, not once per user.
        let again = try await sandbox.run(["--json", "pay", "5", "--authorize", "approve", "--request-id", "sim-2"])
        #expect(again.stderr.contains(Self.warning))
        let result = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(result["device"] as? String == "sim")
        #expect(result["simulated"] as? Bool == true)

        let history = try await sandbox.run(["history"])
        #expect(
            history.stdout.split(separator: "\n").allSatisfy { $0.contains("APPROVED (simulated)") },
            "\(history.stdout)")
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

/// `simulate --json` says what it serves as JSON lines (issue 25, item 4): the terminal's address, a fleet's
/// addresses, the TMS's URL and CA path.
@Suite struct SimulateJSONTests {
    static func firstLine(_ sandbox: UCubeSandbox, _ arguments: [String]) async throws -> [String: Any] {
        let (process, out, _) = try sandbox.startCapturing(arguments)
        defer { process.terminate() }
        let text = await UCubeSandbox.readUntil(out, contains: "\n")
        let line = try #require(text.split(separator: "\n").first.map(String.init), "no line")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test func aTerminalAFleetAndTheTMSAnnounceThemselvesAsJSON() async throws {
        let sandbox = try UCubeSandbox()
        let one = try await Self.firstLine(sandbox, ["--json", "simulate", "--listen", "127.0.0.1:0"])
        #expect(one["event"] as? String == "listening")
        #expect((one["device"] as? String)?.hasPrefix("tcp://127.0.0.1:") == true, "\(one)")

        let fleet = try await Self.firstLine(
            sandbox, ["--json", "simulate", "--fleet", "3", "--listen", "127.0.0.1:0"])
        #expect((fleet["devices"] as? [String])?.count == 3, "\(fleet)")

        let tms = try await Self.firstLine(sandbox, ["--json", "simulate", "--tms", "127.0.0.1:0"])
        #expect(tms["event"] as? String == "tms-listening")
        #expect((tms["url"] as? String)?.hasPrefix("https://") == true, "\(tms)")
        #expect((tms["ca"] as? String).map { FileManager.default.fileExists(atPath: $0) } == true, "\(tms)")
    }
}
