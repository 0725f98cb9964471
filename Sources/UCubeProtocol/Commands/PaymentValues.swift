/// Small fixed value sets the card and payment commands share (spec §7.3–§7.7). Each has a `name` for the CLI, the
/// shell's completion and `--json`, and encodes to JSON as that name.
package protocol NamedValue: CaseIterable, Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The word on the command line and in JSON ("icc", "purchase-cashback").
    var name: String { get }
}

extension NamedValue {
    /// The value whose `name` is `name` (case-insensitive).
    package init?(name: String) {
        let lower = name.lowercased()
        guard let match = Self.allCases.first(where: { $0.name == lower }) else { return nil }
        self = match
    }

    package var description: String { name }

    /// Encodes `name` as a single JSON string. Each type's `encode(to:)` calls this explicitly: a default
    /// `encode(to:)` here would lose to the compiler's synthesised enum encoding.
    func encodeName(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

// MARK: - Readers

/// A card reader id (spec §5.2 WaitCard, §7.3): 0x11 ICC, 0x21 NFC, 0x41 MSR.
package enum CardReader: UInt8, NamedValue {
    /// The chip (contact) reader.
    case icc = 0x11
    /// The contactless reader.
    case nfc = 0x21
    /// The magnetic stripe reader (original uCube only).
    case msr = 0x41

    package var name: String {
        switch self {
        case .icc: "icc"
        case .nfc: "nfc"
        case .msr: "msr"
        }
    }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

// MARK: - Transaction

/// Transaction type, tag 9C (spec §7.3; F-sil's decimal numbering is ignored).
package enum TransactionType: UInt8, NamedValue {
    case purchase = 0x00
    case withdrawal = 0x01
    case purchaseCashback = 0x09
    case manualCash = 0x12
    case refund = 0x20
    case inquiry = 0x31

    package var name: String {
        switch self {
        case .purchase: "purchase"
        case .withdrawal: "withdrawal"
        case .purchaseCashback: "purchase-cashback"
        case .manualCash: "manual-cash"
        case .refund: "refund"
        case .inquiry: "inquiry"
        }
    }

    /// Only a purchase with cash-back carries 9F03 (spec §5.2 TransactionInitialization).
    package var carriesCashback: Bool { self == .purchaseCashback }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

/// Cryptogram type from the CID, tag 9F27 bits 8–7 (spec §7.6; EMV Book 3 Table 14).
package enum CryptogramType: UInt8, NamedValue {
    /// Authorisation request: go online.
    case arqc = 0x80
    /// Transaction certificate: approved offline.
    case tc = 0x40
    /// Application authentication cryptogram: declined.
    case aac = 0x00

    /// The type a CID byte announces; `nil` for the reserved value 0xC0.
    package init?(cid: UInt8) { self.init(rawValue: cid & 0xC0) }

    package var name: String {
        switch self {
        case .arqc: "arqc"
        case .tc: "tc"
        case .aac: "aac"
        }
    }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

/// Authorisation status, tag DF16 of TransactionFinalisation (spec §5.2).
package enum AuthorisationStatus: UInt8, NamedValue {
    case unableToGoOnline = 0x00
    case approved = 0x01
    case declined = 0x02

    package var name: String {
        switch self {
        case .unableToGoOnline: "unable-to-go-online"
        case .approved: "approved"
        case .declined: "declined"
        }
    }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

// MARK: - PIN

/// ISO 9564 PIN block format (spec §7.3; SimplifiedOnlinePIN field 3).
package enum PINBlockFormatCode: UInt8, NamedValue {
    case iso0 = 0
    case iso1 = 1
    case iso3 = 3
    case iso4 = 4

    package var name: String {
        switch self {
        case .iso0: "iso0"
        case .iso1: "iso1"
        case .iso3: "iso3"
        case .iso4: "iso4"
        }
    }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

/// What the correction key does during PIN entry, tag DF35 (spec §5.2, §7.3).
package enum CorrectionKeyMode: UInt8, NamedValue {
    case eraseLastDigit = 1
    case eraseAll = 2

    package var name: String {
        switch self {
        case .eraseLastDigit: "erase-last-digit"
        case .eraseAll: "erase-all"
        }
    }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

// MARK: - Download

/// How a binary sent with Load is protected (spec §5.2 InstallForLoad, §7.3).
package enum EncryptionMethod: UInt8, NamedValue {
    case sred = 0x00
    /// Ciphered with a session key that InstallForLoad carries as its optional parameter.
    case dynamic = 0x01
    case plain = 0x02

    package var name: String {
        switch self {
        case .sred: "sred"
        case .dynamic: "dynamic"
        case .plain: "plain"
        }
    }

    package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
}

// MARK: - NFC outcome

/// The contactless outcome, tag DF72: byte 0 the CVM / receipt, byte 1 the result (spec §7.5). Unknown byte values are
/// kept, so a new firmware's outcome still decodes and prints.
package struct NFCOutcome: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// Byte 0: cardholder verification and receipt.
    package enum CVM: UInt8, NamedValue {
        case receipt = 0x30
        case receiptWithSignature = 0x31
        case noReceipt = 0x32
        case onlinePIN = 0x34

        package var name: String {
            switch self {
            case .receipt: "receipt"
            case .receiptWithSignature: "receipt-with-signature"
            case .noReceipt: "no-receipt"
            case .onlinePIN: "online-pin"
            }
        }

        package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
    }

    /// Byte 1: the transaction result.
    package enum Result: UInt8, NamedValue {
        case approved = 0x36
        case declined = 0x37
        case onlineRequest = 0x3E
        case tryAnotherInterface = 0x31
        case cancelled = 0x3A
        case endApplication = 0x3F
        case failed = 0x38

        package var name: String {
            switch self {
            case .approved: "approved"
            case .declined: "declined"
            case .onlineRequest: "online-request"
            case .tryAnotherInterface: "try-another-interface"
            case .cancelled: "cancelled"
            case .endApplication: "end-application"
            case .failed: "failed"
            }
        }

        package func encode(to encoder: any Encoder) throws { try encodeName(to: encoder) }
    }

    /// The tag that carries the outcome in StartNFC and CompleteNFC responses.
    package static let tag = Tag(0xDF72)

    package var cvmByte: UInt8
    package var resultByte: UInt8

    package init(cvmByte: UInt8, resultByte: UInt8) {
        self.cvmByte = cvmByte
        self.resultByte = resultByte
    }

    package init(cvm: CVM, result: Result) {
        self.init(cvmByte: cvm.rawValue, resultByte: result.rawValue)
    }

    /// From the two value bytes of DF72.
    package init(bytes: [UInt8]) throws(CommandError) {
        guard bytes.count == 2 else {
            throw CommandError(.malformed, "NFC outcome (DF72) must be 2 bytes, got \(bytes.count)")
        }
        self.init(cvmByte: bytes[0], resultByte: bytes[1])
    }

    package var bytes: [UInt8] { [cvmByte, resultByte] }
    package var cvm: CVM? { CVM(rawValue: cvmByte) }
    package var result: Result? { Result(rawValue: resultByte) }
    /// "0x31 receipt + signature required".
    package var signatureRequired: Bool { cvm == .receiptWithSignature }
    /// "0x34 online PIN request".
    package var onlinePINRequested: Bool { cvm == .onlinePIN }

    /// "approved, receipt" or "unknown result 0x40, receipt".
    package var description: String {
        let resultText = result?.name ?? "unknown result 0x\(Hex.encode([resultByte]))"
        let cvmText = cvm?.name ?? "unknown CVM 0x\(Hex.encode([cvmByte]))"
        return "\(resultText), \(cvmText)"
    }

    private enum CodingKeys: String, CodingKey {
        case raw, cvm, result, signatureRequired, onlinePINRequested
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(bytes, forKey: .raw)
        try container.encodeIfPresent(cvm, forKey: .cvm)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encode(signatureRequired, forKey: .signatureRequired)
        try container.encode(onlinePINRequested, forKey: .onlinePINRequested)
    }
}
