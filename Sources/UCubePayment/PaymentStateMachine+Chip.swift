import UCubeProtocol

/// The contact flow (spec §8.2 ICCPaymentService, §8.4): application selection, TransactionInitialization, risk
/// management, TransactionProcess, the authorisation data after an ARQC, and TransactionFinalisation after the host's
/// answer (`+Host`).
extension PaymentStateMachine {
    /// A contact step with its command outstanding.
    enum ChipStep: Sendable {
        /// `legacyFormSent`: the 2020 form was sent after the terminal refused the current one.
        case buildCandidateList(Card, legacyFormSent: Bool)
        case userSelectApplication(Card, eligible: [CandidateApplication])
        /// `eligible`: candidates still eligible (not blocked, not failed at TransactionInitialization).
        case initTransaction(Card, eligible: [CandidateApplication], selected: CandidateApplication)
        /// `left`: what TransactionProcess's C1 leaves of each plain list.
        case processTransaction(Card, left: PlainLeft)
        case getAuthorizationSecuredTags(Card)
        case getAuthorizationPlainTags(Card)
        /// `left`: what TransactionFinalisation's C1 leaves of the finalisation plain list.
        case finalizeTransaction(Card, left: [Tag])

        var name: PaymentState {
            switch self {
            case .buildCandidateList: .smcBuildCandidateList
            case .userSelectApplication: .smcUserSelectApplication
            case .initTransaction: .smcInitTransaction
            case .processTransaction: .smcProcessTransaction
            case .getAuthorizationSecuredTags: .smcGetAuthorizationSecuredTags
            case .getAuthorizationPlainTags: .smcGetAuthorizationPlainTags
            case .finalizeTransaction: .smcFinalizeTransaction
            }
        }

        var card: Card {
            switch self {
            case .buildCandidateList(let card, _), .userSelectApplication(let card, _),
                .initTransaction(let card, _, _),
                .processTransaction(let card, _), .getAuthorizationSecuredTags(let card),
                .getAuthorizationPlainTags(let card), .finalizeTransaction(let card, _):
                card
            }
        }
    }

    mutating func chipResponse(_ step: ChipStep, _ response: TerminalResponse) -> Action {
        switch step {
        case .buildCandidateList(let card, let legacyFormSent):
            return candidatesAnswered(response, card, legacyFormSent: legacyFormSent)
        case .userSelectApplication(let card, let eligible):
            if response.status == .aborted {
                return end(.cancelled, "the cardholder aborted the application list", card: card)
            }
            guard response.status.isSuccess else { return failed(.chip(step), response) }
            let decoded = decode(DisplayListBox.Response.self, response)
            guard case .success(let choice) = decoded, eligible.indices.contains(choice.selectedIndex - 1)
            else { return end(.error, "DisplayListBox answered no valid item", decoded.failure, card: card) }
            return initTransaction(eligible[choice.selectedIndex - 1], card, eligible: eligible)
        case .initTransaction(let card, let eligible, let selected):
            return initAnswered(response, in: step.name, card, eligible: eligible, selected: selected)
        case .processTransaction(let card, let left):
            return processAnswered(response, card, left: left)
        case .getAuthorizationSecuredTags(let card):
            guard response.status.isSuccess else { return failed(.chip(step), response) }
            context.authorizationSecuredData = response.data
            if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .icc)).isEmpty {
                return getAuthorizationPlainTags(.chip(.getAuthorizationPlainTags(card)), card)
            }
            return startAuthorization(card)
        case .getAuthorizationPlainTags(let card):
            guard response.status.isSuccess else { return failed(.chip(step), response) }
            guard let tlvs = plainTLVs(response, step.name) else {
                return end(.error, "GetPlainTag answered bad TLVs", card: card)
            }
            context.authorizationPlainTags += context.absorb(tlvs)
            return startAuthorization(card)
        case .finalizeTransaction(let card, let left):
            return finalisationAnswered(response, in: step.name, card, left: left)
        }
    }

    /// START_ICC: a card is in the chip reader. spec §5.2 0x5510, §8.4: BuildCandidateList in the current SDK's form
    /// first (full TLV list); the 2020 form if it is refused.
    mutating func chipInserted() -> Action {
        context.entryMode = .icc
        pass(.startICC)
        return go(
            .chip(.buildCandidateList(Card(reader: .icc), legacyFormSent: false)),
            .buildCandidateList(Self.currentCandidateList(request)))
    }

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
            state = .command(.chip(.buildCandidateList(card, legacyFormSent: true)))
            return .send(.buildCandidateList(BuildCandidateList()))
        }
        guard response.status.isSuccess else {
            return failed(.chip(.buildCandidateList(card, legacyFormSent: legacyFormSent)), response)
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
                return go(.chip(.userSelectApplication(card, eligible: eligible)), .displayListBox(list))
            }
            return go(.selectApplication(card, eligible: eligible), .selectApplication(eligible))
        }
    }

    /// The application-selection task's choice; nil: it cancelled the payment.
    mutating func applicationChosen(
        _ choice: CandidateApplication?, _ card: Card, eligible: [CandidateApplication]
    ) -> Action {
        guard let choice else { return end(.cancelled, "application selection cancelled", card: card) }
        guard eligible.contains(choice) else {
            return end(.error, "the selection task chose \(choice.aid.hex), which is not a candidate", card: card)
        }
        return initTransaction(choice, card, eligible: eligible)
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
        return go(.chip(.initTransaction(card, eligible: eligible, selected: app)), .transactionInit(command))
    }

    private mutating func initAnswered(
        _ response: TerminalResponse, in state: PaymentState, _ card: Card, eligible: [CandidateApplication],
        selected app: CandidateApplication
    ) -> Action {
        guard response.status.isSuccess else {
            // spec §5.2 0x5511: "On failure the old ICC flow removes that AID from the candidates and re-runs
            // selection."
            context.errors.append(
                PaymentError(
                    state: state,
                    reason: "TransactionInitialization for \(app.aid.hex) answered \(response.status); AID dropped"
                )
            )
            return chooseApplication(card, eligible: eligible.filter { $0.aid != app.aid })
        }
        if !response.ciphered, let tlvs = plainTLVs(response, state) {
            context.absorb(tlvs)
        }
        return go(.riskManagement(card), .riskManagement(aid: app.aid))
    }

    /// The risk-management task's TVR: TransactionProcess (the first GENERATE AC).
    mutating func riskManaged(tvr: [UInt8], _ card: Card) -> Action {
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
            .chip(.processTransaction(card, left: PlainLeft(authorization: left[0], finalization: left[1]))),
            .transactionProcess(command))
    }

    private mutating func processAnswered(_ response: TerminalResponse, _ card: Card, left: PlainLeft) -> Action {
        if response.status == .emvNotAccepted {
            return end(.refusedCard, "the card refused the transaction (-301)", card: card)
        }
        guard response.status.isSuccess else { return failed(.chip(.processTransaction(card, left: left)), response) }
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
                return go(.chip(.getAuthorizationSecuredTags(card)), .getSecuredTag(GetSecuredTag(tags: secured)))
            }
            if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .icc)).isEmpty {
                return getAuthorizationPlainTags(.chip(.getAuthorizationPlainTags(card)), card)
            }
            return startAuthorization(card)
        }
    }

    /// TransactionFinalisation (the second GENERATE AC) with the issuer's answer, after AUTHORIZATION.
    mutating func finalizeTransaction(_ response: AuthorizationResponse, _ card: Card) -> Action {
        var card = card
        let (tags, left) = completionTags(.icc, &card)
        let command = TransactionFinalisation(
            authorisationStatus: TransactionFinalisation.authorisationStatus(forResponseCode: response.arc),
            authorisationResponseCode: response.arc,
            issuerAuthenticationData: response.issuerAuthenticationData,
            issuerScript1: response.script71,
            issuerScript2: response.script72,
            requestedTags: tags
        )
        return go(.chip(.finalizeTransaction(card, left: left)), .transactionFinalisation(command))
    }

    private mutating func finalisationAnswered(
        _ response: TerminalResponse, in state: PaymentState, _ card: Card, left: [Tag]
    ) -> Action {
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
                    PaymentError(state: state, "TransactionFinalisation's TLVs", decoding: error))
            }
            guard approved else { return end(.declined, card: card) }
            // Status 7 is the terminal's word; the second GENERATE AC's TC is the card's (spec §8.3).
            let tlvs = answer?.tlvs ?? []
            return conclude(cid: tlvs[Tag(0x9F27)], cryptogram: tlvs[Tag(0x9F26)], accepting: [.tc], card: card)
        default:
            return failed(.chip(.finalizeTransaction(card, left: left)), response)
        }
    }
}
