import UCubeProtocol

/// The contactless flow (spec §7.5, §8.2 NFCPaymentService): the outcome of the read StartNFC made, the authorisation
/// data, the online PIN, and CompleteNFC after the host's answer (`+Host`).
extension PaymentStateMachine {
    /// The contactless outcome's word on a card read that goes on to the authorization data (spec §7.5).
    enum NFCDecision: Sendable {
        case approved
        case declined
        case onlineRequest(pinRequested: Bool)
    }

    /// A contactless step with its command outstanding.
    enum ContactlessStep: Sendable {
        case getAuthorizationSecuredTags(Card, NFCDecision)
        case getAuthorizationPlainTags(Card, NFCDecision)
        /// SimplifiedOnlinePIN for a contactless card.
        case simplifiedOnlinePIN(Card)
        /// `left`: what CompleteNFC's C1 leaves of the finalisation plain list.
        case completeTransaction(Card, left: [Tag])

        var name: PaymentState {
            switch self {
            case .getAuthorizationSecuredTags: .nfcGetAuthorizationSecuredTags
            case .getAuthorizationPlainTags: .nfcGetAuthorizationPlainTags
            case .simplifiedOnlinePIN: .nfcSimplifiedOnlinePIN
            case .completeTransaction: .nfcCompleteTransaction
            }
        }

        var card: Card {
            switch self {
            case .getAuthorizationSecuredTags(let card, _), .getAuthorizationPlainTags(let card, _),
                .simplifiedOnlinePIN(let card), .completeTransaction(let card, _):
                card
            }
        }
    }

    mutating func contactlessResponse(_ step: ContactlessStep, _ response: TerminalResponse) -> Action {
        switch step {
        case .getAuthorizationSecuredTags(let card, let decision):
            guard response.status.isSuccess else { return failed(.contactless(step), response) }
            context.authorizationSecuredData = response.data
            if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .nfc)).isEmpty {
                return getAuthorizationPlainTags(.contactless(.getAuthorizationPlainTags(card, decision)), card)
            }
            return nfcAuthorizationDataRead(card, decision)
        case .getAuthorizationPlainTags(let card, let decision):
            guard response.status.isSuccess else { return failed(.contactless(step), response) }
            guard let tlvs = plainTLVs(response, step.name) else {
                return end(.error, "GetPlainTag answered bad TLVs", card: card)
            }
            context.authorizationPlainTags += context.absorb(tlvs)
            return nfcAuthorizationDataRead(card, decision)
        case .simplifiedOnlinePIN(let card):
            return onlinePINAnswered(.contactless(step), card, response)
        case .completeTransaction(var card, let left):
            guard response.status.isSuccess else { return failed(.contactless(step), response) }
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
        }
    }

    /// START_NFC: StartNFC read the card; its answer holds the outcome (DF72), the first cryptogram and, but for what
    /// its C1 `left`, the NFC plain lists.
    mutating func contactlessRead(_ answer: NFCStartTransaction.Response?, left: PlainLeft?) -> Action {
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
    }

    /// The outcome of the contactless read (spec §7.5, §8.2 NFCPaymentService).
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
            return go(
                .contactless(.getAuthorizationSecuredTags(card, decision)), .getSecuredTag(GetSecuredTag(tags: secured))
            )
        }
        if !(card.authorizationPlainLeft ?? request.authorizationPlainTags(for: .nfc)).isEmpty {
            return getAuthorizationPlainTags(.contactless(.getAuthorizationPlainTags(card, decision)), card)
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
            if pinRequested || request.forceOnlinePIN {
                return onlinePIN(.contactless(.simplifiedOnlinePIN(card)), card)
            }
            return startAuthorization(card)
        }
    }

    /// CompleteNFC with the issuer's answer, after AUTHORIZATION: spec §8.1 NFC_COMPLETE_TRANSACTION "0x5531 with
    /// DF73 = 8A value".
    mutating func completeTransaction(_ response: AuthorizationResponse, _ card: Card) -> Action {
        var card = card
        let (tags, left) = completionTags(.nfc, &card)
        let command = NFCCompleteTransaction(authorisationResponseCode: response.arc, requestedTags: tags)
        return go(.contactless(.completeTransaction(card, left: left)), .completeTransaction(command))
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
}
