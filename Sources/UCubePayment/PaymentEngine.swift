import Foundation
import Logging
import Synchronization
import UCubeLink
import UCubeProtocol
import UCubeSupport

/// What a running payment reports, in order: one `stateChanged` per state entered, `taskRequested` before a task
/// hook runs, and exactly one `finished` last.
package enum PaymentEvent: Sendable, Encodable {
    case stateChanged(PaymentState)
    case taskRequested(TaskRequest)
    /// A journal record that decides the payment's fate could not be written (a full disk, say): reported at once,
    /// and the payment is being taken to a safe end (cancelled while the cancel rule allows, completed otherwise).
    case journalFailed(String)
    case finished(PaymentContext)

    private enum CodingKeys: String, CodingKey { case event, state, task, candidates, status, context, reason }

    /// `{"event":"state","state":"SMC_BUILD_CANDIDATE_LIST"}`, `{"event":"task","task":"authorize"}`,
    /// `{"event":"journal-failed","reason":"…"}`, `{"event":"finished","status":"APPROVED","context":{…}}`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .stateChanged(let state):
            try c.encode("state", forKey: .event)
            try c.encode(state, forKey: .state)
        case .taskRequested(let task):
            try c.encode("task", forKey: .event)
            switch task {
            case .selectApplication(let candidates):
                try c.encode("select-application", forKey: .task)
                try c.encode(candidates, forKey: .candidates)
            case .riskManagement: try c.encode("risk-management", forKey: .task)
            case .authorize: try c.encode("authorize", forKey: .task)
            }
        case .journalFailed(let reason):
            try c.encode("journal-failed", forKey: .event)
            try c.encode(reason, forKey: .reason)
        case .finished(let context):
            try c.encode("finished", forKey: .event)
            try c.encodeIfPresent(context.status, forKey: .status)
            try c.encode(context, forKey: .context)
        }
    }
}

/// Where a stepped payment stands before its next action: the state whose command or task comes next, that action
/// (`.send` or `.runTask`), and the context so far.
package struct PaymentStep: Sendable {
    package var state: PaymentState?
    package var action: PaymentAction
    package var context: PaymentContext
}

/// Called before each command or task of a payment and awaited: a debugger's pause (`ucube shell`, `pay --step`).
/// It may call `cancel()` on the engine; the machine stays pure and never knows it was paused.
package typealias PaymentStepper = @Sendable (PaymentStep) async -> Void

/// Runs a `PaymentStateMachine` over an `RPCClient` (the design's `NIOSSHHandler`): asks the machine, performs the
/// action (a command, a task hook), feeds the result back, and reports every state change. It makes no payment
/// decision of its own.
///
/// The engine is the one owner of a payment's cancellation: cancelling the task that awaits `run` becomes a
/// `cancel()`, which obeys the cancel rule (spec §8.1) as Ctrl-C and `ucube cancel` do, and sends CancelAll only when
/// the rule accepts. The client is told to leave the task's cancellation to the engine (`TaskCancellation.caller`),
/// and the task hooks run in unstructured tasks, so neither sees the cancel before the rule has judged it.
package actor PaymentEngine {
    private let client: RPCClient
    private let selection: any ApplicationSelectionTask
    private let riskManagement: any RiskManagementTask
    private let authorization: any AuthorizationTask
    private let journal: PaymentJournal?
    private let deviceName: String?
    /// The device is a simulator or a recording: every context says its outcome is simulated.
    private let simulated: Bool
    private let stepper: PaymentStepper?
    /// The payment layer's log: each state entered (debug) and the final status (info). nil: no logging.
    private let logger: Logger?

    /// Where the engine stands.
    private enum Phase {
        /// No payment has started (or the last one could not, its journal refused it). `cancelled`: a cancel came
        /// first (a Ctrl-C while the payment was being set up): the next payment ends CANCELLED before its first
        /// command.
        case waiting(cancelled: Bool)
        /// The payment that runs, or the last one, which keeps answering a cancel from its end.
        case payment(PaymentRun)
    }

    private var phase = Phase.waiting(cancelled: false)

    package init(
        client: RPCClient,
        selection: any ApplicationSelectionTask = EMVPrioritySelection(),
        riskManagement: any RiskManagementTask = ZeroTVRRiskManagement(),
        authorization: any AuthorizationTask,
        journal: PaymentJournal? = nil,
        deviceName: String? = nil,
        simulated: Bool = false,
        stepper: PaymentStepper? = nil,
        logger: Logger? = nil
    ) {
        self.simulated = simulated
        self.stepper = stepper
        self.logger = logger
        self.client = client
        self.selection = selection
        self.riskManagement = riskManagement
        self.authorization = authorization
        self.journal = journal
        self.deviceName = deviceName
    }

    /// Runs one payment to its end and returns its context (also delivered as the last event). One payment at a
    /// time: a second call while one runs returns an ERROR context without touching the terminal. `link` says what is
    /// known of the terminal's state, which decides the starting steps (spec §8.6); `.unknown` runs them all.
    package func run(
        _ request: PaymentRequest,
        link: LinkStart = .unknown,
        events: @escaping @Sendable (PaymentEvent) -> Void = { _ in }
    ) async -> PaymentContext {
        var machine = PaymentStateMachine(request: request, link: link)
        switch phase {
        case .payment(let running) where !running.machine.isFinished:
            var context = PaymentContext(request: request)
            context.status = .error
            context.statusReason = "a payment is already running on this engine"
            return context
        case .payment, .waiting(cancelled: false):
            break
        case .waiting(cancelled: true):
            _ = machine.cancelRequested()
        }
        logger?.info("payment started")
        let run = PaymentRun(machine: machine, startedAt: Self.timestamp(), emit: events)
        phase = .payment(run)

        if let journal {
            do {
                try journal.recordStart(
                    request, payment: run.payment, deviceName: deviceName, simulated: simulated, time: run.startedAt)
            } catch {
                var context = withEngineFields(PaymentContext(request: request), run)
                context.status = .error
                context.statusReason = "the journal could not be written, so no payment was started: \(error.reason)"
                context.journalFailure =
                    "the start record could not be written, so no command was sent: \(error.reason)"
                context.finishedAt = Self.timestamp()
                phase = .waiting(cancelled: false)
                events(.finished(context))
                return context
            }
        }

        // The one place where cancelling the task that awaits `run` is handled: it becomes a `cancel()`, which obeys
        // the cancel rule (spec §8.1) like Ctrl-C and `ucube cancel` do. The client is told to leave it to us.
        return await withTaskCancellationHandler {
            await drive(run)
        } onCancel: {
            Task { await self.cancel() }
        }
    }

    /// Asks the machine, performs its action, feeds the result back, until the payment finishes.
    private func drive(_ run: PaymentRun) async -> PaymentContext {
        var action = run.machine.start()
        while true {
            emitStates(run)
            if let stepper, action.isStep {
                run.paused = true
                await stepper(
                    PaymentStep(
                        state: run.machine.currentState, action: action,
                        context: withEngineFields(run.machine.context, run)))
                run.paused = false
            }
            switch action {
            case .send(let command):
                action = await perform(command, run)
            case .runTask(let task):
                run.emit(.taskRequested(task))
                action = await runTask(task, run)
            case .cancelPendingCommand, .none:
                preconditionFailure("the machine answers \(action) only to a cancel request")
            case .finish:
                return finish(run)
            }
        }
    }

    /// The final context, journalled and reported.
    private func finish(_ run: PaymentRun) -> PaymentContext {
        var context = finalContext(run)
        if let journal {
            do {
                try journal.recordOutcome(context, time: context.finishedAt ?? Self.timestamp())
            } catch {
                logger?.error("journal: the outcome could not be recorded: \(error.reason)")
                context.errors.append(PaymentError(state: nil, reason: "journal: \(error.reason)"))
                if run.journalFailure == nil { run.emit(.journalFailed(error.reason)) }
                context.journalFailure = context.journalFailure ?? "the outcome could not be recorded: \(error.reason)"
            }
        }
        logger?.info(
            "payment finished: \(context.status.map { "\($0)" } ?? "no status")\(context.statusReason.map { " (\($0))" } ?? "") after \(context.states.count) states"
        )
        run.emit(.finished(context))
        return context
    }

    /// Asks the machine whether the payment may still be cancelled. When it may and a card wait is pending, sends
    /// CancelAll so that command answers −32 and the payment ends CANCELLED; otherwise the payment runs on.
    package func cancel() async -> CancelDecision {
        switch phase {
        case .waiting(cancelled: true):
            return .alreadyCancelled
        case .waiting(cancelled: false):
            phase = .waiting(cancelled: true)
            return .accepted(.none)
        case .payment(let run):
            let decision = run.machine.cancelRequested()
            if case .accepted(.cancelPendingCommand) = decision {
                if run.paused {
                    run.cancelWhenSent = true
                } else {
                    await cancelPendingCommand(run)
                }
            }
            return decision
        }
    }

    /// Sends CancelAll for the card wait in flight.
    private func cancelPendingCommand(_ run: PaymentRun) async {
        guard let cardWait = run.cardWait else { return }
        // The command may still be on its way into the client: the client says when it holds it, so the CancelAll
        // is not answered before the command it should end has been sent.
        await cardWait.taken()
        guard run.cardWait === cardWait else { return }
        run.roundTrips += 1
        _ = try? await client.cancelAll()
    }

    /// The run's CancelAll, from a task of its own.
    private func cancelPendingCommandOfThePayment() async {
        if case .payment(let run) = phase { await cancelPendingCommand(run) }
    }

    /// The context as it stands (for a status display while the payment runs).
    package var context: PaymentContext? {
        if case .payment(let run) = phase { return withEngineFields(run.machine.context, run) }
        return nil
    }

    // MARK: - Actions

    private func emitStates(_ run: PaymentRun) {
        let states = run.machine.transitions
        for state in states[run.emitted...] {
            run.stateTimes.append((state, run.elapsed))
            logger?.debug("payment state: \(state)")
            run.emit(.stateChanged(state))
        }
        run.emitted = states.count
    }

    private func perform(_ command: PaymentCommand, _ run: PaymentRun) async -> PaymentAction {
        await exchange(command.rpc, run, cardWait: command.isCardWait)
    }

    /// Sends one command and feeds the answer back. The client leaves the task's cancellation to the engine
    /// (`TaskCancellation.caller`): past the card read a cancel is refused and the command must run on.
    private func exchange<C: RPCCommand>(_ command: C, _ run: PaymentRun, cardWait isCardWait: Bool) async
        -> PaymentAction
    {
        run.roundTrips += 1
        let cardWait = isCardWait ? HandOver() : nil
        var onSent: (@Sendable () -> Void)?
        if let cardWait {
            run.cardWait = cardWait
            onSent = { cardWait.open() }
            if run.cancelWhenSent {
                run.cancelWhenSent = false
                Task { await self.cancelPendingCommandOfThePayment() }
            }
        }
        let result: Result<TerminalResponse, LinkError>
        do throws(LinkError) {
            let reply = try await client.send(command, onTaskCancel: .caller, onSent: onSent)
            result = .success(
                TerminalResponse(
                    command: C.id, status: reply.status, data: reply.frame.data, ciphered: reply.isCiphered))
        } catch {
            result = .failure(error)
        }
        if let cardWait {
            run.cardWait = nil
            cardWait.open()
        }
        switch result {
        case .success(let response):
            let journalled = journalStep(C.id, status: response.status, run)
            let next = run.machine.responseReceived(response)
            if !journalled { cancelForJournal(run) }
            if case .send(.buildCandidateList) = next, C.id == .buildCandidateList {
                logger?.notice(
                    "BuildCandidateList in the current SDK's form answered \(response.status): sending the 2020 form (spec §5.2 0x5510)"
                )
            }
            return next
        case .failure(let error):
            switch error.code {
            case .disconnected, .notConnected:
                return run.machine.linkLost(error)
            case .timeout, .connectFailed, .connectionRefused, .hostUnreachable, .hostNotFound, .badFrame,
                .unexpectedResponse,
                .malformedResponse, .busy, .invalidRequest, .replayDiverged:
                return run.machine.commandFailed(CommandFailure(command: C.descriptor.name, error: error))
            }
        }
    }

    private func runTask(_ task: TaskRequest, _ run: PaymentRun) async -> PaymentAction {
        let context = withEngineFields(run.machine.context, run)
        let selection = self.selection
        let riskManagement = self.riskManagement
        let authorization = self.authorization
        let result: TaskResult = await Task {
            do {
                switch task {
                case .selectApplication(let candidates):
                    return .applicationSelected(try await selection.select(candidates, context: context))
                case .riskManagement(let aid):
                    return .riskManagementDone(tvr: try await riskManagement.riskManagement(aid: aid, context: context))
                case .authorize(let request):
                    return .authorized(try await authorization.authorize(request, context: context))
                }
            } catch is TaskCancelled {
                return .cancelled
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .failed(TaskFailure(error))
            }
        }.value
        return run.machine.taskFinished(result)
    }

    // MARK: - Context

    private func withEngineFields(_ context: PaymentContext, _ run: PaymentRun) -> PaymentContext {
        var context = context
        context.roundTrips = run.roundTrips
        context.startedAt = run.startedAt
        context.device = deviceName
        context.simulated = simulated
        context.payment = run.payment
        return context
    }

    private func finalContext(_ run: PaymentRun) -> PaymentContext {
        var context = withEngineFields(run.machine.context, run)
        context.finishedAt = Self.timestamp()
        // States entered since the last emission (the final ones) are timed from now.
        let states = run.machine.transitions
        if states.count > run.stateTimes.count {
            for state in states[run.stateTimes.count...] { run.stateTimes.append((state, run.elapsed)) }
        }
        let cvm = (context.finalizationPlainTags + context.authorizationPlainTags).first { $0.tag == Tag(0x9F34) }?
            .value
        context.timings = PaymentTimings(
            states: run.stateTimes, end: run.elapsed,
            pinInProcess: context.entryMode == .icc && PaymentTimings.pinEntered(cvmResults: cvm))
        if let journalFailure = run.journalFailure {
            context.errors.append(PaymentError(state: nil, reason: "journal: \(journalFailure)"))
            context.journalFailure = journalFailure
        }
        return context
    }

    /// A command's result, journalled before the payment acts on it: if the process dies now, the journal says how
    /// far the payment got (`history --unresolved`). false: the record could not be written (said once, at once).
    private func journalStep(_ command: CommandID, status: Status, _ run: PaymentRun) -> Bool {
        guard let journal else { return true }
        do {
            try journal.recordStep(
                requestID: run.machine.context.request.requestID, payment: run.payment, command: command,
                status: status,
                state: run.machine.currentState, time: Self.timestamp())
            return true
        } catch {
            logger?.error("journal: \(error.reason)")
            if run.journalFailure == nil {
                run.journalFailure = "a command's result could not be recorded: \(error.reason)"
                run.emit(.journalFailed(error.reason))
            }
            return false
        }
    }

    /// The journal can no longer say how far the payment got: it must not go on as if it could. Cancelled while the
    /// cancel rule allows (a card wait about to be sent is cancelled once it is); past that point, completed.
    private func cancelForJournal(_ run: PaymentRun) {
        guard !run.machine.isFinished else { return }
        if case .accepted(.cancelPendingCommand) = run.machine.cancelRequested() { run.cancelWhenSent = true }
    }

    /// ISO 8601, UTC, milliseconds: "2025-01-01T12:00:00.000Z".
    package static func timestamp(_ date: Date = Date()) -> String {
        UTCTimestamp.string(date)
    }
}

/// One payment as the engine runs it, created when it starts: its machine and what the engine measures of it. The
/// engine's own (its actor is the only one that touches it), kept after the end so that a late cancel is answered
/// from the finished payment.
private final class PaymentRun {
    var machine: PaymentStateMachine
    /// When the payment started (ISO 8601), and on the clock, for `PaymentTimings`.
    let startedAt: String
    /// The payment's own key in the journal: in each of its records, whatever its request id.
    let payment = PaymentJournal.newPaymentKey()
    let clockStart = ContinuousClock.now
    /// Where this payment's events go (a journal failure is reported the moment it happens).
    let emit: @Sendable (PaymentEvent) -> Void
    var roundTrips = 0
    /// When each state was entered, in seconds since the start.
    var stateTimes: [(PaymentState, Double)] = []
    /// How many of the machine's states have been reported.
    var emitted = 0
    /// The first journal record of this payment that could not be written (after its start record): said once in
    /// the context's errors and in `PaymentContext.journalFailure`.
    var journalFailure: String?
    /// The card-wait command (StartNFC / WaitCard) on its way to the client or awaiting its answer; nil otherwise.
    var cardWait: HandOver?
    /// The stepper is pausing the payment before its next action.
    var paused = false
    /// A cancel was accepted during a pause before a card wait: CancelAll goes out once that command is sent.
    var cancelWhenSent = false

    init(machine: PaymentStateMachine, startedAt: String, emit: @escaping @Sendable (PaymentEvent) -> Void) {
        self.machine = machine
        self.startedAt = startedAt
        self.emit = emit
    }

    /// Seconds since the payment started.
    var elapsed: Double { (ContinuousClock.now - clockStart).seconds }
}

/// Opens once: the client has taken the card wait (it is pending there: a CancelAll now reaches it), or the command
/// ended without being taken. The client opens it from its own actor (`RPCClient.send`'s `onSent`).
private final class HandOver: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiting = state.withLock { state in
            if state.open { return [CheckedContinuation<Void, Never>]() }
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once the command is pending in the client or has ended.
    func taken() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }
}

extension PaymentAction {
    /// A command or a task: what a stepper pauses before.
    fileprivate var isStep: Bool {
        switch self {
        case .send, .runTask: true
        case .cancelPendingCommand, .none, .finish: false
        }
    }
}
