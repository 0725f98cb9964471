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
            let address = try Connection.resolve(nil, context)
            let simulated = address == .simulator
            try Environment.requireStateDirectory()
            if let output { try Environment.checkOutputFile(output, option: "--output") }
            let junit = junit.map { ($0 as NSString).expandingTildeInPath }
            if let junit { try Environment.checkOutputFile(junit, option: "--junit") }
            let journal = PaymentJournal(path: Environment.journalPath)
            let timestamp = Date()
            var results: [SuiteResult] = []
            // TAP on stdout streams, a line per case as it ends: a run killed or timed out still says how far it got.
            let streaming = format == .tap && output == nil && !inFleet
            // A report on stdout is the command's result: with --json, no error object is appended to it.
            if output == nil && !inFleet { Console.noteResult() }
            // Ctrl-C, SIGTERM, SIGHUP or `ucube cancel` stop the whole run, not only the case that runs: it is
            // cancelled as a payment is, reported as interrupted, and the cases after it as not run.
            let stop = StopRequest()
            let interrupts = Interrupts.onInterrupt { stop.request() }
            defer { interrupts.cancel() }
            if streaming { Console.out(SuiteReport.tapHeader(count: selected.count, suite: loaded.name)) }
            // A terminal that cannot be reached fails the run, not each case: checked before the first one.
            if !simulated {
                do {
                    _ = try await withConnection(context, prepare: .asRecorded) { connection in
                        try await connection.client.send(GetInfo(tags: [0xC4]))
                    }
                } catch {
                    let failure = CLIFailure(reporting: error)
                    if streaming { Console.out("Bail out! \(LogScrubber.scrub(OneLine.flattened(failure.message)))\n") }
                    throw failure
                }
            }
            // In an unattended run (a fleet, --unattended, or nobody to answer a prompt), a `ucube simulate` of this
            // user at that address is steered to each case's card (`ucube sim suite`); an operator at a terminal is
            // asked as for a real one.
            let unattendedRun = inFleet || unattended || context.prompts == nil
            let steering =
                simulated || !unattendedRun ? nil : await SuiteSteering.probe(device: address.description)
            // Attended on a real terminal: `ucube cancel` finds this process while it waits for the operator too,
            // not only while a case's link is open.
            let waitsForOperator = !simulated && !inFleet && !unattended && context.prompts != nil
            if waitsForOperator { await ControlSocket.listen(forDevice: address.description) }
            for (index, suiteCase) in selected.enumerated() {
                let result: SuiteResult
                if stop.isRequested {
                    result = .notRun(suiteCase, because: "not run: the run was stopped")
                } else if let reason = await setUpUnattended(
                    suiteCase, steering: steering, simulated: simulated, inFleet: inFleet)
                {
                    result = .notRun(suiteCase, because: reason)
                } else {
                    result = await runCase(
                        suiteCase, context: context, index: index, of: selected.count, suite: loaded,
                        simulated: simulated,
                        journal: journal,
                        stop: stop, attended: !inFleet, steered: steering != nil)
                }
                results.append(result)
                if inFleet, let device = DeviceOutput.current {
                    device.report(
                        .testCase(
                            FleetVerdict.Item(
                                item: suiteCase.name,
                                result: result.notRun != nil ? "not-run" : result.passed ? "passed" : "failed",
                                error: result.passed
                                    ? nil : LogScrubber.scrub(result.notRun ?? SuiteReport.summary(result)),
                                seconds: result.seconds)))
                } else if streaming {
                    Console.out(SuiteReport.tapEntry(result, number: index + 1))
                } else if result.notRun == nil {
                    StandardError.write("\(result.passed ? "ok" : "not ok") \(index + 1) - \(suiteCase.name)")
                }
            }
            if waitsForOperator { await ControlSocket.stopListening(forDevice: address.description) }
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
            if stop.isRequested {
                let interrupted = results.filter(\.interrupted).map(\.suiteCase.name)
                let notRun = results.filter { $0.notRun != nil }.count
                throw CLIFailure(
                    ExitCodes.cancelled,
                    "the run was stopped: \(interrupted.isEmpty ? "" : "\(Self.names(interrupted)) interrupted, ")\(notRun) of \(results.count) cases not run"
                )
            }
            try Self.verdict(results)
        }

        /// Sets the case up without an operator: a steerable simulator is given the case's card, PIN and choices; in
        /// a fleet run (unattended), a terminal nobody can steer cannot present the case's card (unless
        /// --unattended says it is arranged). nil: the case can run; else why it is skipped.
        private func setUpUnattended(
            _ suiteCase: SuiteCase, steering: SuiteSteering?, simulated: Bool, inFleet: Bool
        ) async -> String? {
            guard !simulated else { return nil }
            if let steering {
                return await steering.present(suite: Self.absolute(suite), case: suiteCase.name)
            }
            guard inFleet && !unattended else { return nil }
            return
                "cannot be set up unattended: nobody presents the card '\(suiteCase.card)' (the terminal is not a `ucube simulate` of this user that `ucube sim` steers; --unattended runs it anyway)"
        }

        /// `path` from the current directory, for a simulator that runs in another.
        static func absolute(_ path: String) -> String {
            let expanded = (path as NSString).expandingTildeInPath
            return expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
        }

        /// Runs one case (after the operator, on a real terminal) and compares its outcome with the expected one.
        private func runCase(
            _ suiteCase: SuiteCase, context: CommandContext, index: Int, of count: Int, suite loaded: PaymentSuite,
            simulated: Bool,
            journal: PaymentJournal, stop: StopRequest, attended: Bool, steered: Bool
        ) async -> SuiteResult {
            let scenario = loaded.scenario(for: suiteCase)
            if steered {
                StandardError.write(
                    "case \(index + 1)/\(count) \(suiteCase.name): the simulator presents '\(suiteCase.card)' (steered)"
                )
            }
            if !simulated && !steered {
                StandardError.write("case \(index + 1)/\(count) \(suiteCase.name): \(suiteCase.instruction)")
                if attended && !unattended, let prompts = context.prompts {
                    // `ucube cancel` stops the run while it waits for the operator, as Ctrl-C does (a payment of an
                    // earlier case left its own route behind).
                    ControlSocket.route {
                        if stop.isRequested { return CancelAnswer(.already, "the suite run is already stopping") }
                        stop.request()
                        return CancelAnswer(.accepted, "stopping the suite run")
                    }
                    let answer = await OperatorWait.enter(
                        timeout: .seconds(operatorTimeout), from: prompts, stop: stop)
                    switch answer {
                    case .ready:
                        break
                    case .stopped:
                        return .notRun(suiteCase, because: "not run: the run was stopped")
                    case .ended, .timedOut:
                        let observation = SuiteObservation(
                            failure: answer == .ended
                                ? "the input ended before the operator pressed Enter"
                                : "the operator did not answer within \(operatorTimeout) s")
                        return SuiteResult(
                            suiteCase: suiteCase, observation: observation,
                            mismatches: SuiteResult.compare(suiteCase.expect, observation), seconds: 0)
                    }
                }
            }
            let started = ContinuousClock.now
            let observation: SuiteObservation
            do {
                let request = try suiteCase.request.paymentRequest(
                    readers: scenario.readers, requestID: UUID().uuidString, cvmTag: suiteCase.expect.cvmResult != nil)
                let payment = try await withConnection(context, card: simulated ? scenario : nil, prepare: .payment) {
                    connection in
                    let selection = try suiteCase.request.selectionTask()
                    let authorization = try suiteCase.request.authorizationTask(context)
                    let payment = await PaymentRunner.run(
                        on: connection, shell: context.shell, request: request, selection: selection,
                        authorization: authorization,
                        journal: journal, quiet: true, cancelAfter: suiteCase.request.cancelAfter,
                        onStop: { stop.request() }, early: stop)
                    // A host's approval the case's payment did not keep is reversed (docs/authorization.md).
                    _ = await (authorization as? HostAuthorization)?.settle(payment)
                    return payment
                }
                observation = SuiteObservation(payment)
            } catch {
                // The link could not be opened or the request is not valid: the case fails, the suite goes on.
                observation = SuiteObservation(failure: CLIFailure(reporting: error).message)
            }
            let elapsed = ContinuousClock.now - started
            let seconds = elapsed.seconds
            var result = SuiteResult(
                suiteCase: suiteCase, observation: observation,
                mismatches: SuiteResult.compare(suiteCase.expect, observation), seconds: seconds)
            result.interrupted = stop.isRequested
            return result
        }

        /// Case names for a message (and a fleet table's row): the first few, then how many more, so that a suite
        /// of 41 failing cases is one readable line.
        static func names(_ names: [String], first: Int = 3) -> String {
            names.count <= first + 1
                ? names.joined(separator: ", ")
                : names.prefix(first).joined(separator: ", ") + " and \(names.count - first) more"
        }

        /// Exit 17 naming the failed cases, when any failed.
        private static func verdict(_ results: [SuiteResult]) throws {
            // A case skipped because it cannot be set up unattended is not a failure (TAP `# SKIP`).
            let failed = results.filter { !$0.passed && $0.notRun == nil }
            if !failed.isEmpty {
                throw CLIFailure(
                    ExitCodes.testFailed,
                    "\(failed.count) of \(results.count) cases failed: \(Self.names(failed.map(\.suiteCase.name)))"
                )
            }
        }

    }
}

/// Waits for the operator to press Enter before a case (on a real terminal, attended): at most the timeout, and no
/// longer than a stop (Ctrl-C, SIGTERM, SIGHUP, `ucube cancel`) takes to arrive.
enum OperatorWait {
    /// How the wait ended.
    enum Answer: Equatable, Sendable {
        /// Enter.
        case ready
        /// The input ended (Ctrl-D, a closed terminal) or Ctrl-C at the shell's prompt.
        case ended
        /// The timeout passed first.
        case timedOut
        /// The run was stopped: the case did not start.
        case stopped
    }

    static func enter(timeout: Duration, from source: PromptSource, stop: StopRequest) async -> Answer {
        await withTaskGroup(of: Answer.self) { group in
            group.addTask {
                await Terminal.readLine(prompt: "press Enter when ready: ", from: source) != nil ? .ready : .ended
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .timedOut
            }
            group.addTask {
                await stop.wait()
                return .stopped
            }
            // The first to end decides; the others are cancelled (the read's thread is woken and ends).
            let first = await group.next() ?? .ended
            group.cancelAll()
            // A stop that ended the read (Ctrl-C at the shell's prompt) is a stop, not the end of the input.
            return first == .ended && stop.isRequested ? .stopped : first
        }
    }
}

/// The steering of the simulator a suite runs on (`ucube sim`, docs/suites.md "Running a suite"): each case's card
/// image or catalogue card, with its PIN and list-box choices, presented by the next card wait.
struct SuiteSteering: Sendable {
    let device: String
    let path: String

    /// The steering of `device`, when a `ucube simulate` of this user serves it; nil otherwise (a real terminal).
    static func probe(device: String) async -> SuiteSteering? {
        let path = SteeringSocket.path(forDevice: device)
        guard FileManager.default.fileExists(atPath: path),
            case .answered(let line) = await ControlSocket.request("status", at: path),
            SteeringAnswer(line: line)?.ok == true
        else { return nil }
        return SuiteSteering(device: device, path: path)
    }

    /// Sets the simulator up for the case; nil when it took it, else why the case cannot run.
    func present(suite: String, case name: String) async -> String? {
        let line = ["suite", suite, name].map(ShellWords.quote).joined(separator: " ")
        guard case .answered(let text) = await ControlSocket.request(line, at: path) else {
            return "cannot be set up unattended: the simulator at \(device) no longer takes steering"
        }
        guard let answer = SteeringAnswer(line: text), answer.ok else {
            return
                "cannot be set up unattended: the simulator at \(device) refused the case: \(SteeringAnswer(line: text)?.error ?? text)"
        }
        return nil
    }
}
