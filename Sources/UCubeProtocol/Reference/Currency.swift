/// One row of the ISO 4217 list (generated into `ISO4217Table`).
package struct ISO4217Entry: Hashable, Sendable {
    /// Alphabetic code ("EUR").
    package let alpha: String
    /// Numeric code (978).
    package let numeric: UInt16
    /// Digits after the decimal point; `nil` where the list says "N.A." (XXX, XAU, XDR, test codes …).
    package let minorUnits: Int?
    /// English name from the list ("Euro").
    package let name: String

    init(_ alpha: String, _ numeric: UInt16, _ minorUnits: Int?, _ name: String) {
        self.alpha = alpha
        self.numeric = numeric
        self.minorUnits = minorUnits
        self.name = name
    }

    private static let byAlpha: [String: ISO4217Entry] = Dictionary(
        ISO4217Table.entries.map { ($0.alpha, $0) },
        uniquingKeysWith: { first, _ in first }
    )
    private static let byNumeric: [UInt16: ISO4217Entry] = Dictionary(
        ISO4217Table.entries.map { ($0.numeric, $0) },
        uniquingKeysWith: { first, _ in first }
    )

    /// The row for "EUR", "eur", "978" or "0978"; `nil` when the list has no such code.
    package static func lookup(_ text: String) -> ISO4217Entry? {
        if text.unicodeScalars.count == 3, text.unicodeScalars.allSatisfy(\.isASCIILetter) {
            return byAlpha[text.uppercased()]
        }
        guard (1...4).contains(text.count), text.unicodeScalars.allSatisfy(\.isASCIIDigit), let n = UInt16(text) else {
            return nil
        }
        return byNumeric[n]
    }

    /// The row for a numeric code.
    package static func lookup(numeric: UInt16) -> ISO4217Entry? { byNumeric[numeric] }
}

extension Unicode.Scalar {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    fileprivate var isASCIILetter: Bool { ("A"..."Z").contains(self) || ("a"..."z").contains(self) }
}

/// Why an amount or a BCD field was refused. `code` is stable; `reason` says what was wrong.
package struct AmountError: CodedError {
    package enum Code: String, Sendable, Hashable {
        /// No text at all.
        case empty
        /// A minus sign: payments carry no negative amounts (a refund is a transaction type, spec §7.3).
        case negative
        /// Not digits with an optional single decimal point.
        case notANumber
        /// More digits after the point than the currency's exponent allows.
        case tooManyFractionDigits
        /// More than the 12 digits of EMV n12 (9F02, spec §4 "Amounts").
        case tooManyDigits
        /// Bytes that are not packed BCD of the expected length.
        case invalidBCD
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}

/// An ISO 4217 currency that amounts can be expressed in: code, numeric code and exponent from `ISO4217Table`.
package struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// Alphabetic code ("EUR").
    package let alpha: String
    /// Numeric code, sent as 2-byte BCD in 5F2A (spec §4).
    package let numeric: UInt16
    /// Minor-unit digits, sent in 5F36 (spec §4).
    package let exponent: Int
    /// English name from the ISO 4217 list.
    package let name: String

    package init(alpha: String, numeric: UInt16, exponent: Int, name: String) {
        self.alpha = alpha
        self.numeric = numeric
        self.exponent = exponent
        self.name = name
    }

    /// The currency for "EUR", "eur", "978" or "0978". `nil` for an unknown code and for the list's "N.A." codes
    /// (XXX, XAU, XDR, XTS …), which have no minor units and so no amounts.
    package static func lookup(_ text: String) -> Currency? {
        ISO4217Entry.lookup(text).flatMap(Currency.init(entry:))
    }

    /// The currency for a numeric code (as carried in 5F2A).
    package static func lookup(numeric: UInt16) -> Currency? {
        ISO4217Entry.lookup(numeric: numeric).flatMap(Currency.init(entry:))
    }

    private init?(entry: ISO4217Entry) {
        guard let units = entry.minorUnits else { return nil }
        self.init(alpha: entry.alpha, numeric: entry.numeric, exponent: units, name: entry.name)
    }

    // The payment defaults of spec §8.1; the table always has them (CurrencyTests checks).
    package static let eur = Currency.lookup("EUR")!
    package static let usd = Currency.lookup("USD")!
    package static let gbp = Currency.lookup("GBP")!

    package var description: String { alpha }

    // MARK: Amounts

    /// The largest amount EMV n12 can carry (9F02/9F03, spec §4).
    package static let maxMinorUnits: UInt64 = 999_999_999_999

    /// Minor units for a decimal text: "12.5" EUR → 1250, "1250" JPY → 1250. Refuses more fractional digits than
    /// the exponent ("12.5" JPY, "12.505" EUR), signs, anything but digits and one point, and more than 12 digits.
    package func minorUnits(fromDecimal text: String) throws(AmountError) -> UInt64 {
        guard !text.isEmpty else { throw AmountError(.empty, "no amount given") }
        if text.hasPrefix("-") { throw AmountError(.negative, "amount \(text) is negative") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(\.isASCIIDigit) }) else {
            throw AmountError(.notANumber, "\"\(text)\" is not a decimal amount (digits with an optional '.')")
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= exponent else {
            let allowed = exponent == 0 ? "no decimals" : "at most \(exponent) decimal\(exponent == 1 ? "" : "s")"
            throw AmountError(.tooManyFractionDigits, "\(alpha) amounts have \(allowed): \"\(text)\"")
        }
        let digits = (parts[0] + fraction + String(repeating: "0", count: exponent - fraction.count))
            .drop { $0 == "0" }
        guard digits.count <= 12 else {
            throw AmountError(.tooManyDigits, "\"\(text)\" \(alpha) needs more than the 12 digits EMV allows")
        }
        return digits.isEmpty ? 0 : UInt64(digits)!
    }

    /// "12.50 EUR", "1250 JPY".
    package func format(minorUnits: UInt64) -> String {
        "\(decimalText(minorUnits)) \(alpha)"
    }

    /// The amount without the code: "12.50".
    package func decimalText(_ minorUnits: UInt64) -> String {
        let digits = String(minorUnits)
        guard exponent > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, exponent + 1 - digits.count)) + digits
        return "\(padded.dropLast(exponent)).\(padded.suffix(exponent))"
    }

    // MARK: BCD (spec §4)

    /// 9F02/9F03: six bytes of packed BCD (12.50 EUR → 00 00 00 00 12 50).
    package static func bcdAmount(_ minor: UInt64) -> [UInt8] {
        precondition(minor <= maxMinorUnits, "amounts are checked against n12 before they are encoded")
        return bcd(minor, bytes: 6)
    }

    /// Inverse of `bcdAmount`: six packed BCD bytes → minor units.
    package static func minorUnits(fromBCD bytes: [UInt8]) throws(AmountError) -> UInt64 {
        guard bytes.count == 6, let value = bcdValue(bytes) else {
            throw AmountError(
                .invalidBCD,
                "an amount is 6 bytes of packed BCD, got \(Hex.encode(bytes, separator: " "))"
            )
        }
        return value
    }

    /// 5F2A: the numeric code as 2 bytes of BCD (978 → 09 78).
    package var numericBCD: [UInt8] { Currency.bcd(UInt64(numeric), bytes: 2) }

    /// 5F36: the exponent as one BCD byte.
    package var exponentBCD: [UInt8] { Currency.bcd(UInt64(exponent), bytes: 1) }

    /// Inverse of `numericBCD`: 09 78 → 978.
    package static func numericCode(fromBCD bytes: [UInt8]) throws(AmountError) -> UInt16 {
        guard bytes.count == 2, let value = bcdValue(bytes) else {
            throw AmountError(
                .invalidBCD,
                "a currency code is 2 bytes of BCD, got \(Hex.encode(bytes, separator: " "))"
            )
        }
        return UInt16(value)
    }

    /// The currency of a 5F2A value.
    package static func lookup(bcd bytes: [UInt8]) -> Currency? {
        guard let code = try? numericCode(fromBCD: bytes) else { return nil }
        return lookup(numeric: code)
    }

    private static func bcd(_ value: UInt64, bytes count: Int) -> [UInt8] {
        guard let bytes = BCD.encode(value, byteCount: count) else {
            preconditionFailure("\(value) does not fit \(count) BCD bytes; callers check the range first")
        }
        return bytes
    }

    private static func bcdValue(_ bytes: [UInt8]) -> UInt64? { BCD.decode(bytes) }
}

// MARK: - Languages (ISO 639-1)

/// One row of the ISO 639 list (generated into `ISO639Table`).
package struct ISO639Entry: Hashable, Sendable {
    /// ISO 639-1 code ("fr").
    package let alpha2: String
    /// ISO 639-2/T code ("fra").
    package let alpha3: String
    /// English name ("French").
    package let name: String

    init(_ alpha2: String, _ alpha3: String, _ name: String) {
        self.alpha2 = alpha2
        self.alpha3 = alpha3
        self.name = name
    }
}

/// ISO 639-1 languages, for EMV 5F2D and the uCube's DF2D preferred languages (spec §5.2 TransactionInitialization).
package enum Language {
    private static let byCode: [String: ISO639Entry] = {
        var map: [String: ISO639Entry] = [:]
        for entry in ISO639Table.entries {
            map[entry.alpha2] = map[entry.alpha2] ?? entry
            map[entry.alpha3] = map[entry.alpha3] ?? entry
        }
        return map
    }()

    /// The language for a two-letter ("fr") or three-letter ("fra") code, ignoring case.
    package static func lookup(_ code: String) -> (alpha2: String, name: String)? {
        guard let entry = byCode[code.lowercased()] else { return nil }
        return (entry.alpha2, entry.name)
    }
}
