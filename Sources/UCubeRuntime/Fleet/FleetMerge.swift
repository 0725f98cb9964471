import Foundation

/// `ucube fleet-merge`'s logic (docs/fleet.md "Shards"): the `--json` output of each shard of a fleet run, read back
/// and put together as one run's verdicts. Pure: bytes in, verdicts or a usage error out.
package enum FleetMerge {
    /// What one shard's JSON lines say.
    package struct Report: Equatable {
        /// The file, for messages.
        package let name: String
        /// Why the file could not be read (it is then a missing report).
        package var problem: String? = nil
        package var command: String? = nil
        /// The `summary`'s `shard` (`2/4`, `2/4@bench-a`); nil for an unsharded run.
        package var shard: String? = nil
        /// The run got to its summary: every terminal of the shard has its `end`.
        package var complete = false
        package var seconds: Double = 0
        /// The earliest line's `time`.
        package var started: Date? = nil
        package var verdicts: [FleetVerdict] = []
        /// The `summary`'s counts: what its `end` lines must add up to.
        package var counted: Counts? = nil
        /// The `summary`'s `input` (`FleetShardInput.fingerprint`) and `pins`; nil in a report from before them.
        package var input: String? = nil
        package var pins: [String: Int] = [:]

        package init(
            name: String,
            problem: String? = nil,
            command: String? = nil,
            shard: String? = nil,
            complete: Bool = false,
            seconds: Double = 0,
            started: Date? = nil,
            verdicts: [FleetVerdict] = [],
            counted: Counts? = nil,
            input: String? = nil,
            pins: [String: Int] = [:]
        ) {
            self.name = name
            self.problem = problem
            self.command = command
            self.shard = shard
            self.complete = complete
            self.seconds = seconds
            self.started = started
            self.verdicts = verdicts
            self.counted = counted
            self.input = input
            self.pins = pins
        }

        /// `shard`'s I and N.
        package var part: (index: Int, count: Int)? {
            guard let shard else { return nil }
            return FleetShard.parse(String(shard.prefix { $0 != "@" }))
        }
    }

    /// Terminals by result: a summary's, or its `end` lines'.
    package struct Counts: Equatable, CustomStringConvertible {
        package var devices = 0
        package var succeeded = 0
        package var failed = 0
        package var notStarted = 0

        package init(devices: Int = 0, succeeded: Int = 0, failed: Int = 0, notStarted: Int = 0) {
            (self.devices, self.succeeded, self.failed, self.notStarted) = (devices, succeeded, failed, notStarted)
        }

        package init(_ verdicts: [FleetVerdict]) {
            devices = verdicts.count
            succeeded = verdicts.filter { $0.result == .ok }.count
            failed = verdicts.filter { $0.result == .failed }.count
            notStarted = verdicts.filter { $0.result == .notStarted }.count
        }

        package var description: String {
            "\(devices) terminal\(devices == 1 ? "" : "s") (\(succeeded) ok, \(failed) failed, \(notStarted) not started)"
        }
    }

    /// The merged run.
    package struct Merged {
        package let command: String
        /// In report order (`FleetVerdict.reportOrder`), with a failed verdict for each shard that left no report.
        package let verdicts: [FleetVerdict]
        package let seconds: Double
        package let started: Date?
        /// What stderr should say about the input (a missing or cut-short report).
        package let warnings: [String]
    }

    private struct Line: Decodable {
        let event: String?
        let device: String?
        let command: String?
        let shard: String?
        let seconds: Double?
        let time: String?
        let devices: Int?
        let succeeded: Int?
        let failed: Int?
        let notStarted: Int?
        let input: String?
        let pins: [String: Int]?
    }

    /// An `end`'s `earlier` (a count in the `summary`).
    private struct End: Decodable {
        let earlier: Bool?
    }

    /// Reads one report a line at a time: what is kept is the report's verdicts, never its lines (a shard's progress
    /// events may be hundreds of megabytes). Lines that are not JSON objects (or not a fleet run's) are skipped; the
    /// summary's counts then tell whether one of its `end` lines was among them (`finish`).
    package struct Parser {
        package private(set) var report: Report
        private let decoder = JSONDecoder()
        private let times: ISO8601DateFormatter = {
            let times = ISO8601DateFormatter()
            times.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return times
        }()

        package init(name: String) { report = Report(name: name) }

        package mutating func add(_ text: String) {
            // Only a line that may be an event is decoded: a progress line costs a search, not a parse.
            guard text.utf8.first == UInt8(ascii: "{") else { return }
            let data = Data(text.utf8)
            guard let line = try? decoder.decode(Line.self, from: data) else { return }
            if let time = line.time.flatMap(times.date(from:)), report.started.map({ time < $0 }) ?? true {
                report.started = time
            }
            switch line.event {
            case "end"?:
                guard line.device != nil, var verdict = try? decoder.decode(FleetVerdict.self, from: data) else {
                    return
                }
                verdict.earlier = (try? decoder.decode(End.self, from: data))?.earlier ?? false
                report.verdicts.append(verdict)
            case "summary"? where line.device == nil:
                report.command = line.command
                report.shard = line.shard
                report.seconds = line.seconds ?? 0
                report.input = line.input
                report.pins = line.pins ?? [:]
                report.counted = Counts(
                    devices: line.devices ?? 0, succeeded: line.succeeded ?? 0, failed: line.failed ?? 0,
                    notStarted: line.notStarted ?? 0)
                report.complete = true
            default:
                return
            }
        }

        /// The report, its summary checked against the `end` lines read: a report whose lines do not add up to its
        /// summary (a line missing or cut) is not complete, and says why.
        package func finish() -> Report {
            var report = report
            if report.complete, let counted = report.counted {
                let read = Counts(report.verdicts)
                if read != counted {
                    report.complete = false
                    report.problem =
                        "its summary counts \(counted), its end lines \(read): a line is missing or cut"
                }
            }
            return report
        }
    }

    /// One report's JSON lines, all in memory (tests; `fleet-merge` streams each file through a `Parser`).
    package static func parse(_ bytes: [UInt8], name: String) -> Report {
        var parser = Parser(name: name)
        for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            parser.add(String(decoding: raw, as: UTF8.self))
        }
        return parser.finish()
    }

    /// The reports as one run: usage errors (exit 64) for reports that cannot belong together (other commands, other
    /// numbers of shards, a shard or a terminal twice, a sharded and an unsharded run); a failed verdict named
    /// `shard I/N` for each part none of the complete reports is, and one named after a report that is missing or
    /// cut short when no such part accounts for it.
    package static func merge(_ reports: [Report]) throws(CLIFailure) -> Merged {
        let complete = reports.filter(\.complete)
        let commands = Set(complete.compactMap(\.command))
        guard commands.count <= 1 else {
            throw CLIFailure(
                ExitCodes.usage, "the reports are of different commands: \(commands.sorted().joined(separator: ", "))")
        }
        guard let command = commands.first ?? reports.compactMap(\.command).first else {
            throw CLIFailure(
                ExitCodes.usage,
                "no report to merge: \(reports.map(\.name).joined(separator: ", ")) hold no fleet run's summary",
                hint: "give the files where each shard's `ucube --json … --shard I/N` output went")
        }
        var warnings: [String] = []
        var verdicts: [FleetVerdict] = []
        var origin: [String: String] = [:]
        let counts = Set(complete.map { $0.part?.count ?? 0 })
        guard counts.count <= 1 else {
            throw CLIFailure(
                ExitCodes.usage,
                "the reports are of different runs: \(complete.map { "\($0.name) (\($0.shard.map { "shard \($0)" } ?? "unsharded"))" }.joined(separator: ", "))"
            )
        }
        let inputs = Set(complete.map { $0.input ?? "none" })
        guard inputs.count <= 1 else {
            throw CLIFailure(
                ExitCodes.usage,
                "the shards read different lists of terminals: \(complete.map { "\($0.name) (\(String(($0.input ?? "no fingerprint").prefix(12))))" }.joined(separator: ", "))",
                hint: "every shard of one run needs the same devices file and --device options")
        }
        // No complete report at all: which parts exist is unknown, each report given is named.
        let count = counts.first ?? 0
        var seen: [Int: String] = [:]
        for report in complete {
            if let index = report.part?.index {
                if let first = seen[index] {
                    throw CLIFailure(
                        ExitCodes.usage, "shard \(index)/\(count) is in two reports: \(first) and \(report.name)")
                }
                seen[index] = report.name
            } else if let first = seen[0] {
                throw CLIFailure(ExitCodes.usage, "two unsharded runs, \(first) and \(report.name): nothing to merge")
            } else {
                seen[0] = report.name
            }
        }
        // The terminals a cut-short report did finish count; its shard is still missing (it has no summary).
        for report in reports {
            for verdict in report.verdicts {
                if let first = origin[verdict.device] {
                    throw CLIFailure(
                        ExitCodes.usage, "\(verdict.device) is in two reports: \(first) and \(report.name)")
                }
                origin[verdict.device] = report.name
                verdicts.append(verdict)
            }
        }
        // A terminal pinned to a runner that no shard ran as (`--shard-host`, a name mistyped) was driven by nobody.
        let runners = Set(
            complete.compactMap { $0.shard?.split(separator: "@", maxSplits: 1).dropFirst().first.map(String.init) })
        var pins: [String: Int] = [:]
        for report in complete { pins.merge(report.pins) { max($0, $1) } }
        for (runner, pinned) in pins.sorted(by: { $0.key < $1.key }) where !runners.contains(runner) {
            verdicts.append(
                missing(
                    "pinned to @\(runner)",
                    because:
                        "\(pinned) terminal\(pinned == 1 ? " is" : "s are") pinned to the runner \(runner), and no shard ran as --shard-host \(runner)\(runners.isEmpty ? "" : " (the runners: \(runners.sorted().joined(separator: ", ")))"): not driven"
                ))
        }
        let gaps = count == 0 ? [] : (1...count).filter { seen[$0] == nil }
        for index in gaps {
            verdicts.append(
                missing(
                    "shard \(index)/\(count)",
                    because: "no complete report from this shard: its terminals are not accounted for"))
        }
        let unusable = reports.filter { !$0.complete }
        for report in unusable {
            let why =
                report.problem
                ?? (report.verdicts.isEmpty && report.command == nil ? "no fleet run in it" : "cut short (no summary)")
            warnings.append("\(report.name): \(why)")
        }
        if gaps.count < unusable.count {
            for report in unusable.dropFirst(gaps.count) {
                verdicts.append(missing("report \(report.name)", because: "not a complete report of a shard"))
            }
        }
        return Merged(
            command: command, verdicts: FleetVerdict.reportOrder(verdicts), seconds: complete.map(\.seconds).max() ?? 0,
            started: reports.compactMap(\.started).min(), warnings: warnings)
    }

    /// The failed verdict of a shard, or a report, that is not there.
    package static func missing(_ name: String, because reason: String) -> FleetVerdict {
        FleetVerdict(
            device: name, result: .failed, exit: ExitCodes.fleetFailed.code, exitName: ExitCodes.fleetFailed.name,
            message: reason)
    }
}
