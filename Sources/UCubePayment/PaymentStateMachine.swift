import UCubeLink
import UCubeProtocol

/// The EMV payment of spec §8 as a pure value: events in (`start`, `responseReceived`, `taskFinished`,
/// `cancelRequested`, `linkLost`, `commandFailed`), what to do next out (`PaymentAction`). No I/O, no clocks.
///
/// Exactly one `.finish` is returned per payment; after it every event answers `.none` (a cancel is refused), so a
/// late answer or a second cancel cannot produce a second outcome. Every state entered is appended to
/// `context.states`, so the engine emits one event per state change.
///
/// Each state carries what it needs and nothing else (`CommandStep`, `TaskStep`, `Ending`): what the starting steps
/// learned lives in the starting steps, the card's data from the card read on, a selected application in
/// SMC_INIT_TRANSACTION only. A combination the flow cannot reach cannot be represented.
///
/// This file is the dispatcher: the events, the steps by flow, and the transitions every flow uses. Each flow's steps
/// and answers are an extension in a file of its own: `+Start` (the starting steps and the card wait), `+Chip`,
/// `+Contactless`, `+Magstripe`, `+Host` (the authorisation data, the online PIN, the issuer's answer) and `+Closing`
/// (the status decided, the ending steps). What is known of each state (its name, its command, its phase, its cancel
/// window) is its row in the state table (`PaymentState.row`), and nowhere here.
package struct PaymentStateMachine: Sendable {
    package typealias Action = PaymentAction

    /// Where the payment stands.
    enum State: Sendable {
        /// `start()` not called yet: what the link says of the terminal, and whether a cancel came first.
        case idle(LinkStart, cancelled: Bool)
        /// The command of this step is outstanding; its answer decides what comes next.
        case command(CommandStep)
        /// A cancel was accepted while this step's command was outstanding: the payment ends CANCELLED at its
        /// answer. Only a step before the card read (`PaymentState.cancelWindow`).
        case cancelling(CommandStep)
        /// The task of this step is outstanding; its result decides what comes next.
        case task(TaskStep)
        /// The status is decided; the ending steps run one after another.
        case closing(Closing)
        /// `.finish` has been returned.
        case finished(PaymentOutcome)
    }

    /// What each plain list leaves to GetPlainTag once a command's C1 asked for the rest (spec §8.6).
    struct PlainLeft: Sendable {
        var authorization: [Tag]
        var finalization: [Tag]
    }

    /// The reader that read the card, with what that reader alone carries.
    enum Reader: Sendable {
        case icc
        /// The card's cryptogram (9F27, 9F26) as the last contactless answer gave it: StartNFC's, then CompleteNFC's.
        case nfc(cid: [UInt8]?, cryptogram: [UInt8]?)
        case msr

        var mode: EntryMode {
            switch self {
            case .icc: .icc
            case .nfc: .nfc
            case .msr: .msr
            }
        }
    }

    /// What the payment holds from the card read until its status is decided.
    struct Card: Sendable {
        var reader: Reader
        /// What GetPlainTag still has to read of each plain list, once an answer's C1 carried the rest (spec §8.6);
        /// nil: no answer carried any of it, GetPlainTag reads the whole list.
        var authorizationPlainLeft: [Tag]?
        var finalizationPlainLeft: [Tag]?

        var mode: EntryMode { reader.mode }

        /// A contactless card's cryptogram (9F27, 9F26); none for another reader.
        var nfcCryptogram: (cid: [UInt8]?, cryptogram: [UInt8]?) {
            if case .nfc(let cid, let cryptogram) = reader { return (cid, cryptogram) }
            return (nil, nil)
        }
    }

    /// A step whose command is outstanding, by flow; each flow's steps carry what their answers need.
    enum CommandStep: Sendable {
        case start(StartStep)
        case chip(ChipStep)
        case contactless(ContactlessStep)
        case magstripe(MagstripeStep)

        var name: PaymentState {
            switch self {
            case .start(let step): step.name
            case .chip(let step): step.name
            case .contactless(let step): step.name
            case .magstripe(let step): step.name
            }
        }

        /// The card, once it is read: every step after the starting steps and the card wait carries it.
        var card: Card? {
            switch self {
            case .start: nil
            case .chip(let step): step.card
            case .contactless(let step): step.card
            case .magstripe(let step): step.card
            }
        }
    }

    /// A step whose task hook is outstanding. Every task comes after the card read.
    enum TaskStep: Sendable {
        /// The chip's application-selection task (`+Chip`).
        case selectApplication(Card, eligible: [CandidateApplication])
        /// The chip's risk-management task (`+Chip`).
        case riskManagement(Card)
        /// The host's authorisation (`+Host`).
        case authorization(Card)

        var name: PaymentState {
            switch self {
            case .selectApplication: .smcSelectApplication
            case .riskManagement: .smcRiskManagement
            case .authorization: .authorization
            }
        }

        var card: Card {
            switch self {
            case .selectApplication(let card, _), .riskManagement(let card), .authorization(let card): card
            }
        }
    }

    /// Set by this file's events and the flows' transitions (the extensions), nowhere else.
    var state: State
    /// The request and everything learned so far.
    package internal(set) var context: PaymentContext

    /// `link` says what is known of the terminal at the start; `.unknown` (the default) runs every starting step.
    package init(request: PaymentRequest, link: LinkStart = .unknown) {
        context = PaymentContext(request: request)
        state = .idle(link, cancelled: false)
    }

    var request: PaymentRequest { context.request }

    /// The state whose command or task is outstanding; `nil` before `start()` and after `.finish`.
    package var currentState: PaymentState? {
        switch state {
        case .idle, .finished: nil
        case .command(let s), .cancelling(let s): s.name
        case .task(let t): t.name
        case .closing(let c): c.step.name
        }
    }

    /// The outcome once `.finish` has been returned.
    package var outcome: PaymentOutcome? {
        if case .finished(let outcome) = state { return outcome }
        return nil
    }

    package var isFinished: Bool { outcome != nil }

    /// Every state entered, in order.
    package var transitions: [PaymentState] { context.states }

    /// The command a state sends; `nil` for task and transient states: the state table's (`PaymentState.row`).
    static func command(of state: PaymentState) -> CommandID? { state.command }

    // MARK: - Events

    /// Begins the payment: the starting steps, or ENTER_SECURE_SESSION with `skipStartingSteps`. A request that
    /// does not validate finishes ERROR at once, before any command.
    package mutating func start() -> Action {
        let link: LinkStart
        let cancelled: Bool
        switch state {
        case .idle(let l, let c): (link, cancelled) = (l, c)
        case .finished: return .none
        case .command, .cancelling, .task, .closing: preconditionFailure("start() called twice")
        }
        do {
            try request.validate()
        } catch {
            return finishNow(PaymentOutcome(.error, reason: "invalid request: \(error.reason)"))
        }
        if cancelled { return finishNow(PaymentOutcome(.cancelled, reason: "cancelled before it started")) }
        if request.skipStartingSteps { return enterSecureSession(Start(link: link)) }
        return startingSteps(Start(link: link))
    }

    /// The terminal answered the outstanding command (any status: a status is a value).
    package mutating func responseReceived(_ response: TerminalResponse) -> Action {
        switch state {
        case .idle:
            preconditionFailure("a terminal response before start()")
        case .finished:
            return .none
        case .task(let task):
            preconditionFailure("\(task.name) has no outstanding command, yet \(response.command) was fed")
        case .closing(let closing):
            checkAnswers(closing.step.name, response)
            return closingResponse(closing, response)
        case .cancelling(let step):
            checkAnswers(step.name, response)
            if case .start(.enterSecureSession) = step, response.status.isSuccess { keepKSN(response) }
            return end(.cancelled, "cancelled by request", card: step.card)
        case .command(let step):
            checkAnswers(step.name, response)
            if response.status == .cancelled || response.status == .actionCancelled {
                return end(.cancelled, "\(response.command) answered \(response.status)", card: step.card)
            }
            switch step {
            case .start(let step): return startResponse(step, response)
            case .chip(let step): return chipResponse(step, response)
            case .contactless(let step): return contactlessResponse(step, response)
            case .magstripe(let step): return magstripeResponse(step, response)
            }
        }
    }

    /// A task hook finished.
    package mutating func taskFinished(_ result: TaskResult) -> Action {
        let step: TaskStep
        switch state {
        case .finished: return .none
        case .idle, .command, .cancelling, .closing: preconditionFailure("a task result while no task is outstanding")
        case .task(let t): step = t
        }
        switch (step, result) {
        case (_, .cancelled):
            return end(.cancelled, "the \(step.name) task cancelled the payment", card: step.card)
        case (_, .failed(let failure)):
            return end(.error, "the \(step.name) task failed: \(failure.reason)", code: failure.code, card: step.card)
        case (.selectApplication(let card, let eligible), .applicationSelected(let choice)):
            return applicationChosen(choice, card, eligible: eligible)
        case (.riskManagement(let card), .riskManagementDone(let tvr)):
            return riskManaged(tvr: tvr, card)
        case (.authorization(let card), .authorized(let response)):
            return authorized(response, card)
        case (.selectApplication, _), (.riskManagement, _), (.authorization, _):
            preconditionFailure("\(result) does not answer \(step.name)")
        }
    }

    /// A cancel request (Ctrl-C, `ucube cancel`). Accepted only before the card is read (`PaymentState.cancelWindow`);
    /// once a cancel is accepted, or the status is CANCELLED, every later request is told so, never "too late".
    package mutating func cancelRequested() -> CancelDecision {
        switch state {
        case .finished(let outcome):
            if outcome.status == .cancelled { return .alreadyCancelled }
            return .refused("the payment has already ended \(outcome.status)")
        case .idle(let link, let cancelled):
            if cancelled { return .alreadyCancelled }
            state = .idle(link, cancelled: true)
            return .accepted(.none)
        case .closing(let closing):
            if closing.outcome.status == .cancelled { return .alreadyCancelled }
            return .refused(context.activatedReader != nil ? CancelDecision.tooLate : "the payment is already ending")
        case .cancelling:
            return .alreadyCancelled
        case .task:
            // Every task comes after the card read, where the cancel window is closed.
            return .refused(CancelDecision.tooLate)
        case .command(let step):
            switch step.name.cancelWindow {
            case .open(let longCommandPending):
                state = .cancelling(step)
                context.statusReason = "cancel requested in \(step.name)"
                return .accepted(longCommandPending ? .cancelPendingCommand : .none)
            case .closed:
                return .refused(CancelDecision.tooLate)
            }
        }
    }

    /// The link dropped. Before the status is decided the payment ends ERROR_DISCONNECT at once (no
    /// END_EXIT_SECURE_SESSION: nothing can be sent); during the ending steps the decided status stands.
    package mutating func linkLost(_ error: LinkError? = nil) -> Action {
        let reason = error?.reason ?? "the link to the terminal dropped"
        let code = error?.code.rawValue
        switch state {
        case .finished:
            return .none
        case .idle:
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .command(let step), .cancelling(let step):
            context.errors.append(PaymentError(state: step.name, code: code, reason: reason))
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .task(let task):
            context.errors.append(PaymentError(state: task.name, code: code, reason: reason))
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .closing(let closing):
            context.errors.append(PaymentError(state: closing.step.name, code: code, reason: reason))
            return finishNow(closing.outcome)
        }
    }

    /// The outstanding command failed on the link without a disconnect (timeout, bad frame, malformed response,
    /// a request that could not be encoded): ERROR, or the next ending step when the status is already decided.
    package mutating func commandFailed(_ failure: CommandFailure) -> Action {
        let reason = failure.reason
        let code = failure.error.code.rawValue
        switch state {
        case .finished:
            return .none
        case .idle:
            preconditionFailure("a command failure before start()")
        case .command(let step):
            return end(.error, reason, code: code, card: step.card)
        case .cancelling(let step):
            return end(.cancelled, reason, code: code, card: step.card)
        case .task(let task):
            return end(.error, reason, code: code, card: task.card)
        case .closing(let closing):
            context.errors.append(PaymentError(state: closing.step.name, code: code, reason: reason))
            return nextClosingStep(closing.outcome, closing.remaining)
        }
    }

    // MARK: - Transitions

    /// Enters `next` with its command outstanding: the command its state's row names.
    mutating func go(_ next: CommandStep, _ command: PaymentCommand) -> Action {
        precondition(next.name.command == command.id, "\(next.name) sends \(command.id), not its row's command")
        context.states.append(next.name)
        state = .command(next)
        return .send(command)
    }

    /// Enters `next` with its task outstanding.
    mutating func go(_ next: TaskStep, _ task: TaskRequest) -> Action {
        context.states.append(next.name)
        state = .task(next)
        return .runTask(task)
    }

    /// Enters a state that needs no command (KSN_AVAILABLE, CARD_READ_END, START_ICC, START_NFC, START_MSR).
    mutating func pass(_ transient: PaymentState) {
        context.states.append(transient)
    }

    mutating func finishNow(_ outcome: PaymentOutcome) -> Action {
        state = .finished(outcome)
        context.status = outcome.status
        if let reason = outcome.reason { context.statusReason = reason }
        return .finish(outcome)
    }

    /// Our own engine feeds each answer to the command it sent; anything else is a bug in the engine.
    private func checkAnswers(_ step: PaymentState, _ response: TerminalResponse) {
        guard let expected = step.command else {
            preconditionFailure("\(step) has no outstanding command, yet \(response.command) was fed")
        }
        precondition(expected == response.command, "\(step) awaits \(expected), not \(response.command)")
    }

    // MARK: - What every flow reads

    /// ERROR naming the command and its status.
    mutating func failed(_ step: CommandStep, _ response: TerminalResponse) -> Action {
        end(.error, "\(response.command) answered \(response.status) in \(step.name)", card: step.card)
    }

    /// The plain TLVs of an answer (none when ciphered); nil, with the decode error kept, when they do not decode.
    mutating func plainTLVs(_ response: TerminalResponse, _ step: PaymentState) -> [TLV]? {
        guard !response.ciphered else { return [] }
        switch decode(TLVResponse.self, response) {
        case .success(let answer):
            return answer.tlvs
        case .failure(let error):
            context.errors.append(PaymentError(state: step, "\(response.command)'s TLVs", decoding: error))
            return nil
        }
    }

    /// The answer decoded as `R`, or the decoder's error: its code and its reason (which names the offset) are kept
    /// wherever the payment reports it, never dropped.
    func decode<R: RPCResponse>(_ type: R.Type, _ response: TerminalResponse) -> Result<R, CommandError> {
        Result { () throws(CommandError) -> R in try R(status: response.status, data: response.data) }
    }

    /// The requested-tag list (C1) of a command that can carry the payment's plain tag lists too (spec §8.6): `base`,
    /// then each list's tags that are not cardholder data, without repeats. `left` says, per list, what GetPlainTag
    /// still has to read: its cardholder tags (SRED tags such as 5A: a terminal gives them, truncated, to GetPlainTag
    /// only, as the simulator does, `SimulatorChoices.truncatedPAN`), or the whole list when C1 would pass
    /// `maxRequestedTagBytes` with it.
    static func requestedTags(_ base: [Tag], adding lists: [[Tag]]) -> (tags: [Tag], left: [[Tag]]) {
        var tags = base
        var left: [[Tag]] = []
        for list in lists {
            let cardholder = list.filter { SafeTLV.cardholderTags.contains($0.rawValue) }
            var merged = tags
            for tag in list where !cardholder.contains(tag) && !merged.contains(tag) { merged.append(tag) }
            guard merged.reduce(0, { $0 + $1.bytes.count }) <= maxRequestedTagBytes else {
                left.append(list)
                continue
            }
            tags = merged
            left.append(cardholder)
        }
        return (tags, left)
    }

    /// `C1 LL` with a one-byte length (spec §4).
    static let maxRequestedTagBytes = 127

    /// The values of `list`'s tags in `kept`, in the answer's order.
    static func only(_ list: [Tag], _ kept: [SafeTLV]) -> [SafeTLV] { kept.filter { list.contains($0.tag) } }
}

extension Result {
    /// The error, when this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
