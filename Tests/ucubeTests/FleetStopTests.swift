import Foundation
import Testing

/// Issue 39, item 1: a fleet `test` run stops as one. A signal reaches every terminal of the run (each running case
/// interrupted, the rest skipped, exit 11); `ucube cancel --device D` reaches D's work only.
@Suite(.serialized) struct FleetStopTests {
    /// Two cases whose card never comes: the first waits (255 s, the longest card wait), the second never starts.
    static func suite(_ sandbox: UCubeSandbox) throws -> String {
        try TestSuiteEndToEndTests.write(
            """
            {"name": "stop", "cases": [
              {"name": "waits", "card": "card-timeout", "request": {"amount": "2.00", "cardTimeout": 255},
               "expect": {"status": "CARD_WAIT_FAILED"}},
              {"name": "after", "card": "card-timeout", "request": {"amount": "3.00", "cardTimeout": 255},
               "expect": {"status": "CARD_WAIT_FAILED"}}
            ]}
            """, in: sandbox, name: "stop.json")
    }

    /// The devices whose payment has started: a start record in the journal, written after the payment's handlers
    /// for a signal and for `ucube cancel` are in place (`PaymentRunner`).
    static func started(_ sandbox: UCubeSandbox) -> Set<String> {
        let url = sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var devices = Set<String>()
        for line in text.split(separator: "\n") {
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                record["kind"] as? String == "start", let device = record["device"] as? String
            else { continue }
            devices.insert(device)
        }
        return devices
    }

    /// Waits (a safety net of minutes, never a measure of speed) until `count` payments have started.
    static func waitForPayments(_ sandbox: UCubeSandbox, count: Int, of run: Process) async throws {
        let deadline = ContinuousClock.now + SafetyNet.process
        while started(sandbox).count < count {
            guard run.isRunning else { throw SandboxError(message: "the run ended before its payments started") }
            guard ContinuousClock.now < deadline else {
                throw SandboxError(message: "only \(started(sandbox)) started within the safety net")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The `case` events of `device`, by case name: (result, error).
    static func cases(_ stdout: String, device: String) -> [String: (String, String)] {
        var cases: [String: (String, String)] = [:]
        for event in FleetRunEndToEndTests.events(stdout)
        where event["event"] as? String == "case" && event["device"] as? String == device {
            if let name = event["case"] as? String {
                cases[name] = ((event["result"] as? String) ?? "", (event["error"] as? String) ?? "")
            }
        }
        return cases
    }

    /// A fleet of `count` simulated terminals whose card never comes, and a `--json test` run over it whose payments
    /// have all started (each waiting for its card).
    static func startRun(_ sandbox: UCubeSandbox, count: Int) async throws -> (
        fleet: (process: Process, devices: [String], file: String),
        run: (process: Process, stdout: Pipe, stderr: Pipe)
    ) {
        let suite = try Self.suite(sandbox)
        let fleet = try await FleetRunEndToEndTests.startFleet(sandbox, count: count, ["--card", "card-timeout"])
        do {
            let run = try sandbox.startCapturing(["--json", "test", suite, "--devices", fleet.file])
            try await Self.waitForPayments(sandbox, count: count, of: run.process)
            return (fleet, run)
        } catch {
            fleet.process.terminate()
            throw error
        }
    }

    /// The "done when": 4 simulated terminals, each waiting for a card in its first case; SIGTERM stops the
    /// run: every terminal's running case interrupted, every second case skipped, exit 11. The time it took is
    /// printed; the verdict does not depend on it beyond the safety net.
    @Test func sigtermStopsEveryTerminalOfAFleetTestRun() async throws {
        let sandbox = try UCubeSandbox()
        let (fleet, run) = try await Self.startRun(sandbox, count: 4)
        defer { fleet.process.terminate() }
        let sent = ContinuousClock.now
        kill(run.process.processIdentifier, SIGTERM)
        let stdout = await UCubeSandbox.readToEnd(run.stdout)
        let status = await run.process.exit()
        let took = ContinuousClock.now - sent
        print("FleetStopTests: 4 terminals stopped by SIGTERM in \(took)")
        #expect(status == 11, "\(stdout)")
        let ends = FleetRunEndToEndTests.ends(stdout)
        for device in fleet.devices {
            let cases = Self.cases(stdout, device: device)
            #expect(
                cases["waits"]?.0 == "failed" && cases["waits"]?.1.contains("interrupted") == true,
                "\(device): \(cases)")
            #expect(cases["after"]?.0 == "not-run", "\(device): \(cases)")
            #expect(ends[device]?["exit"] as? Int == 11, "\(device): \(String(describing: ends[device]))")
        }
        #expect(took < SafetyNet.process, "the safety net only: a run that waited for its cards would take 255 s")
    }

    /// `ucube cancel --device D` during a fleet `test` run stops D's suite only: D ends (its case interrupted, the next
    /// skipped) while the other terminals go on waiting for their card; a signal then stops them.
    @Test func cancelReachesOneTerminalOfTheRun() async throws {
        let sandbox = try UCubeSandbox()
        let (fleet, run) = try await Self.startRun(sandbox, count: 3)
        defer { fleet.process.terminate() }
        let target = fleet.devices[1]
        let cancel = try await sandbox.run(["--json", "--device", target, "cancel"])
        #expect(cancel.status == 0, "\(cancel.stdout) \(cancel.stderr)")
        var seen = ""
        while FleetRunEndToEndTests.ends(seen)[target] == nil {
            let more = await UCubeSandbox.readUntil(run.stdout, contains: "\n")
            guard !more.isEmpty else { break }
            seen += more
        }
        #expect(FleetRunEndToEndTests.ends(seen).keys.sorted() == [target], "only \(target) ended: \(seen)")
        let cases = Self.cases(seen, device: target)
        #expect(cases["waits"]?.1.contains("interrupted") == true && cases["after"]?.0 == "not-run", "\(cases)")
        kill(run.process.processIdentifier, SIGTERM)
        let rest = seen + (await UCubeSandbox.readToEnd(run.stdout))
        #expect(await run.process.exit() == 11)
        for device in fleet.devices {
            #expect(Self.cases(rest, device: device)["waits"]?.1.contains("interrupted") == true, "\(device): \(rest)")
        }
    }
}
