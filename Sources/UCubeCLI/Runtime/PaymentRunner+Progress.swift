import UCubePayment
import UCubeRuntime

extension PaymentRunner {
    /// `run` as the command line runs it: the progress line on a terminal's stderr (none when `quiet`: `--events`,
    /// `--step`, a suite or `serve`), and `pay --step`'s stepping.
    static func run(
        on connection: Connection, shell session: (any CommandShell)?, request: PaymentRequest,
        selection: any ApplicationSelectionTask,
        authorization: any AuthorizationTask, journal: PaymentJournal, stepping: PaymentStepping? = nil,
        stepper: PaymentStepper? = nil, events: Bool = false, quiet: Bool = false, cancelAfter: Duration? = nil,
        onStop: (@Sendable () -> Void)? = nil, early: StopRequest? = nil,
        observe: (@Sendable (PaymentEvent) -> Void)? = nil
    ) async -> PaymentContext {
        let progress: (any PaymentProgressDisplay)? = PaymentProgress.make(request, quiet: quiet)
        var attach: (@Sendable (PaymentEngine) -> Void)? = nil
        if let stepping { attach = { engine in stepping.attach(engine) } }
        return await run(
            on: connection, shell: session, request: request, selection: selection, authorization: authorization,
            journal: journal, progress: progress, attach: attach, stepper: stepper, events: events,
            cancelAfter: cancelAfter, onStop: onStop, early: early, observe: observe)
    }
}

extension PaymentProgress: PaymentProgressDisplay {}
