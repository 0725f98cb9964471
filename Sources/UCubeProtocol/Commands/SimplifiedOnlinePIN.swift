/// 0x5171 SimplifiedOnlinePIN: the terminal shows the amount, takes the PIN and answers the PIN KSN and the enciphered
/// PIN block (spec §5.2).
///
/// Request, in order: amount text (counted, NUL-terminated); currency label (same); PIN block format (1); prompt text
/// line; wait text line (`font ‖ length ‖ text ‖ 00 ‖ x ‖ y` each); TLVs DF30…DF36; in the current dialect, then
/// 5F2A, 5F36, 9F02 and the DUKPT key slot DF44 (spec §5.2 0x5171).
package struct SimplifiedOnlinePIN: RPCCommand, Hashable {
    package static let id = CommandID.simplifiedOnlinePIN

    // SDK defaults (spec §5.2).
    package static let defaultPrompt = DisplayLine(font: 0, text: "PIN ?", x: 0, y: 0)
    package static let defaultWaitText = DisplayLine(font: 0, text: "...", x: 0, y: 0)
    package static let defaultMinDigits: UInt8 = 4
    package static let defaultMaxDigits: UInt8 = 12
    package static let defaultFirstDigitTimeout: UInt16 = 24
    package static let defaultInterDigitTimeout: UInt16 = 24
    package static let defaultGlobalTimeout: UInt16 = 60
    /// The SDK limits the global timeout to 1…60 s.
    package static let globalTimeoutRange: ClosedRange<UInt16> = 1...60
    /// The spec gives no SDK default for DF35; erasing the last digit is the usual PIN-pad behaviour.
    package static let defaultCorrectionKeyMode = CorrectionKeyMode.eraseLastDigit
    package static let defaultDigitsPerLine: UInt8 = 6

    private enum TLVTag {
        static let minDigits: UInt32 = 0xDF30
        static let maxDigits: UInt32 = 0xDF31
        static let firstDigitTimeout: UInt32 = 0xDF32
        static let interDigitTimeout: UInt32 = 0xDF33
        static let globalTimeout: UInt32 = 0xDF34
        static let correctionKeyMode: UInt32 = 0xDF35
        static let digitsPerLine: UInt32 = 0xDF36
        static let currencyCode: UInt32 = 0x5F2A
        static let currencyExponent: UInt32 = 0x5F36
        static let amount: UInt32 = 0x9F02
        static let keySlot: UInt32 = 0xDF44
    }

    /// The current dialect's fields after DF36 (spec §5.2 0x5171): the amount as the terminal shows it and the DUKPT
    /// key slot that enciphers the PIN.
    package struct Amount: Hashable, Sendable {
        /// 5F2A, numeric ISO 4217.
        package var currencyCode: UInt16
        /// 5F36.
        package var exponent: UInt8
        /// 9F02, minor units.
        package var minorUnits: UInt64
        /// DF44.
        package var keySlot: UInt8

        package init(currencyCode: UInt16, exponent: UInt8, minorUnits: UInt64, keySlot: UInt8) {
            self.currencyCode = currencyCode
            self.exponent = exponent
            self.minorUnits = minorUnits
            self.keySlot = keySlot
        }
    }

    /// The amount as shown, e.g. "1234.50" (see `amountText(minorUnits:exponent:)`).
    package var amountText: String
    /// The currency as shown, e.g. "EUR".
    package var currencyLabel: String
    package var pinBlockFormat: PINBlockFormatCode
    package var prompt: DisplayLine
    package var waitText: DisplayLine
    /// DF30.
    package var minDigits: UInt8
    /// DF31.
    package var maxDigits: UInt8
    /// DF32, seconds.
    package var firstDigitTimeout: UInt16
    /// DF33, seconds.
    package var interDigitTimeout: UInt16
    /// DF34, seconds, 1…60.
    package var globalTimeout: UInt16
    /// DF35.
    package var correctionKeyMode: CorrectionKeyMode
    /// DF36.
    package var digitsPerLine: UInt8
    /// 5F2A, 5F36, 9F02 and DF44: present in the current dialect's request, absent in the 2020 one.
    package var amount: Amount?

    /// The request is the current SDK's (it names a key slot): the answer takes the current layout.
    package var isCurrentDialect: Bool { amount != nil }

    package init(
        amountText: String,
        currencyLabel: String,
        pinBlockFormat: PINBlockFormatCode = .iso0,
        prompt: DisplayLine = SimplifiedOnlinePIN.defaultPrompt,
        waitText: DisplayLine = SimplifiedOnlinePIN.defaultWaitText,
        minDigits: UInt8 = SimplifiedOnlinePIN.defaultMinDigits,
        maxDigits: UInt8 = SimplifiedOnlinePIN.defaultMaxDigits,
        firstDigitTimeout: UInt16 = SimplifiedOnlinePIN.defaultFirstDigitTimeout,
        interDigitTimeout: UInt16 = SimplifiedOnlinePIN.defaultInterDigitTimeout,
        globalTimeout: UInt16 = SimplifiedOnlinePIN.defaultGlobalTimeout,
        correctionKeyMode: CorrectionKeyMode = SimplifiedOnlinePIN.defaultCorrectionKeyMode,
        digitsPerLine: UInt8 = SimplifiedOnlinePIN.defaultDigitsPerLine,
        amount: Amount? = nil
    ) {
        self.amountText = amountText
        self.currencyLabel = currencyLabel
        self.pinBlockFormat = pinBlockFormat
        self.prompt = prompt
        self.waitText = waitText
        self.minDigits = minDigits
        self.maxDigits = maxDigits
        self.firstDigitTimeout = firstDigitTimeout
        self.interDigitTimeout = interDigitTimeout
        self.globalTimeout = globalTimeout
        self.correctionKeyMode = correctionKeyMode
        self.digitsPerLine = digitsPerLine
        self.amount = amount
    }

    /// The amount text for `minorUnits` of a currency with `exponent` decimals: always two decimals, '.' as the
    /// separator, no grouping ("1234.50"). The SDK uses Java's locale-dependent `"%,.2f"` ("1,234.50" or "1 234,50",
    /// spec §13); a fixed form is chosen instead. Exponents over 2 round half up; exponents under 2 pad with zeros.
    package static func amountText(minorUnits: UInt64, exponent: UInt8) throws(CommandError) -> String {
        guard minorUnits <= 999_999_999_999 else {
            throw CommandError(.invalidArgument, "amount must be at most 999999999999 minor units, got \(minorUnits)")
        }
        guard exponent <= 9 else { throw CommandError(.invalidArgument, "exponent must be 0…9, got \(exponent)") }
        var cents = minorUnits
        if exponent < 2 {
            for _ in exponent..<2 { cents *= 10 }
        } else if exponent > 2 {
            var divisor: UInt64 = 1
            for _ in 2..<exponent { divisor *= 10 }
            cents = (minorUnits + divisor / 2) / divisor
        }
        let fraction = cents % 100
        return "\(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    package var responseTimeout: Duration? { ResponseTimeouts.after(seconds: globalTimeout) }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        let amount = try ASCII.encodePrintable(amountText, field: "amount text")
        guard (1...CountedText.maxTextCount).contains(amount.count) else {
            throw CommandError(.invalidArgument, "amount text must be 1…254 characters, got \(amount.count)")
        }
        let label = try ASCII.encodePrintable(currencyLabel, field: "currency label")
        guard label.count <= CountedText.maxTextCount else {
            throw CommandError(.invalidArgument, "currency label must be at most 254 characters, got \(label.count)")
        }
        guard minDigits >= 4, minDigits <= maxDigits, maxDigits <= 12 else {
            throw CommandError(
                .invalidArgument,
                "PIN length must satisfy 4 ≤ min ≤ max ≤ 12 (ISO 9564), got \(minDigits)…\(maxDigits)"
            )
        }
        guard Self.globalTimeoutRange.contains(globalTimeout) else {
            throw CommandError(.invalidArgument, "PIN global timeout must be 1…60 seconds, got \(globalTimeout)")
        }
        var out: [UInt8] = []
        CountedText.append(amount, to: &out)
        CountedText.append(label, to: &out)
        out.append(pinBlockFormat.rawValue)
        try prompt.append(to: &out, "PIN prompt")
        try waitText.append(to: &out, "wait text")
        var writer = TLVWriter("SimplifiedOnlinePIN")
        try writer.append(TLVTag.minDigits, [minDigits])
        try writer.append(TLVTag.maxDigits, [maxDigits])
        try writer.append(TLVTag.firstDigitTimeout, Self.twoBytes(firstDigitTimeout))
        try writer.append(TLVTag.interDigitTimeout, Self.twoBytes(interDigitTimeout))
        try writer.append(TLVTag.globalTimeout, Self.twoBytes(globalTimeout))
        try writer.append(TLVTag.correctionKeyMode, [correctionKeyMode.rawValue])
        try writer.append(TLVTag.digitsPerLine, [digitsPerLine])
        if let fields = self.amount {
            try writer.append(TLVTag.currencyCode, try FieldCheck.currency(fields.currencyCode))
            try writer.append(TLVTag.currencyExponent, [fields.exponent])
            try writer.append(TLVTag.amount, try FieldCheck.amount(fields.minorUnits, "amount (9F02)"))
            try writer.append(TLVTag.keySlot, [fields.keySlot])
        }
        return try PayloadLimits.checked(out + writer.bytes, "SimplifiedOnlinePIN")
    }

    private static func twoBytes(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// Reads the request; a DF30…DF36 object that is absent takes the SDK default.
    package init(payload: [UInt8]) throws(CommandError) {
        let what = "SimplifiedOnlinePIN request"
        var reader = ByteReader(payload, what: what)
        amountText = Latin1.decode(try CountedText.read(&reader, "amount text"))
        currencyLabel = Latin1.decode(try CountedText.read(&reader, "currency label"))
        let format = try reader.u8("PIN block format")
        guard let pinBlockFormat = PINBlockFormatCode(rawValue: format) else {
            throw CommandError(.malformed, "\(what): unknown PIN block format \(format)")
        }
        self.pinBlockFormat = pinBlockFormat
        prompt = try DisplayLine.read(&reader, "PIN prompt")
        waitText = try DisplayLine.read(&reader, "wait text")
        let fields = try TLVFields(reader.rest(), what)
        func twoByte(_ tag: UInt32, _ name: String) throws(CommandError) -> UInt16? {
            try fields.optional(tag, name, count: 2).map { UInt16($0[0]) << 8 | UInt16($0[1]) }
        }
        minDigits = try fields.optionalByte(TLVTag.minDigits, "minimum PIN digits") ?? Self.defaultMinDigits
        maxDigits = try fields.optionalByte(TLVTag.maxDigits, "maximum PIN digits") ?? Self.defaultMaxDigits
        firstDigitTimeout =
            try twoByte(TLVTag.firstDigitTimeout, "first-digit timeout") ?? Self.defaultFirstDigitTimeout
        interDigitTimeout =
            try twoByte(TLVTag.interDigitTimeout, "inter-digit timeout") ?? Self.defaultInterDigitTimeout
        globalTimeout = try twoByte(TLVTag.globalTimeout, "global timeout") ?? Self.defaultGlobalTimeout
        if let mode = try fields.optionalByte(TLVTag.correctionKeyMode, "correction key mode") {
            guard let known = CorrectionKeyMode(rawValue: mode) else {
                throw CommandError(.malformed, "\(what): unknown correction key mode \(mode)")
            }
            correctionKeyMode = known
        } else {
            correctionKeyMode = Self.defaultCorrectionKeyMode
        }
        digitsPerLine = try fields.optionalByte(TLVTag.digitsPerLine, "digits per line") ?? Self.defaultDigitsPerLine
        if let keySlot = try fields.optionalByte(TLVTag.keySlot, "DUKPT key slot") {
            let code = try fields.optional(TLVTag.currencyCode, "currency code", count: 2).flatMap(BCD.decode)
            let minor = try fields.optional(TLVTag.amount, "amount", count: 6).flatMap(BCD.decode)
            amount = Amount(
                currencyCode: code.map { UInt16(clamping: $0) } ?? 0,
                exponent: try fields.optionalByte(TLVTag.currencyExponent, "currency exponent") ?? 0,
                minorUnits: minor ?? 0, keySlot: keySlot)
        } else {
            amount = nil
        }
    }

    private enum CodingKeys: String, CodingKey {
        case amountText, currencyLabel, pinBlockFormat, prompt, waitText, minDigits, maxDigits, firstDigitTimeout
        case interDigitTimeout, globalTimeout, correctionKeyMode, digitsPerLine, currencyCode, currencyExponent, amount
        case keySlot
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(amountText, forKey: .amountText)
        try container.encode(currencyLabel, forKey: .currencyLabel)
        try container.encode(pinBlockFormat, forKey: .pinBlockFormat)
        try container.encode(prompt, forKey: .prompt)
        try container.encode(waitText, forKey: .waitText)
        try container.encode(minDigits, forKey: .minDigits)
        try container.encode(maxDigits, forKey: .maxDigits)
        try container.encode(firstDigitTimeout, forKey: .firstDigitTimeout)
        try container.encode(interDigitTimeout, forKey: .interDigitTimeout)
        try container.encode(globalTimeout, forKey: .globalTimeout)
        try container.encode(correctionKeyMode, forKey: .correctionKeyMode)
        try container.encode(digitsPerLine, forKey: .digitsPerLine)
        if let amount {
            try container.encode(amount.currencyCode, forKey: .currencyCode)
            try container.encode(amount.exponent, forKey: .currencyExponent)
            try container.encode(amount.minorUnits, forKey: .amount)
            try container.encode(amount.keySlot, forKey: .keySlot)
        }
    }

    /// The PIN KSN and the enciphered PIN block (spec §5.2 0x5171), in one of two layouts: the current dialect's
    /// `LL LL <PIN KSN> LL LL <PIN block>` (lengths 2 bytes big-endian, the vendor's libraries), or the 2020 PROJECT
    /// CHOICE `DF3E LL <PIN KSN> DF3F LL <PIN block>`. Reading takes either (the TLV layout starts `DF 3E`); a KSN
    /// may have any length the terminal gives, within `ksnLengths`.
    package struct Response: RPCResponse, Hashable {
        package static let pinKSNTag = Tag(0xDF3E)
        package static let pinBlockTag = Tag(0xDF3F)
        /// A TDES DUKPT KSN is 10 bytes, an AES DUKPT one 12 (`EnterSecureSession.Response.ksnLengths`).
        package static let ksnLengths = EnterSecureSession.Response.ksnLengths
        /// An ISO 9564 block is 8 bytes (16 for format 4, AES).
        package static let pinBlockLengths = 1...32

        /// How the answer lays the two values out.
        package enum Layout: String, Hashable, Sendable {
            /// The current dialect: `LL LL` KSN `LL LL` block.
            case lengthPrefixed
            /// The 2020 dialect (PROJECT CHOICE): TLVs DF3E, DF3F.
            case tlv
        }

        package var pinKSN: [UInt8]
        package var pinBlock: [UInt8]
        package var layout: Layout

        package init(pinKSN: [UInt8], pinBlock: [UInt8], layout: Layout = .tlv) {
            self.pinKSN = pinKSN
            self.pinBlock = pinBlock
            self.layout = layout
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            let what = "SimplifiedOnlinePIN response"
            if data.starts(with: [0xDF, 0x3E]) {
                let fields = TLVFields(tlvs: try TLVParser.parseCommandData(data, what), what)
                pinKSN = try fields.requiredAny(Self.pinKSNTag.rawValue, "PIN KSN")
                pinBlock = try fields.requiredAny(Self.pinBlockTag.rawValue, "PIN block")
                layout = .tlv
            } else {
                var reader = ByteReader(data, what: what)
                pinKSN = try reader.take(Int(try reader.u16("PIN KSN length")), "PIN KSN")
                pinBlock = try reader.take(Int(try reader.u16("PIN block length")), "PIN block")
                guard reader.isAtEnd else {
                    throw CommandError(.malformed, "\(what): \(reader.remaining) bytes after the PIN block")
                }
                layout = .lengthPrefixed
            }
            guard Self.ksnLengths.contains(pinKSN.count), Self.pinBlockLengths.contains(pinBlock.count) else {
                throw CommandError(
                    .malformed,
                    "\(what): a PIN KSN of \(pinKSN.count) bytes (10 to 16 taken) and a PIN block of \(pinBlock.count) (1 to 32)"
                )
            }
        }

        package func encodeData() -> [UInt8] {
            switch layout {
            case .tlv:
                return [TLV(Self.pinKSNTag, pinKSN), TLV(Self.pinBlockTag, pinBlock)].encoded
            case .lengthPrefixed:
                func counted(_ bytes: [UInt8]) -> [UInt8] {
                    [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
                }
                return counted(pinKSN) + counted(pinBlock)
            }
        }

        private enum CodingKeys: String, CodingKey { case pinKSN, pinBlock }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeHex(pinKSN, forKey: .pinKSN)
            try container.encodeHex(pinBlock, forKey: .pinBlock)
        }
    }
}
