/// The contact EMV transaction commands: 0x5511 init, 0x5512 process, 0x5513 finalisation (spec §5.2).

/// EMV and proprietary tags of the payment requests (EMV Book 3 Annex A; spec §5.2, §7.8).
enum EMVTag {
    static let dfName: UInt32 = 0x84
    static let currencyCode: UInt32 = 0x5F2A
    static let currencyExponent: UInt32 = 0x5F36
    static let transactionType: UInt32 = 0x9C
    static let amountAuthorised: UInt32 = 0x9F02
    static let amountOther: UInt32 = 0x9F03
    static let posEntryMode: UInt32 = 0x9F39
    static let preferredLanguages: UInt32 = 0xDF2D
    static let tipEnabled: UInt32 = 0xDF50
    static let transactionDate: UInt32 = 0x9A
    static let transactionTime: UInt32 = 0x9F21
    static let tvr: UInt32 = 0x95
    static let transactionSequenceCounter: UInt32 = 0x9F41
    static let applicationVersion: UInt32 = 0x9F09
    static let ddol: UInt32 = 0xD6
    static let tdol: UInt32 = 0xD7
    static let tacDefault: UInt32 = 0xD8
    static let tacDenial: UInt32 = 0xD9
    static let tacOnline: UInt32 = 0xDA
    static let pinFloorLimit: UInt32 = 0xDF12
    static let signatureFloorLimit: UInt32 = 0xDF13
    static let pinSignatureFloorLimit: UInt32 = 0xDF14
    static let targetPercent: UInt32 = 0xDF0D
    static let threshold: UInt32 = 0xDF0E
    static let maxTargetPercent: UInt32 = 0xDF0F
    /// The DUKPT key slot of the current dialect (TransactionProcess, SimplifiedOnlinePIN; spec §5.2 0x5512).
    static let keySlot: UInt32 = 0xDF44
    static let forceFlag: UInt32 = 0xDF15
    static let authorisationStatus: UInt32 = 0xDF16
    static let authorisationResponseCode: UInt32 = 0x8A
    static let issuerAuthenticationData: UInt32 = 0x91
    static let issuerScript1: UInt32 = 0x71
    static let issuerScript2: UInt32 = 0x72
}

// MARK: - 0x5511

/// 0x5511 TransactionInitialization: final selection, GPO, read records, language selection (spec §5.2).
///
/// TLVs in this order: `84` AID; `5F2A 02` currency; `5F36 01` exponent; `9C 01` type; `9F02 06` amount; `9F03 06`
/// cash-back (type 09 only); `9F39 01 09` POS entry mode ICC; `DF2D` languages; `DF50 01` TIP; `9A 03`, `9F21 03`;
/// `C1` requested tags. Answers the requested tags as TLVs.
package struct TransactionInit: RPCCommand, Hashable {
    package typealias Response = TLVResponse
    package static let id = CommandID.transactionInit

    /// 9F39 value: ICC (spec §7.3).
    static let posEntryModeICC: UInt8 = 0x09
    /// DF2D carries 1…6 ISO 639 codes (spec §5.2).
    package static let maxLanguages = 6

    /// The selected application's AID (5…16 bytes).
    package var aid: [UInt8]
    /// Numeric ISO 4217 code (978 EUR).
    package var currencyCode: UInt16
    package var exponent: UInt8
    package var type: TransactionType
    /// In minor units (12 digits at most).
    package var amount: UInt64
    /// Type `purchaseCashback` only.
    package var cashback: UInt64?
    /// ISO 639 two-letter codes, 1…6 ("en", "fr"); empty sends no DF2D.
    package var languages: [String]
    package var tipEnabled: Bool?
    /// 9A, YYMMDD BCD.
    package var date: [UInt8]?
    /// 9F21, HHMMSS BCD.
    package var time: [UInt8]?
    package var requestedTags: [Tag]

    package init(
        aid: [UInt8],
        currencyCode: UInt16,
        exponent: UInt8,
        type: TransactionType,
        amount: UInt64,
        cashback: UInt64? = nil,
        languages: [String] = [],
        tipEnabled: Bool? = nil,
        date: [UInt8]? = nil,
        time: [UInt8]? = nil,
        requestedTags: [Tag] = []
    ) {
        self.aid = aid
        self.currencyCode = currencyCode
        self.exponent = exponent
        self.type = type
        self.amount = amount
        self.cashback = cashback
        self.languages = languages
        self.tipEnabled = tipEnabled
        self.date = date
        self.time = time
        self.requestedTags = requestedTags
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard (5...16).contains(aid.count) else {
            throw CommandError(.invalidArgument, "AID must be 5…16 bytes, got \(aid.count)")
        }
        var writer = TLVWriter("TransactionInit")
        try writer.append(EMVTag.dfName, aid)
        try writer.append(EMVTag.currencyCode, try FieldCheck.currency(currencyCode))
        try writer.append(EMVTag.currencyExponent, [exponent])
        try writer.append(EMVTag.transactionType, [type.rawValue])
        try writer.append(EMVTag.amountAuthorised, try FieldCheck.amount(amount, "amount"))
        if let cashback {
            guard type.carriesCashback else {
                throw CommandError(.invalidArgument, "a cash-back amount needs transaction type purchase-cashback")
            }
            try writer.append(EMVTag.amountOther, try FieldCheck.amount(cashback, "cash-back amount"))
        }
        try writer.append(EMVTag.posEntryMode, [Self.posEntryModeICC])
        if !languages.isEmpty { try writer.append(EMVTag.preferredLanguages, try Self.encodeLanguages(languages)) }
        if let tipEnabled { try writer.append(EMVTag.tipEnabled, [tipEnabled ? 1 : 0]) }
        if let date { try writer.append(EMVTag.transactionDate, try FieldCheck.bcd(date, count: 3, "date (9A)")) }
        if let time { try writer.append(EMVTag.transactionTime, try FieldCheck.bcd(time, count: 3, "time (9F21)")) }
        try writer.appendRequestedTags(requestedTags)
        return try writer.payload()
    }

    static func encodeLanguages(_ languages: [String]) throws(CommandError) -> [UInt8] {
        guard languages.count <= maxLanguages else {
            throw CommandError(.invalidArgument, "at most \(maxLanguages) preferred languages, got \(languages.count)")
        }
        var out: [UInt8] = []
        for language in languages {
            let bytes = Array(language.utf8)
            guard bytes.count == 2, bytes.allSatisfy({ (0x61...0x7A).contains($0) }) else {
                throw CommandError(
                    .invalidArgument,
                    "a language must be a two-letter lower-case ISO 639 code (\"en\"), got \"\(language)\""
                )
            }
            out += bytes
        }
        return out
    }

    /// Reads the request; unknown tags and 9F39 are ignored.
    package init(payload: [UInt8]) throws(CommandError) {
        let fields = try TLVFields(payload, "TransactionInit request")
        aid = try fields.requiredAny(EMVTag.dfName, "AID")
        currencyCode = UInt16(try fields.requiredBCD(EMVTag.currencyCode, "currency code", count: 2))
        exponent = try fields.required(EMVTag.currencyExponent, "currency exponent", count: 1)[0]
        type = try PaymentFields.type(fields)
        amount = try fields.requiredBCD(EMVTag.amountAuthorised, "amount", count: 6)
        cashback = try fields.optionalBCD(EMVTag.amountOther, "cash-back amount", count: 6)
        if let value = fields.value(EMVTag.preferredLanguages) {
            guard value.count % 2 == 0 else {
                throw CommandError(.malformed, "TransactionInit request: DF2D has an odd number of bytes")
            }
            languages = stride(from: 0, to: value.count, by: 2).map { Latin1.decode(value[$0..<($0 + 2)]) }
        } else {
            languages = []
        }
        tipEnabled = try fields.optionalBool(EMVTag.tipEnabled, "TIP enable")
        date = try fields.optional(EMVTag.transactionDate, "date", count: 3)
        time = try fields.optional(EMVTag.transactionTime, "time", count: 3)
        requestedTags = try fields.requestedTags()
    }

    private enum CodingKeys: String, CodingKey {
        case aid, currencyCode, exponent, type, amount, cashback, languages, tipEnabled, date, time, requestedTags
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(aid, forKey: .aid)
        try container.encode(currencyCode, forKey: .currencyCode)
        try container.encode(exponent, forKey: .exponent)
        try container.encode(type, forKey: .type)
        try container.encode(amount, forKey: .amount)
        try container.encodeIfPresent(cashback, forKey: .cashback)
        try container.encode(languages, forKey: .languages)
        try container.encodeIfPresent(tipEnabled, forKey: .tipEnabled)
        try container.encodeHexIfPresent(date, forKey: .date)
        try container.encodeHexIfPresent(time, forKey: .time)
        try container.encodeTags(requestedTags, forKey: .requestedTags)
    }
}

/// Readers shared by the payment request parsers.
enum PaymentFields {
    static func type(_ fields: TLVFields) throws(CommandError) -> TransactionType {
        let raw = try fields.required(EMVTag.transactionType, "transaction type", count: 1)[0]
        guard let type = TransactionType(rawValue: raw) else {
            throw CommandError(.malformed, "\(fields.what): unknown transaction type 0x\(Hex.encode([raw]))")
        }
        return type
    }
}

// MARK: - 0x5512

/// 0x5512 TransactionProcess: processing restrictions, offline PIN, ODA, terminal risk management, first GENERATE AC
/// (spec §5.2). The answer must include 9F27 (`TLVResponse.cryptogram`).
///
/// TLVs: `95 05` TVR; `9A`/`9F21` (only if not sent at init); `9F41 04` sequence counter (with its length byte, unlike
/// the SDK, spec §13); `9F09 02`; `D6` DDOL, `D7` TDOL; `D8`/`D9`/`DA 05` TACs; `DF12`/`DF13`/`DF14 04` floor limits;
/// `DF0D 01`, `DF0E 04`, `DF0F 01` random selection; `C1` requested tags.
package struct TransactionProcess: RPCCommand, Hashable {
    package typealias Response = TLVResponse
    package static let id = CommandID.transactionProcess

    /// Terminal verification results (from the risk-management task).
    package var tvr: [UInt8]
    package var date: [UInt8]?
    package var time: [UInt8]?
    /// 9F41, 4 bytes BCD.
    package var transactionSequenceCounter: [UInt8]?
    /// 9F09, 2 bytes (e.g. 00 8C, 00 02).
    package var applicationVersion: [UInt8]?
    package var ddol: [UInt8]?
    package var tdol: [UInt8]?
    package var tacDefault: [UInt8]?
    package var tacDenial: [UInt8]?
    package var tacOnline: [UInt8]?
    package var pinFloorLimit: UInt32?
    package var signatureFloorLimit: UInt32?
    package var pinSignatureFloorLimit: UInt32?
    /// Random-selection target percentage, 0…99 (EMV Book 3 §10.6.2).
    package var targetPercent: UInt8?
    package var threshold: UInt32?
    /// 0…99, not below `targetPercent`.
    package var maxTargetPercent: UInt8?
    /// DF44, the DUKPT key slot of an online PIN (current dialect, spec §5.2 0x5512); nil: the 2020 request.
    package var keySlot: UInt8?
    package var requestedTags: [Tag]

    package init(
        tvr: [UInt8] = [0, 0, 0, 0, 0],
        date: [UInt8]? = nil,
        time: [UInt8]? = nil,
        transactionSequenceCounter: [UInt8]? = nil,
        applicationVersion: [UInt8]? = nil,
        ddol: [UInt8]? = nil,
        tdol: [UInt8]? = nil,
        tacDefault: [UInt8]? = nil,
        tacDenial: [UInt8]? = nil,
        tacOnline: [UInt8]? = nil,
        pinFloorLimit: UInt32? = nil,
        signatureFloorLimit: UInt32? = nil,
        pinSignatureFloorLimit: UInt32? = nil,
        targetPercent: UInt8? = nil,
        threshold: UInt32? = nil,
        maxTargetPercent: UInt8? = nil,
        keySlot: UInt8? = nil,
        requestedTags: [Tag] = []
    ) {
        self.tvr = tvr
        self.date = date
        self.time = time
        self.transactionSequenceCounter = transactionSequenceCounter
        self.applicationVersion = applicationVersion
        self.ddol = ddol
        self.tdol = tdol
        self.tacDefault = tacDefault
        self.tacDenial = tacDenial
        self.tacOnline = tacOnline
        self.pinFloorLimit = pinFloorLimit
        self.signatureFloorLimit = signatureFloorLimit
        self.pinSignatureFloorLimit = pinSignatureFloorLimit
        self.targetPercent = targetPercent
        self.threshold = threshold
        self.maxTargetPercent = maxTargetPercent
        self.keySlot = keySlot
        self.requestedTags = requestedTags
    }

    /// Offline PIN entry happens inside this command and the layout carries no timeout.
    package var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        var writer = TLVWriter("TransactionProcess")
        try writer.append(EMVTag.tvr, try FieldCheck.exact(tvr, count: 5, "TVR (95)"))
        if let date { try writer.append(EMVTag.transactionDate, try FieldCheck.bcd(date, count: 3, "date (9A)")) }
        if let time { try writer.append(EMVTag.transactionTime, try FieldCheck.bcd(time, count: 3, "time (9F21)")) }
        if let transactionSequenceCounter {
            try writer.append(
                EMVTag.transactionSequenceCounter,
                try FieldCheck.bcd(transactionSequenceCounter, count: 4, "transaction sequence counter (9F41)")
            )
        }
        if let applicationVersion {
            try writer.append(
                EMVTag.applicationVersion,
                try FieldCheck.exact(applicationVersion, count: 2, "application version (9F09)")
            )
        }
        if let ddol { try writer.append(EMVTag.ddol, ddol) }
        if let tdol { try writer.append(EMVTag.tdol, tdol) }
        if let tacDefault {
            try writer.append(EMVTag.tacDefault, try FieldCheck.exact(tacDefault, count: 5, "TAC default"))
        }
        if let tacDenial {
            try writer.append(EMVTag.tacDenial, try FieldCheck.exact(tacDenial, count: 5, "TAC denial"))
        }
        if let tacOnline {
            try writer.append(EMVTag.tacOnline, try FieldCheck.exact(tacOnline, count: 5, "TAC online"))
        }
        if let pinFloorLimit { try writer.append(EMVTag.pinFloorLimit, FieldCheck.uint32(pinFloorLimit)) }
        if let signatureFloorLimit {
            try writer.append(EMVTag.signatureFloorLimit, FieldCheck.uint32(signatureFloorLimit))
        }
        if let pinSignatureFloorLimit {
            try writer.append(EMVTag.pinSignatureFloorLimit, FieldCheck.uint32(pinSignatureFloorLimit))
        }
        if let targetPercent {
            guard targetPercent <= 99 else {
                throw CommandError(.invalidArgument, "target percentage must be 0…99, got \(targetPercent)")
            }
            try writer.append(EMVTag.targetPercent, [targetPercent])
        }
        if let threshold { try writer.append(EMVTag.threshold, FieldCheck.uint32(threshold)) }
        if let maxTargetPercent {
            guard maxTargetPercent <= 99, maxTargetPercent >= targetPercent ?? 0 else {
                throw CommandError(
                    .invalidArgument,
                    "maximum target percentage must be 0…99 and at least the target percentage, got \(maxTargetPercent)"
                )
            }
            try writer.append(EMVTag.maxTargetPercent, [maxTargetPercent])
        }
        if let keySlot { try writer.append(EMVTag.keySlot, [keySlot]) }
        try writer.appendRequestedTags(requestedTags)
        return try writer.payload()
    }

    /// Reads the request; unknown tags are ignored.
    package init(payload: [UInt8]) throws(CommandError) {
        let fields = try TLVFields(payload, "TransactionProcess request")
        tvr = try fields.required(EMVTag.tvr, "TVR", count: 5)
        date = try fields.optional(EMVTag.transactionDate, "date", count: 3)
        time = try fields.optional(EMVTag.transactionTime, "time", count: 3)
        transactionSequenceCounter = try fields.optional(
            EMVTag.transactionSequenceCounter,
            "transaction sequence counter",
            count: 4
        )
        applicationVersion = try fields.optional(EMVTag.applicationVersion, "application version", count: 2)
        ddol = fields.value(EMVTag.ddol)
        tdol = fields.value(EMVTag.tdol)
        tacDefault = try fields.optional(EMVTag.tacDefault, "TAC default", count: 5)
        tacDenial = try fields.optional(EMVTag.tacDenial, "TAC denial", count: 5)
        tacOnline = try fields.optional(EMVTag.tacOnline, "TAC online", count: 5)
        pinFloorLimit = try fields.optionalUInt32(EMVTag.pinFloorLimit, "PIN floor limit")
        signatureFloorLimit = try fields.optionalUInt32(EMVTag.signatureFloorLimit, "signature floor limit")
        pinSignatureFloorLimit = try fields.optionalUInt32(EMVTag.pinSignatureFloorLimit, "PIN+signature floor limit")
        targetPercent = try fields.optionalByte(EMVTag.targetPercent, "target percentage")
        threshold = try fields.optionalUInt32(EMVTag.threshold, "threshold")
        maxTargetPercent = try fields.optionalByte(EMVTag.maxTargetPercent, "maximum target percentage")
        keySlot = try fields.optionalByte(EMVTag.keySlot, "DUKPT key slot")
        requestedTags = try fields.requestedTags()
    }

    private enum CodingKeys: String, CodingKey {
        case tvr, date, time, transactionSequenceCounter, applicationVersion, ddol, tdol, tacDefault, tacDenial
        case tacOnline, pinFloorLimit, signatureFloorLimit, pinSignatureFloorLimit, targetPercent, threshold
        case maxTargetPercent, keySlot, requestedTags
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(tvr, forKey: .tvr)
        try container.encodeHexIfPresent(date, forKey: .date)
        try container.encodeHexIfPresent(time, forKey: .time)
        try container.encodeHexIfPresent(transactionSequenceCounter, forKey: .transactionSequenceCounter)
        try container.encodeHexIfPresent(applicationVersion, forKey: .applicationVersion)
        try container.encodeHexIfPresent(ddol, forKey: .ddol)
        try container.encodeHexIfPresent(tdol, forKey: .tdol)
        try container.encodeHexIfPresent(tacDefault, forKey: .tacDefault)
        try container.encodeHexIfPresent(tacDenial, forKey: .tacDenial)
        try container.encodeHexIfPresent(tacOnline, forKey: .tacOnline)
        try container.encodeIfPresent(pinFloorLimit, forKey: .pinFloorLimit)
        try container.encodeIfPresent(signatureFloorLimit, forKey: .signatureFloorLimit)
        try container.encodeIfPresent(pinSignatureFloorLimit, forKey: .pinSignatureFloorLimit)
        try container.encodeIfPresent(targetPercent, forKey: .targetPercent)
        try container.encodeIfPresent(threshold, forKey: .threshold)
        try container.encodeIfPresent(maxTargetPercent, forKey: .maxTargetPercent)
        try container.encodeIfPresent(keySlot, forKey: .keySlot)
        try container.encodeTags(requestedTags, forKey: .requestedTags)
    }
}

// MARK: - 0x5513

/// 0x5513 TransactionFinalisation: second GENERATE AC after authorisation (spec §5.2). Answers status 7 (approved,
/// TC) or 8 (declined, AAC) — the only statuses the old SDK accepts — with the requested tags.
///
/// TLVs: `DF15 01` force flag; `DF16 01` authorisation status; `8A 02` ARC; `91` issuer authentication data;
/// `71 81 LL` issuer script 1; `72 81 LL` issuer script 2 (the long length form, as the SDK writes it); `C1`. The
/// SDK's bugs (8A's second byte written twice, script 2 tagged 71) are not copied.
package struct TransactionFinalisation: RPCCommand, Hashable {
    package static let id = CommandID.transactionFinalisation
    package static var successStatuses: [Status] { [.finalisationApproved, .finalisationDeclined] }

    /// DF15 values (spec §5.2).
    package static let forceNone: UInt8 = 0x00
    package static let forceAfterAuthorisation: UInt8 = 0x01
    package static let voiceReferralAccepted: UInt8 = 0x59
    package static let voiceReferralDeclined: UInt8 = 0x5A

    /// An issuer script's value must fit the one-byte `81 LL` length.
    package static let maxScriptLength = 255

    package var forceFlag: UInt8
    package var authorisationStatus: AuthorisationStatus
    /// 8A, two bytes ("00" = 30 30).
    package var authorisationResponseCode: [UInt8]
    /// 91, 8…16 bytes.
    package var issuerAuthenticationData: [UInt8]?
    /// Value of the 71 template.
    package var issuerScript1: [UInt8]?
    /// Value of the 72 template.
    package var issuerScript2: [UInt8]?
    package var requestedTags: [Tag]

    package init(
        forceFlag: UInt8 = TransactionFinalisation.forceNone,
        authorisationStatus: AuthorisationStatus,
        authorisationResponseCode: [UInt8],
        issuerAuthenticationData: [UInt8]? = nil,
        issuerScript1: [UInt8]? = nil,
        issuerScript2: [UInt8]? = nil,
        requestedTags: [Tag] = []
    ) {
        self.forceFlag = forceFlag
        self.authorisationStatus = authorisationStatus
        self.authorisationResponseCode = authorisationResponseCode
        self.issuerAuthenticationData = issuerAuthenticationData
        self.issuerScript1 = issuerScript1
        self.issuerScript2 = issuerScript2
        self.requestedTags = requestedTags
    }

    /// DF16 as the SDK derives it from 8A (spec §5.2, §7.7): "00" → approved; first character '9' → unable to go
    /// online; anything else → declined.
    package static func authorisationStatus(forResponseCode code: [UInt8]) -> AuthorisationStatus {
        if code == Array("00".utf8) { return .approved }
        if code.first == UInt8(ascii: "9") { return .unableToGoOnline }
        return .declined
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        var writer = TLVWriter("TransactionFinalisation")
        try writer.append(EMVTag.forceFlag, [forceFlag])
        try writer.append(EMVTag.authorisationStatus, [authorisationStatus.rawValue])
        try writer.append(
            EMVTag.authorisationResponseCode,
            try FieldCheck.exact(authorisationResponseCode, count: 2, "authorisation response code (8A)")
        )
        if let issuerAuthenticationData {
            guard (8...16).contains(issuerAuthenticationData.count) else {
                throw CommandError(
                    .invalidArgument,
                    "issuer authentication data (91) must be 8…16 bytes, got \(issuerAuthenticationData.count)"
                )
            }
            try writer.append(EMVTag.issuerAuthenticationData, issuerAuthenticationData)
        }
        var payload = writer.bytes
        for (tag, script) in [(EMVTag.issuerScript1, issuerScript1), (EMVTag.issuerScript2, issuerScript2)] {
            guard let script else { continue }
            guard script.count <= Self.maxScriptLength else {
                throw CommandError(
                    .invalidArgument,
                    "issuer script \(Tag(tag)) is \(script.count) bytes; at most 255 allowed"
                )
            }
            payload += [UInt8(tag), 0x81, UInt8(script.count)] + script
        }
        var tail = TLVWriter("TransactionFinalisation")
        try tail.appendRequestedTags(requestedTags)
        return try PayloadLimits.checked(payload + tail.bytes, "TransactionFinalisation")
    }

    /// Reads the request; unknown tags are ignored.
    package init(payload: [UInt8]) throws(CommandError) {
        let fields = try TLVFields(payload, "TransactionFinalisation request")
        forceFlag = try fields.optionalByte(EMVTag.forceFlag, "force flag") ?? Self.forceNone
        let status = try fields.required(EMVTag.authorisationStatus, "authorisation status", count: 1)[0]
        guard let authorisationStatus = AuthorisationStatus(rawValue: status) else {
            throw CommandError(.malformed, "TransactionFinalisation request: unknown authorisation status \(status)")
        }
        self.authorisationStatus = authorisationStatus
        authorisationResponseCode = try fields.required(
            EMVTag.authorisationResponseCode,
            "authorisation response code",
            count: 2
        )
        issuerAuthenticationData = fields.value(EMVTag.issuerAuthenticationData)
        issuerScript1 = fields.value(EMVTag.issuerScript1)
        issuerScript2 = fields.value(EMVTag.issuerScript2)
        requestedTags = try fields.requestedTags()
    }

    private enum CodingKeys: String, CodingKey {
        case forceFlag, authorisationStatus, authorisationResponseCode, issuerAuthenticationData, issuerScript1
        case issuerScript2, requestedTags
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(forceFlag, forKey: .forceFlag)
        try container.encode(authorisationStatus, forKey: .authorisationStatus)
        try container.encodeHex(authorisationResponseCode, forKey: .authorisationResponseCode)
        try container.encodeHexIfPresent(issuerAuthenticationData, forKey: .issuerAuthenticationData)
        try container.encodeHexIfPresent(issuerScript1, forKey: .issuerScript1)
        try container.encodeHexIfPresent(issuerScript2, forKey: .issuerScript2)
        try container.encodeTags(requestedTags, forKey: .requestedTags)
    }

    /// The card's verdict, carried by the status (7 approved, 8 declined), and the requested tags.
    package struct Response: RPCResponse, Hashable {
        package var approved: Bool
        package var tlvs: [TLV]

        package init(approved: Bool, tlvs: [TLV] = []) {
            self.approved = approved
            self.tlvs = tlvs
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            switch status {
            case .finalisationApproved: approved = true
            case .finalisationDeclined: approved = false
            default:
                throw CommandError(
                    .malformed,
                    "TransactionFinalisation answers status 7 (approved) or 8 (declined), got \(status)"
                )
            }
            tlvs = try TLVParser.parseCommandData(data, "TransactionFinalisation response")
        }

        /// The status a terminal sends with this response.
        package var status: Status { approved ? .finalisationApproved : .finalisationDeclined }

        package func encodeData() -> [UInt8] { tlvs.encoded }

        /// 9F27 of the second GENERATE AC, when requested.
        package var cryptogram: CryptogramType? { TLVResponse(tlvs: tlvs).cryptogram }

        private enum CodingKeys: String, CodingKey { case approved, tlvs }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(approved, forKey: .approved)
            try container.encodeTLVs(tlvs, forKey: .tlvs)
        }
    }
}
