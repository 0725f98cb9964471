import ArgumentParser
import Foundation
import Synchronization
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator
import UCubeSupport

extension UCube {
    /// `ucube test SUITE`: runs a suite of scripted payments and reports each case as TAP or JUnit (docs/suites.md).
    struct Test: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Run a suite of scripted payments and check each outcome (TAP or JUnit).",
            discussion: """
                SUITE is a JSON file of cases (docs/suites.md; Suites/payments.json is the shipped one). Each case \
                names a card (a simulator scenario, or a card image described in the suite), a payment request and \
                the expected status, and optionally TVR (95), TSI (9B), CVM results (9F34) and cryptogram type \
                (9F27). With --device sim each case runs against the built-in simulator holding its card. With \
                another device, each case's instruction ("insert test card 3") is printed on stderr and, when \
                stdin is a terminal, the run waits for Enter (at most --operator-timeout seconds; Ctrl-C, SIGTERM or \
                `ucube cancel` stop the run there, the cases not started reported as SKIP) unless --unattended; a terminal served by `ucube simulate --suite FILE --suite-card NAME` needs \
                --unattended and --case. Results go to stdout (or --output FILE) as TAP 13; --junit FILE writes \
                JUnit XML besides (--format junit, which put JUnit XML in TAP's place, is deprecated). Exit 0 when every case passes, 17 when one fails, 65 for a suite that is not \
                valid (the message names the case and field), 64 for an unknown --case. With several terminals \
                (--device repeated, --devices FILE), a fleet run, unattended: --junit FILE has a testsuite per \
                terminal, and the run exits 18 when a case failed on one (docs/fleet.md).
                """ + HelpExamples.section("test"))

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case tap, junit
        }

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var fleet: FleetOptions

        @Argument(
            help: ArgumentHelp("The suite file (JSON).", valueName: "suite"), completion: .file(extensions: ["json"]))
        var suite: String

        @Option(
            help:
                "Deprecated: write JUnit XML with --junit FILE. The format of stdout or --output: tap (TAP 13) or junit (JUnit XML instead of TAP)."
        )
        var format: Format = .tap

        @Option(help: ArgumentHelp("Write the report to FILE instead of stdout.", valueName: "file"))
        var output: String?

        @Option(
            name: .customLong("case"), help: ArgumentHelp("Run only this case (repeatable).", valueName: "name"),
            completion: .custom { words, index, prefix in
                SuiteCompletion.caseNames(words, index: index, prefix: prefix)
            })
        var cases: [String] = []

        @Flag(help: "On a real terminal, do not wait for the operator before each case.")
        var unattended = false

        @Option(help: ArgumentHelp("Seconds to wait for the operator before each case, 1…3600.", valueName: "seconds"))
        var operatorTimeout: Int = 300

        func validate() throws {
            guard (1...3600).contains(operatorTimeout) else {
                throw ValidationError("--operator-timeout must be 1 to 3600")
            }
        }

        func run(in context: CommandContext) async throws {
            // `--junit FILE` alone, on one terminal: the suite's JUnit report besides its TAP, as a run on one
            // terminal writes it, not a fleet of one.
            var fleetValues = fleet.values
            var junit: String? = nil
            if context.givenDevices.count <= 1, let file = fleetValues.junit {
                fleetValues.junit = nil
                if fleetValues.asked { fleetValues.junit = file } else { junit = file }
            }
            // Several terminals (docs/fleet.md): the suite on each, unattended; each case is a `case` event of its
            // terminal, and --junit has a testsuite per terminal.
            if let run = try FleetRun(command: "test", context: context, options: fleetValues, inputs: [suite]) {
                if output != nil || format != .tap {
                    throw CLIFailure(
                        ExitCodes.usage,
                        "a fleet run reports with --junit FILE (a testsuite per terminal) and --json: not --output or --format"
                    )
                }
                _ = try PaymentSuite.load(path: suite).select(cases)
                try await run.run { [self] device in
                    try await runSuite(context.single(device, json: true), inFleet: true, junit: nil)
                }
                return
            }
            if format == .junit {
                if junit != nil {
                    throw CLIFailure(
                        ExitCodes.usage, "--junit FILE writes the JUnit report: drop the deprecated --format junit")
                }
                // CI scripts still use the old spelling: it works as it did, and says once what replaces it.
                StandardError.write(
                    "ucube: warning: --format junit is deprecated: --junit FILE writes the JUnit report (and TAP stays on stdout, or goes to --output)"
                )
            }
            try await runSuite(context, inFleet: false, junit: junit)
        }

        /// The suite on the one terminal of `context`. In a fleet run: unattended, and each case a JSON `case` event
        /// (`case`, `result` passed/failed/not-run, `error`, `seconds`) instead of the TAP or JUnit report. `junit`:
        /// where the JUnit report goes besides the TAP (one terminal).
        private func runSuite(_ context: CommandContext, inFleet: Bool, junit: String?) async throws {
            let loaded = try PaymentSuite.load(path: suite)
            let selected = try loaded.select(cases)
            try Environment.requireStateDirectory()
            if let output { try Environment.checkOutputFile(output, option: "--output") }
            let junit = junit.map { ($0 as NSString).expandingTildeInPath }
            if let junit { try Environment.checkOutputFile(junit, option: "--junit") }
            let timestamp = Date()
            // TAP on stdout streams, a line per case as it ends: a run killed or timed out still says how far it got.
            let streaming = format == .tap && output == nil && !inFleet
            // A report on stdout is the command's result: with --json, no error object is appended to it.
            if output == nil && !inFleet { Console.noteResult() }
            // Attended on a real terminal (not in a fleet, not --unattended, someone to answer): the operator presses
            // Enter before each case.
            let prompts = inFleet || unattended ? nil : context.prompts
            let timeout = operatorTimeout
            let run = SuiteRun(
                suite: loaded, cases: selected, path: suite, context: context, inFleet: inFleet, unattended: unattended,
                waitForOperator: prompts.map { prompts in
                    SuiteRun.Operator(timeout: timeout) { stop in
                        await OperatorWait.enter(timeout: .seconds(timeout), from: prompts, stop: stop)
                    }
                })
            let outcome = try await run.run(
                reporting: SuiteReporter(mode: inFleet ? .fleet : streaming ? .tap : .stderr))
            let results = outcome.results
            if streaming {
                Console.out(SuiteReport.tapFooter(results))
            } else if !inFleet {
                let report =
                    format == .tap
                    ? SuiteReport.tap(results, suite: loaded.name)
                    : SuiteReport.junit(results, suite: loaded.name, timestamp: timestamp)
                if let output {
                    try Environment.writeOutput(report, to: output, what: "the report")
                } else {
                    Console.out(report)
                }
            }
            if let junit {
                try Environment.writeOutput(
                    SuiteReport.junit(results, suite: loaded.name, timestamp: timestamp), to: junit,
                    what: "the JUnit report")
            }
            if let failure = outcome.failure { throw failure }
        }
    }
}
