/// The single-entry-point commands: 0x5530 NFCStartTransaction and 0x5531 NFCCompleteTransaction (spec §5.2).

enum NFCTag {
    static let readers: UInt32 = 0xDF70
    static let cardWaitTimeout: UInt32 = 0xDF71
    static let amountOnTerminal: UInt32 = 0xDF52
    static let merchantCategoryCode: UInt32 = 0x9F15
    /// The real EMV tag for the merchant identifier (the SDK wrongly sends 9F15, spec §13).
    static let merchantIdentifier: UInt32 = 0x9F16
    static let transactionCategoryCode: UInt32 = 0x9F53
    static let merchantProprietaryData: UInt32 = 0x9F7C
    static let balanceBefore: UInt32 = 0xDF04
    static let balanceAfter: UInt32 = 0xDF05
    static let forceOnline: UInt32 = 0xDF7F
    static let authorisationResponseCode: UInt32 = 0xDF73
}

// MARK: - 0x5530

/// 0x5530 NFCStartTransaction: waits for a card on the enabled readers; for NFC the whole contactless read happens
/// inside this command (spec §5.2).
///
/// TLVs — DF70, DF71, DF52, 9C first, in that order — then `5F2A`, `5F36`, `9F02`, `9F03` (type 09 only), `9A`,
/// `9F21`, `9F15` MCC, `9F16` merchant id, `9F53`, `9F7C`, `DF04`, `DF05`, `DF7F`, the caller's extra TLVs, `C1`.
package struct NFCStartTransaction: RPCCommand, Hashable {
    package static let id = CommandID.nfcStartTransaction

    /// Longest 9F7C value (spec §5.2 "9F7C ≤20").
    package static let maxMerchantProprietaryData = 20
    /// 9F16 is `ans 15` (EMV Book 3 Annex A).
    package static let merchantIdentifierLength = 15

    package var readers: [CardReader]
    package var cardWaitTimeout: UInt8
    /// DF52 = 01: the cardholder types the amount on the terminal (9F02 comes back in the response).
    package var amountOnTerminal: Bool
    package var type: TransactionType
    package var currencyCode: UInt16
    package var exponent: UInt8
    /// Minor units.
    package var amount: UInt64
    /// Type `purchaseCashback` only.
    package var cashback: UInt64?
    package var date: [UInt8]?
    package var time: [UInt8]?
    /// 9F15, 2 bytes BCD.
    package var merchantCategoryCode: [UInt8]?
    /// 9F16, 15 bytes.
    package var merchantIdentifier: [UInt8]?
    package var transactionCategoryCode: UInt8?
    package var merchantProprietaryData: [UInt8]?
    /// DF04, minor units, 6-byte BCD.
    package var balanceBefore: UInt64?
    /// DF05, minor units, 6-byte BCD.
    package var balanceAfter: UInt64?
    /// DF7F.
    package var forceOnline: Bool
    /// Caller-supplied proprietary TLVs, written after DF7F; they may not repeat a tag this type writes itself. Kept
    /// as tag and value (see `SetInfoField.fields`).
    package var extraTLVs: [TLV]
    package var requestedTags: [Tag]

    package init(
        readers: [CardReader],
        cardWaitTimeout: UInt8,
        amountOnTerminal: Bool = false,
        type: TransactionType,
        currencyCode: UInt16,
        exponent: UInt8,
        amount: UInt64,
        cashback: UInt64? = nil,
        date: [UInt8]? = nil,
        time: [UInt8]? = nil,
        merchantCategoryCode: [UInt8]? = nil,
        merchantIdentifier: [UInt8]? = nil,
        transactionCategoryCode: UInt8? = nil,
        merchantProprietaryData: [UInt8]? = nil,
        balanceBefore: UInt64? = nil,
        balanceAfter: UInt64? = nil,
        forceOnline: Bool = false,
        extraTLVs: [TLV] = [],
        requestedTags: [Tag] = []
    ) {
        self.readers = readers
        self.cardWaitTimeout = cardWaitTimeout
        self.amountOnTerminal = amountOnTerminal
        self.type = type
        self.currencyCode = currencyCode
        self.exponent = exponent
        self.amount = amount
        self.cashback = cashback
        self.date = date
        self.time = time
        self.merchantCategoryCode = merchantCategoryCode
        self.merchantIdentifier = merchantIdentifier
        self.transactionCategoryCode = transactionCategoryCode
        self.merchantProprietaryData = merchantProprietaryData
        self.balanceBefore = balanceBefore
        self.balanceAfter = balanceAfter
        self.forceOnline = forceOnline
        self.extraTLVs = extraTLVs.map(\.withoutChildren)
        self.requestedTags = requestedTags
    }

    /// Tags this type writes from its own fields; anything else read from a request lands in `extraTLVs`.
    static let ownTags: Set<UInt32> = [
        NFCTag.readers, NFCTag.cardWaitTimeout, NFCTag.amountOnTerminal, EMVTag.transactionType, EMVTag.currencyCode,
        EMVTag.currencyExponent, EMVTag.amountAuthorised, EMVTag.amountOther, EMVTag.transactionDate,
        EMVTag.transactionTime, NFCTag.merchantCategoryCode, NFCTag.merchantIdentifier, NFCTag.transactionCategoryCode,
        NFCTag.merchantProprietaryData, NFCTag.balanceBefore, NFCTag.balanceAfter, NFCTag.forceOnline,
        PaymentTag.requestedTags.rawValue,
    ]

    /// The leading tags the terminal requires, in order (spec §5.2).
    static let leadingTags: [UInt32] = [
        NFCTag.readers, NFCTag.cardWaitTimeout, NFCTag.amountOnTerminal, EMVTag.transactionType,
    ]

    package var responseTimeout: Duration? { ResponseTimeouts.after(seconds: cardWaitTimeout) }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        try ReaderList.check(readers, "NFCStartTransaction")
        var writer = TLVWriter("NFCStartTransaction")
        try writer.append(NFCTag.readers, readers.map(\.rawValue))
        try writer.append(NFCTag.cardWaitTimeout, [cardWaitTimeout])
        try writer.append(NFCTag.amountOnTerminal, [amountOnTerminal ? 1 : 0])
        try writer.append(EMVTag.transactionType, [type.rawValue])
        try writer.append(EMVTag.currencyCode, try FieldCheck.currency(currencyCode))
        try writer.append(EMVTag.currencyExponent, [exponent])
        try writer.append(EMVTag.amountAuthorised, try FieldCheck.amount(amount, "amount"))
        if let cashback {
            guard type.carriesCashback else {
                throw CommandError(.invalidArgument, "a cash-back amount needs transaction type purchase-cashback")
            }
            try writer.append(EMVTag.amountOther, try FieldCheck.amount(cashback, "cash-back amount"))
        }
        if let date { try writer.append(EMVTag.transactionDate, try FieldCheck.bcd(date, count: 3, "date (9A)")) }
        if let time { try writer.append(EMVTag.transactionTime, try FieldCheck.bcd(time, count: 3, "time (9F21)")) }
        if let merchantCategoryCode {
            try writer.append(
                NFCTag.merchantCategoryCode,
                try FieldCheck.bcd(merchantCategoryCode, count: 2, "merchant category code (9F15)")
            )
        }
        if let merchantIdentifier {
            try writer.append(
                NFCTag.merchantIdentifier,
                try FieldCheck.exact(
                    merchantIdentifier,
                    count: Self.merchantIdentifierLength,
                    "merchant identifier (9F16, pad with spaces)"
                )
            )
        }
        if let transactionCategoryCode { try writer.append(NFCTag.transactionCategoryCode, [transactionCategoryCode]) }
        if let merchantProprietaryData {
            guard merchantProprietaryData.count <= Self.maxMerchantProprietaryData else {
                throw CommandError(
                    .invalidArgument,
                    "merchant proprietary data (9F7C) is at most 20 bytes, got \(merchantProprietaryData.count)"
                )
            }
            try writer.append(NFCTag.merchantProprietaryData, merchantProprietaryData)
        }
        if let balanceBefore {
            try writer.append(NFCTag.balanceBefore, try FieldCheck.amount(balanceBefore, "balance before GAC"))
        }
        if let balanceAfter {
            try writer.append(NFCTag.balanceAfter, try FieldCheck.amount(balanceAfter, "balance after GAC"))
        }
        try writer.append(NFCTag.forceOnline, [forceOnline ? 1 : 0])
        for tlv in extraTLVs {
            guard !Self.ownTags.contains(tlv.tag.rawValue) else {
                throw CommandError(
                    .invalidArgument,
                    "extra TLV \(tlv.tag) repeats a field NFCStartTransaction writes itself"
                )
            }
            try writer.append(tlv)
        }
        try writer.appendRequestedTags(requestedTags)
        return try writer.payload()
    }

    /// Reads the request. The first four objects must be DF70, DF71, DF52, 9C (the terminal's rule); objects with
    /// other tags than this type's fields become `extraTLVs`.
    package init(payload: [UInt8]) throws(CommandError) {
        let what = "NFCStartTransaction request"
        let fields = try TLVFields(payload, what)
        let leading = fields.tlvs.prefix(Self.leadingTags.count).map(\.tag.rawValue)
        guard leading == Self.leadingTags else {
            throw CommandError(.malformed, "\(what) must start with DF70, DF71, DF52, 9C in that order")
        }
        let readerBytes = try fields.requiredAny(NFCTag.readers, "readers")
        readers = try ReaderList.parse(readerBytes, what)
        cardWaitTimeout = try fields.required(NFCTag.cardWaitTimeout, "card wait timeout", count: 1)[0]
        amountOnTerminal = try fields.optionalBool(NFCTag.amountOnTerminal, "amount on terminal") ?? false
        type = try PaymentFields.type(fields)
        currencyCode = UInt16(try fields.requiredBCD(EMVTag.currencyCode, "currency code", count: 2))
        exponent = try fields.required(EMVTag.currencyExponent, "currency exponent", count: 1)[0]
        amount = try fields.requiredBCD(EMVTag.amountAuthorised, "amount", count: 6)
        cashback = try fields.optionalBCD(EMVTag.amountOther, "cash-back amount", count: 6)
        date = try fields.optional(EMVTag.transactionDate, "date", count: 3)
        time = try fields.optional(EMVTag.transactionTime, "time", count: 3)
        merchantCategoryCode = try fields.optional(NFCTag.merchantCategoryCode, "merchant category code", count: 2)
        merchantIdentifier = fields.value(NFCTag.merchantIdentifier)
        transactionCategoryCode = try fields.optionalByte(NFCTag.transactionCategoryCode, "transaction category code")
        merchantProprietaryData = fields.value(NFCTag.merchantProprietaryData)
        balanceBefore = try fields.optionalBCD(NFCTag.balanceBefore, "balance before GAC", count: 6)
        balanceAfter = try fields.optionalBCD(NFCTag.balanceAfter, "balance after GAC", count: 6)
        forceOnline = try fields.optionalBool(NFCTag.forceOnline, "force online") ?? false
        extraTLVs = fields.unknown(excluding: Self.ownTags).map(\.withoutChildren)
        requestedTags = try fields.requestedTags()
    }

    private enum CodingKeys: String, CodingKey {
        case readers, cardWaitTimeout, amountOnTerminal, type, currencyCode, exponent, amount, cashback, date, time
        case merchantCategoryCode, merchantIdentifier, transactionCategoryCode, merchantProprietaryData
        case balanceBefore, balanceAfter, forceOnline, extraTLVs, requestedTags
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(readers, forKey: .readers)
        try container.encode(cardWaitTimeout, forKey: .cardWaitTimeout)
        try container.encode(amountOnTerminal, forKey: .amountOnTerminal)
        try container.encode(type, forKey: .type)
        try container.encode(currencyCode, forKey: .currencyCode)
        try container.encode(exponent, forKey: .exponent)
        try container.encode(amount, forKey: .amount)
        try container.encodeIfPresent(cashback, forKey: .cashback)
        try container.encodeHexIfPresent(date, forKey: .date)
        try container.encodeHexIfPresent(time, forKey: .time)
        try container.encodeHexIfPresent(merchantCategoryCode, forKey: .merchantCategoryCode)
        try container.encodeHexIfPresent(merchantIdentifier, forKey: .merchantIdentifier)
        try container.encodeIfPresent(transactionCategoryCode, forKey: .transactionCategoryCode)
        try container.encodeHexIfPresent(merchantProprietaryData, forKey: .merchantProprietaryData)
        try container.encodeIfPresent(balanceBefore, forKey: .balanceBefore)
        try container.encodeIfPresent(balanceAfter, forKey: .balanceAfter)
        try container.encode(forceOnline, forKey: .forceOnline)
        try container.encodeTLVs(extraTLVs, forKey: .extraTLVs)
        try container.encodeTags(requestedTags, forKey: .requestedTags)
    }

    /// TLVs: `DF70 01` the activated reader, `DF72 02` the NFC outcome (NFC only), 9F02 when the amount was typed,
    /// and the requested tags. `activatedReader` and `outcome` read `tlvs`; an unknown reader id or a DF72 that is not
    /// two bytes reads as `nil`, leaving the decision to the payment layer.
    package struct Response: RPCResponse, Hashable {
        package static let activatedReaderTag = Tag(NFCTag.readers)

        package var tlvs: [TLV]

        package init(tlvs: [TLV]) { self.tlvs = tlvs }

        /// DF70 and DF72 first (when given), then `tlvs` without any DF70/DF72 of their own.
        package init(activatedReader: CardReader?, outcome: NFCOutcome?, tlvs: [TLV] = []) {
            var all: [TLV] = []
            if let activatedReader { all.append(TLV(Self.activatedReaderTag, [activatedReader.rawValue])) }
            if let outcome { all.append(TLV(NFCOutcome.tag, outcome.bytes)) }
            all += tlvs.filter { $0.tag != Self.activatedReaderTag && $0.tag != NFCOutcome.tag }
            self.tlvs = all
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            tlvs = try TLVParser.parseCommandData(data, "NFCStartTransaction response")
        }

        package var activatedReader: CardReader? {
            guard let value = tlvs[Self.activatedReaderTag], value.count == 1 else { return nil }
            return CardReader(rawValue: value[0])
        }

        package var outcome: NFCOutcome? { NFCOutcomeField.read(tlvs) }

        package func encodeData() -> [UInt8] { tlvs.encoded }

        private enum CodingKeys: String, CodingKey { case activatedReader, outcome, tlvs }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(activatedReader, forKey: .activatedReader)
            try container.encodeIfPresent(outcome, forKey: .outcome)
            try container.encodeTLVs(tlvs, forKey: .tlvs)
        }
    }
}

/// DF72 in a response's TLVs.
enum NFCOutcomeField {
    static func read(_ tlvs: [TLV]) -> NFCOutcome? {
        guard let value = tlvs[NFCOutcome.tag] else { return nil }
        return try? NFCOutcome(bytes: value)
    }
}

// MARK: - 0x5531

/// 0x5531 NFCCompleteTransaction: gives the terminal the authorisation result (spec §5.2).
///
/// `DF73 02` authorisation response code ‖ `C1` requested tags. The default ARC is `60 60`, the "technical issue"
/// placeholder the SDK meant to send when none is known (it assigned it to a local instead, spec §13).
package struct NFCCompleteTransaction: RPCCommand, Hashable {
    package static let id = CommandID.nfcCompleteTransaction

    package static let technicalIssue: [UInt8] = [0x60, 0x60]

    package var authorisationResponseCode: [UInt8]
    package var requestedTags: [Tag]

    package init(authorisationResponseCode: [UInt8] = NFCCompleteTransaction.technicalIssue, requestedTags: [Tag] = [])
    {
        self.authorisationResponseCode = authorisationResponseCode
        self.requestedTags = requestedTags
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        var writer = TLVWriter("NFCCompleteTransaction")
        try writer.append(
            NFCTag.authorisationResponseCode,
            try FieldCheck.exact(authorisationResponseCode, count: 2, "authorisation response code (DF73)")
        )
        try writer.appendRequestedTags(requestedTags)
        return try writer.payload()
    }

    /// Reads the request; an absent DF73 reads as the `60 60` default.
    package init(payload: [UInt8]) throws(CommandError) {
        let fields = try TLVFields(payload, "NFCCompleteTransaction request")
        authorisationResponseCode =
            try fields.optional(
                NFCTag.authorisationResponseCode,
                "authorisation response code",
                count: 2
            ) ?? Self.technicalIssue
        requestedTags = try fields.requestedTags()
    }

    private enum CodingKeys: String, CodingKey { case authorisationResponseCode, requestedTags }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(authorisationResponseCode, forKey: .authorisationResponseCode)
        try container.encodeTags(requestedTags, forKey: .requestedTags)
    }

    /// TLVs including DF72, the final outcome.
    package struct Response: RPCResponse, Hashable {
        package var tlvs: [TLV]

        package init(tlvs: [TLV]) { self.tlvs = tlvs }

        /// DF72 first, then `tlvs` without a DF72 of their own.
        package init(outcome: NFCOutcome?, tlvs: [TLV] = []) {
            var all: [TLV] = []
            if let outcome { all.append(TLV(NFCOutcome.tag, outcome.bytes)) }
            self.tlvs = all + tlvs.filter { $0.tag != NFCOutcome.tag }
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            tlvs = try TLVParser.parseCommandData(data, "NFCCompleteTransaction response")
        }

        package var outcome: NFCOutcome? { NFCOutcomeField.read(tlvs) }

        package func encodeData() -> [UInt8] { tlvs.encoded }

        private enum CodingKeys: String, CodingKey { case outcome, tlvs }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(outcome, forKey: .outcome)
            try container.encodeTLVs(tlvs, forKey: .tlvs)
        }
    }
}
