import UCubeProtocol

/// The host's part, shared by the flows: the authorisation data read with GetPlainTag, the cardholder's online PIN
/// (SimplifiedOnlinePIN), AUTHORIZATION (the task that asks the issuer, `AuthorizationTask`), and its answer handed
/// to the flow that read the card (TransactionFinalisation, CompleteNFC, or the magstripe's decision).
extension PaymentStateMachine {
    /// GetPlainTag for what the authorization plain list still needs; `next` is the flow's GET_…_PLAIN_TAGS step.
    mutating func getAuthorizationPlainTags(_ next: CommandStep, _ card: Card) -> Action {
        let tags = card.authorizationPlainLeft ?? request.authorizationPlainTags(for: card.mode)
        return go(next, .getPlainTag(GetPlainTag(tags: tags)))
    }

    /// SimplifiedOnlinePIN; `next` is the flow's PIN step (NFC_SIMPLIFIED_ONLINE_PIN for a contactless card,
    /// ONLINE_PIN for a magstripe).
    mutating func onlinePIN(_ next: CommandStep, _ card: Card) -> Action {
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
        return go(next, .simplifiedOnlinePIN(command))
    }

    /// The PIN block and its KSN, for the host; then AUTHORIZATION.
    mutating func onlinePINAnswered(_ step: CommandStep, _ card: Card, _ response: TerminalResponse) -> Action {
        guard response.status.isSuccess else { return failed(step, response) }
        let decoded = decode(SimplifiedOnlinePIN.Response.self, response)
        guard case .success(let pin) = decoded else {
            return end(.error, "SimplifiedOnlinePIN answered no DF3E/DF3F", decoded.failure, card: card)
        }
        context.pinKSN = pin.pinKSN
        context.onlinePINBlock = pin.pinBlock
        return startAuthorization(card)
    }

    mutating func startAuthorization(_ card: Card) -> Action {
        let task = AuthorizationRequest(
            entryMode: card.mode,
            amount: context.amount ?? 0,
            currency: request.currency.alpha,
            cryptogram: context.cryptogramType,
            onlinePIN: context.onlinePINBlock != nil
        )
        return go(.authorization(card), .authorize(task))
    }

    /// The issuer's answer, handed to the flow that read the card.
    mutating func authorized(_ response: AuthorizationResponse, _ card: Card) -> Action {
        context.authorization = response
        guard response.arc.count == 2 else {
            return end(.error, "the authorization response code (8A) is \(response.arc.count) bytes, not 2", card: card)
        }
        switch card.reader {
        case .icc: return finalizeTransaction(response, card)
        case .nfc: return completeTransaction(response, card)
        case .msr: return magstripeAuthorized(response, card)
        }
    }

    /// The C1 of TransactionFinalisation and CompleteNFC: the second cryptogram's tags and the finalisation plain list,
    /// whose values then come from this last answer; `left`: what C1 leaves of that list.
    mutating func completionTags(_ mode: EntryMode, _ card: inout Card) -> (tags: [Tag], left: [Tag]) {
        let (tags, left) = Self.requestedTags(
            PaymentTagDefaults.generateAC, adding: [request.finalizationPlainTags(for: mode)])
        // Values read before the completion are stale once it runs: unless its answer carries them, the whole list is
        // read afterwards.
        card.finalizationPlainLeft = nil
        context.finalizationPlainTags = []
        return (tags, left[0])
    }

    /// The completion's answer holds the finalisation plain list, but for what its C1 left to GetPlainTag.
    mutating func completionAnswered(_ kept: [SafeTLV], _ mode: EntryMode, _ card: inout Card, left: [Tag]) {
        card.finalizationPlainLeft = left
        context.finalizationPlainTags = Self.only(request.finalizationPlainTags(for: mode), kept)
    }
}
