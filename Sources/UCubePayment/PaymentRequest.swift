import UCubeProtocol

/// What to charge and how (the SDKs' `UCubePaymentRequest`, spec §8.1 "Inputs").
package struct PaymentRequest: Sendable, Hashable, Encodable {
    /// Minor units (1250 = 12.50 EUR); `nil`: the cardholder types the amount on the terminal (DF52 = 01).
    package var amount: UInt64?
    package var currency: Currency
    package var transactionType: TransactionType
    /// Minor units; transaction type `purchaseCashback` only.
    package var cashback: UInt64?
    /// Enabled readers; ICC and NFC by default.
    package var readers: [CardReader]
    /// The readers are the terminal's own, as the SDKs choose them from GetInfo (`TerminalReaders`), rather than
    /// `readers`, which then applies only when GetInfo does not say which product the terminal is.
    package var readersFromTerminal = false
    /// Seconds, 1…255 (spec §8.1: default 30, max 255).
    package var cardWaitTimeout: Int
    /// ISO 639-1 codes, 1…6 ("en", "fr").
    package var preferredLanguages: [String]
    /// NFC/MSR: ask for the online PIN even when the card does not.
    package var forceOnlinePIN: Bool
    /// NFC: DF7F = 1; ICC: TVR byte 4 bit 4 (`tvr[3] |= 0x08`, spec §8.1).
    package var forceAuthorization: Bool
    package var pinBlockFormat: PINBlockFormatCode
    /// The DUKPT key slot the terminal enciphers an online PIN under (DF44 of TransactionProcess and
    /// SimplifiedOnlinePIN, spec §5.2 0x5512): 0x40…0x53, the SDK's default 0x40.
    package var pinKeySlot: UInt8 = PaymentRequest.defaultPINKeySlot
    /// Tags read in plain before the authorization; `nil` = the default of the entry mode (`PaymentTagDefaults`).
    package var authorizationPlainTags: [Tag]?
    /// SRED tags read as a ciphered blob before the authorization; `nil` = the default of the entry mode.
    package var authorizationSecuredTags: [Tag]?
    /// A host decides the authorisation (`--authorize exec:…`): unless the tags are given, the payment fetches what the
    /// host's request carries (`PaymentTagDefaults.hostPlain`, `hostSecured`).
    package var hostAuthorization = false
    /// Tags read in plain once an approved or declined status is decided; `nil` = the default.
    package var finalizationPlainTags: [Tag]?
    /// SRED tags read as a blob once an approved or declined status is decided; `nil` = the default (none).
    package var finalizationSecuredTags: [Tag]?
    /// Skip START_CANCEL_ALL, START_EXIT_SECURE_SESSION and GET_INFO.
    package var skipStartingSteps: Bool
    /// Skip SMC_REMOVE_CARD.
    package var skipCardRemoval: Bool
    /// Fetch the level-2 logs CC, F4 and F5 at the end (GET_CC/F4/F5_L2_LOG).
    package var retrieveL2Logs: Bool
    /// With several candidates, let the cardholder choose on the terminal (SMC_USER_SELECT_APPLICATION, DisplayListBox)
    /// instead of running the application-selection task.
    package var selectApplicationOnTerminal: Bool
    /// The caller's identifier for this payment (journal, logs); 1…64 printable ASCII characters.
    package var requestID: String

    package init(
        amount: UInt64?,
        currency: Currency = .eur,
        transactionType: TransactionType = .purchase,
        cashback: UInt64? = nil,
        readers: [CardReader] = [.icc, .nfc],
        cardWaitTimeout: Int = PaymentRequest.defaultCardWaitTimeout,
        preferredLanguages: [String] = ["en"],
        forceOnlinePIN: Bool = false,
        forceAuthorization: Bool = false,
        pinBlockFormat: PINBlockFormatCode = .iso0,
        authorizationPlainTags: [Tag]? = nil,
        authorizationSecuredTags: [Tag]? = nil,
        finalizationPlainTags: [Tag]? = nil,
        finalizationSecuredTags: [Tag]? = nil,
        skipStartingSteps: Bool = false,
        skipCardRemoval: Bool = false,
        retrieveL2Logs: Bool = false,
        selectApplicationOnTerminal: Bool = false,
        readersFromTerminal: Bool = false,
        requestID: String
    ) {
        self.readersFromTerminal = readersFromTerminal
        self.amount = amount
        self.currency = currency
        self.transactionType = transactionType
        self.cashback = cashback
        self.readers = readers
        self.cardWaitTimeout = cardWaitTimeout
        self.preferredLanguages = preferredLanguages
        self.forceOnlinePIN = forceOnlinePIN
        self.forceAuthorization = forceAuthorization
        self.pinBlockFormat = pinBlockFormat
        self.authorizationPlainTags = authorizationPlainTags
        self.authorizationSecuredTags = authorizationSecuredTags
        self.finalizationPlainTags = finalizationPlainTags
        self.finalizationSecuredTags = finalizationSecuredTags
        self.skipStartingSteps = skipStartingSteps
        self.skipCardRemoval = skipCardRemoval
        self.retrieveL2Logs = retrieveL2Logs
        self.selectApplicationOnTerminal = selectApplicationOnTerminal
        self.requestID = requestID
    }

    /// spec §8.1: "card wait timeout (default 30 s, max 255)".
    package static let defaultCardWaitTimeout = 30
    /// spec §5.2 0x5512: the vendor SDK's DUKPT key slots, 0x40 (its default) to 0x53 (`setDukptSlotKey` 1…20).
    package static let defaultPINKeySlot: UInt8 = 0x40
    package static let pinKeySlots: ClosedRange<UInt8> = 0x40...0x53
    package static let cardWaitTimeoutRange = 1...255
    /// spec §8.1: "preferred languages (1–6 ISO‑639)".
    package static let languageCountRange = 1...6
    package static let maxRequestIDLength = 64

    /// Checks every field against its range; throws the first problem found.
    package func validate() throws(PaymentRequestError) {
        if let amount, amount > Currency.maxMinorUnits {
            throw PaymentRequestError(.amountOutOfRange, "amount \(amount) exceeds the 12 digits EMV allows")
        }
        if let cashback {
            guard transactionType.carriesCashback else {
                throw PaymentRequestError(.cashbackNotAllowed, "cash-back needs transaction type purchase-cashback")
            }
            guard cashback <= Currency.maxMinorUnits else {
                throw PaymentRequestError(.amountOutOfRange, "cash-back \(cashback) exceeds the 12 digits EMV allows")
            }
        }
        guard currency.exponent >= 0, currency.exponent <= 9 else {
            throw PaymentRequestError(.currency, "\(currency.alpha) has no usable exponent")
        }
        guard !readers.isEmpty else { throw PaymentRequestError(.readers, "at least one reader is needed") }
        guard Set(readers).count == readers.count else {
            throw PaymentRequestError(.readers, "a reader is listed twice")
        }
        guard Self.cardWaitTimeoutRange.contains(cardWaitTimeout) else {
            throw PaymentRequestError(
                .cardWaitTimeout,
                "card wait timeout must be 1…255 seconds, got \(cardWaitTimeout)"
            )
        }
        guard Self.languageCountRange.contains(preferredLanguages.count) else {
            throw PaymentRequestError(
                .languages,
                "give 1…6 preferred languages, got \(preferredLanguages.count)"
            )
        }
        for code in preferredLanguages {
            guard code.utf8.count == 2, code.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }),
                Language.lookup(code) != nil
            else {
                throw PaymentRequestError(.languages, "\"\(code)\" is not an ISO 639-1 language code")
            }
        }
        guard !requestID.isEmpty, requestID.utf8.count <= Self.maxRequestIDLength,
            requestID.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw PaymentRequestError(.requestID, "request id must be 1…64 printable ASCII characters without spaces")
        }
        for (name, list) in [
            ("authorization plain", authorizationPlainTags), ("authorization secured", authorizationSecuredTags),
            ("finalization plain", finalizationPlainTags), ("finalization secured", finalizationSecuredTags),
        ] {
            guard let list else { continue }
            guard list.count <= Self.maxTagsPerList else {
                throw PaymentRequestError(.tags, "the \(name) tag list holds at most \(Self.maxTagsPerList) tags")
            }
        }
    }

    /// Requested-tag lists are written as `C1 LL …` (spec §4): at most 127 bytes keeps the short length form.
    package static let maxTagsPerList = 40

    // MARK: Tag lists by entry mode

    func authorizationPlainTags(for mode: EntryMode) -> [Tag] {
        var tags =
            authorizationPlainTags
            ?? (hostAuthorization ? PaymentTagDefaults.hostPlain(mode) : PaymentTagDefaults.authorizationPlain(mode))
        // The magstripe flow decides on DF60 (spec §7.4, §8.2): it is always read.
        if mode == .msr, !tags.contains(PaymentTagDefaults.msrAction) {
            tags.insert(PaymentTagDefaults.msrAction, at: 0)
        }
        return tags
    }

    func authorizationSecuredTags(for mode: EntryMode) -> [Tag] {
        authorizationSecuredTags
            ?? (hostAuthorization
                ? PaymentTagDefaults.hostSecured(mode) : PaymentTagDefaults.authorizationSecured(mode))
    }

    func finalizationPlainTags(for mode: EntryMode) -> [Tag] {
        finalizationPlainTags ?? PaymentTagDefaults.finalizationPlain(mode)
    }

    func finalizationSecuredTags(for mode: EntryMode) -> [Tag] {
        finalizationSecuredTags ?? PaymentTagDefaults.finalizationSecured(mode)
    }

    // MARK: Encodable

    private enum CodingKeys: String, CodingKey {
        case amount, amountOnTerminal, currency, currencyNumeric, exponent, transactionType, cashback, readers
        case cardWaitTimeout, preferredLanguages, forceOnlinePIN, forceAuthorization, pinBlockFormat, pinKeySlot
        case authorizationPlainTags, authorizationSecuredTags, finalizationPlainTags, finalizationSecuredTags
        case skipStartingSteps, skipCardRemoval, retrieveL2Logs, selectApplicationOnTerminal, requestID
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(amount, forKey: .amount)
        try c.encode(amount == nil, forKey: .amountOnTerminal)
        try c.encode(currency.alpha, forKey: .currency)
        try c.encode(currency.numeric, forKey: .currencyNumeric)
        try c.encode(currency.exponent, forKey: .exponent)
        try c.encode(transactionType, forKey: .transactionType)
        try c.encodeIfPresent(cashback, forKey: .cashback)
        try c.encode(readers, forKey: .readers)
        try c.encode(cardWaitTimeout, forKey: .cardWaitTimeout)
        try c.encode(preferredLanguages, forKey: .preferredLanguages)
        try c.encode(forceOnlinePIN, forKey: .forceOnlinePIN)
        try c.encode(forceAuthorization, forKey: .forceAuthorization)
        try c.encode(pinBlockFormat, forKey: .pinBlockFormat)
        try c.encode(pinKeySlot, forKey: .pinKeySlot)
        try c.encodeIfPresent(authorizationPlainTags?.map(\.description), forKey: .authorizationPlainTags)
        try c.encodeIfPresent(authorizationSecuredTags?.map(\.description), forKey: .authorizationSecuredTags)
        try c.encodeIfPresent(finalizationPlainTags?.map(\.description), forKey: .finalizationPlainTags)
        try c.encodeIfPresent(finalizationSecuredTags?.map(\.description), forKey: .finalizationSecuredTags)
        try c.encode(skipStartingSteps, forKey: .skipStartingSteps)
        try c.encode(skipCardRemoval, forKey: .skipCardRemoval)
        try c.encode(retrieveL2Logs, forKey: .retrieveL2Logs)
        try c.encode(selectApplicationOnTerminal, forKey: .selectApplicationOnTerminal)
        try c.encode(requestID, forKey: .requestID)
    }
}

/// A request field out of its range. `code` is stable; `reason` says which value and why.
package struct PaymentRequestError: CodedError {
    package enum Code: String, Sendable, Hashable {
        case amountOutOfRange
        case cashbackNotAllowed
        case currency
        case readers
        case cardWaitTimeout
        case languages
        case requestID
        case tags
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The default requested-tag lists (PROJECT CHOICE, spec §8.6): only what the outcome, the receipt and the journal
/// use. The plain lists of a chip or contactless payment ride in the C1 of the commands that answer them anyway
/// (TransactionProcess, TransactionFinalisation, StartNFC, CompleteNFC), but for their cardholder tags: by default one
/// GetPlainTag, for 5A (the masked PAN), at the end of an approved or declined payment; nothing ucube shows or keeps
/// reads an SRED blob, so by default no GetSecuredTag is sent for them
/// (`--authorization-secured-tags 57` asks for one, for an acquirer that wants it). The magstripe lists are the 2020
/// SDK's (spec §8.2 `PaymentHelper`: secured {DF62}, plain {DF61}), with DF60, which decides its outcome.
package enum PaymentTagDefaults {
    static let pan = Tag(0x5A)
    static let expiry = Tag(0x5F24)
    static let track2 = Tag(0x57)
    static let msrAction = Tag(0xDF60)
    static let msrBIN = Tag(0xDF61)
    static let msrCardData = Tag(0xDF62)
    /// 9F34 CVM results: the receipt's and the journal's cardholder verification, and the timings' PIN phase.
    static let cvmResults = Tag(0x9F34)
    /// DF3E, the PIN KSN (IS:Constants): the journal keeps it, as the SDK's context does.
    static let pinKSN = Tag(0xDF3E)

    /// Who reads each plain tag of the chip and contactless lists (the cryptogram tags 9F27, 9F26, 9F36, 95, 9B, 9F10
    /// come with every GENERATE AC answer, `generateAC`):
    ///
    /// | tag | read by |
    /// |---|---|
    /// | 9F34 | the CVM on the receipt and in the journal; the timings' PIN phase |
    /// | DF3E | the PIN KSN in the journal |
    /// | 5A | the masked PAN: receipt, journal, summary (at the end, for an approved or declined payment) |
    /// | 95, 9B | the TVR and TSI on the receipt and in the journal, as the card's last cryptogram left them |
    package static func authorizationPlain(_ mode: EntryMode) -> [Tag] {
        switch mode {
        case .icc, .nfc: [cvmResults, pinKSN]
        case .msr: [msrAction, msrBIN]
        }
    }

    /// What an issuer would get for an online authorisation (EMV Book 3 Annex A), in plain, without the cardholder
    /// tags (5A, 5F24: never shown), with the PIN KSN and the magstripe BIN: the list `pay --authorize prompt` asks for,
    /// since the person who answers the prompt decides the outcome on these values. It rides in C1 like the others
    /// (spec §8.6): bytes, no command.
    package static let issuerData: [Tag] = [
        0x5F34, 0x84, 0x50, 0x82, 0x95, 0x9A, 0x9B, 0x9C, 0x5F2A, 0x9F02, 0x9F03, 0x9F10, 0x9F1A, 0x9F26, 0x9F27,
        0x9F33,
        0x9F34, 0x9F35, 0x9F36, 0x9F37, 0xDF3E, 0xDF61,
    ].map { Tag($0) }

    /// With a host: the defaults, then the data of the host's request (`HostDocuments.fieldFiftyFive`), each once.
    package static func hostPlain(_ mode: EntryMode) -> [Tag] {
        var tags = authorizationPlain(mode)
        // The terminal gives 5A in plain truncated (spec §5.2 0x5026): the request's masked PAN.
        let card: [Tag] = mode == .msr ? [] : [pan]
        for tag in card + issuerData + HostDocuments.fieldFiftyFive where !tags.contains(tag) { tags.append(tag) }
        return tags
    }

    /// With a host: the card data it checks, enciphered under the SRED key (spec §12.3): the PAN and the track 2
    /// equivalent, or the magstripe's card data.
    package static func hostSecured(_ mode: EntryMode) -> [Tag] {
        switch mode {
        case .icc, .nfc: [pan, track2]
        case .msr: [msrCardData]
        }
    }

    package static func authorizationSecured(_ mode: EntryMode) -> [Tag] {
        switch mode {
        case .icc, .nfc: []
        case .msr: [msrCardData]
        }
    }

    /// After the card's last cryptogram: the masked PAN, the TVR and TSI and the CVM results as they ended.
    package static func finalizationPlain(_ mode: EntryMode) -> [Tag] {
        switch mode {
        case .icc, .nfc: [pan, Tag(0x95), Tag(0x9B), cvmResults]
        case .msr: [msrBIN]
        }
    }

    package static func finalizationSecured(_ mode: EntryMode) -> [Tag] { [] }

    /// Tags asked for in NFCStartTransaction: 9F02 always (the SDK does, for a typed amount), then what identifies
    /// the contactless application and its first cryptogram.
    static let startTransaction: [Tag] = [0x9F02, 0x84, 0x50, 0x5A, 0x5F24, 0x9F27, 0x9F26, 0x9F36, 0x95, 0x9B]
        .map { Tag($0) }

    /// Tags asked for in TransactionProcess and TransactionFinalisation.
    static let generateAC: [Tag] = [0x9F27, 0x9F26, 0x9F36, 0x95, 0x9B, 0x9F10].map { Tag($0) }
}
