import Foundation
import Testing

@testable import UCubeCLI

/// Issue 39, item 2: a fleet run's run file is a file ucube made and can prove it made (its header line); a path that
/// names anything else (a devices list, the journal) is refused before any terminal, and left as it is.
@Suite(.serialized) struct FleetRunFileTests {
    @Test func onlyAFileThatStartsWithTheHeaderIsARunFile() throws {
        let header = FleetRunFile.Header(command: "test")
        #expect(FleetRunFile.contents(nil) == .missing)
        #expect(FleetRunFile.contents(header.line + [0x0A]) == .runFile(header, [:]))
        let verdict = try JSONEncoder().encode(FleetVerdict.ok("tcp://a:1", seconds: 1))
        guard case .runFile(let read, let verdicts) = FleetRunFile.contents(header.line + [0x0A] + Array(verdict))
        else {
            Issue.record("a header and a verdict are a run file")
            return
        }
        #expect(read == header)
        #expect(verdicts["tcp://a:1"]?.result == .ok)
        for foreign in [
            "", "\n", "sim\ntcp://127.0.0.1:9000\n", "# the bench\n",
            #"{"kind":"start","requestID":"r1","time":"2026-11-28T08:00:00Z"}"# + "\n",
            // A verdict first, as a run file written before the header was: not proved to be ucube's.
            String(decoding: verdict, as: UTF8.self) + "\n",
            #"{"ucube":"something-else","command":"test"}"# + "\n",
        ] {
            #expect(FleetRunFile.contents(Array(foreign.utf8)) == .foreign, "\(foreign)")
        }
    }

    /// The issue's repro: `--run-file devices.txt` (a typo for `--devices`) and `--run-file …/journal.jsonl`. Each
    /// is refused (64) before any terminal, says why, and the file is left byte for byte; a new path is created with
    /// its header and deleted once the run succeeds.
    @Test func aRunFileThatIsNotOneIsRefusedAndLeftIntact() async throws {
        let sandbox = try TestSuiteEndToEndTests.sandbox()
        let suite = try TestSuiteEndToEndTests.write(
            #"{"name":"one","cases":[{"name":"ok","card":"visa-contact","request":{"amount":"1.00"},"expect":{"status":"APPROVED"}}]}"#,
            in: sandbox)
        let devices = sandbox.directory.appendingPathComponent("devices.txt")
        try Data("# the bench\nsim\n".utf8).write(to: devices)
        // A journal with a payment in it, written by a payment.
        let paid = try await sandbox.run(["--device", "sim", "pay", "1.00"])
        #expect(paid.status == 0, "\(paid.stderr)")
        let journal = sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl")
        for target in [devices, journal] {
            let before = try Data(contentsOf: target)
            let run = try await sandbox.run(["test", suite, "--devices", devices.path, "--run-file", target.path])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("is not a ucube run file"), "\(run.stderr)")
            #expect(!run.stdout.contains("\"start\""), "no terminal is started: \(run.stdout)")
            #expect(try Data(contentsOf: target) == before, "\(target.lastPathComponent) is left as it was")
            // --restart replaces only a run file of ours.
            let restart = try await sandbox.run([
                "test", suite, "--devices", devices.path, "--run-file", target.path, "--restart",
            ])
            #expect(restart.status == 64, "\(restart.stderr)")
            #expect(try Data(contentsOf: target) == before)
        }

        let fresh = sandbox.directory.appendingPathComponent("fresh.run")
        let run = try await sandbox.run(["test", suite, "--devices", devices.path, "--run-file", fresh.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.path), "ucube's own run file goes once all are done")
    }
}
