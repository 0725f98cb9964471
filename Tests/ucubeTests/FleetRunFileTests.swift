import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// Issue 39, item 2: a fleet run's run file is a file ucube made and can prove it made (its header line); a path that
/// names anything else (a devices list, the journal) is refused before any terminal, and left as it is.
@Suite(.serialized) struct FleetRunFileTests {
    @Test func onlyAFileThatStartsWithTheHeaderIsARunFile() throws {
        let header = FleetRunFile.Header(command: "test", work: String(repeating: "0", count: 64))
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
            #"{"ucube":"something-else","command":"test","work":"00"}"# + "\n",
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

    // MARK: Item 3: a run resumes only from a run file of the same work

    @Test func aRunResumesOnlyFromARunFileOfTheSameWork() {
        let work = FleetRunFile.Header(command: "test", work: "a")
        let verdicts = ["sim": FleetVerdict.ok("sim", seconds: 1)]
        #expect(FleetRunFile.plan(.missing, for: work, restart: false) == .create)
        #expect(FleetRunFile.plan(.foreign, for: work, restart: true) == .refuse)
        #expect(FleetRunFile.plan(.runFile(work, verdicts), for: work, restart: false) == .resume(verdicts))
        #expect(FleetRunFile.plan(.runFile(work, verdicts), for: work, restart: true) == .replace(because: nil))
        for other in [
            FleetRunFile.Header(command: "test", work: "b"), FleetRunFile.Header(command: "mdm-update", work: "a"),
        ] {
            guard case .replace(let reason?) = FleetRunFile.plan(.runFile(other, verdicts), for: work, restart: false)
            else {
                Issue.record("a run file of other work is replaced, with the reason said")
                continue
            }
            #expect(reason.contains("other work"))
        }
    }

    @Test func theWorkCoversTheFilesContentAndTheOptionsButNotHowTheRunGoes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-work-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = directory.appendingPathComponent("suite.json")
        let devices = directory.appendingPathComponent("devices")
        try Data("{}".utf8).write(to: suite)
        try Data("sim\n".utf8).write(to: devices)
        let arguments = ["test", suite.path, "--devices", devices.path]
        let files: [(role: String, path: String)] = [("devices", devices.path), ("input", suite.path)]
        let work = FleetWork.fingerprint(arguments: arguments, files: files)
        #expect(work.count == 64 && work.allSatisfy(\.isHexDigit))
        #expect(FleetWork.fingerprint(arguments: arguments + ["--parallel", "2", "--json"], files: files) == work)
        #expect(FleetWork.fingerprint(arguments: arguments + ["--case", "one"], files: files) != work, "an option")
        try Data("{ }".utf8).write(to: suite)
        let edited = FleetWork.fingerprint(arguments: arguments, files: files)
        #expect(edited != work, "the suite's content")
        try Data("sim\ntcp://127.0.0.1:1\n".utf8).write(to: devices)
        #expect(FleetWork.fingerprint(arguments: arguments, files: files) != edited, "the devices file's content")
        #expect(FleetWork.digest(of: directory.appendingPathComponent("missing").path).hasPrefix("unreadable"))
    }

    /// The issue's repro: a fleet `test` leaves a run file (one terminal passed, one cannot be reached); the suite is
    /// edited; run again, the terminal that passed the old suite runs the new one, and is not "done in an earlier run".
    @Test func afterTheSuiteIsEditedTheTerminalsThatPassedRunTheNewOne() async throws {
        let sandbox = try TestSuiteEndToEndTests.sandbox()
        let one =
            #"{"name":"s","cases":[{"name":"first","card":"visa-contact","request":{"amount":"1.00"},"expect":{"status":"APPROVED"}}]}"#
        let two =
            #"{"name":"s","cases":[{"name":"first","card":"visa-contact","request":{"amount":"1.00"},"expect":{"status":"APPROVED"}},{"name":"second","card":"visa-contact","request":{"amount":"2.00"},"expect":{"status":"APPROVED"}}]}"#
        let suite = try TestSuiteEndToEndTests.write(one, in: sandbox)
        let devices = sandbox.directory.appendingPathComponent("devices.txt")
        try Data("sim\ntcp://127.0.0.1:1\n".utf8).write(to: devices)
        let runFile = sandbox.directory.appendingPathComponent("suite.run").path
        let line = ["--json", "--rpc-timeout", "15", "test", suite, "--devices", devices.path, "--run-file", runFile]
        func started(_ stdout: String) -> Set<String> {
            Set(
                FleetRunEndToEndTests.events(stdout).filter { $0["event"] as? String == "start" }.compactMap {
                    $0["device"] as? String
                })
        }

        let first = try await sandbox.run(line)
        #expect(first.status == 18, "\(first.stderr)")
        #expect(started(first.stdout) == ["sim", "tcp://127.0.0.1:1"])
        let same = try await sandbox.run(line)
        #expect(same.status == 18)
        #expect(started(same.stdout) == ["tcp://127.0.0.1:1"], "the same work resumes: \(same.stdout)")

        _ = try TestSuiteEndToEndTests.write(two, in: sandbox)
        let edited = try await sandbox.run(line)
        #expect(edited.status == 18, "\(edited.stderr)")
        #expect(started(edited.stdout) == ["sim", "tcp://127.0.0.1:1"], "\(edited.stdout)")
        #expect(edited.stderr.contains("was not resumed from"), "\(edited.stderr)")
        let cases = FleetRunEndToEndTests.events(edited.stdout).filter {
            $0["event"] as? String == "case" && $0["device"] as? String == "sim"
        }
        #expect(cases.compactMap { $0["case"] as? String } == ["first", "second"], "\(edited.stdout)")
        #expect(FleetRunEndToEndTests.ends(edited.stdout)["sim"]?["earlier"] as? Bool != true)
    }
}
