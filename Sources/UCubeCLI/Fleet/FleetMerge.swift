import Foundation

/// `ucube fleet-merge`'s logic (docs/fleet.md "Shards"): the `--json` output of each shard of a fleet run, read back
/// and put together as one run's verdicts. Pure: bytes in, verdicts or a usage error out.
enum FleetMerge {
    /// What one shard's JSON lines say.
    struct Report: Equatable {
        /// The file, for messages.
        let name: String
        /// Why the file could not be read (it is then a missing report).
        var problem: String? = nil
        var command: String? = nil
        /// The `summary`'s `shard` (`2/4`, `2/4@bench-a`); nil for an unsharded run.
        var shard: String? = nil
        /// The run got to its summary: every terminal of the shard has its `end`.
        var complete = false
        var seconds: Double = 0
        /// The earliest line's `time`.
        var started: Date? = nil
        var verdicts: [FleetVerdict] = []

        /// `shard`'s I and N.
        var part: (index: Int, count: Int)? {
            guard let shard else { return nil }
            return FleetShard.parse(String(shard.prefix { $0 != "@" }))
        }
    }

    /// The merged run.
    struct Merged {
        let command: String
        /// In report order (`FleetVerdict.reportOrder`), with a failed verdict for each shard that left no report.
        let verdicts: [FleetVerdict]
        let seconds: Double
        let started: Date?
        /// What stderr should say about the input (a missing or cut-short report).
        let warnings: [String]
    }

    private struct Line: Decodable {
        let event: String?
        let device: String?
        let command: String?
        let shard: String?
        let seconds: Double?
        let time: String?
    }

    /// An `end`'s `earlier` (a count in the `summary`).
    private struct End: Decodable {
        let earlier: Bool?
    }

    /// One report's JSON lines; lines that are not JSON objects (or not a fleet run's) are skipped.
    static func parse(_ bytes: [UInt8], name: String) -> Report {
        var report = Report(name: name)
        let decoder = JSONDecoder()
        let times = ISO8601DateFormatter()
        times.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for raw in bytes.split(separator: UInt8(ascii: "\n")) {
            let data = Data(raw)
            guard let line = try? decoder.decode(Line.self, from: data) else { continue }
            if let time = line.time.flatMap(times.date(from:)), report.started.map({ time < $0 }) ?? true {
                report.started = time
            }
            switch line.event {
            case "end"?:
                guard line.device != nil, var verdict = try? decoder.decode(FleetVerdict.self, from: data) else {
                    continue
                }
                verdict.earlier = (try? decoder.decode(End.self, from: data))?.earlier ?? false
                report.verdicts.append(verdict)
            case "summary"? where line.device == nil:
                report.command = line.command
                report.shard = line.shard
                report.seconds = line.seconds ?? 0
                report.complete = true
            default:
                continue
            }
        }
        return report
    }

    /// The reports as one run: usage errors (exit 64) for reports that cannot belong together (other commands, other
    /// numbers of shards, a shard or a terminal twice, a sharded and an unsharded run); a failed verdict named
    /// `shard I/N` for each part none of the complete reports is, and one named after a report that is missing or
    /// cut short when no such part accounts for it.
    static func merge(_ reports: [Report]) throws(CLIFailure) -> Merged {
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
    static func missing(_ name: String, because reason: String) -> FleetVerdict {
        FleetVerdict(
            device: name, result: .failed, exit: ExitCodes.fleetFailed.code, exitName: ExitCodes.fleetFailed.name,
            message: reason)
    }
}
