import UCubeLink
import UCubeProtocol

/// Everything known about one payment: the request, the path it took and what the terminal answered — the `--json`
/// output of `ucube pay`. Card data appears only masked (PAN first 6 / last 4) or as the ciphertext the terminal
/// produced (SRED blobs, PIN block); a clear PAN, track or PIN is never stored (docs/architecture.md "Nothing sensitive
/// leaks").
package struct PaymentContext: Sendable, Hashable, Encodable {
    package var request: PaymentRequest
    /// `nil` until the payment ends.
    package var status: PaymentStatus?
    /// Why the payment ended this way, when a status alone does not say.
    package var statusReason: String?
    /// Every state entered, in order.
    package var states: [PaymentState] = []
    package var entryMode: EntryMode?
    /// DF70 of the card-wait answer.
    package var activatedReader: CardReader?
    /// ICC: BuildCandidateList's answer.
    package var candidates: [CandidateApplication] = []
    /// 84 / the AID TransactionInitialization selected.
    package var selectedAID: [UInt8]?
    /// 50 application label.
    package var applicationLabel: String?
    /// 5A masked (first 6 / last 4) when the terminal gave the PAN in plain.
    package var maskedPAN: String?
    /// 5F24, when given in plain.
    package var expiryMonth: Int?
    package var expiryYear: Int?
    /// The amount the cardholder typed (9F02 of the StartNFC answer), when the request had none.
    package var typedAmount: UInt64?
    /// NFC: outcome byte 0 = 0x31.
    package var signatureRequired = false
    /// 95 as sent in TransactionProcess or as the terminal answered it.
    package var tvr: [UInt8]?
    /// 9B.
    package var tsi: [UInt8]?
    /// 9F27 cryptogram type (the last one the terminal reported).
    package var cryptogramType: CryptogramType?
    /// 9F26 application cryptogram (ARQC, TC or AAC).
    package var cryptogram: [UInt8]?
    /// 9F36 application transaction counter.
    package var atc: [UInt8]?
    /// The authorization task's answer.
    package var authorization: AuthorizationResponse?
    /// SRED KSN from EnterSecureSession (10 bytes).
    package var sredKSN: [UInt8]?
    /// PIN KSN from SimplifiedOnlinePIN (DF3E).
    package var pinKSN: [UInt8]?
    /// Enciphered online PIN block (DF3F), ciphertext only.
    package var onlinePINBlock: [UInt8]?
    /// GetSecuredTag blob before the authorization, ciphertext only.
    package var authorizationSecuredData: [UInt8]?
    /// GetPlainTag answer before the authorization, without cardholder data (`SafeTLV`).
    package var authorizationPlainTags: [SafeTLV] = []
    /// GetSecuredTag blob after the status was decided, ciphertext only.
    package var finalizationSecuredData: [UInt8]?
    /// GetPlainTag answer after the status was decided, without cardholder data.
    package var finalizationPlainTags: [SafeTLV] = []
    /// NFC: DF72 of the StartNFC answer.
    package var nfcOutcome: NFCOutcome?
    /// NFC: DF72 of the CompleteNFC answer.
    package var nfcFinalOutcome: NFCOutcome?
    /// ICC: TransactionFinalisation answered 7 (true) or 8 (false).
    package var finalisationApproved: Bool?
    /// MSR: DF60.
    package var msrAction: UInt8?
    /// GetInfo D1 at the starting steps.
    package var firmwareVersion: String?
    /// GetInfo ED at the starting steps (3 = NFC module ready).
    package var nfcModuleState: UInt8?
    /// The terminal as this payment met it (its KSN's identity and its GetInfo answer), for the next payment on a
    /// cleanly closed link to skip GetInfo (spec §8.6). Not in the JSON output.
    package var knownTerminal: KnownTerminal?
    /// Level-2 logs by GetInfo tag ("CC", "F4", "F5"): the DATA field as hex (ciphertext in a secure session).
    package var l2Logs: [String: String] = [:]
    /// ISO 8601 UTC, set by the engine.
    package var startedAt: String?
    package var finishedAt: String?
    /// Commands sent to the terminal for this payment, every one counted once: the starting steps (the link's
    /// resynchronisation among them), the flow, a CancelAll a cancel sent.
    package var roundTrips = 0
    /// Seconds in each phase (`PaymentTimings`), set by the engine at the end.
    package var timings: PaymentTimings?
    /// Problems met on the way, in order: failed steps, including those after the status was decided.
    package var errors: [PaymentError] = []
    /// Why the journal does not hold this payment whole (a step or the outcome could not be written), if it does
    /// not: the journal is then not the truth about this payment, and the caller must say the outcome elsewhere.
    package var journalFailure: String?
    /// The device the payment ran on, as the caller named it (`sim`, `tcp://…`, `replay:FILE`).
    package var device: String?
    /// The device is a simulator or a recording: the outcome is simulated, not a real payment.
    package var simulated = false
    /// The payment's own key in the journal (`PaymentJournal.newPaymentKey()`), set by the engine that runs it.
    package var payment: String?

    package init(request: PaymentRequest) { self.request = request }

    /// The amount charged: the request's, or the one typed on the terminal.
    package var amount: UInt64? { request.amount ?? typedAmount }

    /// Set once the card's cryptogram has decided the payment (spec §8.3): from then on `cryptogram` and
    /// `cryptogramType` are the ones judged, whatever a later tag read (finalisation tags, a duplicate tag) says.
    var cryptogramDecided = false

    /// Records the cryptogram that decided the payment.
    mutating func decideCryptogram(type: CryptogramType?, cryptogram: [UInt8]?) {
        cryptogramType = type
        self.cryptogram = cryptogram
        cryptogramDecided = true
    }

    // MARK: Reading terminal data

    /// Takes what the context keeps from a list of plain TLVs: identifiers, cryptogram data, the PAN masked, the
    /// expiry. Returns the list without cardholder data, for storing.
    @discardableResult
    mutating func absorb(_ tlvs: [TLV]) -> [SafeTLV] {
        var kept: [SafeTLV] = []
        for tlv in tlvs {
            let value = tlv.value
            switch tlv.tag.rawValue {
            case 0x84, 0x4F:
                if !value.isEmpty { selectedAID = value }
            case 0x50:
                if let text = printableASCII(value) { applicationLabel = text }
            case 0x5A:
                if let masked = Self.maskedPAN(fromBCD: value) { maskedPAN = masked }
            case 0x5F24:
                if value.count >= 2, let year = bcdByte(value[0]), let month = bcdByte(value[1]),
                    (1...12).contains(month)
                {
                    expiryYear = 2000 + year
                    expiryMonth = month
                }
            case 0x95:
                if value.count == 5 { tvr = value }
            case 0x9B:
                tsi = value
            case 0x9F27 where !cryptogramDecided:
                if let cid = value.first, let type = CryptogramType(cid: cid) { cryptogramType = type }
            case 0x9F26 where !cryptogramDecided:
                cryptogram = value
            case 0x9F36:
                atc = value
            case 0xDF3E:
                // The terminal's PIN KSN, of any length it gives (10 bytes TDES DUKPT, 12 AES); an online PIN's own
                // DF3E (SimplifiedOnlinePIN) takes precedence.
                if SimplifiedOnlinePIN.Response.ksnLengths.contains(value.count), pinKSN == nil { pinKSN = value }
            case 0xDF3F:
                // The contact flow's online PIN block, in the current dialect's TransactionProcess answer (spec §5.2
                // 0x5512): ciphertext, kept for the host as SimplifiedOnlinePIN's is.
                if SimplifiedOnlinePIN.Response.pinBlockLengths.contains(value.count), onlinePINBlock == nil {
                    onlinePINBlock = value
                }
            default:
                break
            }
            if let safe = SafeTLV(tlv) { kept.append(safe) }
        }
        return kept
    }

    /// The PAN of a 5A value, masked (first 6 / last 4). 5A may come clear or already truncated, with the nibble F
    /// in place of hidden digits (47 61 73 FF FF FF 00 10); F nibbles at the end are padding. Either way the result
    /// shows no more than the first 6 and last 4 digits.
    package static func maskedPAN(fromBCD bytes: [UInt8]) -> String? {
        var chars: [Character] = []
        for nibble in bytes.flatMap({ [$0 >> 4, $0 & 0x0F] }) {
            if nibble <= 9 {
                chars.append(Character(Unicode.Scalar(UInt8(ascii: "0") + nibble)))
            } else if nibble == 0x0F {
                chars.append(Masking.maskCharacter)
            } else {
                break
            }
        }
        while chars.last == Masking.maskCharacter { chars.removeLast() }
        guard !chars.isEmpty else { return nil }
        guard chars.contains(Masking.maskCharacter) else { return Masking.maskPAN(String(chars)) }
        let count = chars.count
        return String(chars.indices.map { $0 < 6 || $0 >= count - 4 ? chars[$0] : Masking.maskCharacter })
    }

    private func bcdByte(_ byte: UInt8) -> Int? {
        let high = Int(byte >> 4)
        let low = Int(byte & 0x0F)
        guard high <= 9, low <= 9 else { return nil }
        return high * 10 + low
    }

    // MARK: Encodable

    private enum CodingKeys: String, CodingKey {
        case request, status, statusReason, states, entryMode, activatedReader, candidates, selectedAID
        case applicationLabel, maskedPAN, expiryMonth, expiryYear, amount, typedAmount, signatureRequired, tvr, tsi
        case cryptogramType, cryptogram, atc, authorizationResponseCode, authorization, sredKSN, pinKSN
        case onlinePINBlock, authorizationSecuredData, authorizationPlainTags, finalizationSecuredData
        case finalizationPlainTags, nfcOutcome, nfcFinalOutcome, finalisationApproved, msrAction, firmwareVersion
        case nfcModuleState, l2Logs, startedAt, finishedAt, roundTrips, timings, errors, journalFailure, device,
            simulated
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(request, forKey: .request)
        try c.encodeIfPresent(status, forKey: .status)
        try c.encodeIfPresent(statusReason, forKey: .statusReason)
        try c.encode(states, forKey: .states)
        try c.encodeIfPresent(entryMode, forKey: .entryMode)
        try c.encodeIfPresent(activatedReader, forKey: .activatedReader)
        try c.encode(candidates, forKey: .candidates)
        try c.encodeIfPresent(selectedAID?.hex, forKey: .selectedAID)
        try c.encodeIfPresent(applicationLabel, forKey: .applicationLabel)
        try c.encodeIfPresent(maskedPAN, forKey: .maskedPAN)
        try c.encodeIfPresent(expiryMonth, forKey: .expiryMonth)
        try c.encodeIfPresent(expiryYear, forKey: .expiryYear)
        try c.encodeIfPresent(amount, forKey: .amount)
        try c.encodeIfPresent(typedAmount, forKey: .typedAmount)
        try c.encode(signatureRequired, forKey: .signatureRequired)
        try c.encodeIfPresent(tvr?.hex, forKey: .tvr)
        try c.encodeIfPresent(tsi?.hex, forKey: .tsi)
        try c.encodeIfPresent(cryptogramType, forKey: .cryptogramType)
        try c.encodeIfPresent(cryptogram?.hex, forKey: .cryptogram)
        try c.encodeIfPresent(atc?.hex, forKey: .atc)
        try c.encodeIfPresent(authorization.flatMap { printableASCII($0.arc) }, forKey: .authorizationResponseCode)
        try c.encodeIfPresent(authorization, forKey: .authorization)
        try c.encodeIfPresent(sredKSN?.hex, forKey: .sredKSN)
        try c.encodeIfPresent(pinKSN?.hex, forKey: .pinKSN)
        try c.encodeIfPresent(onlinePINBlock?.hex, forKey: .onlinePINBlock)
        try c.encodeIfPresent(authorizationSecuredData?.hex, forKey: .authorizationSecuredData)
        try c.encode(authorizationPlainTags, forKey: .authorizationPlainTags)
        try c.encodeIfPresent(finalizationSecuredData?.hex, forKey: .finalizationSecuredData)
        try c.encode(finalizationPlainTags, forKey: .finalizationPlainTags)
        try c.encodeIfPresent(nfcOutcome, forKey: .nfcOutcome)
        try c.encodeIfPresent(nfcFinalOutcome, forKey: .nfcFinalOutcome)
        try c.encodeIfPresent(finalisationApproved, forKey: .finalisationApproved)
        try c.encodeIfPresent(msrAction.map { [$0].hex }, forKey: .msrAction)
        try c.encodeIfPresent(firmwareVersion, forKey: .firmwareVersion)
        try c.encodeIfPresent(nfcModuleState, forKey: .nfcModuleState)
        try c.encode(l2Logs, forKey: .l2Logs)
        try c.encodeIfPresent(startedAt, forKey: .startedAt)
        try c.encodeIfPresent(finishedAt, forKey: .finishedAt)
        try c.encode(roundTrips, forKey: .roundTrips)
        try c.encodeIfPresent(timings, forKey: .timings)
        try c.encode(errors, forKey: .errors)
        try c.encodeIfPresent(journalFailure, forKey: .journalFailure)
        try c.encodeIfPresent(device, forKey: .device)
        try c.encode(simulated, forKey: .simulated)
    }
}

/// A problem met during a payment: the state it happened in, what happened, and, when a terminal's answer did not
/// decode, the decoder's code (`truncated`, `malformed`, …; its reason, with the offset, is in `reason`).
package struct PaymentError: Hashable, Sendable, Encodable {
    package var state: PaymentState?
    package var code: String?
    package var reason: String

    package init(state: PaymentState?, code: String? = nil, reason: String) {
        self.state = state
        self.code = code
        self.reason = reason
    }

    /// An answer that did not decode: the decoder's code, and its reason after `what`.
    package init(state: PaymentState?, _ what: String, decoding error: CommandError) {
        self.init(state: state, code: error.code.rawValue, reason: "\(what): \(error.reason)")
    }
}

/// A plain TLV that is safe to keep: cardholder data (PAN, tracks, name, expiry and every tag the dictionary marks
/// sensitive) is refused, so it can never reach output or a journal.
package struct SafeTLV: Hashable, Sendable, Encodable {
    package let tag: Tag
    package let value: [UInt8]

    /// Tags never kept in clear, whatever the dictionary says (EMV Book 3 Annex A; spec §5.2 0x5025 SRED list).
    static let cardholderTags: Set<UInt32> = [
        0x56, 0x57, 0x5A, 0x5F20, 0x5F24, 0x5F30, 0x9F0B, 0x9F1F, 0x9F20, 0x9F6B, 0xDF5A, 0xDF62,
    ]

    /// `nil` for cardholder data.
    package init?(_ tlv: TLV) {
        guard !Self.cardholderTags.contains(tlv.tag.rawValue),
            !TagDictionary.entries(for: tlv.tag).contains(where: \.isSensitive)
        else { return nil }
        tag = tlv.tag
        value = tlv.value
    }

    private enum CodingKeys: String, CodingKey { case tag, name, value }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tag.description, forKey: .tag)
        try c.encodeIfPresent(TagDictionary.info(for: tag, context: .payment)?.name, forKey: .name)
        try c.encode(value.hex, forKey: .value)
    }
}
