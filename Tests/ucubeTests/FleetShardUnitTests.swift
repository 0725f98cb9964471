import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// Issue 28, the pure parts: `--shard I/N` parts of a devices file, `@NAME` pins, and `fleet-merge` putting the shards'
/// JSON lines back together.
struct FleetShardUnitTests {
    static func fleet(_ count: Int) -> [FleetDevice] {
        (1...count).map { FleetDevice(name: "tcp://127.0.0.1:\(7000 + $0)", key: "tcp://127.0.0.1:\(7000 + $0)") }
    }

    @Test func shardSpecificationsAreChecked() {
        #expect(FleetShard.parse("1/1")! == (1, 1))
        #expect(FleetShard.parse("3/4")! == (3, 4))
        for bad in ["0/4", "5/4", "1/0", "4", "/4", "1/", "a/b", "-1/4", "1/4/2", "+1/4", "1/5000", " 1/4", "١/٤"] {
            #expect(FleetShard.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func theShardsPartitionTheFleetBalancedToWithinOne() {
        for total in [1, 2, 7, 40] {
            let devices = Self.fleet(total)
            for count in [1, 3, 4, 9] {
                let parts = (1...count).map {
                    FleetShard(index: $0, count: count, host: nil).select(devices).map(\.name)
                }
                #expect(
                    parts.flatMap { $0 }.sorted() == devices.map(\.name).sorted(), "every terminal in exactly one part")
                #expect(Set(parts.flatMap { $0 }).count == total)
                let sizes = parts.map(\.count)
                #expect(sizes.max()! - sizes.min()! <= 1, "\(total) over \(count): \(sizes)")
            }
        }
    }

    @Test func aShardIsTheSameWhateverTheOrderOfTheFile() {
        let devices = Self.fleet(40)
        var generator = SystemRandomNumberGenerator()
        for index in 1...3 {
            let shard = FleetShard(index: index, count: 3, host: nil)
            let part = Set(shard.select(devices).map(\.name))
            for _ in 0..<5 {
                #expect(Set(shard.select(devices.shuffled(using: &generator)).map(\.name)) == part)
            }
        }
        // Not simply the file's order dealt out: consecutive terminals spread over the shards.
        let first = FleetShard(index: 1, count: 4, host: nil).select(devices).map(\.name)
        #expect(first != devices.enumerated().filter { $0.offset % 4 == 0 }.map(\.element.name))
    }

    @Test func pinnedTerminalsGoOnlyToTheirRunner() throws {
        let text = """
            tcp://127.0.0.1:7001
            tcp://127.0.0.1:7002 @bench-a
            tcp://127.0.0.1:7003\t@bench-b
            tcp://127.0.0.1:7004
            """
        let devices = try FleetDevices.list(given: [], file: "d.txt", text: text)
        #expect(devices.map(\.name) == (1...4).map { "tcp://127.0.0.1:\(7000 + $0)" })
        #expect(devices.map(\.host) == [nil, "bench-a", "bench-b", nil])
        let a = FleetShard(index: 1, count: 2, host: "bench-a").select(devices).map(\.name)
        let b = FleetShard(index: 2, count: 2, host: "bench-b").select(devices).map(\.name)
        #expect(a.contains("tcp://127.0.0.1:7002") && !a.contains("tcp://127.0.0.1:7003"))
        #expect(b.contains("tcp://127.0.0.1:7003") && !b.contains("tcp://127.0.0.1:7002"))
        #expect(Set(a + b).count == 4 && a.count + b.count == 4)
        // A shard with no --shard-host takes no pinned terminal.
        let anonymous = FleetShard(index: 1, count: 1, host: nil).select(devices).map(\.name)
        #expect(anonymous == ["tcp://127.0.0.1:7001", "tcp://127.0.0.1:7004"])
        #expect(throws: CLIFailure.self) {
            try FleetDevices.list(given: [], file: "d.txt", text: "tcp://127.0.0.1:7001 @bad/name")
        }
        #expect(throws: CLIFailure.self) {
            try FleetDevices.list(given: [], file: "d.txt", text: "tcp://127.0.0.1:7001 @")
        }
    }

    @Test func theShardIsPartOfTheRunFileKey() {
        let base = ["mdm-update", "--devices", "fleet.txt"]
        #expect(FleetRunFile.key(base + ["--shard", "1/3"]) != FleetRunFile.key(base + ["--shard", "2/3"]))
        #expect(FleetRunFile.key(base + ["--shard", "1/3"]) != FleetRunFile.key(base))
    }

    // MARK: fleet-merge

    static func lines(
        _ verdicts: [FleetVerdict], command: String = "info", shard: String?, seconds: Double = 1,
        input: FleetShardInput? = nil
    ) -> [UInt8] {
        var out = ""
        for verdict in verdicts {
            let fields =
                FleetReporter.endFields(verdict) + [
                    ("device", .string(verdict.device)),
                    ("time", .string("2026-11-25T10:00:0\(verdicts.count % 10).500Z")),
                ]
            out += JSONOutput.Value.object(fields).line + "\n"
        }
        let counts = FleetMerge.Counts(verdicts)
        var summary: [(String, JSONOutput.Value)] = [
            ("event", .string("summary")), ("command", .string(command)), ("earlier", .number("0")),
            ("seconds", .number("\(seconds)")), ("devices", .number("\(counts.devices)")),
            ("succeeded", .number("\(counts.succeeded)")), ("failed", .number("\(counts.failed)")),
            ("notStarted", .number("\(counts.notStarted)")),
        ]
        if let shard { summary.append(("shard", .string(shard))) }
        if let input {
            summary.append(("input", .string(input.fingerprint)))
            summary.append(("pins", .object(input.pins.map { ($0.key, .number("\($0.value)")) })))
        }
        out += JSONOutput.Value.object(summary).line + "\n"
        out += #"{"error":{"code":"fleet-failed","exit":18}}"# + "\n"
        return Array(out.utf8)
    }

    @Test func mergedShardsGiveTheJUnitReportOfOneRun() throws {
        let all = (1...7).map { index -> FleetVerdict in
            index == 3
                ? FleetVerdict.failed(
                    "tcp://h:\(index)", CLIFailure(ExitCodes.timeout, "no answer within 1.0 seconds"), seconds: 1)
                : FleetVerdict.ok("tcp://h:\(index)", seconds: 0.5)
        }
        let reports = [[0, 4], [1, 5, 2], [6, 3]].enumerated().map { part, indices in
            FleetMerge.parse(
                Self.lines(indices.map { all[$0] }, shard: "\(part + 1)/3"), name: "shard-\(part + 1).jsonl")
        }
        #expect(reports.allSatisfy { $0.complete })
        let merged = try FleetMerge.merge(reports)
        #expect(merged.command == "info")
        #expect(merged.verdicts.map(\.device) == FleetVerdict.reportOrder(all).map(\.device))
        let stamp = Date(timeIntervalSince1970: 0)
        #expect(
            JUnitReport.xml(command: "info", verdicts: merged.verdicts, timestamp: stamp, seconds: 1)
                == JUnitReport.xml(
                    command: "info", verdicts: FleetVerdict.reportOrder(all.shuffled()), timestamp: stamp, seconds: 1))
        #expect(merged.started != nil)
    }

    @Test func aMissingShardFailsByName() throws {
        let ok = FleetVerdict.ok("tcp://h:1", seconds: 1)
        let present = FleetMerge.parse(Self.lines([ok], shard: "1/3"), name: "shard-1.jsonl")
        let cut = FleetMerge.parse(
            Array(Self.lines([FleetVerdict.ok("tcp://h:2", seconds: 1)], shard: "2/3").prefix(10)),
            name: "shard-2.jsonl")
        let absent = FleetMerge.parse([], name: "shard-3.jsonl")
        let merged = try FleetMerge.merge([present, cut, absent])
        #expect(merged.verdicts.map(\.device) == ["shard 2/3", "shard 3/3", "tcp://h:1"])
        #expect(merged.verdicts.filter { $0.result == .failed }.count == 2)
        #expect(merged.warnings.count == 2)
        // A report no missing part accounts for fails by its name.
        let whole = FleetMerge.parse(Self.lines([ok], shard: "1/1"), name: "whole.jsonl")
        let extra = try FleetMerge.merge([whole, absent]).verdicts
        #expect(extra.map(\.device) == ["report shard-3.jsonl", "tcp://h:1"], "\(extra)")
        // Nothing usable at all: nothing to merge (not even which command it was).
        #expect(throws: CLIFailure.self) {
            try FleetMerge.merge([absent, FleetMerge.parse(Array("junk\n".utf8), name: "junk")])
        }
    }

    @Test func reportsThatDoNotBelongTogetherAreRefused() {
        let one = FleetMerge.parse(Self.lines([FleetVerdict.ok("tcp://h:1", seconds: 1)], shard: "1/2"), name: "a")
        let twice = FleetMerge.parse(Self.lines([FleetVerdict.ok("tcp://h:2", seconds: 1)], shard: "1/2"), name: "b")
        let otherCount = FleetMerge.parse(
            Self.lines([FleetVerdict.ok("tcp://h:2", seconds: 1)], shard: "2/3"), name: "c")
        let otherCommand = FleetMerge.parse(
            Self.lines([FleetVerdict.ok("tcp://h:2", seconds: 1)], command: "mdm-update", shard: "2/2"), name: "d")
        let sameDevice = FleetMerge.parse(
            Self.lines([FleetVerdict.ok("tcp://h:1", seconds: 1)], shard: "2/2"), name: "e")
        for pair in [[one, twice], [one, otherCount], [one, otherCommand], [one, sameDevice]] {
            #expect(throws: CLIFailure.self) { try FleetMerge.merge(pair) }
        }
        #expect(throws: CLIFailure.self) {
            try FleetMerge.merge([FleetMerge.parse(Array("not json\n".utf8), name: "x")])
        }
    }

    /// Issue 39: a shard whose summary said a terminal failed, with that terminal's `end` line missing or cut, was
    /// merged as a pass (exit 0). The summary's counts are now checked against the lines read.
    @Test func aShardWhoseLinesDoNotAddUpToItsSummaryFails() throws {
        let failed = FleetVerdict.failed("tcp://h:2", CLIFailure(ExitCodes.timeout, "no answer"), seconds: 1)
        let first = FleetMerge.parse(Self.lines([FleetVerdict.ok("tcp://h:1", seconds: 1)], shard: "1/2"), name: "a")
        let whole = Self.lines([FleetVerdict.ok("tcp://h:3", seconds: 1), failed], shard: "2/2")
        var kept = whole.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        #expect(String(decoding: kept[1], as: UTF8.self).contains("tcp://h:2"))
        for (what, line) in [("cut", Array(kept[1].prefix(kept[1].count / 2))), ("missing", nil)] {
            if let line { kept[1] = line } else { kept.remove(at: 1) }
            let second = FleetMerge.parse(Array(kept.joined(separator: [UInt8(ascii: "\n")])), name: "b")
            #expect(!second.complete, "\(what)")
            #expect(
                second.problem?.contains("a line is missing or cut") == true,
                "\(what): \(String(describing: second.problem))")
            let merged = try FleetMerge.merge([first, second])
            #expect(merged.verdicts.contains { $0.device == "shard 2/2" && $0.result == .failed }, "\(what)")
            #expect(
                merged.warnings.contains { $0.contains("its summary counts 2 terminals (1 ok, 1 failed") }, "\(what)")
        }
        // Lines that add up: complete.
        #expect(FleetMerge.parse(whole, name: "b").complete)
    }

    @Test func shardsOfDifferentDevicesFilesAreRefused() throws {
        let devices = Self.fleet(4)
        let one = FleetShardInput(devices)
        let reordered = FleetShardInput(devices.reversed())
        #expect(one == reordered, "the order of the file's lines is not part of the input")
        let other = FleetShardInput(Array(devices.dropLast()))
        var pinned = devices
        pinned[0].host = "bench-a"
        #expect(FleetShardInput(pinned) != one, "a pin is part of the input")
        let a = FleetMerge.parse(
            Self.lines([FleetVerdict.ok("tcp://h:1", seconds: 1)], shard: "1/2", input: one), name: "a")
        let b = FleetMerge.parse(
            Self.lines([FleetVerdict.ok("tcp://h:2", seconds: 1)], shard: "2/2", input: other), name: "b")
        let same = FleetMerge.parse(
            Self.lines([FleetVerdict.ok("tcp://h:2", seconds: 1)], shard: "2/2", input: reordered), name: "c")
        #expect(throws: CLIFailure.self) { try FleetMerge.merge([a, b]) }
        #expect(try FleetMerge.merge([a, same]).verdicts.allSatisfy { $0.result == .ok })
    }

    /// Issue 39: a pin to a mistyped runner dropped its terminal silently.
    @Test func aPinToARunnerNoShardRanAsFails() throws {
        var devices = Self.fleet(3)
        devices[0].host = "bench-a"
        devices[1].host = "bench-c"  // a typo: the runners are bench-a and bench-b
        let input = FleetShardInput(devices)
        let a = FleetMerge.parse(
            Self.lines([FleetVerdict.ok(devices[0].name, seconds: 1)], shard: "1/2@bench-a", input: input), name: "a")
        let b = FleetMerge.parse(
            Self.lines([FleetVerdict.ok(devices[2].name, seconds: 1)], shard: "2/2@bench-b", input: input), name: "b")
        let merged = try FleetMerge.merge([a, b])
        let lost = try #require(merged.verdicts.first { $0.device == "pinned to @bench-c" })
        #expect(lost.result == .failed)
        #expect(
            lost.message?.contains("1 terminal is pinned to the runner bench-c") == true,
            "\(String(describing: lost.message))")
        #expect(merged.verdicts.filter { $0.result == .failed }.count == 1)
    }

    /// The issue's "done when": `ucube fleet-merge` of two shards, one with a terminal's `end` line cut, fails (18),
    /// and says which report and why; the same reports whole pass.
    @Test func aMergedReportWithACutShardLineFails() async throws {
        let sandbox = try UCubeSandbox()
        let first = Self.lines([FleetVerdict.ok("tcp://h:1", seconds: 1)], shard: "1/2")
        let second = Self.lines(
            [FleetVerdict.ok("tcp://h:2", seconds: 1), FleetVerdict.ok("tcp://h:3", seconds: 1)], shard: "2/2")
        var lines = second.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        lines[1] = Array(lines[1].prefix(25))
        let a = sandbox.directory.appendingPathComponent("shard-1.jsonl")
        let b = sandbox.directory.appendingPathComponent("shard-2.jsonl")
        let whole = sandbox.directory.appendingPathComponent("shard-2-whole.jsonl")
        try Data(first).write(to: a)
        try Data(Array(lines.joined(separator: [UInt8(ascii: "\n")]))).write(to: b)
        try Data(second).write(to: whole)
        let cut = try await sandbox.run(["fleet-merge", a.path, b.path])
        #expect(cut.status == 18, "\(cut.stdout)\(cut.stderr)")
        #expect(cut.stderr.contains("shard-2.jsonl: its summary counts 2 terminals"), "\(cut.stderr)")
        #expect(cut.stdout.contains("shard 2/2"), "\(cut.stdout)")
        let merged = try await sandbox.run(["fleet-merge", a.path, whole.path])
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
    }
}
