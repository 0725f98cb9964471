import UCubeLink
import UCubeProtocol

/// The EMV payment of spec §8 as a pure value: events in (`start`, `responseReceived`, `taskFinished`,
/// `cancelRequested`, `linkLost`, `commandFailed`), what to do next out (`PaymentAction`). No I/O, no clocks.
///
/// Exactly one `.finish` is returned per payment; after it every event answers `.none` (a cancel is refused), so a
/// late answer or a second cancel cannot produce a second outcome. Every state entered is appended to
/// `context.states`, so the engine emits one event per state change.
package struct PaymentStateMachine: Sendable {
    package typealias Action = PaymentAction

    /// Where the payment stands.
    private enum State: Sendable {
        /// `start()` not called yet.
        case idle
        /// The command or task of this state is outstanding; its answer decides what comes next.
        case step(PaymentState)
        /// The status is decided; the ending steps run one after another.
        case closing(Closing)
        /// `.finish` has been returned.
        case finished(PaymentOutcome)
    }

    /// The ending steps after the status is decided: finalization tags (approved or declined only), card removal
    /// (ICC), level-2 logs, END_EXIT_SECURE_SESSION. A failure here is recorded in `context.errors` but never
    /// changes the decided status.
    private struct Closing: Sendable {
        var outcome: PaymentOutcome
        /// The step whose command is outstanding.
        var step: PaymentState
        var remaining: [PaymentState]
    }

    private var state: State = .idle
    /// The request and everything learned so far.
    package private(set) var context: PaymentContext
    /// A cancel was accepted: the payment ends CANCELLED at the next answer.
    private var cancelAccepted = false
    /// ICC: a card is in the reader (card removal is due at the end).
    private var cardInserted = false
    /// ICC: candidates still eligible (not blocked, not failed at TransactionInitialization).
    private var eligible: [CandidateApplication] = []
    /// BuildCandidateList's 2020 form was sent after the terminal refused the current one.
    private var legacyCandidateListSent = false
    /// ICC: the application TransactionInitialization was sent for.
    private var selected: CandidateApplication?
    /// The card's cryptogram (9F27, 9F26) as the last contactless answer gave it: StartNFC's, then CompleteNFC's.
    private var nfcCryptogram: (cid: [UInt8]?, cryptogram: [UInt8]?) = (nil, nil)
    /// What the link said about the terminal when the payment started (spec §8.6): which starting steps are due.
    private var link: LinkStart
    /// CancelAll was sent at the start: the starting steps run in full.
    private var fullStart = false
    /// The GetInfo answer this payment read, or the known terminal's once its KSN matched.
    private var terminalInfo: [UInt8]?
    /// What GetPlainTag still has to read of each plain list, once an answer's C1 carried the rest (spec §8.6); nil:
    /// no answer carried any of it, GetPlainTag reads the whole list.
    private var authorizationPlainLeft: [Tag]?
    private var finalizationPlainLeft: [Tag]?
    /// What the outstanding command's C1 leaves of each list, applied when it answers.
    private var leftByStart: (authorization: [Tag], finalization: [Tag])?
    private var leftByProcess: (authorization: [Tag], finalization: [Tag])?
    private var leftByCompletion: [Tag]?

    /// `link` says what is known of the terminal at the start; `.unknown` (the default) runs every starting step.
    package init(request: PaymentRequest, link: LinkStart = .unknown) {
        context = PaymentContext(request: request)
        self.link = link
    }

    private var request: PaymentRequest { context.request }

    /// The state whose command or task is outstanding; `nil` before `start()` and after `.finish`.
    package var currentState: PaymentState? {
        switch state {
        case .idle, .finished: nil
        case .step(let s): s
        case .closing(let c): c.step
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
        switch state {
        case .idle: break
        case .finished: return .none
        case .step, .closing: preconditionFailure("start() called twice")
        }
        do {
            try request.validate()
        } catch {
            return finishNow(PaymentOutcome(.error, reason: "invalid request: \(error.reason)"))
        }
        if cancelAccepted { return finishNow(PaymentOutcome(.cancelled, reason: "cancelled before it started")) }
        if request.skipStartingSteps { return enterSecureSession() }
        return startingSteps()
    }

    /// The terminal answered the outstanding command (any status: a status is a value).
    package mutating func responseReceived(_ response: TerminalResponse) -> Action {
        switch state {
        case .idle:
            preconditionFailure("a terminal response before start()")
        case .finished:
            return .none
        case .closing(let closing):
            checkAnswers(closing.step, response)
            return closingResponse(closing, response)
        case .step(let step):
            checkAnswers(step, response)
            if cancelAccepted {
                if step == .enterSecureSession, response.status.isSuccess { keepKSN(response) }
                return end(.cancelled, "cancelled by request")
            }
            if response.status == .cancelled || response.status == .actionCancelled {
                return end(.cancelled, "\(response.command) answered \(response.status)")
            }
            return stepResponse(step, response)
        }
    }

    /// A task hook finished.
    package mutating func taskFinished(_ result: TaskResult) -> Action {
        let step: PaymentState
        switch state {
        case .finished: return .none
        case .idle, .closing: preconditionFailure("a task result while no task is outstanding")
        case .step(let s): step = s
        }
        switch result {
        case .cancelled:
            return end(.cancelled, "the \(step) task cancelled the payment")
        case .failed(let reason):
            return end(.error, "the \(step) task failed: \(reason)")
        case .applicationSelected(let choice):
            precondition(step == .smcSelectApplication, "an application choice answers SMC_SELECT_APPLICATION")
            guard let choice else { return end(.cancelled, "application selection cancelled") }
            guard eligible.contains(choice) else {
                return end(.error, "the selection task chose \(choice.aid.hex), which is not a candidate")
            }
            return initTransaction(choice)
        case .riskManagementDone(let tvr):
            precondition(step == .smcRiskManagement, "a TVR answers SMC_RISK_MANAGEMENT")
            guard tvr.count == 5 else {
                return end(.error, "the risk-management task gave \(tvr.count) TVR bytes, not 5")
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
            leftByProcess = (left[0], left[1])
            let command = TransactionProcess(tvr: finalTVR, requestedTags: tags)
            return go(.smcProcessTransaction, .send(.transactionProcess(command)))
        case .authorized(let response):
            precondition(step == .authorization, "an authorization response answers AUTHORIZATION")
            return authorized(response)
        }
    }

    /// A cancel request (Ctrl-C, `ucube cancel`). Accepted only before the card is read (`PaymentState.cancelWindow`);
    /// once a cancel is accepted, or the status is CANCELLED, every later request is told so, never "too late".
    package mutating func cancelRequested() -> CancelDecision {
        switch state {
        case .finished(let outcome):
            if outcome.status == .cancelled { return .alreadyCancelled }
            return .refused("the payment has already ended \(outcome.status)")
        case .idle:
            if cancelAccepted { return .alreadyCancelled }
            cancelAccepted = true
            return .accepted(.none)
        case .closing(let closing):
            if closing.outcome.status == .cancelled { return .alreadyCancelled }
            return .refused(context.activatedReader != nil ? CancelDecision.tooLate : "the payment is already ending")
        case .step(let step):
            if cancelAccepted { return .alreadyCancelled }
            switch step.cancelWindow {
            case .open(let longCommandPending):
                cancelAccepted = true
                context.statusReason = "cancel requested in \(step)"
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
        case .step(let step):
            context.errors.append(PaymentError(state: step, reason: reason))
            return finishNow(PaymentOutcome(.errorDisconnect, reason: reason))
        case .closing(let closing):
            context.errors.append(PaymentError(state: closing.step, reason: reason))
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
        case .step:
            return end(cancelAccepted ? .cancelled : .error, reason)
        case .closing(let closing):
            context.errors.append(PaymentError(state: closing.step, reason: reason))
            return nextClosingStep(closing.outcome, closing.remaining)
        }
    }

    // MARK: - Transitions

    /// Enters `next` with its command or task outstanding.
    private mutating func go(_ next: PaymentState, _ action: Action) -> Action {
        context.states.append(next)
        state = .step(next)
        return action
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

    /// Decides the status and starts the ending steps.
    /// Ends a payment whose approval the card's cryptogram was asked to back (`CryptogramRule`).
    /// Ends the payment as the card's cryptogram says (`CryptogramRule`). An approval keeps, in the context, the
    /// cryptogram that gave it.
    private mutating func conclude(cid: [UInt8]?, cryptogram: [UInt8]?, accepting: Set<CryptogramType>) -> Action {
        let verdict = CryptogramRule.judge(cid: cid, cryptogram: cryptogram, accepting: accepting)
        if verdict == .approve {
            context.decideCryptogram(type: cid?.first.flatMap(CryptogramType.init(cid:)), cryptogram: cryptogram)
        }
        switch verdict {
        case .approve: return end(.approved)
        case .decline(let reason): return end(.declined, reason)
        case .missing(let reason): return end(.errorMissingRequiredCryptogram, reason)
        case .wrong(let reason): return end(.errorWrongCryptogramValue, reason)
        }
    }

    private mutating func end(_ status: PaymentStatus, _ reason: String? = nil, _ cause: CommandError? = nil) -> Action
    {
        let outcome = PaymentOutcome(status, reason: reason)
        if let reason, status != .approved, status != .declined {
            context.errors.append(
                cause.map { PaymentError(state: currentState, reason, decoding: $0) }
                    ?? PaymentError(state: currentState, reason: reason))
        }
        var steps: [PaymentState] = []
        if status == .approved || status == .declined, let mode = context.entryMode {
            if !request.finalizationSecuredTags(for: mode).isEmpty { steps.append(.getFinalizationSecuredTags) }
            if !(finalizationPlainLeft ?? request.finalizationPlainTags(for: mode)).isEmpty {
                steps.append(.getFinalizationPlainTags)
            }
        }
        if cardInserted, !request.skipCardRemoval { steps.append(.smcRemoveCard) }
        if request.retrieveL2Logs { steps += [.getCCL2Log, .getF4L2Log, .getF5L2Log] }
        steps.append(.endExitSecureSession)
        return nextClosingStep(outcome, steps)
    }

    private mutating func nextClosingStep(_ outcome: PaymentOutcome, _ steps: [PaymentState]) -> Action {
        guard let step = steps.first else { return finishNow(outcome) }
        context.states.append(step)
        state = .closing(Closing(outcome: outcome, step: step, remaining: Array(steps.dropFirst())))
        return .send(closingCommand(step))
    }

    private func closingCommand(_ step: PaymentState) -> PaymentCommand {
        let mode = context.entryMode ?? .icc
        switch step {
        case .getFinalizationSecuredTags:
            return .getSecuredTag(GetSecuredTag(tags: request.finalizationSecuredTags(for: mode)))
        case .getFinalizationPlainTags:
            return .getPlainTag(GetPlainTag(tags: finalizationPlainLeft ?? request.finalizationPlainTags(for: mode)))
        case .smcRemoveCard:
            return .waitCardRemoval(WaitCardRemoval(timeoutSeconds: UInt8(clamping: request.cardWaitTimeout)))
        case .getCCL2Log: return .getInfo(GetInfo(tags: [0xCC]))
        case .getF4L2Log: return .getInfo(GetInfo(tags: [0xF4]))
        case .getF5L2Log: return .getInfo(GetInfo(tags: [0xF5]))
        case .endExitSecureSession: return .exitSecureSession(ExitSecureSession())
        default: preconditionFailure("\(step) is not an ending step")
        }
    }

    private mutating func closingResponse(_ closing: Closing, _ response: TerminalResponse) -> Action {
        let succeeded = response.status.isSuccess
        if !succeeded {
            context.errors.append(
                PaymentError(state: closing.step, reason: "\(response.command) answered \(response.status)")
            )
        } else {
            switch closing.step {
            case .getFinalizationSecuredTags:
                context.finalizationSecuredData = response.data
            case .getFinalizationPlainTags:
                if let tlvs = plainTLVs(response, closing.step) {
                    context.finalizationPlainTags += context.absorb(tlvs)
                }
            case .getCCL2Log: context.l2Logs["CC"] = response.data.hex
            case .getF4L2Log: context.l2Logs["F4"] = response.data.hex
            case .getF5L2Log: context.l2Logs["F5"] = response.data.hex
            case .smcRemoveCard: cardInserted = false
            default: break
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

    private mutating func stepResponse(_ step: PaymentState, _ response: TerminalResponse) -> Action {
        switch step {
        // Starting steps: CancelAll and ExitSecureSession reset the terminal; their statuses do not matter.
        case .startCancelAll:
            return go(.startExitSecureSession, .send(.exitSecureSession(ExitSecureSession())))
        case .startExitSecureSession:
            return terminalInfoStep()
        case .getInfo:
            guard response.status.isSuccess else { return failed(step, response) }
            if !response.ciphered {
                terminalInfo = response.data
                applyTerminalInfo(response.data)
            }
            return enterSecureSession()
        case .enterSecureSession:
            guard response.status.isSuccess else {
                // Starting steps skipped on the link's word, and the terminal disagrees: it was not READY and idle
                // after all (another host used it, it rebooted into a state). Nothing is decided yet: start again
                // with the full sequence, once.
                if !fullStart, !request.skipStartingSteps { return fullStartingSteps() }
                return failed(step, response)
            }
            guard keepKSN(response), let ksn = context.sredKSN else {
                return end(.error, "EnterSecureSession answered no 10-byte SRED KSN")
            }
            if terminalInfo == nil, !request.skipStartingSteps, let known = usableKnownTerminal {
                // GetInfo was skipped for the terminal met before; the KSN says whether this is that terminal.
                guard known.matches(ksn: ksn) else {
                    link.terminal = nil
                    return go(.startExitSecureSession, .send(.exitSecureSession(ExitSecureSession())))
                }
                terminalInfo = known.info
                applyTerminalInfo(known.info)
            }
            context.knownTerminal = terminalInfo.flatMap { KnownTerminal(ksn: ksn, info: $0) }
            pass(.ksnAvailable)
            return startCardWait()

        case .startTransaction:
            return startTransactionAnswered(response)
        case .waitingCard:
            return waitCardAnswered(response)

        // ICC
        case .smcBuildCandidateList:
            return candidatesAnswered(response)
        case .smcUserSelectApplication:
            if response.status == .aborted { return end(.cancelled, "the cardholder aborted the application list") }
            guard response.status.isSuccess else { return failed(step, response) }
            let decoded = decode(DisplayListBox.Response.self, response)
            guard case .success(let choice) = decoded, eligible.indices.contains(choice.selectedIndex - 1)
            else { return end(.error, "DisplayListBox answered no valid item", decoded.failure) }
            return initTransaction(eligible[choice.selectedIndex - 1])
        case .smcInitTransaction:
            return initAnswered(response)
        case .smcProcessTransaction:
            return processAnswered(response)
        case .smcGetAuthorizationSecuredTags, .nfcGetAuthorizationSecuredTags:
            guard response.status.isSuccess else { return failed(step, response) }
            context.authorizationSecuredData = response.data
            let mode: EntryMode = step == .smcGetAuthorizationSecuredTags ? .icc : .nfc
            if !(authorizationPlainLeft ?? request.authorizationPlainTags(for: mode)).isEmpty {
                return getAuthorizationPlainTags(mode)
            }
            return mode == .icc ? startAuthorization() : nfcAuthorizationDataRead()
        case .smcGetAuthorizationPlainTags:
            guard response.status.isSuccess else { return failed(step, response) }
            guard let tlvs = plainTLVs(response, step) else { return end(.error, "GetPlainTag answered bad TLVs") }
            context.authorizationPlainTags += context.absorb(tlvs)
            return startAuthorization()
        case .smcFinalizeTransaction:
            return finalisationAnswered(response)

        // NFC
        case .nfcGetAuthorizationPlainTags:
            guard response.status.isSuccess else { return failed(step, response) }
            guard let tlvs = plainTLVs(response, step) else { return end(.error, "GetPlainTag answered bad TLVs") }
            context.authorizationPlainTags += context.absorb(tlvs)
            return nfcAuthorizationDataRead()
        case .nfcSimplifiedOnlinePIN, .onlinePIN:
            guard response.status.isSuccess else { return failed(step, response) }
            let decoded = decode(SimplifiedOnlinePIN.Response.self, response)
            guard case .success(let pin) = decoded else {
                return end(.error, "SimplifiedOnlinePIN answered no DF3E/DF3F", decoded.failure)
            }
            context.pinKSN = pin.pinKSN
            context.onlinePINBlock = pin.pinBlock
            return startAuthorization()
        case .nfcCompleteTransaction:
            guard response.status.isSuccess else { return failed(step, response) }
            let decoded = decode(NFCCompleteTransaction.Response.self, response)
            guard case .success(let complete) = decoded
            else { return end(.errorWrongNFCOutcome, "NFCCompleteTransaction answered bad TLVs", decoded.failure) }
            completionAnswered(context.absorb(complete.tlvs), .nfc)
            if let cid = complete.tlvs[Tag(0x9F27)] { nfcCryptogram = (cid, complete.tlvs[Tag(0x9F26)]) }
            guard let outcome = complete.outcome else {
                return end(.errorWrongNFCOutcome, "NFCCompleteTransaction answered no 2-byte DF72")
            }
            context.nfcFinalOutcome = outcome
            if outcome.signatureRequired { context.signatureRequired = true }
            return nfcFinalOutcome(outcome)

        // MSR
        case .msrGetSecuredTags:
            guard response.status.isSuccess else { return failed(step, response) }
            context.authorizationSecuredData = response.data
            return getAuthorizationPlainTags(.msr)
        case .msrGetPlainTags:
            guard response.status.isSuccess else { return failed(step, response) }
            guard let tlvs = plainTLVs(response, step) else { return end(.error, "GetPlainTag answered bad TLVs") }
            context.authorizationPlainTags += context.absorb(tlvs)
            return msrActionRead(tlvs)

        case .ksnAvailable, .cardReadEnd, .startICC, .startNFC, .startMSR, .offlinePIN, .smcSelectApplication,
            .smcRiskManagement, .authorization, .smcRemoveCard, .getFinalizationSecuredTags, .getFinalizationPlainTags,
            .getCCL2Log, .getF4L2Log, .getF5L2Log, .endExitSecureSession:
            preconditionFailure("\(step) never awaits a response outside the ending steps")
        }
    }

    /// ERROR naming the command and its status.
    private mutating func failed(_ step: PaymentState, _ response: TerminalResponse) -> Action {
        end(.error, "\(response.command) answered \(response.status) in \(step)")
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
    private mutating func startingSteps() -> Action {
        guard link.idle else { return fullStartingSteps() }
        if link.secured { return go(.startExitSecureSession, .send(.exitSecureSession(ExitSecureSession()))) }
        return terminalInfoStep()
    }

    /// CancelAll, ExitSecureSession, GetInfo: what the SDKs always send, and what ucube sends when the link's state is
    /// not known.
    private mutating func fullStartingSteps() -> Action {
        fullStart = true
        link = .unknown
        return go(.startCancelAll, .send(.cancelAll(CancelAll())))
    }

    /// A known terminal from a clean link, still to be confirmed by EnterSecureSession's KSN.
    private var usableKnownTerminal: KnownTerminal? { link.idle ? link.terminal : nil }

    /// GetInfo (D1 firmware, ED NFC module state), unless the link knows the terminal.
    private mutating func terminalInfoStep() -> Action {
        if usableKnownTerminal != nil { return enterSecureSession() }
        return go(.getInfo, .send(.getInfo(GetInfo(tags: Self.terminalInfoTags))))
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

    private mutating func enterSecureSession() -> Action {
        go(.enterSecureSession, .send(.enterSecureSession(EnterSecureSession())))
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
                requestedTags: startTransactionTags()
            )
            return go(.startTransaction, .send(.startTransaction(command)))
        }
        return go(.waitingCard, .send(.waitCard(WaitCard(readers: request.readers, timeoutSeconds: timeout))))
    }

    /// StartNFC's C1: what identifies the contactless application and its first cryptogram, and, when NFC is enabled,
    /// the NFC plain tag lists, so that a contactless card needs no GetPlainTag (the current SDK puts the
    /// authorisation list there too, spec §5.2 0x5530).
    private mutating func startTransactionTags() -> [Tag] {
        guard request.readers.contains(.nfc) else { return PaymentTagDefaults.startTransaction }
        let (tags, left) = Self.requestedTags(
            PaymentTagDefaults.startTransaction,
            adding: [request.authorizationPlainTags(for: .nfc), request.finalizationPlainTags(for: .nfc)])
        leftByStart = (left[0], left[1])
        return tags
    }

    private mutating func startTransactionAnswered(_ response: TerminalResponse) -> Action {
        guard response.status.isSuccess else {
            // PROJECT CHOICE: −2 (no card before the card-wait timeout) → CARD_WAIT_FAILED, as the newer SDK's
            // status list says ("no card / StartNFC failed", spec §8.1), not the legacy service's CANCELLED (§8.2):
            // CANCELLED stays the answer to a cancel (−32, −28, handled before this point), so a script can tell a
            // customer who never tapped from an operator who cancelled. NFC module errors → NFC_MPOS_ERROR.
            if response.status == .timeout { return end(.cardWaitFailed, "no card within the card wait timeout (-2)") }
            if response.status.isNFCModuleError {
                return end(.nfcMPOSError, "NFCStartTransaction answered \(response.status)")
            }
            return end(.cardWaitFailed, "NFCStartTransaction answered \(response.status)")
        }
        let decoded = decode(NFCStartTransaction.Response.self, response)
        guard case .success(let answer) = decoded else {
            return end(.error, "NFCStartTransaction answered bad TLVs", decoded.failure)
        }
        guard let reader = answer.activatedReader, request.readers.contains(reader) else {
            let raw = answer.tlvs[NFCStartTransaction.Response.activatedReaderTag].map(\.hex) ?? "none"
            return end(.errorWrongActivatedReader, "activated reader (DF70) \(raw) was not requested")
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
        return cardRead(reader, answer: answer)
    }

    private mutating func waitCardAnswered(_ response: TerminalResponse) -> Action {
        guard response.status.isSuccess else {
            // spec §8.2 PaymentService: anything but −32 → CARD_WAIT_FAILED.
            return end(.cardWaitFailed, "WaitCard answered \(response.status)")
        }
        let decoded = decode(WaitCard.Response.self, response)
        guard case .success(let answer) = decoded else {
            return end(.errorWrongActivatedReader, "WaitCard answered an unknown reader", decoded.failure)
        }
        guard answer.reader != .nfc, request.readers.contains(answer.reader) else {
            return end(.errorWrongActivatedReader, "WaitCard activated \(answer.reader), which was not requested")
        }
        return cardRead(answer.reader, answer: nil)
    }

    private mutating func cardRead(_ reader: CardReader, answer: NFCStartTransaction.Response?) -> Action {
        context.activatedReader = reader
        pass(.cardReadEnd)
        switch reader {
        case .icc:
            context.entryMode = .icc
            cardInserted = true
            pass(.startICC)
            // spec §5.2 0x5510, §8.4: the current SDK's form first (full TLV list); the 2020 form if it is refused.
            return go(.smcBuildCandidateList, .send(.buildCandidateList(Self.currentCandidateList(request))))
        case .nfc:
            context.entryMode = .nfc
            pass(.startNFC)
            let kept = context.absorb(answer?.tlvs ?? [])
            if let left = leftByStart {
                authorizationPlainLeft = left.authorization
                context.authorizationPlainTags = Self.only(request.authorizationPlainTags(for: .nfc), kept)
                finalizationPlainLeft = left.finalization
                context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: .nfc), kept)
            }
            nfcCryptogram = (answer?.tlvs[Tag(0x9F27)], answer?.tlvs[Tag(0x9F26)])
            return nfcOutcomeRead(answer?.outcome)
        case .msr:
            context.entryMode = .msr
            pass(.startMSR)
            let secured = request.authorizationSecuredTags(for: .msr)
            if secured.isEmpty { return getAuthorizationPlainTags(.msr) }
            return go(.msrGetSecuredTags, .send(.getSecuredTag(GetSecuredTag(tags: secured))))
        }
    }

    // MARK: ICC

    /// BuildCandidateList as the current SDK sends it (libApp 1.3.8.19: `C2 02 00 01 9C 01 tt`).
    static func currentCandidateList(_ request: PaymentRequest) -> BuildCandidateList {
        .currentSDK(transactionType: request.transactionType.rawValue)
    }

    private mutating func candidatesAnswered(_ response: TerminalResponse) -> Action {
        if response.status == .emvNotSupported { return end(.unsupportedCard, "no common application (-300)") }
        // A terminal of the 2020 dialect that refuses the current form (spec §5.2 0x5510: the 2020 SDK sent an empty
        // payload) gets the 2020 form, once; its refusal of that one ends the payment.
        if !response.status.isSuccess && !legacyCandidateListSent {
            legacyCandidateListSent = true
            return .send(.buildCandidateList(BuildCandidateList()))
        }
        guard response.status.isSuccess else { return failed(.smcBuildCandidateList, response) }
        let decoded = decode(BuildCandidateList.Response.self, response)
        guard case .success(let list) = decoded else {
            return end(.error, "BuildCandidateList answered a bad candidate list", decoded.failure)
        }
        context.candidates = list.candidates
        eligible = list.candidates.filter { !$0.blocked }
        return chooseApplication()
    }

    /// spec §8.2 ICCPaymentService: 0 → UNSUPPORTED_CARD, 1 → init, more → selection (task or terminal list).
    private mutating func chooseApplication() -> Action {
        switch eligible.count {
        case 0:
            return end(.unsupportedCard, "no usable application on the card")
        case 1:
            return initTransaction(eligible[0])
        default:
            if request.selectApplicationOnTerminal {
                let list = DisplayListBox(items: eligible.map { $0.label.isEmpty ? $0.aid.hex : $0.label })
                return go(.smcUserSelectApplication, .send(.displayListBox(list)))
            }
            return go(.smcSelectApplication, .runTask(.selectApplication(eligible)))
        }
    }

    private mutating func initTransaction(_ app: CandidateApplication) -> Action {
        selected = app
        context.selectedAID = app.aid
        context.applicationLabel = app.label.isEmpty ? nil : app.label
        guard let amount = context.amount else {
            return end(.error, "the terminal did not return the amount typed by the cardholder (9F02)")
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
        return go(.smcInitTransaction, .send(.transactionInit(command)))
    }

    private mutating func initAnswered(_ response: TerminalResponse) -> Action {
        guard let app = selected else { preconditionFailure("SMC_INIT_TRANSACTION without a selected application") }
        guard response.status.isSuccess else {
            // spec §5.2 0x5511: "On failure the old ICC flow removes that AID from the candidates and re-runs
            // selection."
            context.errors.append(
                PaymentError(
                    state: .smcInitTransaction,
                    reason: "TransactionInitialization for \(app.aid.hex) answered \(response.status); AID dropped"
                )
            )
            eligible.removeAll { $0.aid == app.aid }
            selected = nil
            return chooseApplication()
        }
        if !response.ciphered, let tlvs = plainTLVs(response, .smcInitTransaction) {
            context.absorb(tlvs)
        }
        return go(.smcRiskManagement, .runTask(.riskManagement(aid: app.aid)))
    }

    private mutating func processAnswered(_ response: TerminalResponse) -> Action {
        if response.status == .emvNotAccepted { return end(.refusedCard, "the card refused the transaction (-301)") }
        guard response.status.isSuccess else { return failed(.smcProcessTransaction, response) }
        let decoded = decode(TLVResponse.self, response)
        guard case .success(let answer) = decoded else {
            return end(.error, "TransactionProcess answered bad TLVs", decoded.failure)
        }
        let kept = context.absorb(answer.tlvs)
        if let left = leftByProcess {
            authorizationPlainLeft = left.authorization
            context.authorizationPlainTags = Self.only(request.authorizationPlainTags(for: .icc), kept)
            finalizationPlainLeft = left.finalization
            context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: .icc), kept)
        }
        guard let cid = answer[Tag(0x9F27)] else {
            return end(.errorMissingRequiredCryptogram, "TransactionProcess answered no 9F27")
        }
        // 9F27 bits 8–7 (EMV Book 3 Table 14): 00 AAC, 01 TC, 10 ARQC, 11 reserved.
        guard let first = cid.first, let type = CryptogramType(cid: first) else {
            return end(.errorWrongCryptogramValue, "9F27 = \(cid.hex) is not AAC, TC or ARQC")
        }
        context.cryptogramType = type
        switch type {
        // PROJECT CHOICE (spec §8.1): TC → APPROVED and AAC → DECLINED without AUTHORIZATION and 0x5513. A TC
        // approves only with its 9F26 (spec §8.3).
        case .tc: return conclude(cid: cid, cryptogram: answer[Tag(0x9F26)], accepting: [.tc])
        case .aac: return end(.declined)
        case .arqc:
            // The issuer verifies the ARQC itself: without 9F26 there is nothing to authorize.
            guard let ac = answer[Tag(0x9F26)], !ac.isEmpty else {
                return end(.errorMissingRequiredCryptogram, "9F27 = \(cid.hex) (ARQC) came without 9F26")
            }
            let secured = request.authorizationSecuredTags(for: .icc)
            if !secured.isEmpty {
                return go(.smcGetAuthorizationSecuredTags, .send(.getSecuredTag(GetSecuredTag(tags: secured))))
            }
            if !(authorizationPlainLeft ?? request.authorizationPlainTags(for: .icc)).isEmpty {
                return getAuthorizationPlainTags(.icc)
            }
            return startAuthorization()
        }
    }

    private mutating func getAuthorizationPlainTags(_ mode: EntryMode) -> Action {
        let state: PaymentState =
            switch mode {
            case .icc: .smcGetAuthorizationPlainTags
            case .nfc: .nfcGetAuthorizationPlainTags
            case .msr: .msrGetPlainTags
            }
        let tags = authorizationPlainLeft ?? request.authorizationPlainTags(for: mode)
        return go(state, .send(.getPlainTag(GetPlainTag(tags: tags))))
    }

    private mutating func startAuthorization() -> Action {
        guard let mode = context.entryMode else { preconditionFailure("AUTHORIZATION before the card was read") }
        let task = AuthorizationRequest(
            entryMode: mode,
            amount: context.amount ?? 0,
            currency: request.currency.alpha,
            cryptogram: context.cryptogramType,
            onlinePIN: context.onlinePINBlock != nil
        )
        return go(.authorization, .runTask(.authorize(task)))
    }

    private mutating func authorized(_ response: AuthorizationResponse) -> Action {
        context.authorization = response
        guard response.arc.count == 2 else {
            return end(.error, "the authorization response code (8A) is \(response.arc.count) bytes, not 2")
        }
        guard let mode = context.entryMode else { preconditionFailure("AUTHORIZATION before the card was read") }
        switch mode {
        case .icc:
            let command = TransactionFinalisation(
                authorisationStatus: TransactionFinalisation.authorisationStatus(forResponseCode: response.arc),
                authorisationResponseCode: response.arc,
                issuerAuthenticationData: response.issuerAuthenticationData,
                issuerScript1: response.script71,
                issuerScript2: response.script72,
                requestedTags: completionTags(.icc)
            )
            return go(.smcFinalizeTransaction, .send(.transactionFinalisation(command)))
        case .nfc:
            // spec §8.1 NFC_COMPLETE_TRANSACTION: "0x5531 with DF73 = 8A value".
            let command = NFCCompleteTransaction(
                authorisationResponseCode: response.arc,
                requestedTags: completionTags(.nfc)
            )
            return go(.nfcCompleteTransaction, .send(.completeTransaction(command)))
        case .msr:
            // spec §8.2 MSPaymentService: "00" → APPROVED else DECLINED.
            return response.isApproved ? end(.approved) : end(.declined, "the issuer answered \(response.arc.hex)")
        }
    }

    /// The C1 of TransactionFinalisation and CompleteNFC: the second cryptogram's tags and the finalisation plain list,
    /// whose values then come from this last answer.
    private mutating func completionTags(_ mode: EntryMode) -> [Tag] {
        let (tags, left) = Self.requestedTags(
            PaymentTagDefaults.generateAC, adding: [request.finalizationPlainTags(for: mode)])
        leftByCompletion = left[0]
        // Values read before the completion are stale once it runs: unless its answer carries them, the whole list is
        // read afterwards.
        finalizationPlainLeft = nil
        context.finalizationPlainTags = []
        return tags
    }

    /// The completion's answer holds the finalisation plain list, but for what its C1 left to GetPlainTag.
    private mutating func completionAnswered(_ kept: [SafeTLV], _ mode: EntryMode) {
        guard let left = leftByCompletion else { return }
        finalizationPlainLeft = left
        context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: mode), kept)
    }

    /// The values of `list`'s tags in `kept`, in the answer's order.
    static func only(_ list: [Tag], _ kept: [SafeTLV]) -> [SafeTLV] { kept.filter { list.contains($0.tag) } }

    private mutating func finalisationAnswered(_ response: TerminalResponse) -> Action {
        switch response.status {
        case .finalisationApproved, .finalisationDeclined:
            let approved = response.status == .finalisationApproved
            context.finalisationApproved = approved
            var answer: TransactionFinalisation.Response?
            switch decode(TransactionFinalisation.Response.self, response) {
            case .success(let decoded):
                answer = decoded
                completionAnswered(context.absorb(decoded.tlvs), .icc)
            case .failure(let error):
                // The outcome is then the card's cryptogram that is missing (conclude), and this says why.
                context.errors.append(
                    PaymentError(state: .smcFinalizeTransaction, "TransactionFinalisation's TLVs", decoding: error))
            }
            guard approved else { return end(.declined) }
            // Status 7 is the terminal's word; the second GENERATE AC's TC is the card's (spec §8.3).
            let tlvs = answer?.tlvs ?? []
            return conclude(cid: tlvs[Tag(0x9F27)], cryptogram: tlvs[Tag(0x9F26)], accepting: [.tc])
        default:
            return failed(.smcFinalizeTransaction, response)
        }
    }

    // MARK: NFC

    /// START_NFC: the outcome of the contactless read (spec §7.5, §8.2 NFCPaymentService).
    private mutating func nfcOutcomeRead(_ outcome: NFCOutcome?) -> Action {
        guard let outcome else { return end(.errorWrongNFCOutcome, "NFCStartTransaction answered no 2-byte DF72") }
        context.nfcOutcome = outcome
        context.signatureRequired = outcome.signatureRequired
        guard let result = outcome.result else {
            return end(.errorWrongNFCOutcome, "unknown NFC outcome \(outcome.bytes.hex)")
        }
        switch result {
        case .approved, .declined, .onlineRequest:
            let secured = request.authorizationSecuredTags(for: .nfc)
            if !secured.isEmpty {
                return go(.nfcGetAuthorizationSecuredTags, .send(.getSecuredTag(GetSecuredTag(tags: secured))))
            }
            if !(authorizationPlainLeft ?? request.authorizationPlainTags(for: .nfc)).isEmpty {
                return getAuthorizationPlainTags(.nfc)
            }
            return nfcAuthorizationDataRead()
        case .tryAnotherInterface, .cancelled, .endApplication, .failed:
            return nfcFinalOutcome(outcome)
        }
    }

    /// After the NFC authorization tags: the offline decision, or online PIN / authorization for an online request.
    private mutating func nfcAuthorizationDataRead() -> Action {
        guard let outcome = context.nfcOutcome, let result = outcome.result else {
            preconditionFailure("NFC authorization data read without a known outcome")
        }
        switch result {
        // An offline contactless approval: the card's TC, with its 9F26 (spec §8.3).
        case .approved:
            return conclude(cid: nfcCryptogram.cid, cryptogram: nfcCryptogram.cryptogram, accepting: [.tc])
        case .declined: return end(.declined)
        case .onlineRequest:
            if outcome.onlinePINRequested || request.forceOnlinePIN { return onlinePIN(.nfcSimplifiedOnlinePIN) }
            return startAuthorization()
        case .tryAnotherInterface, .cancelled, .endApplication, .failed:
            preconditionFailure("outcome \(outcome) does not read authorization data")
        }
    }

    /// A final NFC outcome (StartNFC's when final, or CompleteNFC's).
    private mutating func nfcFinalOutcome(_ outcome: NFCOutcome) -> Action {
        guard let result = outcome.result else {
            return end(.errorWrongNFCOutcome, "unknown NFC outcome \(outcome.bytes.hex)")
        }
        switch result {
        case .approved:
            // After an online request the card's cryptogram is its ARQC (or a TC), and the issuer must have
            // approved: a terminal that reports approved over an issuer's decline is not believed (spec §8.3).
            if let authorization = context.authorization, !authorization.isApproved {
                return end(
                    .declined, "the issuer answered \(authorization.arc.hex); the terminal's approval is not taken")
            }
            return conclude(cid: nfcCryptogram.cid, cryptogram: nfcCryptogram.cryptogram, accepting: [.tc, .arqc])
        case .declined: return end(.declined)
        case .cancelled: return end(.cancelled, "NFC outcome \(outcome.bytes.hex): transaction cancelled")
        case .tryAnotherInterface:
            return end(.nfcOutcomeTryOtherInterface, "NFC outcome \(outcome.bytes.hex): try another interface")
        case .endApplication: return end(.nfcOutcomeEndApplication, "NFC outcome \(outcome.bytes.hex): end application")
        case .failed: return end(.nfcOutcomeFailed, "NFC outcome \(outcome.bytes.hex): failed")
        case .onlineRequest:
            return end(.errorWrongNFCOutcome, "NFCCompleteTransaction answered another online request")
        }
    }

    private mutating func onlinePIN(_ state: PaymentState) -> Action {
        guard let amount = context.amount else { return end(.error, "the amount cannot be shown for the PIN entry") }
        let text: String
        do throws(CommandError) {
            text = try SimplifiedOnlinePIN.amountText(
                minorUnits: amount, exponent: UInt8(clamping: request.currency.exponent))
        } catch {
            return end(.error, "the amount cannot be shown for the PIN entry", error)
        }
        let command = SimplifiedOnlinePIN(
            amountText: text,
            currencyLabel: request.currency.alpha,
            pinBlockFormat: request.pinBlockFormat
        )
        return go(state, .send(.simplifiedOnlinePIN(command)))
    }

    // MARK: MSR

    /// spec §7.4 DF60: 00 none (online PIN if forced), 01/06 online PIN, 02/03 chip required, 04 decline.
    private mutating func msrActionRead(_ tlvs: [TLV]) -> Action {
        guard let action = tlvs[PaymentTagDefaults.msrAction]?.first else {
            return end(.error, "GetPlainTag answered no MSR action (DF60)")
        }
        context.msrAction = action
        switch action {
        case 0x00: return request.forceOnlinePIN ? onlinePIN(.onlinePIN) : startAuthorization()
        case 0x01, 0x06: return onlinePIN(.onlinePIN)
        case 0x02, 0x03: return end(.chipRequired, "the magstripe says chip required (DF60 = \([action].hex))")
        case 0x04: return end(.declined, "the magstripe says decline (DF60 = 04)")
        default: return end(.error, "unknown MSR action DF60 = \([action].hex)")
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
