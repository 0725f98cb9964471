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
package struct PaymentStateMachine: Sendable {
    package typealias Action = PaymentAction

    /// Where the payment stands.
    private enum State: Sendable {
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

    /// What the starting steps know and have learned (spec §8.6).
    private struct Start: Sendable {
        /// What the link said about the terminal when the payment started: which starting steps are due.
        var link: LinkStart
        /// CancelAll was sent at the start: the starting steps run in full.
        var fullStart = false
        /// The GetInfo answer this payment read, or the known terminal's once its KSN matched.
        var terminalInfo: [UInt8]?

        /// A known terminal from a clean link, still to be confirmed by EnterSecureSession's KSN.
        var usableKnownTerminal: KnownTerminal? { link.idle ? link.terminal : nil }
    }

    /// What each plain list leaves to GetPlainTag once a command's C1 asked for the rest (spec §8.6).
    private struct PlainLeft: Sendable {
        var authorization: [Tag]
        var finalization: [Tag]
    }

    /// The reader that read the card, with what that reader alone carries.
    private enum Reader: Sendable {
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
    private struct Card: Sendable {
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

    /// The contactless outcome's word on a card read that goes on to the authorization data (spec §7.5).
    private enum NFCDecision: Sendable {
        case approved
        case declined
        case onlineRequest(pinRequested: Bool)
    }

    /// A step whose command is outstanding, with what its answer needs.
    private enum CommandStep: Sendable {
        // Starting steps and the card wait.
        case startCancelAll(Start)
        case startExitSecureSession(Start)
        case getInfo(Start)
        case enterSecureSession(Start)
        /// StartNFC; `left`: what its C1 leaves of the NFC plain lists (nil when NFC is not asked for).
        case startTransaction(left: PlainLeft?)
        case waitingCard
        // ICC
        /// `legacyFormSent`: the 2020 form was sent after the terminal refused the current one.
        case buildCandidateList(Card, legacyFormSent: Bool)
        case userSelectApplication(Card, eligible: [CandidateApplication])
        /// `eligible`: candidates still eligible (not blocked, not failed at TransactionInitialization).
        case initTransaction(Card, eligible: [CandidateApplication], selected: CandidateApplication)
        /// `left`: what TransactionProcess's C1 leaves of each plain list.
        case processTransaction(Card, left: PlainLeft)
        case iccGetAuthorizationSecuredTags(Card)
        case iccGetAuthorizationPlainTags(Card)
        /// `left`: what TransactionFinalisation's C1 leaves of the finalisation plain list.
        case finalizeTransaction(Card, left: [Tag])
        // NFC
        case nfcGetAuthorizationSecuredTags(Card, NFCDecision)
        case nfcGetAuthorizationPlainTags(Card, NFCDecision)
        /// `left`: what CompleteNFC's C1 leaves of the finalisation plain list.
        case nfcCompleteTransaction(Card, left: [Tag])
        // MSR
        case msrGetSecuredTags(Card)
        case msrGetPlainTags(Card)
        /// SimplifiedOnlinePIN: NFC_SIMPLIFIED_ONLINE_PIN for a contactless card, ONLINE_PIN for a magstripe.
        case onlinePIN(Card)

        var name: PaymentState {
            switch self {
            case .startCancelAll: .startCancelAll
            case .startExitSecureSession: .startExitSecureSession
            case .getInfo: .getInfo
            case .enterSecureSession: .enterSecureSession
            case .startTransaction: .startTransaction
            case .waitingCard: .waitingCard
            case .buildCandidateList: .smcBuildCandidateList
            case .userSelectApplication: .smcUserSelectApplication
            case .initTransaction: .smcInitTransaction
            case .processTransaction: .smcProcessTransaction
            case .iccGetAuthorizationSecuredTags: .smcGetAuthorizationSecuredTags
            case .iccGetAuthorizationPlainTags: .smcGetAuthorizationPlainTags
            case .finalizeTransaction: .smcFinalizeTransaction
            case .nfcGetAuthorizationSecuredTags: .nfcGetAuthorizationSecuredTags
            case .nfcGetAuthorizationPlainTags: .nfcGetAuthorizationPlainTags
            case .nfcCompleteTransaction: .nfcCompleteTransaction
            case .msrGetSecuredTags: .msrGetSecuredTags
            case .msrGetPlainTags: .msrGetPlainTags
            case .onlinePIN(let card): card.mode == .nfc ? .nfcSimplifiedOnlinePIN : .onlinePIN
            }
        }

        /// The card, once it is read.
        var card: Card? {
            switch self {
            case .startCancelAll, .startExitSecureSession, .getInfo, .enterSecureSession, .startTransaction,
                .waitingCard:
                nil
            case .buildCandidateList(let card, _), .userSelectApplication(let card, _),
                .initTransaction(let card, _, _),
                .processTransaction(let card, _), .iccGetAuthorizationSecuredTags(let card),
                .iccGetAuthorizationPlainTags(let card), .finalizeTransaction(let card, _),
                .nfcGetAuthorizationSecuredTags(let card, _), .nfcGetAuthorizationPlainTags(let card, _),
                .nfcCompleteTransaction(let card, _), .msrGetSecuredTags(let card), .msrGetPlainTags(let card),
                .onlinePIN(let card):
                card
            }
        }
    }

    /// A step whose task hook is outstanding. Every task comes after the card read.
    private enum TaskStep: Sendable {
        case selectApplication(Card, eligible: [CandidateApplication])
        case riskManagement(Card)
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

    /// The ending steps after the status is decided: finalization tags (approved or declined only), card removal
    /// (ICC), level-2 logs, END_EXIT_SECURE_SESSION. A failure here is recorded in `context.errors` but never
    /// changes the decided status.
    private struct Closing: Sendable {
        var outcome: PaymentOutcome
        /// The step whose command is outstanding.
        var step: Ending
        var remaining: [Ending]
    }

    /// An ending step, with the command it sends.
    private enum Ending: Sendable {
        case finalizationSecuredTags([Tag])
        case finalizationPlainTags([Tag])
        case removeCard(timeoutSeconds: UInt8)
        case ccL2Log
        case f4L2Log
        case f5L2Log
        case exitSecureSession

        var name: PaymentState {
            switch self {
            case .finalizationSecuredTags: .getFinalizationSecuredTags
            case .finalizationPlainTags: .getFinalizationPlainTags
            case .removeCard: .smcRemoveCard
            case .ccL2Log: .getCCL2Log
            case .f4L2Log: .getF4L2Log
            case .f5L2Log: .getF5L2Log
            case .exitSecureSession: .endExitSecureSession
            }
        }

        var command: PaymentCommand {
            switch self {
            case .finalizationSecuredTags(let tags): .getSecuredTag(GetSecuredTag(tags: tags))
            case .finalizationPlainTags(let tags): .getPlainTag(GetPlainTag(tags: tags))
            case .removeCard(let timeout): .waitCardRemoval(WaitCardRemoval(timeoutSeconds: timeout))
            case .ccL2Log: .getInfo(GetInfo(tags: [0xCC]))
            case .f4L2Log: .getInfo(GetInfo(tags: [0xF4]))
            case .f5L2Log: .getInfo(GetInfo(tags: [0xF5]))
            case .exitSecureSession: .exitSecureSession(ExitSecureSession())
            }
        }
    }

    private var state: State
    /// The request and everything learned so far.
    package private(set) var context: PaymentContext

    /// `link` says what is known of the terminal at the start; `.unknown` (the default) runs every starting step.
    package init(request: PaymentRequest, link: LinkStart = .unknown) {
        context = PaymentContext(request: request)
        state = .idle(link, cancelled: false)
    }

    private var request: PaymentRequest { context.request }

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
            if case .enterSecureSession = step, response.status.isSuccess { keepKSN(response) }
            return end(.cancelled, "cancelled by request", card: step.card)
        case .command(let step):
            checkAnswers(step.name, response)
            if response.status == .cancelled || response.status == .actionCancelled {
                return end(.cancelled, "\(response.command) answered \(response.status)", card: step.card)
            }
            return stepResponse(step, response)
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
        case (_, .failed(let reason)):
            return end(.error, "the \(step.name) task failed: \(reason)", card: step.card)
        case (.selectApplication(let card, let eligible), .applicationSelected(let choice)):
            guard let choice else { return end(.cancelled, "application selection cancelled", card: card) }
            guard eligible.contains(choice) else {
                return end(.error, "the selection task chose \(choice.aid.hex), which is not a candidate", card: card)
            }
            return initTransaction(choice, card, eligible: eligible)
        case (.riskManagement(let card), .riskManagementDone(let tvr)):
            guard tvr.count == 5 else {
                return end(.error, "the risk-management task gave \(tvr.count) TVR bytes, not 5", card: card)
            }
            var finalTVR = tvr
            // spec §8.1: forceAuthorization "ICC: sets TVR byte 4 bit 4 i.e. tvr[3] |= 0x08".
            if request.forceAuthorization { finalTVR[3] |= 0x08 }
            context.tvr = finalTVR
            // The first GENERATE AC's answer carries the plain lists too: the authorisation's (for an ARQC) and the
            // finalisation's (for a TC or an AAC, which end the payment there).
            let (tags, left) = Self.requestedTags(
                PaymentTagDefaults.generateAC,
                adding: [request.authorizationPlainTags(for: .icc), request.finalizationPlainTags(for: .icc)])
            let command = TransactionProcess(tvr: finalTVR, keySlot: request.pinKeySlot, requestedTags: tags)
            return go(
                .processTransaction(card, left: PlainLeft(authorization: left[0], finalization: left[1])),
                .transactionProcess(command))
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
    package mutating func linkLost(_ reason: String = "the link to the terminal dropped") -> Action {
        switch state {
        case .finished:
            return .none
        case .idle:
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .command(let step), .cancelling(let step):
            context.errors.append(PaymentError(state: step.name, reason: reason))
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .task(let task):
            context.errors.append(PaymentError(state: task.name, reason: reason))
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .closing(let closing):
            context.errors.append(PaymentError(state: closing.step.name, reason: reason))
            return finishNow(closing.outcome)
        }
    }

    /// The outstanding command failed on the link without a disconnect (timeout, bad frame, malformed response,
    /// a request that could not be encoded): ERROR, or the next ending step when the status is already decided.
    package mutating func commandFailed(_ reason: String) -> Action {
        switch state {
        case .finished:
            return .none
        case .idle:
            preconditionFailure("a command failure before start()")
        case .command(let step):
            return end(.error, reason, card: step.card)
        case .cancelling(let step):
            return end(.cancelled, reason, card: step.card)
        case .task(let task):
            return end(.error, reason, card: task.card)
        case .closing(let closing):
            context.errors.append(PaymentError(state: closing.step.name, reason: reason))
            return nextClosingStep(closing.outcome, closing.remaining)
        }
    }

    // MARK: - Transitions

    /// Enters `next` with its command outstanding.
    private mutating func go(_ next: CommandStep, _ command: PaymentCommand) -> Action {
        context.states.append(next.name)
        state = .command(next)
        return .send(command)
    }

    /// Enters `next` with its task outstanding.
    private mutating func go(_ next: TaskStep, _ task: TaskRequest) -> Action {
        context.states.append(next.name)
        state = .task(next)
        return .runTask(task)
    }

    /// Enters a state that needs no command (KSN_AVAILABLE, CARD_READ_END, START_ICC, START_NFC, START_MSR).
    private mutating func pass(_ transient: PaymentState) {
        context.states.append(transient)
    }

    private mutating func finishNow(_ outcome: PaymentOutcome) -> Action {
        state = .finished(outcome)
        context.status = outcome.status
        if let reason = outcome.reason { context.statusReason = reason }
        return .finish(outcome)
    }

    /// Ends the payment as the card's cryptogram says (`CryptogramRule`). An approval keeps, in the context, the
    /// cryptogram that gave it.
    private mutating func conclude(
        cid: [UInt8]?, cryptogram: [UInt8]?, accepting: Set<CryptogramType>, card: Card
    ) -> Action {
        let verdict = CryptogramRule.judge(cid: cid, cryptogram: cryptogram, accepting: accepting)
        if verdict == .approve {
            context.decideCryptogram(type: cid?.first.flatMap(CryptogramType.init(cid:)), cryptogram: cryptogram)
        }
        switch verdict {
        case .approve: return end(.approved, card: card)
        case .decline(let reason): return end(.declined, reason, card: card)
        case .missing(let reason): return end(.errorMissingRequiredCryptogram, reason, card: card)
        case .wrong(let reason): return end(.errorWrongCryptogramValue, reason, card: card)
        }
    }

    /// Decides the status and starts the ending steps. `card`: the card read, nil before it (no finalization tags,
    /// no card removal).
    private mutating func end(
        _ status: PaymentStatus, _ reason: String? = nil, _ cause: CommandError? = nil, card: Card?
    ) -> Action {
        let outcome = PaymentOutcome(status, reason: reason)
        if let reason, status != .approved, status != .declined {
            context.errors.append(
                cause.map { PaymentError(state: currentState, reason, decoding: $0) }
                    ?? PaymentError(state: currentState, reason: reason))
        }
        var steps: [Ending] = []
        if status == .approved || status == .declined, let card {
            let secured = request.finalizationSecuredTags(for: card.mode)
            if !secured.isEmpty { steps.append(.finalizationSecuredTags(secured)) }
            let plain = card.finalizationPlainLeft ?? request.finalizationPlainTags(for: card.mode)
            if !plain.isEmpty { steps.append(.finalizationPlainTags(plain)) }
        }
        // ICC: the card is in the reader.
        if card?.mode == .icc, !request.skipCardRemoval {
            steps.append(.removeCard(timeoutSeconds: UInt8(clamping: request.cardWaitTimeout)))
        }
        if request.retrieveL2Logs { steps += [.ccL2Log, .f4L2Log, .f5L2Log] }
        steps.append(.exitSecureSession)
        return nextClosingStep(outcome, steps)
    }

    private mutating func nextClosingStep(_ outcome: PaymentOutcome, _ steps: [Ending]) -> Action {
        guard let step = steps.first else { return finishNow(outcome) }
        context.states.append(step.name)
        state = .closing(Closing(outcome: outcome, step: step, remaining: Array(steps.dropFirst())))
        return .send(step.command)
    }

    private mutating func closingResponse(_ closing: Closing, _ response: TerminalResponse) -> Action {
        if !response.status.isSuccess {
            context.errors.append(
                PaymentError(state: closing.step.name, reason: "\(response.command) answered \(response.status)")
            )
        } else {
            switch closing.step {
            case .finalizationSecuredTags:
                context.finalizationSecuredData = response.data
            case .finalizationPlainTags:
                if let tlvs = plainTLVs(response, closing.step.name) {
                    context.finalizationPlainTags += context.absorb(tlvs)
                }
            case .ccL2Log: context.l2Logs["CC"] = response.data.hex
            case .f4L2Log: context.l2Logs["F4"] = response.data.hex
            case .f5L2Log: context.l2Logs["F5"] = response.data.hex
            case .removeCard, .exitSecureSession: break
            }
        }
        return nextClosingStep(closing.outcome, closing.remaining)
    }

    /// Our own engine feeds each answer to the command it sent; anything else is a bug in the engine.
    private func checkAnswers(_ step: PaymentState, _ response: TerminalResponse) {
        guard let expected = Self.command(of: step) else {
            preconditionFailure("\(step) has no outstanding command, yet \(response.command) was fed")
        }
        precondition(expected == response.command, "\(step) awaits \(expected), not \(response.command)")
    }

    /// The command a state sends; `nil` for task and transient states. Every state is listed.
    static func command(of state: PaymentState) -> CommandID? {
        switch state {
        case .startCancelAll: .cancelAll
        case .startExitSecureSession, .endExitSecureSession: .exitSecureSession
        case .getInfo, .getCCL2Log, .getF4L2Log, .getF5L2Log: .getInfo
        case .enterSecureSession: .enterSecureSession
        case .startTransaction: .nfcStartTransaction
        case .waitingCard: .waitCard
        case .smcBuildCandidateList: .buildCandidateList
        case .smcUserSelectApplication: .displayListBox
        case .smcInitTransaction: .transactionInit
        case .smcProcessTransaction: .transactionProcess
        case .smcFinalizeTransaction: .transactionFinalisation
        case .smcRemoveCard: .waitCardRemoval
        case .smcGetAuthorizationSecuredTags, .nfcGetAuthorizationSecuredTags, .msrGetSecuredTags,
            .getFinalizationSecuredTags:
            .getSecuredTag
        case .smcGetAuthorizationPlainTags, .nfcGetAuthorizationPlainTags, .msrGetPlainTags, .getFinalizationPlainTags:
            .getPlainTag
        case .nfcSimplifiedOnlinePIN, .onlinePIN: .simplifiedOnlinePIN
        case .nfcCompleteTransaction: .nfcCompleteTransaction
        case .ksnAvailable, .cardReadEnd, .startICC, .startNFC, .startMSR, .offlinePIN, .smcSelectApplication,
            .smcRiskManagement, .authorization:
            nil
        }
    }

    // MARK: - Answers by state

    private mutating func stepResponse(_ step: CommandStep, _ response: TerminalResponse) -> Action {
        switch step {
        // Starting steps: CancelAll and ExitSecureSession reset the terminal; their statuses do not matter.
        case .startCancelAll(let start):
            return go(.startExitSecureSession(start), .exitSecureSession(ExitSecureSession()))
        case .startExitSecureSession(let start):
            return terminalInfoStep(start)
        case .getInfo(var start):
            guard response.status.isSuccess else { return failed(step, response) }
            if !response.ciphered {
                start.terminalInfo = response.data
                applyTerminalInfo(response.data)
            }
            return enterSecureSession(start)
        case .enterSecureSession(var start):
            guard response.status.isSuccess else {
                // Starting steps skipped on the link's word, and the terminal disagrees: it was not READY and idle
                // after all (another host used it, it rebooted into a state). Nothing is decided yet: start again
                // with the full sequence, once.
                if !start.fullStart, !request.skipStartingSteps { return fullStartingSteps(start) }
                return failed(step, response)
            }
            guard keepKSN(response), let ksn = context.sredKSN else {
                return end(.error, "EnterSecureSession answered no 10-byte SRED KSN", card: nil)
            }
            if start.terminalInfo == nil, !request.skipStartingSteps, let known = start.usableKnownTerminal {
                // GetInfo was skipped for the terminal met before; the KSN says whether this is that terminal.
                guard known.matches(ksn: ksn) else {
                    start.link.terminal = nil
                    return go(.startExitSecureSession(start), .exitSecureSession(ExitSecureSession()))
                }
                start.terminalInfo = known.info
                applyTerminalInfo(known.info)
            }
            context.knownTerminal = start.terminalInfo.flatMap { KnownTerminal(ksn: ksn, info: $0) }
            pass(.ksnAvailable)
            return startCardWait()

        case .startTransaction(let left):
            return startTransactionAnswered(response, left: left)
        case .waitingCard:
            return waitCardAnswered(response)

        // ICC
        case .buildCandidateList(let card, let legacyFormSent):
            return candidatesAnswered(response, card, legacyFormSent: legacyFormSent)
        case .userSelectApplication(let card, let eligible):
            if response.status == .aborted {
                return end(.cancelled, "the cardholder aborted the application list", card: card)
            }
            guard response.status.isSuccess else { return failed(step, response) }
            let decoded = decode(DisplayListBox.Response.self, response)
            guard case .success(let choice) = decoded, eligible.indices.contains(choice.selectedIndex - 1)
            else { return end(.error, "DisplayListBox answered no valid item", decoded.failure, card: card) }
            return initTransaction(eligible[choice.selectedIndex - 1], card, eligible: eligible)
        case .initTransaction(let card, let eligible, let selected):
            return initAnswered(response, card, eligible: eligible, selected: selected)
        case .processTransaction(let card, let left):
            return processAnswered(response, card, left: left)
        case .iccGetAuthorizationSecuredTags(let card):
            guard response.status.isSuccess else { return failed(step, response) }
            context.authorizationSecuredData = response.data
            if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .icc)).isEmpty {
                return getAuthorizationPlainTags(.iccGetAuthorizationPlainTags(card), card)
            }
            return startAuthorization(card)
        case .nfcGetAuthorizationSecuredTags(let card, let decision):
            guard response.status.isSuccess else { return failed(step, response) }
            context.authorizationSecuredData = response.data
            if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .nfc)).isEmpty {
                return getAuthorizationPlainTags(.nfcGetAuthorizationPlainTags(card, decision), card)
            }
            return nfcAuthorizationDataRead(card, decision)
        case .iccGetAuthorizationPlainTags(let card):
            guard response.status.isSuccess else { return failed(step, response) }
            guard let tlvs = plainTLVs(response, step.name) else {
                return end(.error, "GetPlainTag answered bad TLVs", card: card)
            }
            context.authorizationPlainTags += context.absorb(tlvs)
            return startAuthorization(card)
        case .finalizeTransaction(let card, let left):
            return finalisationAnswered(response, card, left: left)

        // NFC
        case .nfcGetAuthorizationPlainTags(let card, let decision):
            guard response.status.isSuccess else { return failed(step, response) }
            guard let tlvs = plainTLVs(response, step.name) else {
                return end(.error, "GetPlainTag answered bad TLVs", card: card)
            }
            context.authorizationPlainTags += context.absorb(tlvs)
            return nfcAuthorizationDataRead(card, decision)
        case .onlinePIN(let card):
            guard response.status.isSuccess else { return failed(step, response) }
            let decoded = decode(SimplifiedOnlinePIN.Response.self, response)
            guard case .success(let pin) = decoded else {
                return end(.error, "SimplifiedOnlinePIN answered no DF3E/DF3F", decoded.failure, card: card)
            }
            context.pinKSN = pin.pinKSN
            context.onlinePINBlock = pin.pinBlock
            return startAuthorization(card)
        case .nfcCompleteTransaction(var card, let left):
            guard response.status.isSuccess else { return failed(step, response) }
            let decoded = decode(NFCCompleteTransaction.Response.self, response)
            guard case .success(let complete) = decoded else {
                return end(
                    .errorWrongNFCOutcome, "NFCCompleteTransaction answered bad TLVs", decoded.failure, card: card)
            }
            completionAnswered(context.absorb(complete.tlvs), .nfc, &card, left: left)
            if let cid = complete.tlvs[Tag(0x9F27)] {
                card.reader = .nfc(cid: cid, cryptogram: complete.tlvs[Tag(0x9F26)])
            }
            guard let outcome = complete.outcome else {
                return end(.errorWrongNFCOutcome, "NFCCompleteTransaction answered no 2-byte DF72", card: card)
            }
            context.nfcFinalOutcome = outcome
            if outcome.signatureRequired { context.signatureRequired = true }
            return nfcFinalOutcome(outcome, card)

        // MSR
        case .msrGetSecuredTags(let card):
            guard response.status.isSuccess else { return failed(step, response) }
            context.authorizationSecuredData = response.data
            return getAuthorizationPlainTags(.msrGetPlainTags(card), card)
        case .msrGetPlainTags(let card):
            guard response.status.isSuccess else { return failed(step, response) }
            guard let tlvs = plainTLVs(response, step.name) else {
                return end(.error, "GetPlainTag answered bad TLVs", card: card)
            }
            context.authorizationPlainTags += context.absorb(tlvs)
            return msrActionRead(tlvs, card)
        }
    }

    /// ERROR naming the command and its status.
    private mutating func failed(_ step: CommandStep, _ response: TerminalResponse) -> Action {
        end(.error, "\(response.command) answered \(response.status) in \(step.name)", card: step.card)
    }

    @discardableResult
    private mutating func keepKSN(_ response: TerminalResponse) -> Bool {
        let decoded = decode(EnterSecureSession.Response.self, response)
        guard case .success(let session) = decoded else {
            if let error = decoded.failure {
                context.errors.append(PaymentError(state: currentState, "EnterSecureSession's KSN", decoding: error))
            }
            return false
        }
        context.sredKSN = session.ksn
        return true
    }

    /// The plain TLVs of an answer (none when ciphered); nil, with the decode error kept, when they do not decode.
    private mutating func plainTLVs(_ response: TerminalResponse, _ step: PaymentState) -> [TLV]? {
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
    private func decode<R: RPCResponse>(_ type: R.Type, _ response: TerminalResponse) -> Result<R, CommandError> {
        Result { () throws(CommandError) -> R in try R(status: response.status, data: response.data) }
    }

    // MARK: Starting and card wait

    /// The starting steps the link's state calls for (spec §8.6, PROJECT CHOICE): CancelAll only when something may
    /// be pending, ExitSecureSession only when a session may be open, GetInfo only when the terminal is not known.
    private mutating func startingSteps(_ start: Start) -> Action {
        guard start.link.idle else { return fullStartingSteps(start) }
        if start.link.secured { return go(.startExitSecureSession(start), .exitSecureSession(ExitSecureSession())) }
        return terminalInfoStep(start)
    }

    /// CancelAll, ExitSecureSession, GetInfo: what the SDKs always send, and what ucube sends when the link's state is
    /// not known.
    private mutating func fullStartingSteps(_ start: Start) -> Action {
        var start = start
        start.fullStart = true
        start.link = .unknown
        return go(.startCancelAll(start), .cancelAll(CancelAll()))
    }

    /// GetInfo (D1 firmware, ED NFC module state), unless the link knows the terminal.
    private mutating func terminalInfoStep(_ start: Start) -> Action {
        if start.usableKnownTerminal != nil { return enterSecureSession(start) }
        return go(.getInfo(start), .getInfo(GetInfo(tags: Self.terminalInfoTags)))
    }

    /// The GetInfo tags of the starting steps: D1 the firmware version, ED the NFC module state.
    static let terminalInfoTags: [UInt8] = [0xD1, 0xED]

    private mutating func applyTerminalInfo(_ data: [UInt8]) {
        let info: DeviceInfo
        do throws(CommandError) {
            info = try DeviceInfo(status: .success, data: data)
        } catch {
            context.errors.append(PaymentError(state: currentState, "GetInfo's D1/ED", decoding: error))
            return
        }
        context.firmwareVersion = info.firmwareVersion?.description
        context.nfcModuleState = info.nfcModuleState.flatMap { UInt8(exactly: $0) }
        if request.readersFromTerminal,
            let readers = TerminalReaders.readers(firmware: info.firmwareVersion, nfcModuleState: info.nfcModuleState)
        {
            context.request.readers = readers
        }
    }

    private mutating func enterSecureSession(_ start: Start) -> Action {
        go(.enterSecureSession(start), .enterSecureSession(EnterSecureSession()))
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

    /// START_TRANSACTION (0x5530, single entry point) whenever NFC is enabled or the amount is typed on the
    /// terminal; WAITING_CARD (0x5020) for a contact/magstripe-only request (spec §8.1, §8.2 `PaymentService`).
    private mutating func startCardWait() -> Action {
        let timeout = UInt8(clamping: request.cardWaitTimeout)
        if request.readers.contains(.nfc) || request.amount == nil {
            let (tags, left) = startTransactionTags()
            let command = NFCStartTransaction(
                readers: request.readers,
                cardWaitTimeout: timeout,
                amountOnTerminal: request.amount == nil,
                type: request.transactionType,
                currencyCode: request.currency.numeric,
                exponent: UInt8(clamping: request.currency.exponent),
                amount: request.amount ?? 0,
                cashback: request.cashback,
                forceOnline: request.forceAuthorization,
                requestedTags: tags
            )
            return go(.startTransaction(left: left), .startTransaction(command))
        }
        return go(.waitingCard, .waitCard(WaitCard(readers: request.readers, timeoutSeconds: timeout)))
    }

    /// StartNFC's C1: what identifies the contactless application and its first cryptogram, and, when NFC is enabled,
    /// the NFC plain tag lists, so that a contactless card needs no GetPlainTag (the current SDK puts the
    /// authorisation list there too, spec §5.2 0x5530). `left`: what C1 leaves of each list (nil without NFC).
    private func startTransactionTags() -> (tags: [Tag], left: PlainLeft?) {
        guard request.readers.contains(.nfc) else { return (PaymentTagDefaults.startTransaction, nil) }
        let (tags, left) = Self.requestedTags(
            PaymentTagDefaults.startTransaction,
            adding: [request.authorizationPlainTags(for: .nfc), request.finalizationPlainTags(for: .nfc)])
        return (tags, PlainLeft(authorization: left[0], finalization: left[1]))
    }

    private mutating func startTransactionAnswered(_ response: TerminalResponse, left: PlainLeft?) -> Action {
        guard response.status.isSuccess else {
            // PROJECT CHOICE: −2 (no card before the card-wait timeout) → CARD_WAIT_FAILED, as the newer SDK's
            // status list says ("no card / StartNFC failed", spec §8.1), not the legacy service's CANCELLED (§8.2):
            // CANCELLED stays the answer to a cancel (−32, −28, handled before this point), so a script can tell a
            // customer who never tapped from an operator who cancelled. NFC module errors → NFC_MPOS_ERROR.
            if response.status == .timeout {
                return end(.cardWaitFailed, "no card within the card wait timeout (-2)", card: nil)
            }
            if response.status.isNFCModuleError {
                return end(.nfcMPOSError, "NFCStartTransaction answered \(response.status)", card: nil)
            }
            return end(.cardWaitFailed, "NFCStartTransaction answered \(response.status)", card: nil)
        }
        let decoded = decode(NFCStartTransaction.Response.self, response)
        guard case .success(let answer) = decoded else {
            return end(.error, "NFCStartTransaction answered bad TLVs", decoded.failure, card: nil)
        }
        guard let reader = answer.activatedReader, request.readers.contains(reader) else {
            let raw = answer.tlvs[NFCStartTransaction.Response.activatedReaderTag].map(\.hex) ?? "none"
            return end(.errorWrongActivatedReader, "activated reader (DF70) \(raw) was not requested", card: nil)
        }
        if request.amount == nil {
            if let typed = answer.tlvs[Tag(0x9F02)] {
                do throws(AmountError) {
                    context.typedAmount = try Currency.minorUnits(fromBCD: typed)
                } catch {
                    context.errors.append(
                        PaymentError(
                            state: currentState, code: error.code.rawValue,
                            reason: "the typed amount (9F02): \(error.reason)"))
                }
            }
        }
        return cardRead(reader, answer: answer, left: left)
    }

    private mutating func waitCardAnswered(_ response: TerminalResponse) -> Action {
        guard response.status.isSuccess else {
            // spec §8.2 PaymentService: anything but −32 → CARD_WAIT_FAILED.
            return end(.cardWaitFailed, "WaitCard answered \(response.status)", card: nil)
        }
        let decoded = decode(WaitCard.Response.self, response)
        guard case .success(let answer) = decoded else {
            return end(.errorWrongActivatedReader, "WaitCard answered an unknown reader", decoded.failure, card: nil)
        }
        guard answer.reader != .nfc, request.readers.contains(answer.reader) else {
            return end(
                .errorWrongActivatedReader, "WaitCard activated \(answer.reader), which was not requested", card: nil)
        }
        return cardRead(answer.reader, answer: nil, left: nil)
    }

    /// The card is read: from here on every state carries it. `left`: what StartNFC's C1 left of the NFC plain lists.
    private mutating func cardRead(
        _ reader: CardReader, answer: NFCStartTransaction.Response?, left: PlainLeft?
    ) -> Action {
        context.activatedReader = reader
        pass(.cardReadEnd)
        switch reader {
        case .icc:
            context.entryMode = .icc
            pass(.startICC)
            // spec §5.2 0x5510, §8.4: the current SDK's form first (full TLV list); the 2020 form if it is refused.
            return go(
                .buildCandidateList(Card(reader: .icc), legacyFormSent: false),
                .buildCandidateList(Self.currentCandidateList(request)))
        case .nfc:
            context.entryMode = .nfc
            pass(.startNFC)
            let kept = context.absorb(answer?.tlvs ?? [])
            var card = Card(reader: .nfc(cid: answer?.tlvs[Tag(0x9F27)], cryptogram: answer?.tlvs[Tag(0x9F26)]))
            if let left {
                card.authorizationPlainLeft = left.authorization
                context.authorizationPlainTags = Self.only(request.authorizationPlainTags(for: .nfc), kept)
                card.finalizationPlainLeft = left.finalization
                context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: .nfc), kept)
            }
            return nfcOutcomeRead(answer?.outcome, card)
        case .msr:
            context.entryMode = .msr
            pass(.startMSR)
            let card = Card(reader: .msr)
            let secured = request.authorizationSecuredTags(for: .msr)
            if secured.isEmpty { return getAuthorizationPlainTags(.msrGetPlainTags(card), card) }
            return go(.msrGetSecuredTags(card), .getSecuredTag(GetSecuredTag(tags: secured)))
        }
    }

    // MARK: ICC

    /// BuildCandidateList as the current SDK sends it (libApp 1.3.8.19: `C2 02 00 01 9C 01 tt`).
    static func currentCandidateList(_ request: PaymentRequest) -> BuildCandidateList {
        .currentSDK(transactionType: request.transactionType.rawValue)
    }

    private mutating func candidatesAnswered(_ response: TerminalResponse, _ card: Card, legacyFormSent: Bool) -> Action
    {
        if response.status == .emvNotSupported {
            return end(.unsupportedCard, "no common application (-300)", card: card)
        }
        // A terminal of the 2020 dialect that refuses the current form (spec §5.2 0x5510: the 2020 SDK sent an empty
        // payload) gets the 2020 form, once, in the same state; its refusal of that one ends the payment.
        if !response.status.isSuccess && !legacyFormSent {
            state = .command(.buildCandidateList(card, legacyFormSent: true))
            return .send(.buildCandidateList(BuildCandidateList()))
        }
        guard response.status.isSuccess else {
            return failed(.buildCandidateList(card, legacyFormSent: legacyFormSent), response)
        }
        let decoded = decode(BuildCandidateList.Response.self, response)
        guard case .success(let list) = decoded else {
            return end(.error, "BuildCandidateList answered a bad candidate list", decoded.failure, card: card)
        }
        context.candidates = list.candidates
        return chooseApplication(card, eligible: list.candidates.filter { !$0.blocked })
    }

    /// spec §8.2 ICCPaymentService: 0 → UNSUPPORTED_CARD, 1 → init, more → selection (task or terminal list).
    private mutating func chooseApplication(_ card: Card, eligible: [CandidateApplication]) -> Action {
        switch eligible.count {
        case 0:
            return end(.unsupportedCard, "no usable application on the card", card: card)
        case 1:
            return initTransaction(eligible[0], card, eligible: eligible)
        default:
            if request.selectApplicationOnTerminal {
                let list = DisplayListBox(items: eligible.map { $0.label.isEmpty ? $0.aid.hex : $0.label })
                return go(.userSelectApplication(card, eligible: eligible), .displayListBox(list))
            }
            return go(.selectApplication(card, eligible: eligible), .selectApplication(eligible))
        }
    }

    private mutating func initTransaction(
        _ app: CandidateApplication, _ card: Card, eligible: [CandidateApplication]
    ) -> Action {
        context.selectedAID = app.aid
        context.applicationLabel = app.label.isEmpty ? nil : app.label
        guard let amount = context.amount else {
            return end(.error, "the terminal did not return the amount typed by the cardholder (9F02)", card: card)
        }
        let command = TransactionInit(
            aid: app.aid,
            currencyCode: request.currency.numeric,
            exponent: UInt8(clamping: request.currency.exponent),
            type: request.transactionType,
            amount: amount,
            cashback: request.cashback,
            languages: request.preferredLanguages
        )
        return go(.initTransaction(card, eligible: eligible, selected: app), .transactionInit(command))
    }

    private mutating func initAnswered(
        _ response: TerminalResponse, _ card: Card, eligible: [CandidateApplication], selected app: CandidateApplication
    ) -> Action {
        guard response.status.isSuccess else {
            // spec §5.2 0x5511: "On failure the old ICC flow removes that AID from the candidates and re-runs
            // selection."
            context.errors.append(
                PaymentError(
                    state: .smcInitTransaction,
                    reason: "TransactionInitialization for \(app.aid.hex) answered \(response.status); AID dropped"
                )
            )
            return chooseApplication(card, eligible: eligible.filter { $0.aid != app.aid })
        }
        if !response.ciphered, let tlvs = plainTLVs(response, .smcInitTransaction) {
            context.absorb(tlvs)
        }
        return go(.riskManagement(card), .riskManagement(aid: app.aid))
    }

    private mutating func processAnswered(_ response: TerminalResponse, _ card: Card, left: PlainLeft) -> Action {
        if response.status == .emvNotAccepted {
            return end(.refusedCard, "the card refused the transaction (-301)", card: card)
        }
        guard response.status.isSuccess else { return failed(.processTransaction(card, left: left), response) }
        let decoded = decode(TLVResponse.self, response)
        guard case .success(let answer) = decoded else {
            return end(.error, "TransactionProcess answered bad TLVs", decoded.failure, card: card)
        }
        let kept = context.absorb(answer.tlvs)
        var card = card
        card.authorizationPlainLeft = left.authorization
        context.authorizationPlainTags = Self.only(request.authorizationPlainTags(for: .icc), kept)
        card.finalizationPlainLeft = left.finalization
        context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: .icc), kept)
        guard let cid = answer[Tag(0x9F27)] else {
            return end(.errorMissingRequiredCryptogram, "TransactionProcess answered no 9F27", card: card)
        }
        // 9F27 bits 8–7 (EMV Book 3 Table 14): 00 AAC, 01 TC, 10 ARQC, 11 reserved.
        guard let first = cid.first, let type = CryptogramType(cid: first) else {
            return end(.errorWrongCryptogramValue, "9F27 = \(cid.hex) is not AAC, TC or ARQC", card: card)
        }
        context.cryptogramType = type
        switch type {
        // PROJECT CHOICE (spec §8.1): TC → APPROVED and AAC → DECLINED without AUTHORIZATION and 0x5513. A TC
        // approves only with its 9F26 (spec §8.3).
        case .tc: return conclude(cid: cid, cryptogram: answer[Tag(0x9F26)], accepting: [.tc], card: card)
        case .aac: return end(.declined, card: card)
        case .arqc:
            // The issuer verifies the ARQC itself: without 9F26 there is nothing to authorize.
            guard let ac = answer[Tag(0x9F26)], !ac.isEmpty else {
                return end(.errorMissingRequiredCryptogram, "9F27 = \(cid.hex) (ARQC) came without 9F26", card: card)
            }
            let secured = request.authorizationSecuredTags(for: .icc)
            if !secured.isEmpty {
                return go(.iccGetAuthorizationSecuredTags(card), .getSecuredTag(GetSecuredTag(tags: secured)))
            }
            if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .icc)).isEmpty {
                return getAuthorizationPlainTags(.iccGetAuthorizationPlainTags(card), card)
            }
            return startAuthorization(card)
        }
    }

    /// GetPlainTag for what the authorization plain list still needs; `next` is the mode's GET_…_PLAIN_TAGS state.
    private mutating func getAuthorizationPlainTags(_ next: CommandStep, _ card: Card) -> Action {
        let tags = card.authorizationPlainLeft ?? request.authorizationPlainTags(for: card.mode)
        return go(next, .getPlainTag(GetPlainTag(tags: tags)))
    }

    private mutating func startAuthorization(_ card: Card) -> Action {
        let task = AuthorizationRequest(
            entryMode: card.mode,
            amount: context.amount ?? 0,
            currency: request.currency.alpha,
            cryptogram: context.cryptogramType,
            onlinePIN: context.onlinePINBlock != nil
        )
        return go(.authorization(card), .authorize(task))
    }

    private mutating func authorized(_ response: AuthorizationResponse, _ card: Card) -> Action {
        context.authorization = response
        guard response.arc.count == 2 else {
            return end(.error, "the authorization response code (8A) is \(response.arc.count) bytes, not 2", card: card)
        }
        var card = card
        switch card.reader {
        case .icc:
            let (tags, left) = completionTags(.icc, &card)
            let command = TransactionFinalisation(
                authorisationStatus: TransactionFinalisation.authorisationStatus(forResponseCode: response.arc),
                authorisationResponseCode: response.arc,
                issuerAuthenticationData: response.issuerAuthenticationData,
                issuerScript1: response.script71,
                issuerScript2: response.script72,
                requestedTags: tags
            )
            return go(.finalizeTransaction(card, left: left), .transactionFinalisation(command))
        case .nfc:
            // spec §8.1 NFC_COMPLETE_TRANSACTION: "0x5531 with DF73 = 8A value".
            let (tags, left) = completionTags(.nfc, &card)
            let command = NFCCompleteTransaction(authorisationResponseCode: response.arc, requestedTags: tags)
            return go(.nfcCompleteTransaction(card, left: left), .completeTransaction(command))
        case .msr:
            // spec §8.2 MSPaymentService: "00" → APPROVED else DECLINED.
            return response.isApproved
                ? end(.approved, card: card) : end(.declined, "the issuer answered \(response.arc.hex)", card: card)
        }
    }

    /// The C1 of TransactionFinalisation and CompleteNFC: the second cryptogram's tags and the finalisation plain list,
    /// whose values then come from this last answer; `left`: what C1 leaves of that list.
    private mutating func completionTags(_ mode: EntryMode, _ card: inout Card) -> (tags: [Tag], left: [Tag]) {
        let (tags, left) = Self.requestedTags(
            PaymentTagDefaults.generateAC, adding: [request.finalizationPlainTags(for: mode)])
        // Values read before the completion are stale once it runs: unless its answer carries them, the whole list is
        // read afterwards.
        card.finalizationPlainLeft = nil
        context.finalizationPlainTags = []
        return (tags, left[0])
    }

    /// The completion's answer holds the finalisation plain list, but for what its C1 left to GetPlainTag.
    private mutating func completionAnswered(_ kept: [SafeTLV], _ mode: EntryMode, _ card: inout Card, left: [Tag]) {
        card.finalizationPlainLeft = left
        context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: mode), kept)
    }

    /// The values of `list`'s tags in `kept`, in the answer's order.
    static func only(_ list: [Tag], _ kept: [SafeTLV]) -> [SafeTLV] { kept.filter { list.contains($0.tag) } }

    private mutating func finalisationAnswered(_ response: TerminalResponse, _ card: Card, left: [Tag]) -> Action {
        switch response.status {
        case .finalisationApproved, .finalisationDeclined:
            let approved = response.status == .finalisationApproved
            context.finalisationApproved = approved
            var card = card
            var answer: TransactionFinalisation.Response?
            switch decode(TransactionFinalisation.Response.self, response) {
            case .success(let decoded):
                answer = decoded
                completionAnswered(context.absorb(decoded.tlvs), .icc, &card, left: left)
            case .failure(let error):
                // The outcome is then the card's cryptogram that is missing (conclude), and this says why.
                context.errors.append(
                    PaymentError(state: .smcFinalizeTransaction, "TransactionFinalisation's TLVs", decoding: error))
            }
            guard approved else { return end(.declined, card: card) }
            // Status 7 is the terminal's word; the second GENERATE AC's TC is the card's (spec §8.3).
            let tlvs = answer?.tlvs ?? []
            return conclude(cid: tlvs[Tag(0x9F27)], cryptogram: tlvs[Tag(0x9F26)], accepting: [.tc], card: card)
        default:
            return failed(.finalizeTransaction(card, left: left), response)
        }
    }

    // MARK: NFC

    /// START_NFC: the outcome of the contactless read (spec §7.5, §8.2 NFCPaymentService).
    private mutating func nfcOutcomeRead(_ outcome: NFCOutcome?, _ card: Card) -> Action {
        guard let outcome else {
            return end(.errorWrongNFCOutcome, "NFCStartTransaction answered no 2-byte DF72", card: card)
        }
        context.nfcOutcome = outcome
        context.signatureRequired = outcome.signatureRequired
        guard let result = outcome.result else {
            return end(.errorWrongNFCOutcome, "unknown NFC outcome \(outcome.bytes.hex)", card: card)
        }
        let decision: NFCDecision
        switch result {
        case .approved: decision = .approved
        case .declined: decision = .declined
        case .onlineRequest: decision = .onlineRequest(pinRequested: outcome.onlinePINRequested)
        case .tryAnotherInterface, .cancelled, .endApplication, .failed:
            return nfcFinalOutcome(outcome, card)
        }
        let secured = request.authorizationSecuredTags(for: .nfc)
        if !secured.isEmpty {
            return go(.nfcGetAuthorizationSecuredTags(card, decision), .getSecuredTag(GetSecuredTag(tags: secured)))
        }
        if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .nfc)).isEmpty {
            return getAuthorizationPlainTags(.nfcGetAuthorizationPlainTags(card, decision), card)
        }
        return nfcAuthorizationDataRead(card, decision)
    }

    /// After the NFC authorization tags: the offline decision, or online PIN / authorization for an online request.
    private mutating func nfcAuthorizationDataRead(_ card: Card, _ decision: NFCDecision) -> Action {
        switch decision {
        // An offline contactless approval: the card's TC, with its 9F26 (spec §8.3).
        case .approved:
            let (cid, cryptogram) = card.nfcCryptogram
            return conclude(cid: cid, cryptogram: cryptogram, accepting: [.tc], card: card)
        case .declined: return end(.declined, card: card)
        case .onlineRequest(let pinRequested):
            if pinRequested || request.forceOnlinePIN { return onlinePIN(card) }
            return startAuthorization(card)
        }
    }

    /// A final NFC outcome (StartNFC's when final, or CompleteNFC's).
    private mutating func nfcFinalOutcome(_ outcome: NFCOutcome, _ card: Card) -> Action {
        guard let result = outcome.result else {
            return end(.errorWrongNFCOutcome, "unknown NFC outcome \(outcome.bytes.hex)", card: card)
        }
        switch result {
        case .approved:
            // After an online request the card's cryptogram is its ARQC (or a TC), and the issuer must have
            // approved: a terminal that reports approved over an issuer's decline is not believed (spec §8.3).
            if let authorization = context.authorization, !authorization.isApproved {
                return end(
                    .declined, "the issuer answered \(authorization.arc.hex); the terminal's approval is not taken",
                    card: card)
            }
            let (cid, cryptogram) = card.nfcCryptogram
            return conclude(cid: cid, cryptogram: cryptogram, accepting: [.tc, .arqc], card: card)
        case .declined: return end(.declined, card: card)
        case .cancelled: return end(.cancelled, "NFC outcome \(outcome.bytes.hex): transaction cancelled", card: card)
        case .tryAnotherInterface:
            return end(
                .nfcOutcomeTryOtherInterface, "NFC outcome \(outcome.bytes.hex): try another interface", card: card)
        case .endApplication:
            return end(.nfcOutcomeEndApplication, "NFC outcome \(outcome.bytes.hex): end application", card: card)
        case .failed: return end(.nfcOutcomeFailed, "NFC outcome \(outcome.bytes.hex): failed", card: card)
        case .onlineRequest:
            return end(.errorWrongNFCOutcome, "NFCCompleteTransaction answered another online request", card: card)
        }
    }

    /// SimplifiedOnlinePIN (NFC_SIMPLIFIED_ONLINE_PIN for a contactless card, ONLINE_PIN for a magstripe).
    private mutating func onlinePIN(_ card: Card) -> Action {
        guard let amount = context.amount else {
            return end(.error, "the amount cannot be shown for the PIN entry", card: card)
        }
        let text: String
        do throws(CommandError) {
            text = try SimplifiedOnlinePIN.amountText(
                minorUnits: amount, exponent: UInt8(clamping: request.currency.exponent))
        } catch {
            return end(.error, "the amount cannot be shown for the PIN entry", error, card: card)
        }
        let command = SimplifiedOnlinePIN(
            amountText: text,
            currencyLabel: request.currency.alpha,
            pinBlockFormat: request.pinBlockFormat,
            amount: SimplifiedOnlinePIN.Amount(
                currencyCode: request.currency.numeric, exponent: UInt8(clamping: request.currency.exponent),
                minorUnits: amount, keySlot: request.pinKeySlot)
        )
        return go(.onlinePIN(card), .simplifiedOnlinePIN(command))
    }

    // MARK: MSR

    /// spec §7.4 DF60: 00 none (online PIN if forced), 01/06 online PIN, 02/03 chip required, 04 decline.
    private mutating func msrActionRead(_ tlvs: [TLV], _ card: Card) -> Action {
        guard let action = tlvs[PaymentTagDefaults.msrAction]?.first else {
            return end(.error, "GetPlainTag answered no MSR action (DF60)", card: card)
        }
        context.msrAction = action
        switch action {
        case 0x00: return request.forceOnlinePIN ? onlinePIN(card) : startAuthorization(card)
        case 0x01, 0x06: return onlinePIN(card)
        case 0x02, 0x03:
            return end(.chipRequired, "the magstripe says chip required (DF60 = \([action].hex))", card: card)
        case 0x04: return end(.declined, "the magstripe says decline (DF60 = 04)", card: card)
        default: return end(.error, "unknown MSR action DF60 = \([action].hex)", card: card)
        }
    }
}

extension Result {
    /// The error, when this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
