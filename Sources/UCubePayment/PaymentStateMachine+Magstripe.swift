import UCubeProtocol

/// The magstripe flow (spec §7.4, §8.2 MSPaymentService): the card data block, the MSR action (DF60), the online
/// PIN it may ask for, then the host's answer decides (`+Host`).
extension PaymentStateMachine {
    /// A magstripe step with its command outstanding.
    enum MagstripeStep: Sendable {
        case getSecuredTags(Card)
        case getPlainTags(Card)
        /// SimplifiedOnlinePIN for a swiped card.
        case onlinePIN(Card)

        var name: PaymentState {
            switch self {
            case .getSecuredTags: .msrGetSecuredTags
            case .getPlainTags: .msrGetPlainTags
            case .onlinePIN: .onlinePIN
            }
        }

        var card: Card {
            switch self {
            case .getSecuredTags(let card), .getPlainTags(let card), .onlinePIN(let card): card
            }
        }
    }

    mutating func magstripeResponse(_ step: MagstripeStep, _ response: TerminalResponse) -> Action {
        switch step {
        case .getSecuredTags(let card):
            guard response.status.isSuccess else { return failed(.magstripe(step), response) }
            context.authorizationSecuredData = response.data
            return getAuthorizationPlainTags(.magstripe(.getPlainTags(card)), card)
        case .getPlainTags(let card):
            guard response.status.isSuccess else { return failed(.magstripe(step), response) }
            guard let tlvs = plainTLVs(response, step.name) else {
                return end(.error, "GetPlainTag answered bad TLVs", card: card)
            }
            context.authorizationPlainTags += context.absorb(tlvs)
            return msrActionRead(tlvs, card)
        case .onlinePIN(let card):
            return onlinePINAnswered(.magstripe(step), card, response)
        }
    }

    /// START_MSR: a card was swiped; GetSecuredTag for the card data block, or straight to the plain tags.
    mutating func magstripeSwiped() -> Action {
        context.entryMode = .msr
        pass(.startMSR)
        let card = Card(reader: .msr)
        let secured = request.authorizationSecuredTags(for: .msr)
        if secured.isEmpty { return getAuthorizationPlainTags(.magstripe(.getPlainTags(card)), card) }
        return go(.magstripe(.getSecuredTags(card)), .getSecuredTag(GetSecuredTag(tags: secured)))
    }

    /// spec §7.4 DF60: 00 none (online PIN if forced), 01/06 online PIN, 02/03 chip required, 04 decline.
    private mutating func msrActionRead(_ tlvs: [TLV], _ card: Card) -> Action {
        guard let action = tlvs[PaymentTagDefaults.msrAction]?.first else {
            return end(.error, "GetPlainTag answered no MSR action (DF60)", card: card)
        }
        context.msrAction = action
        switch action {
        case 0x00:
            return request.forceOnlinePIN ? onlinePIN(.magstripe(.onlinePIN(card)), card) : startAuthorization(card)
        case 0x01, 0x06: return onlinePIN(.magstripe(.onlinePIN(card)), card)
        case 0x02, 0x03:
            return end(.chipRequired, "the magstripe says chip required (DF60 = \([action].hex))", card: card)
        case 0x04: return end(.declined, "the magstripe says decline (DF60 = 04)", card: card)
        default: return end(.error, "unknown MSR action DF60 = \([action].hex)", card: card)
        }
    }

    /// spec §8.2 MSPaymentService, after AUTHORIZATION: "00" → APPROVED else DECLINED.
    mutating func magstripeAuthorized(_ response: AuthorizationResponse, _ card: Card) -> Action {
        response.isApproved
            ? end(.approved, card: card) : end(.declined, "the issuer answered \(response.arc.hex)", card: card)
    }
}
