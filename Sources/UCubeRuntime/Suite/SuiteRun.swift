import Foundation
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator
import UCubeSupport

/// One suite's cases on one terminal (`ucube test`, docs/suites.md): each case's card presented (the built-in
/// simulator holds it, a steered `ucube simulate` is given it, or the operator is asked), its payment run, and its
/// outcome compared with the expected one. Reports each case to a `SuiteRunReporting` as it ends; the command line
/// renders TAP, JUnit or a fleet's events from those. Ctrl-C, SIGTERM, SIGHUP or `ucube cancel` stop the whole run,
/// not only the case that runs: that case is cancelled as a payment is and reported as interrupted, the cases after it
/// as not run.
package struct SuiteRun: Sendable {
    /// How the run waits for the operator before each case on a real terminal (the command line's prompt).
    package struct Operator: Sendable {
        /// At most this long, in seconds.
        package let timeout: Int
        /// Waits for Enter, at most `timeout` and no longer than `stop` takes to arrive.
        package let ready: @Sendable (_ stop: StopRequest) async -> OperatorAnswer

        package init(timeout: Int, ready: @escaping @Sendable (_ stop: StopRequest) async -> OperatorAnswer) {
            self.timeout = timeout
            self.ready = ready
        }
    }

    package let suite: PaymentSuite
    package let cases: [SuiteCase]
    /// The suite's file, for a simulator that runs in another directory (`ucube sim suite FILE CASE`).
    package let path: String
    /// The one terminal the cases run on.
    package let context: CommandContext
    /// A terminal of a fleet run: unattended, and a case nobody can set up is skipped (unless `unattended`).
    package let inFleet: Bool
    /// `--unattended`: the cases run without the operator, as the terminal presents them.
    package let unattended: Bool
    /// nil: nobody is waited for (a fleet run, --unattended, nobody to answer a prompt); a steerable simulator is
    /// then given each case's card.
    package let waitForOperator: Operator?

    package init(
        suite: PaymentSuite, cases: [SuiteCase], path: String, context: CommandContext, inFleet: Bool,
        unattended: Bool, waitForOperator: Operator?
    ) {
        self.suite = suite
        self.cases = cases
        self.path = Self.absolute(path)
        self.context = context
        self.inFleet = inFleet
        self.unattended = unattended
        self.waitForOperator = waitForOperator
    }

    /// What a run gave: each case's result, in suite order, and whether it was stopped.
    package struct Outcome: Sendable {
        package let results: [SuiteResult]
        package let stopped: Bool

        package init(results: [SuiteResult], stopped: Bool) {
            self.results = results
            self.stopped = stopped
        }

        /// Exit 11 (cancelled) naming the interrupted case when the run was stopped; exit 17 naming the failed cases
        /// when one failed; nil when every case that ran passed. A case skipped because it cannot be set up
        /// unattended is not a failure (TAP `# SKIP`).
        package var failure: CLIFailure? {
            if stopped {
                let interrupted = results.filter(\.interrupted).map(\.suiteCase.name)
                let notRun = results.filter { $0.notRun != nil }.count
                return CLIFailure(
                    ExitCodes.cancelled,
                    "the run was stopped: \(interrupted.isEmpty ? "" : "\(SuiteRun.names(interrupted)) interrupted, ")\(notRun) of \(results.count) cases not run"
                )
            }
            let failed = results.filter { !$0.passed && $0.notRun == nil }
            guard !failed.isEmpty else { return nil }
            return CLIFailure(
                ExitCodes.testFailed,
                "\(failed.count) of \(results.count) cases failed: \(SuiteRun.names(failed.map(\.suiteCase.name)))")
        }
    }

    /// Runs the cases in order. Throws only when the terminal cannot be reached before the first case; a case whose
    /// payment cannot run fails, and the run goes on.
    package func run(reporting reporter: any SuiteRunReporting) async throws -> Outcome {
        let address = try Connection.resolve(nil, context)
        let simulated = address == .simulator
        let journal = PaymentJournal(path: Environment.journalPath)
        let stop = StopRequest()
        let interrupts = Interrupts.onInterrupt { stop.request() }
        defer { interrupts.cancel() }
        reporter.started(suite: suite.name, count: cases.count)
        // A terminal that cannot be reached fails the run, not each case: checked before the first one.
        if !simulated {
            do {
                _ = try await withConnection(context, prepare: .asRecorded) { connection in
                    try await connection.client.send(GetInfo(tags: [0xC4]))
                }
            } catch {
                let failure = CLIFailure(reporting: error)
                reporter.unreachable(failure)
                throw failure
            }
        }
        // Unattended, a `ucube simulate` of this user at that address is steered to each case's card
        // (`ucube sim suite`); an operator at a terminal is asked as for a real one.
        let steering =
            simulated || waitForOperator != nil ? nil : await SuiteSteering.probe(device: address.description)
        // Attended on a real terminal: `ucube cancel` finds this process while it waits for the operator too, not only
        // while a case's link is open.
        let listens = !simulated && waitForOperator != nil
        if listens { await ControlSocket.listen(forDevice: address.description) }
        var results: [SuiteResult] = []
        for (index, suiteCase) in cases.enumerated() {
            let result: SuiteResult
            if stop.isRequested {
                result = .notRun(suiteCase, because: "not run: the run was stopped")
            } else if let reason = await setUpUnattended(suiteCase, steering: steering, simulated: simulated) {
                result = .notRun(suiteCase, because: reason)
            } else {
                result = await runCase(
                    suiteCase, number: index + 1, simulated: simulated, journal: journal, stop: stop,
                    steered: steering != nil, reporter: reporter)
            }
            results.append(result)
            reporter.ended(result, number: index + 1)
        }
        if listens { await ControlSocket.stopListening(forDevice: address.description) }
        return Outcome(results: results, stopped: stop.isRequested)
    }

    /// Sets the case up without an operator: a steerable simulator is given the case's card, PIN and choices; in a
    /// fleet run (unattended), a terminal nobody can steer cannot present the case's card (unless --unattended says it
    /// is arranged). nil: the case can run; else why it is skipped.
    private func setUpUnattended(_ suiteCase: SuiteCase, steering: SuiteSteering?, simulated: Bool) async -> String? {
        guard !simulated else { return nil }
        if let steering {
            return await steering.present(suite: path, case: suiteCase.name)
        }
        guard inFleet && !unattended else { return nil }
        return
            "cannot be set up unattended: nobody presents the card '\(suiteCase.card)' (the terminal is not a `ucube simulate` of this user that `ucube sim` steers; --unattended runs it anyway)"
    }

    /// Runs one case (after the operator, on a real terminal) and compares its outcome with the expected one.
    private func runCase(
        _ suiteCase: SuiteCase, number: Int, simulated: Bool, journal: PaymentJournal, stop: StopRequest,
        steered: Bool, reporter: any SuiteRunReporting
    ) async -> SuiteResult {
        let scenario = suite.scenario(for: suiteCase)
        if steered {
            reporter.note(
                "case \(number)/\(cases.count) \(suiteCase.name): the simulator presents '\(suiteCase.card)' (steered)")
        }
        if !simulated && !steered {
            reporter.note("case \(number)/\(cases.count) \(suiteCase.name): \(suiteCase.instruction)")
            if let waitForOperator {
                // `ucube cancel` stops the run while it waits for the operator, as Ctrl-C does (a payment of an
                // earlier case left its own route behind).
                ControlSocket.route {
                    if stop.isRequested { return CancelAnswer(.already, "the suite run is already stopping") }
                    stop.request()
                    return CancelAnswer(.accepted, "stopping the suite run")
                }
                let answer = await waitForOperator.ready(stop)
                switch answer {
                case .ready:
                    break
                case .stopped:
                    return .notRun(suiteCase, because: "not run: the run was stopped")
                case .ended, .timedOut:
                    let observation = SuiteObservation(
                        failure: answer == .ended
                            ? "the input ended before the operator pressed Enter"
                            : "the operator did not answer within \(waitForOperator.timeout) s")
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
                    authorization: authorization, journal: journal, progress: nil, attach: nil,
                    cancelAfter: suiteCase.request.cancelAfter, onStop: { stop.request() }, early: stop)
                // A host's approval the case's payment did not keep is reversed (docs/authorization.md).
                _ = await (authorization as? HostAuthorization)?.settle(payment)
                return payment
            }
            observation = SuiteObservation(payment)
        } catch {
            // The link could not be opened or the request is not valid: the case fails, the suite goes on.
            observation = SuiteObservation(failure: CLIFailure(reporting: error).message)
        }
        var result = SuiteResult(
            suiteCase: suiteCase, observation: observation,
            mismatches: SuiteResult.compare(suiteCase.expect, observation),
            seconds: (ContinuousClock.now - started).seconds)
        result.interrupted = stop.isRequested
        return result
    }

    /// `path` from the current directory, for a simulator that runs in another.
    package static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        return expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
    }

    /// Case names for a message (and a fleet table's row): the first few, then how many more, so that a suite of 41
    /// failing cases is one readable line.
    package static func names(_ names: [String], first: Int = 3) -> String {
        names.count <= first + 1
            ? names.joined(separator: ", ")
            : names.prefix(first).joined(separator: ", ") + " and \(names.count - first) more"
    }
}
