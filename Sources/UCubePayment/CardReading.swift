import UCubeLink
import UCubeProtocol

/// `read-card`'s sequence and what it keeps: a card waited for as a payment's first steps wait for it, and what is
/// safe to show of it, never the clear PAN, never track data. The executable keeps the countdown, the interruption and
/// the rendering (`ucube read-card`); the steps and their rules are here, beside the payment's.
package struct CardReading: Encodable, Sendable {
    package struct Application: Encodable, Sendable, Equatable {
        package let aid: String
        package let label: String
        package let priority: Int
    }

    package var entryMode: EntryMode
    package var maskedPAN: String?
    /// MM/YY.
    package var expiry: String?
    package var aid: [UInt8]?
    package var applicationLabel: String?
    package var scheme: String?
    package var applications: [Application] = []

    package init(entryMode: EntryMode) { self.entryMode = entryMode }

    /// The safe tags asked of GetPlainTag: AID (4F, 84), label (50), PAN as the terminal truncates it (5A), expiry
    /// (5F24).
    package static let plainTags: [Tag] = [Tag(0x4F), Tag(0x84), Tag(0x50), Tag(0x5A), Tag(0x5F24)]

    /// The transaction read-card starts: 0.00 EUR, INQUIRY (PROJECT CHOICE: no amount is ever at stake).
    package static func startRequest(readers: [CardReader], timeout: UInt8) -> NFCStartTransaction {
        NFCStartTransaction(
            readers: readers, cardWaitTimeout: timeout, type: .inquiry, currencyCode: Currency.eur.numeric,
            exponent: UInt8(Currency.eur.exponent), amount: 0, requestedTags: [Tag(0x4F), Tag(0x84), Tag(0x50)])
    }

    /// Why the reading failed, with what the exit codes need to tell it apart.
    package enum Failure: Error, Equatable, Sendable {
        /// NFCStartTransaction answered the card-wait timeout: no card within `timeout` seconds.
        case noCard(timeout: UInt8)
        /// A command answered "cancelled" (−32, −28): a CancelAll ended the wait.
        case cancelled
        /// BuildCandidateList answered EMV_NOT_SUPPORT (−300): no application in common.
        case noCommonApplication
        /// NFCStartTransaction succeeded without naming the reader that read the card (DF70).
        case noActivatedReader
        /// `command` answered `status`; `cardProblem`: the card's (a failed read), not the terminal's.
        case status(Status, command: String, cardProblem: Bool)
    }

    /// The steps, in a secure session the caller has READY to open: EnterSecureSession, NFCStartTransaction (the
    /// card wait on `readers`), on the chip reader BuildCandidateList, then GetPlainTag. `insertedICC` is called once
    /// a chip card is in the reader (its removal is then the caller's to await). Throws `Failure`, the link's errors,
    /// or `CancellationError`.
    package static func read(
        _ client: RPCClient, readers: [CardReader], timeout: UInt8, insertedICC: @Sendable () -> Void
    ) async throws -> CardReading {
        try Task.checkCancellation()
        let session = try await client.send(EnterSecureSession())
        try check(session.status, "EnterSecureSession")
        try Task.checkCancellation()
        let start = try await client.send(startRequest(readers: readers, timeout: timeout))
        switch start.status {
        case .success: break
        case .timeout: throw Failure.noCard(timeout: timeout)
        default: try check(start.status, "NFCStartTransaction", cardProblem: true)
        }
        guard let response = start.response, let reader = response.activatedReader else {
            throw Failure.noActivatedReader
        }
        var reading = CardReading(entryMode: EntryMode(reader))
        reading.absorb(response.tlvs)
        if reader == .icc {
            insertedICC()
            let list = try await client.send(BuildCandidateList())
            if list.status == .emvNotSupported { throw Failure.noCommonApplication }
            try check(list.status, "BuildCandidateList", cardProblem: true)
            reading.choose(from: list.response?.candidates ?? [])
        }
        let tags = try await client.send(GetPlainTag(tags: plainTags))
        try check(tags.status, "GetPlainTag")
        reading.absorb(tags.response?.tlvs ?? [])
        reading.scheme =
            reading.aid.flatMap(CardSchemes.scheme(aid:))
            ?? reading.maskedPAN.flatMap(CardSchemes.scheme(panPrefix:))
        return reading
    }

    /// A non-success status as a `Failure`.
    private static func check(_ status: Status, _ command: String, cardProblem: Bool = false) throws(Failure) {
        switch status {
        case .success: return
        case .cancelled: throw .cancelled
        default: throw .status(status, command: command, cardProblem: cardProblem)
        }
    }

    /// The chip card's applications, and the one the terminal would try first (EMV priority: 1 is the highest, 0
    /// none; a blocked one is never tried).
    mutating func choose(from candidates: [CandidateApplication]) {
        applications = candidates.map {
            Application(aid: Hex.encode($0.aid), label: $0.label, priority: Int($0.priority))
        }
        let rank = { (priority: UInt8) in priority == 0 ? 16 : Int(priority) }
        if let first = candidates.filter({ !$0.blocked }).min(by: { rank($0.priority) < rank($1.priority) }) {
            aid = first.aid
            applicationLabel = first.label.isEmpty ? nil : first.label
        }
    }

    /// Keeps the safe values: the AID, the label, the PAN masked, the expiry as MM/YY.
    package mutating func absorb(_ tlvs: [TLV]) {
        for tlv in tlvs {
            let value = tlv.value
            switch tlv.tag.rawValue {
            case 0x4F, 0x84: if !value.isEmpty && aid == nil { aid = value }
            case 0x50:
                if applicationLabel == nil, !value.isEmpty, value.allSatisfy({ (0x20...0x7E).contains($0) }) {
                    applicationLabel = String(decoding: value, as: UTF8.self)
                }
            case 0x5A: if let masked = PaymentContext.maskedPAN(fromBCD: value) { maskedPAN = masked }
            case 0x5F24: if let text = Self.expiry(value) { expiry = text }
            default: break
            }
        }
    }

    /// 5F24 (YYMMDD, BCD) as MM/YY; nil unless the month is 01…12.
    package static func expiry(_ value: [UInt8]) -> String? {
        guard value.count >= 2 else { return nil }
        let digits = value.prefix(2).flatMap { [$0 >> 4, $0 & 0x0F] }
        guard digits.allSatisfy({ $0 <= 9 }) else { return nil }
        let month = Int(digits[2]) * 10 + Int(digits[3])
        guard (1...12).contains(month) else { return nil }
        return "\(digits[2])\(digits[3])/\(digits[0])\(digits[1])"
    }

    private enum CodingKeys: String, CodingKey {
        case entryMode, maskedPAN, expiry, aid, applicationLabel, scheme, applications
    }

    /// Every key always there: `{"aid":"A0000000031010","applicationLabel":"VISA CREDIT","applications":[…],
    /// "entryMode":"icc","expiry":null,"maskedPAN":"476173******0010","scheme":"Visa"}`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entryMode.rawValue, forKey: .entryMode)
        try c.encode(maskedPAN, forKey: .maskedPAN)
        try c.encode(expiry, forKey: .expiry)
        try c.encode(aid.map { Hex.encode($0) }, forKey: .aid)
        try c.encode(applicationLabel, forKey: .applicationLabel)
        try c.encode(scheme, forKey: .scheme)
        try c.encode(applications, forKey: .applications)
    }
}

extension EntryMode {
    /// How a card read by `reader` was read.
    package init(_ reader: CardReader) {
        switch reader {
        case .icc: self = .icc
        case .nfc: self = .nfc
        case .msr: self = .msr
        }
    }
}
