import Testing

@testable import UCubeProtocol

@Suite("Currencies and languages")
struct CurrencyTests {
    // MARK: ISO 4217 table

    /// Exponents ("minor units") from the official ISO 4217 list (SIX Group table.xml, see ISO4217Table.swift).
    @Test(arguments: [
        ("EUR", 978, 2), ("JPY", 392, 0), ("KWD", 414, 3), ("BHD", 48, 3), ("CLF", 990, 4), ("USD", 840, 2),
    ])
    func officialExponents(alpha: String, numeric: UInt16, exponent: Int) throws {
        let currency = try #require(Currency.lookup(alpha))
        #expect(currency.numeric == numeric)
        #expect(currency.exponent == exponent)
    }

    /// XXX ("no currency") has minor units "N.A.": it is in the table but is no currency for amounts.
    @Test func noMinorUnitsForXXX() throws {
        let entry = try #require(ISO4217Entry.lookup("XXX"))
        #expect(entry.numeric == 999)
        #expect(entry.minorUnits == nil)
        #expect(Currency.lookup("XXX") == nil)
        #expect(Currency.lookup("999") == nil)
    }

    @Test func tableIsOneRowPerCode() {
        #expect(ISO4217Table.entries.count > 150)
        #expect(Set(ISO4217Table.entries.map(\.alpha)).count == ISO4217Table.entries.count)
        #expect(Set(ISO4217Table.entries.map(\.numeric)).count == ISO4217Table.entries.count)
        let date = Array(ISO4217Table.published)
        #expect(date.count == 10 && date[4] == "-" && date[7] == "-", "published \(ISO4217Table.published)")
    }

    @Test(arguments: ["EUR", "eur", "Eur", "978", "0978"])
    func lookupAcceptsCodes(text: String) {
        #expect(Currency.lookup(text) == .eur)
    }

    @Test(arguments: ["", "EU", "EURO", "ZZZ", "12345", "97 8", "-978"])
    func lookupRefusesOthers(text: String) {
        #expect(Currency.lookup(text) == nil)
    }

    @Test func defaults() {
        #expect(Currency.eur.alpha == "EUR" && Currency.eur.name == "Euro")
        #expect(Currency.usd.numeric == 840)
        #expect(Currency.gbp.numeric == 826 && Currency.gbp.exponent == 2)
    }

    // MARK: Amounts (the `pay` rules)

    @Test(
        arguments: [
            ("12.5", "EUR", 1250),
            ("12.50", "EUR", 1250),
            ("12", "EUR", 1200),
            ("0.01", "EUR", 1),
            ("0012.50", "EUR", 1250),
            ("0", "EUR", 0),
            ("1250", "JPY", 1250),
            ("1.234", "KWD", 1234),
            ("9999999999.99", "EUR", 999_999_999_999),
            ("999999999999", "JPY", 999_999_999_999),
        ] as [(String, String, UInt64)]
    )
    func acceptedAmounts(text: String, code: String, minor: UInt64) throws {
        let currency = try #require(Currency.lookup(code))
        #expect(try currency.minorUnits(fromDecimal: text) == minor)
    }

    @Test(
        arguments: [
            ("12.505", "EUR", AmountError.Code.tooManyFractionDigits),
            ("12.5", "JPY", .tooManyFractionDigits),
            ("1.2345", "KWD", .tooManyFractionDigits),
            ("-1", "EUR", .negative),
            ("-0.50", "EUR", .negative),
            ("", "EUR", .empty),
            ("12a", "EUR", .notANumber),
            ("12,50", "EUR", .notANumber),
            ("1.2.3", "EUR", .notANumber),
            (".5", "EUR", .notANumber),
            ("12.", "EUR", .notANumber),
            ("+5", "EUR", .notANumber),
            (" 5", "EUR", .notANumber),
            ("10000000000", "EUR", .tooManyDigits),
            ("1000000000000", "JPY", .tooManyDigits),
            ("99999999999999999999999", "JPY", .tooManyDigits),
        ] as [(String, String, AmountError.Code)]
    )
    func refusedAmounts(text: String, code: String, error: AmountError.Code) throws {
        let currency = try #require(Currency.lookup(code))
        #expect(throws: AmountError(error, "")) { try currency.minorUnits(fromDecimal: text) }
    }

    @Test func errorsCompareByCode() {
        #expect(AmountError(.empty, "a") == AmountError(.empty, "b"))
        #expect(AmountError(.empty, "a") != AmountError(.negative, "a"))
    }

    @Test func formatting() throws {
        #expect(Currency.eur.format(minorUnits: 1250) == "12.50 EUR")
        #expect(Currency.eur.format(minorUnits: 5) == "0.05 EUR")
        #expect(Currency.eur.format(minorUnits: 0) == "0.00 EUR")
        #expect(try #require(Currency.lookup("JPY")).format(minorUnits: 1250) == "1250 JPY")
        #expect(try #require(Currency.lookup("KWD")).format(minorUnits: 1) == "0.001 KWD")
        #expect(try #require(Currency.lookup("CLF")).format(minorUnits: 12345) == "1.2345 CLF")
    }

    // MARK: BCD (spec §4)

    /// Spec §4: 9F02 is 6-byte packed BCD of amount × 10^exponent; 12.50 EUR → 00 00 00 00 12 50.
    @Test func amountBCD() throws {
        let minor = try Currency.eur.minorUnits(fromDecimal: "12.50")
        #expect(Currency.bcdAmount(minor) == [0x00, 0x00, 0x00, 0x00, 0x12, 0x50])
        #expect(Currency.bcdAmount(999_999_999_999) == [0x99, 0x99, 0x99, 0x99, 0x99, 0x99])
        #expect(Currency.bcdAmount(0) == [0, 0, 0, 0, 0, 0])
        for value: UInt64 in [0, 1, 1250, 10_000_000, 123_456_789_012, 999_999_999_999] {
            #expect(try Currency.minorUnits(fromBCD: Currency.bcdAmount(value)) == value)
        }
    }

    @Test func amountBCDRefusesBadBytes() {
        #expect(throws: AmountError(.invalidBCD, "")) { try Currency.minorUnits(fromBCD: [0, 0, 0, 0, 0x12, 0x5A]) }
        #expect(throws: AmountError(.invalidBCD, "")) { try Currency.minorUnits(fromBCD: [0x12, 0x50]) }
    }

    /// Spec §4: currency 2-byte BCD (978 → 09 78), exponent 1 byte (5F36).
    @Test func currencyBCD() throws {
        #expect(Currency.eur.numericBCD == [0x09, 0x78])
        #expect(Currency.usd.numericBCD == [0x08, 0x40])
        #expect(Currency.eur.exponentBCD == [0x02])
        #expect(try Currency.numericCode(fromBCD: [0x09, 0x78]) == 978)
        #expect(Currency.lookup(bcd: [0x09, 0x78]) == .eur)
        #expect(Currency.lookup(bcd: [0x09, 0x7A]) == nil)
        #expect(throws: AmountError(.invalidBCD, "")) { try Currency.numericCode(fromBCD: [0x0F, 0x78]) }
        for entry in ISO4217Table.entries {
            #expect(
                try Currency.numericCode(
                    fromBCD: Currency(alpha: entry.alpha, numeric: entry.numeric, exponent: 0, name: "").numericBCD
                ) == entry.numeric
            )
        }
    }

    // MARK: ISO 639-1 (DF2D, spec §5.2)

    @Test(arguments: [("fr", "French"), ("en", "English"), ("de", "German"), ("FR", "French"), ("fra", "French")])
    func languages(code: String, name: String) throws {
        let language = try #require(Language.lookup(code))
        #expect(language.name == name)
        #expect(language.alpha2 == String(code.prefix(2)).lowercased())
    }

    @Test func unknownLanguages() {
        #expect(Language.lookup("xx") == nil)
        #expect(Language.lookup("") == nil)
        #expect(ISO639Table.entries.allSatisfy { $0.alpha2.count == 2 && $0.alpha3.count == 3 })
    }
}
