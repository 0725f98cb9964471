import UCubeProtocol

/// The status decided (`end`, `conclude`) and the ending steps after it: the finalisation tags (approved or declined
/// only), card removal (ICC), level-2 logs, END_EXIT_SECURE_SESSION. A failure here is recorded in `context.errors`
/// but never changes the decided status.
extension PaymentStateMachine {
    /// The ending steps still to run once the status is decided.
    struct Closing: Sendable {
        var outcome: PaymentOutcome
        /// The step whose command is outstanding.
        var step: Ending
        var remaining: [Ending]
    }

    /// An ending step, with the command it sends.
    enum Ending: Sendable {
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

    /// Ends the payment as the card's cryptogram says (`CryptogramRule`). An approval keeps, in the context, the
    /// cryptogram that gave it.
    mutating func conclude(
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
    mutating func end(
        _ status: PaymentStatus, _ reason: String? = nil, _ cause: CommandError? = nil, code: String? = nil,
        card: Card?
    ) -> Action {
        let outcome = PaymentOutcome(status, reason: reason)
        if let reason, status != .approved, status != .declined {
            context.errors.append(
                cause.map { PaymentError(state: currentState, reason, decoding: $0) }
                    ?? PaymentError(state: currentState, code: code, reason: reason))
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

    mutating func nextClosingStep(_ outcome: PaymentOutcome, _ steps: [Ending]) -> Action {
        guard let step = steps.first else { return finishNow(outcome) }
        precondition(step.name.command == step.command.id, "\(step.name) sends \(step.command.id), not its row's")
        context.states.append(step.name)
        state = .closing(Closing(outcome: outcome, step: step, remaining: Array(steps.dropFirst())))
        return .send(step.command)
    }

    mutating func closingResponse(_ closing: Closing, _ response: TerminalResponse) -> Action {
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
}
