import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Issue 28 end to end: a simulated fleet of 40 terminals split over N ucube processes with `--shard I/N`, run side by
/// side as N CI jobs would be, then `ucube fleet-merge`: the merged JUnit report, summary and exit code are those of
/// one unsharded run. Three terminals never answer (`mute`: the one fault that fires on every run, not once).
@Suite(.serialized) struct FleetShardEndToEndTests {
    /// A JUnit report with its times blanked: the only thing allowed to differ between a merged and a one-process run.
    static func normalised(_ xml: String) -> String {
        xml.replacingOccurrences(of: #"time="[0-9.]+""#, with: #"time="""#, options: .regularExpression)
            .replacingOccurrences(of: #"timestamp="[^"]*""#, with: #"timestamp="""#, options: .regularExpression)
    }

    /// The summary table of a text-mode run, its times blanked.
    static func table(_ stdout: String) -> String {
        guard let start = stdout.range(of: "DEVICE ") else { return "" }
        return String(stdout[start.lowerBound...])
            .replacingOccurrences(of: #"[0-9]+\.[0-9] s"#, with: "T", options: .regularExpression)
            .replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression)
    }

    static func summary(_ stdout: String) -> [String: Any]? {
        FleetRunEndToEndTests.events(stdout).first { $0["event"] as? String == "summary" }
    }

    @Test func fortyTerminalsShardedOverOneThreeAndFourJobsMergeAsOneRun() async throws {
        let sandbox = try UCubeSandbox()
        let fleet = try await FleetRunEndToEndTests.startFleet(
            sandbox, count: 40, ["--fleet-fault", "5:mute", "--fleet-fault", "17:mute", "--fleet-fault", "29:mute"])
        defer { fleet.process.terminate() }
        let faulty = Set([fleet.devices[4], fleet.devices[16], fleet.devices[28]])
        // The muted terminals cost one --rpc-timeout per run; the others must never reach it, even with 40 at once on a
        // loaded machine (at 1 s, a full parallel test run timed out three healthy ones; at 2 s, at load 23, six in
        // FleetRunEndToEndTests): 20 s, ten times the slowest healthy answer seen under load.
        let info = ["--rpc-timeout", "20", "info", "--devices", fleet.file]
        let directory = sandbox.directory.path

        // One process, the whole fleet: the reference.
        let reference = try await sandbox.run(
            ["--json"] + info + ["--junit", "\(directory)/one.xml"], timeout: .seconds(900))
        #expect(reference.status == 18, "\(reference.stderr)")
        let ends = FleetRunEndToEndTests.ends(reference.stdout)
        #expect(Set(ends.filter { $0.value["result"] as? String == "failed" }.keys) == faulty)
        let referenceSummary = try #require(Self.summary(reference.stdout))
        #expect(
            referenceSummary["succeeded"] as? Int == 37 && referenceSummary["failed"] as? Int == 3,
            "\(referenceSummary)")
        #expect(referenceSummary["shard"] == nil)
        // Every fleet JSON line says when (ISO 8601, UTC, milliseconds); the run's own error object closes stdout.
        let lines = reference.stdout.split(separator: "\n")
        #expect(lines.count > 80)
        for line in lines.dropLast() {
            #expect(
                line.range(
                    of: #""time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z""#,
                    options: .regularExpression) != nil, "\(line)")
        }
        let oneXML = Self.normalised(try String(contentsOfFile: "\(directory)/one.xml", encoding: .utf8))
        let referenceText = try await sandbox.run(info, timeout: .seconds(900))
        #expect(referenceText.status == 18)

        for count in [1, 3, 4] {
            // The N jobs, side by side.
            let runs = try await withThrowingTaskGroup(of: (Int, UCubeRun).self) { group in
                for index in 1...count {
                    group.addTask {
                        let run = try await sandbox.run(
                            ["--json"] + info + [
                                "--shard", "\(index)/\(count)", "--junit", "\(directory)/shard-\(count)-\(index).xml",
                            ],
                            timeout: .seconds(900))
                        return (index, run)
                    }
                }
                var runs: [Int: UCubeRun] = [:]
                for try await (index, run) in group { runs[index] = run }
                return runs
            }
            var reports: [String] = []
            var sizes: [Int] = []
            var seen: Set<String> = []
            for index in 1...count {
                let run = try #require(runs[index])
                let path = "\(directory)/shard-\(count)-\(index).jsonl"
                try run.stdout.write(toFile: path, atomically: true, encoding: .utf8)
                reports.append(path)
                let shardEnds = FleetRunEndToEndTests.ends(run.stdout)
                #expect(seen.isDisjoint(with: shardEnds.keys), "a terminal in two shards")
                seen.formUnion(shardEnds.keys)
                sizes.append(shardEnds.count)
                #expect(run.status == (faulty.isDisjoint(with: shardEnds.keys) ? 0 : 18), "\(run.stderr)")
                #expect(Self.summary(run.stdout)?["shard"] as? String == "\(index)/\(count)")
                let junit = try FleetRunEndToEndTests.junitCounts("\(directory)/shard-\(count)-\(index).xml")
                #expect(junit.tests == shardEnds.count)
            }
            #expect(seen == Set(fleet.devices), "the shards cover the fleet")
            #expect(sizes.max()! - sizes.min()! <= 1, "\(sizes)")

            let merged = try await sandbox.run(
                ["--json", "fleet-merge", "--junit", "\(directory)/merged-\(count).xml"] + reports)
            #expect(merged.status == 18, "\(merged.stderr)")
            let summary = try #require(Self.summary(merged.stdout))
            for key in ["command", "devices", "succeeded", "failed", "notStarted", "earlier"] {
                #expect(
                    "\(summary[key] ?? "none")" == "\(referenceSummary[key] ?? "none")", "\(key) with \(count) shards")
            }
            #expect(FleetRunEndToEndTests.ends(merged.stdout).count == 40)
            let mergedXML = Self.normalised(
                try String(contentsOfFile: "\(directory)/merged-\(count).xml", encoding: .utf8))
            #expect(mergedXML == oneXML, "\(count) shards")
            let text = try await sandbox.run(["fleet-merge"] + reports)
            #expect(text.status == 18)
            #expect(Self.table(text.stdout) == Self.table(referenceText.stdout), "\(text.stdout)")
        }

        // One of four jobs left no report: the merge fails it by name, and counts the rest.
        let partial = (1...3).map { "\(directory)/shard-4-\($0).jsonl" } + ["\(directory)/never-written.jsonl"]
        let missing = try await sandbox.run(["--json", "fleet-merge", "--junit", "\(directory)/partial.xml"] + partial)
        #expect(missing.status == 18, "\(missing.stderr)")
        #expect(missing.stderr.contains("never-written.jsonl: cannot read it"), "\(missing.stderr)")
        let report = try FleetRunEndToEndTests.junitCounts("\(directory)/partial.xml")
        let failedNames = report.cases.filter { !$0.elements(forName: "failure").isEmpty }.compactMap {
            $0.attribute(forName: "classname")?.stringValue
        }
        #expect(failedNames.contains("shard 4/4"), "\(failedNames)")
    }

    /// Issue 28: `diagnose` takes a fleet. Each terminal's report is its `result`; a blocking finding fails the
    /// terminal (exit 16 in its `end`) and the run (18).
    @Test func diagnoseOverAFleet() async throws {
        let sandbox = try UCubeSandbox()
        let fleet = try await FleetRunEndToEndTests.startFleet(sandbox, count: 3, ["--fleet-fault", "2:mute"])
        defer { fleet.process.terminate() }
        let junit = sandbox.directory.appendingPathComponent("diagnose.xml").path
        let run = try await sandbox.run(
            ["--json", "--rpc-timeout", "15", "diagnose", "--devices", fleet.file, "--parallel", "2", "--junit", junit])
        #expect(run.status == 18, "\(run.stderr)")
        let ends = FleetRunEndToEndTests.ends(run.stdout)
        #expect(ends.count == 3)
        #expect(ends[fleet.devices[1]]?["exit"] as? Int == 16, "\(ends)")
        #expect((ends[fleet.devices[1]]?["message"] as? String)?.contains("timeout") == true)
        #expect(
            ends[fleet.devices[0]]?["result"] as? String == "ok" && ends[fleet.devices[2]]?["result"] as? String == "ok"
        )
        let results = FleetRunEndToEndTests.events(run.stdout).filter { $0["event"] as? String == "result" }
        #expect(results.count == 3)
        #expect(
            results.allSatisfy { (($0["result"] as? [String: Any])?["findings"] as? [Any])?.isEmpty == false },
            "\(results)")
        let report = try FleetRunEndToEndTests.junitCounts(junit)
        #expect(report.tests == 3 && report.failures == 1, "\(report)")
    }

    /// Issue 28: `send-logs` takes a fleet. The host's logs go to the TMS once per terminal; they are deleted only
    /// once every terminal of the run has them, and a run that failed for one keeps them.
    @Test func sendLogsOverAFleet() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await TMSEndToEndTests.startTMS(sandbox)
        defer { tms.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = tms.url
        sandbox.environment["UCUBE_TMS_CA"] = tms.ca
        let fleet = try await FleetRunEndToEndTests.startFleet(sandbox, count: 3, ["--fleet-fault", "3:mute"])
        defer { fleet.process.terminate() }
        let received = sandbox.directory.appendingPathComponent("tms-sim/received-logs").path
        let zips = {
            ((try? FileManager.default.contentsOfDirectory(atPath: received)) ?? []).filter { $0.hasSuffix(".zip") }
                .count
        }
        let log = sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log").path
        _ = try await sandbox.run(["--device", fleet.devices[0], "info"])  // something to send

        let failed = try await sandbox.run(
            ["--json", "--rpc-timeout", "15", "send-logs", "--devices", fleet.file, "--parallel", "3"])
        #expect(failed.status == 18, "\(failed.stderr)")
        let ends = FleetRunEndToEndTests.ends(failed.stdout)
        #expect(ends.filter { $0.value["result"] as? String == "ok" }.count == 2, "\(failed.stdout)")
        #expect(ends[fleet.devices[2]]?["exitName"] as? String == "timeout")
        #expect(zips() == 2)
        #expect(FileManager.default.fileExists(atPath: log), "a terminal still lacks the logs: they stay")
        #expect(try await sandbox.run(["send-logs", "--devices", fleet.file, "--output", "x.zip"]).status == 64)

        let sent = try await sandbox.run(
            ["send-logs", "--device", fleet.devices[0], "--device", fleet.devices[1]])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("bytes of logs sent"), "\(sent.stdout)")
        #expect(zips() == 4)
        #expect(!FileManager.default.fileExists(atPath: log), "every terminal has them: deleted")
    }

    /// Issue 28: `test SUITE --devices FILE` runs the suite on every terminal, a JUnit testsuite per terminal. Two
    /// cases on the served card, one expecting what it gets and one not; the third terminal never answers.
    @Test func aSuiteOverAFleet() async throws {
        let sandbox = try TestSuiteEndToEndTests.sandbox()
        let suite = try TestSuiteEndToEndTests.write(
            """
            {"name": "fleet", "cards": {"late-pin": {"interfaces": ["contact"], "pan": "5413330089020094", "expiry": "2711",
              "applications": [{"aid": "A0000000041010", "label": "MASTERCARD"}], "cvm": "online-pin"}},
             "cases": [{"name": "approved", "card": "late-pin", "request": {"amount": "5.00"}, "expect": {"status": "APPROVED"},
               "instruction": "insert test card 7"},
              {"name": "wrong", "card": "late-pin", "request": {"amount": "5.00"}, "expect": {"status": "DECLINED"},
               "instruction": "insert test card 7"}]}
            """, in: sandbox)
        let fleet = try await FleetRunEndToEndTests.startFleet(
            sandbox, count: 3, ["--suite", suite, "--suite-card", "late-pin", "--fleet-fault", "3:mute"])
        defer { fleet.process.terminate() }
        let junit = sandbox.directory.appendingPathComponent("suite.xml").path
        let run = try await sandbox.run(
            [
                "--json", "--rpc-timeout", "15", "test", suite, "--devices", fleet.file, "--parallel", "3", "--junit",
                junit,
            ],
            timeout: .seconds(900))
        #expect(run.status == 18, "\(run.stderr)")
        let ends = FleetRunEndToEndTests.ends(run.stdout)
        #expect(ends[fleet.devices[0]]?["exit"] as? Int == 17, "\(ends)")
        #expect(ends[fleet.devices[1]]?["detail"] as? String == "1 of 2 cases passed", "\(ends)")
        #expect(ends[fleet.devices[2]]?["exitName"] as? String == "timeout")
        let cases = FleetRunEndToEndTests.events(run.stdout).filter { $0["event"] as? String == "case" }
        #expect(cases.count == 4, "\(run.stdout)")
        #expect(
            cases.filter { $0["result"] as? String == "passed" }.compactMap { $0["case"] as? String } == [
                "approved", "approved",
            ])

        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
        let suites = try document.nodes(forXPath: "/testsuites/testsuite").compactMap { $0 as? XMLElement }
        #expect(suites.compactMap { $0.attribute(forName: "name")?.stringValue } == fleet.devices.sorted())
        let byName = Dictionary(
            uniqueKeysWithValues: suites.map { ($0.attribute(forName: "name")?.stringValue ?? "", $0) })
        let first = try #require(byName[fleet.devices[0]])
        #expect(
            first.attribute(forName: "tests")?.stringValue == "2"
                && first.attribute(forName: "failures")?.stringValue == "1")
        #expect(
            first.elements(forName: "testcase").compactMap { $0.attribute(forName: "name")?.stringValue } == [
                "approved", "wrong",
            ])
        let muted = try #require(byName[fleet.devices[2]])
        #expect(
            muted.attribute(forName: "tests")?.stringValue == "1"
                && muted.attribute(forName: "failures")?.stringValue == "1")
        let root = try #require(document.rootElement())
        #expect(
            root.attribute(forName: "tests")?.stringValue == "5"
                && root.attribute(forName: "failures")?.stringValue == "3")

        #expect(try await sandbox.run(["test", suite, "--devices", fleet.file, "--format", "junit"]).status == 64)
    }

    @Test(arguments: [
        ["--shard", "0/3"], ["--shard", "4/3"], ["--shard", "1/0"], ["--shard", "x"], ["--shard-host", "bench-a"],
        ["--shard", "1/2", "--shard-host", "bad/name"],
    ])
    func badShardsAreUsageErrors(arguments: [String]) async throws {
        let sandbox = try UCubeSandbox()
        let file = sandbox.directory.appendingPathComponent("devices").path
        try "tcp://127.0.0.1:9\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["info", "--devices", file] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
    }

    @Test func mergeRefusesNothingToMerge() async throws {
        let sandbox = try UCubeSandbox()
        #expect(try await sandbox.run(["fleet-merge"]).status == 64)
        let file = sandbox.directory.appendingPathComponent("empty.jsonl").path
        try "not a report\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await sandbox.run(["fleet-merge", file]).status == 64)
    }
}
