import ArgumentParser
import Foundation
import UCubeRuntime

extension UCube {
    /// `ucube fleet-merge`: the shards of a fleet run (`--shard I/N`, one per CI job) as one run.
    struct FleetMergeCommand: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "fleet-merge",
            abstract:
                "Merge the shards of a fleet run (--shard I/N) into one summary, one JUnit report and one exit code.",
            discussion: """
                Each REPORT is the --json output (JSON lines) of one shard: `ucube --json info --devices FILE --shard \
                2/4 > shard-2.jsonl`. The merged summary table (or, with --json, each terminal's `end` and the \
                `summary`), the --junit report and the exit code are those of one process running the whole fleet \
                with the same outcomes: 0 when every terminal succeeded, 18 otherwise. A shard with no complete \
                report (its job failed before the end, its file is missing) counts as a failed terminal named \
                `shard I/N`. See docs/fleet.md.
                """ + HelpExamples.section("fleet-merge"))

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The --json output of each shard.", valueName: "report"), completion: .file())
        var reports: [String] = []

        @Option(
            help: ArgumentHelp("Write the merged JUnit XML report to FILE.", valueName: "file"), completion: .file())
        var junit: String?

        func validate() throws {
            if reports.isEmpty { throw ValidationError("give the reports to merge: each shard's --json output") }
            if reports.count > FleetChoices.maximumDevices {
                throw ValidationError("at most \(FleetChoices.maximumDevices) reports")
            }
        }

        func run(in context: CommandContext) async throws {
            let junit = junit.map { ($0 as NSString).expandingTildeInPath }
            if let junit { try Environment.checkOutputDirectory(of: junit, option: "--junit") }
            var parsed: [FleetMerge.Report] = []
            for path in reports {
                // A line at a time: what is held is each report's verdicts, not its lines.
                var parser = FleetMerge.Parser(name: path)
                do {
                    let fd = try BoundedFile.open(
                        (path as NSString).expandingTildeInPath, limit: FleetChoices.maximumReportSize)
                    defer { close(fd) }
                    var lines = BoundedFile.Lines(descriptor: fd, limit: FleetChoices.maximumReportSize)
                    while let line = try lines.next() { parser.add(line) }
                    parsed.append(parser.finish())
                } catch {
                    switch error {
                    case .unreadable(let why):
                        // A shard's job that died before writing: a missing report, failed by name, not a usage error.
                        parsed.append(FleetMerge.Report(name: path, problem: "cannot read it: \(why)"))
                    case .tooLarge:
                        throw CLIFailure(
                            ExitCodes.usage,
                            "the report \(path) is over \(BoundedFile.limitText(FleetChoices.maximumReportSize)): not a shard's JSON lines"
                        )
                    }
                }
            }
            let merged = try FleetMerge.merge(parsed)
            let reporter = FleetReporter(
                command: merged.command, json: context.json, total: merged.verdicts.count, stderrIsTTY: false)
            for warning in merged.warnings { reporter.warn(warning) }
            if context.json { for verdict in merged.verdicts { reporter.ended(verdict) } }
            reporter.summary(merged.verdicts, seconds: merged.seconds)
            if let junit {
                try FleetRun.writeJUnit(
                    junit, command: merged.command, verdicts: merged.verdicts, timestamp: merged.started ?? Date(),
                    seconds: merged.seconds)
            }
            let failed = merged.verdicts.filter { $0.result == .failed }.count
            let notStarted = merged.verdicts.filter { $0.result == .notStarted }.count
            guard failed == 0 && notStarted == 0 else {
                throw FleetRun.failedRun(
                    failed: failed, notStarted: notStarted, of: merged.verdicts.count,
                    hint: "each failed terminal's verdict is in the table and the JUnit report; run its shard again")
            }
        }
    }
}
