import UCubeCrypto
import UCubeProtocol

/// The issuer's decisions of the host simulator, as pure functions: the card check (SRED deciphered with the BDK, the
/// PAN against the masked PAN, the ARQC against the card's keys), then the amount rules (`HostAmountRule`). Keys in,
/// a `HostDecision` out; the actor (`HostSimulator`) only does I/O and plays faults.
package enum HostAuthorizer {
    /// What the host found of the card.
    package struct CardCheck: Sendable, Hashable {
        /// The PAN, masked (first 6 / last 4), when the SRED data deciphered to one: what the log shows.
        package let maskedPAN: String?
        /// `nil`: the card checks out; otherwise the response code to decline with and why.
        package let failure: Failure?
        /// The ARQC's check (nil when none could be made): whether it verified, and the key for the ARPC.
        package let arqc: EMVIssuer.ARQCCheck?

        package struct Failure: Sendable, Hashable {
            package let responseCode: String
            package let message: String
        }
    }

    /// Checks the card of `request` with the host's keys.
    /// - Parameters:
    ///   - bdk: the BDK the terminal's SRED key derives from (`CryptoChoices.testBDK` for the simulator).
    ///   - issuerMasterKey: the IMK of the cards' application cryptograms (`CryptoChoices.testIssuerMasterKey`).
    package static func checkCard(
        _ request: HostRequest.Authorization, bdk: [UInt8], issuerMasterKey: [UInt8]
    ) -> CardCheck {
        func cardData(_ message: String, masked: String? = nil) -> CardCheck {
            CardCheck(
                maskedPAN: masked,
                failure: .init(responseCode: HostSimulatorChoices.cardDataResponseCode, message: message), arqc: nil)
        }
        guard let sred = request.sred else { return cardData("the request has no SRED card data") }
        let plaintext: [UInt8]
        do {
            let ksn = try KSN(hex: sred.ksn)
            plaintext = try SRED.decrypt(ciphertext: try Hex.decode(sred.data), bdk: bdk, ksn: ksn)
        } catch {
            return cardData("the SRED data does not decipher with the test BDK")
        }
        guard let pan = pan(inSREDPlaintext: plaintext) else {
            return cardData("the deciphered SRED data holds no PAN (5A, 57 or 56)")
        }
        let masked = Masking.maskPAN(pan)
        guard let shown = request.maskedPAN, matches(pan: pan, masked: shown) else {
            return cardData("the SRED data's PAN is not the request's maskedPan", masked: masked)
        }
        if request.entryMode == "msr" {
            // A swiped card computes no cryptogram: nothing to verify, no 91 to send.
            return CardCheck(maskedPAN: masked, failure: nil, arqc: nil)
        }
        let psn = request.emv[0x5F34].flatMap { $0.count == 1 ? $0[0] : nil }
        let check: EMVIssuer.ARQCCheck
        do {
            check = try EMVIssuer.checkARQC(
                issuerMasterKey: issuerMasterKey, pan: pan, panSequenceNumber: psn, emvData: request.emv)
        } catch {
            return CardCheck(
                maskedPAN: masked,
                failure: .init(
                    responseCode: HostSimulatorChoices.cryptogramResponseCode,
                    message: "no ARQC to verify: \((error as? CryptoError)?.reason ?? "bad EMV data")"),
                arqc: nil)
        }
        guard check.isValid else {
            return CardCheck(
                maskedPAN: masked,
                failure: .init(
                    responseCode: HostSimulatorChoices.cryptogramResponseCode,
                    message: "the ARQC (9F26) does not verify with the card's keys"),
                arqc: check)
        }
        return CardCheck(maskedPAN: masked, failure: nil, arqc: check)
    }

    /// The host's decision on a request whose card check is `card`: a card that failed declines; then the amount
    /// rules; otherwise approved. Every answer with a checked ARQC carries 91 for its response code, an `unable`
    /// answer none.
    package static func decide(_ request: HostRequest.Authorization, card: CardCheck) -> HostDecision {
        if let failure = card.failure {
            return HostDecision(
                outcome: .answer(.decline, failure.responseCode),
                message: failure.message, issuerAuthenticationData: tag91(card, failure.responseCode))
        }
        if let rule = HostAmountRule.rule(forAmount: request.amount) {
            let message = "amount rule .\(rule.cents < 10 ? "0" : "")\(rule.cents): \(rule.meaning)"
            switch rule.outcome {
            case .decline(let code):
                return HostDecision(
                    outcome: .answer(.decline, code), message: message,
                    issuerAuthenticationData: tag91(card, code))
            case .unable(let code):
                return HostDecision(outcome: .answer(.unable, code), message: message, issuerAuthenticationData: nil)
            case .noAnswer:
                return HostDecision(outcome: .noAnswer, message: message, issuerAuthenticationData: nil)
            }
        }
        return HostDecision(
            outcome: .answer(.approve, "00"), message: "approved", issuerAuthenticationData: tag91(card, "00"))
    }

    /// 91 (ARPC method 1 ‖ ARC) for `code`, when the ARQC was checked.
    private static func tag91(_ card: CardCheck, _ code: String) -> [UInt8]? {
        try? card.arqc?.issuerAuthenticationData(arc: Array(code.utf8))
    }

    /// The PAN in a deciphered SRED block: the TLVs of the requested tags (5A, 57; a swipe's DF62 holds 56 and 57),
    /// zero-padded (`SRED.decrypt`). 5A first, then track 2 (57, 9F6B), then track 1 (56). Nil when none holds
    /// 1 to 19 digits.
    package static func pan(inSREDPlaintext plaintext: [UInt8]) -> String? {
        guard var tlvs = try? TLVParser.parse(plaintext, rules: .terminal) else { return nil }
        // DF62, the swiped card data block, is the TLVs 56 and 57 (spec §7.4), sent alone as its bare value.
        for tlv in tlvs where tlv.tag.rawValue == 0xDF62 {
            tlvs += (try? TLVParser.parse(tlv.value, rules: .terminal)) ?? []
        }
        let value = { (tag: UInt32) in tlvs.first { $0.tag.rawValue == tag }?.value }
        var digits: String?
        if let bcd = value(0x5A) {
            digits = Masking.panDigits(from: bcd)
        } else if let track2 = value(0x57) ?? value(0x9F6B) {
            digits = String(Hex.encode(track2).prefix { $0 != "D" })
        } else if let track1 = value(0x56), track1.first == UInt8(ascii: "B") {
            digits = String(decoding: track1.dropFirst().prefix { $0 != UInt8(ascii: "^") }, as: UTF8.self)
        }
        guard let digits, (1...19).contains(digits.count), digits.allSatisfy(\.isASCIIDigitCharacter) else {
            return nil
        }
        return digits
    }

    /// Whether `masked` (first 6 / last 4, `*` for the others) shows `pan`: the same length, and each shown digit
    /// the PAN's.
    package static func matches(pan: String, masked: String) -> Bool {
        masked.count == pan.count
            && zip(masked, pan).allSatisfy { shown, digit in shown == Masking.maskCharacter || shown == digit }
    }
}

/// What the host decided for one authorisation request, before any fault.
package struct HostDecision: Sendable, Hashable {
    package enum Decision: String, Sendable, Hashable {
        case approve, decline, unable
    }

    package enum Outcome: Sendable, Hashable {
        /// An answer: a decision and its response code (8A).
        case answer(Decision, String)
        /// No answer at all (amount rule `.12`).
        case noAnswer
    }

    package let outcome: Outcome
    /// Why, for the log and the answer's `"message"`.
    package let message: String
    /// 91, when the ARQC was checked and the answer is not `unable`.
    package let issuerAuthenticationData: [UInt8]?
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
