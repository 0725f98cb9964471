import Foundation
import Logging
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
/// Commands and hooks run in unstructured tasks, so cancelling the task that awaits `run` does not reach the
/// terminal directly: it becomes a `cancel()`, which obeys the cancel rule (spec §8.1) like `ucube cancel` does.
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

    private var machine: PaymentStateMachine?
    private var roundTrips = 0
    private var startedAt: String?
    /// When the payment started, and when each of its states was entered (for `PaymentTimings`).
    private var clockStart = ContinuousClock.now
    private var stateTimes: [(PaymentState, Double)] = []
    /// The first journal record of this payment that could not be written (after its start record): said once in
    /// the context's errors and in `PaymentContext.journalFailure`.
    private var journalFailure: String?
    /// Where this payment's events go (a journal failure is reported the moment it happens).
    private var emit: @Sendable (PaymentEvent) -> Void = { _ in }
    /// A card-wait command (StartNFC / WaitCard) has been handed to the client and has not answered yet.
    private var longCommandInFlight = false
    /// The stepper is pausing the payment before its next action.
    private var paused = false
    /// A cancel was accepted during a pause before a card wait: CancelAll goes out once that command is sent.
    private var cancelWhenSent = false
    /// A cancel arrived before `run` began (a Ctrl-C while the payment was being set up): the payment it was meant for
    /// ends CANCELLED before its first command.
    private var cancelledBeforeRun = false

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
        if let running = machine, !running.isFinished {
            var context = PaymentContext(request: request)
            context.status = .error
            context.statusReason = "a payment is already running on this engine"
            return context
        }
        machine = PaymentStateMachine(request: request, link: link)
        if cancelledBeforeRun {
            cancelledBeforeRun = false
            _ = machine!.cancelRequested()
        }
        logger?.info("payment started")
        roundTrips = 0
        clockStart = ContinuousClock.now
        stateTimes = []
        journalFailure = nil
        emit = events
        longCommandInFlight = false
        cancelWhenSent = false
        startedAt = Self.timestamp()
        var emitted = 0

        if let journal {
            do {
                try journal.recordStart(
                    request, deviceName: deviceName, simulated: simulated, time: startedAt ?? Self.timestamp())
            } catch {
                var context = withEngineFields(PaymentContext(request: request))
                context.status = .error
                context.statusReason = "the journal could not be written, so no payment was started: \(error.reason)"
                context.journalFailure =
                    "the start record could not be written, so no command was sent: \(error.reason)"
                context.startedAt = startedAt
                context.finishedAt = Self.timestamp()
                machine = nil
                events(.finished(context))
                return context
            }
        }

        var action = await withTaskCancellationHandler {
            machine!.start()
        } onCancel: {
            Task { await self.cancel() }
        }
        while true {
            emitted = emitStates(from: emitted, events)
            if let stepper, let machine, action.isStep {
                paused = true
                await stepper(
                    PaymentStep(state: machine.currentState, action: action, context: withEngineFields(machine.context))
                )
                paused = false
            }
            switch action {
            case .send(let command):
                action = await withTaskCancellationHandler {
                    await perform(command)
                } onCancel: {
                    Task { await self.cancel() }
                }
            case .runTask(let task):
                events(.taskRequested(task))
                action = await withTaskCancellationHandler {
                    await runTask(task)
                } onCancel: {
                    Task { await self.cancel() }
                }
            case .cancelPendingCommand, .none:
                preconditionFailure("the machine answers \(action) only to a cancel request")
            case .finish:
                var context = finalContext()
                if let journal {
                    do {
                        try journal.recordOutcome(context, time: context.finishedAt ?? Self.timestamp())
                    } catch {
                        logger?.error("journal: the outcome could not be recorded: \(error.reason)")
                        context.errors.append(PaymentError(state: nil, reason: "journal: \(error.reason)"))
                        if journalFailure == nil { events(.journalFailed(error.reason)) }
                        context.journalFailure =
                            context.journalFailure ?? "the outcome could not be recorded: \(error.reason)"
                    }
                }
                logger?.info(
                    "payment finished: \(context.status.map { "\($0)" } ?? "no status")\(context.statusReason.map { " (\($0))" } ?? "") after \(context.states.count) states"
                )
                events(.finished(context))
                return context
            }
        }
    }

    /// Asks the machine whether the payment may still be cancelled. When it may and a card wait is pending, sends
    /// CancelAll so that command answers −32 and the payment ends CANCELLED; otherwise the payment runs on.
    package func cancel() async -> CancelDecision {
        guard machine != nil else {
            if cancelledBeforeRun { return .alreadyCancelled }
            cancelledBeforeRun = true
            return .accepted(.none)
        }
        let decision = machine!.cancelRequested()
        if case .accepted(.cancelPendingCommand) = decision {
            if paused {
                cancelWhenSent = true
            } else {
                await cancelPendingCommand()
            }
        }
        return decision
    }

    /// Sends CancelAll for the card wait in flight.
    private func cancelPendingCommand() async {
        // The command may still be on its way into the client: wait until the client holds it, so the CancelAll
        // is not answered before the command it should end has been sent.
        while longCommandInFlight, !(await client.hasPendingCommand) {
            await Task.yield()
        }
        if longCommandInFlight {
            roundTrips += 1
            _ = try? await client.cancelAll()
        }
    }

    /// The context as it stands (for a status display while the payment runs).
    package var context: PaymentContext? { machine.map { withEngineFields($0.context) } }

    // MARK: - Actions

    private func emitStates(from index: Int, _ events: @Sendable (PaymentEvent) -> Void) -> Int {
        guard let states = machine?.transitions else { return index }
        for state in states[index...] {
            stateTimes.append((state, elapsed))
            logger?.debug("payment state: \(state)")
            events(.stateChanged(state))
        }
        return states.count
    }

    private func perform(_ command: PaymentCommand) async -> PaymentAction {
        switch command {
        case .cancelAll(let c): await exchange(c)
        case .exitSecureSession(let c): await exchange(c)
        case .getInfo(let c): await exchange(c)
        case .enterSecureSession(let c): await exchange(c)
        case .startTransaction(let c): await exchange(c, long: true)
        case .waitCard(let c): await exchange(c, long: true)
        case .buildCandidateList(let c): await exchange(c)
        case .displayListBox(let c): await exchange(c)
        case .transactionInit(let c): await exchange(c)
        case .transactionProcess(let c): await exchange(c)
        case .transactionFinalisation(let c): await exchange(c)
        case .waitCardRemoval(let c): await exchange(c)
        case .getSecuredTag(let c): await exchange(c)
        case .getPlainTag(let c): await exchange(c)
        case .simplifiedOnlinePIN(let c): await exchange(c)
        case .completeTransaction(let c): await exchange(c)
        }
    }

    /// Sends one command in an unstructured task (see the type's note on cancellation) and feeds the answer back.
    private func exchange<C: RPCCommand>(_ command: C, long: Bool = false) async -> PaymentAction {
        roundTrips += 1
        if long {
            longCommandInFlight = true
            if cancelWhenSent {
                cancelWhenSent = false
                Task { await self.cancelPendingCommand() }
            }
        }
        let client = self.client
        let result: Result<TerminalResponse, LinkError> = await Task {
            () async -> Result<TerminalResponse, LinkError> in
            do throws(LinkError) {
                let reply = try await client.send(command)
                return .success(
                    TerminalResponse(
                        command: C.id,
                        status: reply.status,
                        data: reply.frame.data,
                        ciphered: reply.isCiphered
                    )
                )
            } catch {
                return .failure(error)
            }
        }.value
        if long { longCommandInFlight = false }
        switch result {
        case .success(let response):
            let journalled = journalStep(C.id, status: response.status)
            let next = machine!.responseReceived(response)
            if !journalled { cancelForJournal() }
            if case .send(.buildCandidateList) = next, C.id == .buildCandidateList {
                logger?.notice(
                    "BuildCandidateList in the current SDK's form answered \(response.status): sending the 2020 form (spec §5.2 0x5510)"
                )
            }
            return next
        case .failure(let error):
            switch error.code {
            case .disconnected, .notConnected:
                return machine!.linkLost(error.reason)
            case .timeout, .connectFailed, .connectionRefused, .hostUnreachable, .hostNotFound, .badFrame,
                .unexpectedResponse,
                .malformedResponse, .busy, .invalidRequest, .replayDiverged:
                return machine!.commandFailed("\(C.descriptor.name): \(error.code.rawValue): \(error.reason)")
            }
        }
    }

    private func runTask(_ task: TaskRequest) async -> PaymentAction {
        let context = withEngineFields(machine!.context)
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
                return .failed("\(error)")
            }
        }.value
        return machine!.taskFinished(result)
    }

    // MARK: - Context

    private func withEngineFields(_ context: PaymentContext) -> PaymentContext {
        var context = context
        context.roundTrips = roundTrips
        context.startedAt = startedAt
        context.device = deviceName
        context.simulated = simulated
        return context
    }

    private func finalContext() -> PaymentContext {
        var context = withEngineFields(machine!.context)
        context.finishedAt = Self.timestamp()
        // States entered since the last emission (the final ones) are timed from now.
        if let states = machine?.transitions, states.count > stateTimes.count {
            for state in states[stateTimes.count...] { stateTimes.append((state, elapsed)) }
        }
        let cvm = (context.finalizationPlainTags + context.authorizationPlainTags).first { $0.tag == Tag(0x9F34) }?
            .value
        context.timings = PaymentTimings(
            states: stateTimes, end: elapsed,
            pinInProcess: context.entryMode == .icc && PaymentTimings.pinEntered(cvmResults: cvm))
        if let journalFailure {
            context.errors.append(PaymentError(state: nil, reason: "journal: \(journalFailure)"))
            context.journalFailure = journalFailure
        }
        return context
    }

    /// Seconds since the payment started.
    private var elapsed: Double {
        (ContinuousClock.now - clockStart).seconds
    }

    /// A command's result, journalled before the payment acts on it: if the process dies now, the journal says how
    /// far the payment got (`history --unresolved`). false: the record could not be written (said once, at once).
    private func journalStep(_ command: CommandID, status: Status) -> Bool {
        guard let journal, let machine else { return true }
        do {
            try journal.recordStep(
                requestID: machine.context.request.requestID, command: command, status: status,
                state: machine.currentState, time: Self.timestamp())
            return true
        } catch {
            logger?.error("journal: \(error.reason)")
            if journalFailure == nil {
                journalFailure = "a command's result could not be recorded: \(error.reason)"
                emit(.journalFailed(error.reason))
            }
            return false
        }
    }

    /// The journal can no longer say how far the payment got: it must not go on as if it could. Cancelled while the
    /// cancel rule allows (a card wait about to be sent is cancelled once it is); past that point, completed.
    private func cancelForJournal() {
        guard let machine, !machine.isFinished else { return }
        if case .accepted(.cancelPendingCommand) = self.machine!.cancelRequested() { cancelWhenSent = true }
    }

    /// ISO 8601, UTC, milliseconds: "2025-01-01T12:00:00.000Z".
    package static func timestamp(_ date: Date = Date()) -> String {
        UTCTimestamp.string(date)
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
