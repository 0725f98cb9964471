import Testing

@testable import UCubeProtocol

/// Issue 15 part 4: each explained field against values whose meaning is read from the named source. A test per
/// field; each names its source and asserts the exact lines.
@Suite("Explanations of EMV data objects")
struct ExplainTests {
    /// The explanation lines of `tag` = `hex` in the payment context, with `siblings` in the same message.
    static func lines(_ tag: UInt32, _ hex: String, siblings: [TLV] = []) throws -> [String] {
        let tlv = TLV(Tag(tag), try Hex.decode(hex))
        return try #require(Explainer.explain(tlv, context: .payment, siblings: siblings + [tlv])).lines
    }

    static func source(_ tag: UInt32, _ hex: String) throws -> String {
        try #require(Explainer.explain(TLV(Tag(tag), try Hex.decode(hex)), context: .payment)).source
    }

    // MARK: Book 3 Annex C5, C6

    /// EMV 4.4 Book 3 Annex C5 Table 46: byte 1 bit 8 "Offline data authentication was not performed", byte 3 bit 8
    /// "Cardholder verification was not successful", byte 4 bit 8 "Transaction exceeds floor limit".
    @Test func terminalVerificationResults() throws {
        #expect(
            try Self.lines(0x95, "8000808000") == [
                "byte 1 bit 8: Offline data authentication was not performed",
                "byte 3 bit 8: Cardholder verification was not successful",
                "byte 4 bit 8: Transaction exceeds floor limit",
            ])
        // Byte 2 bit 3 is RFU in Table 46: flagged when set.
        #expect(try Self.lines(0x95, "0004000000") == ["byte 2 bit 3: RFU, set (should be 0)"])
        #expect(try Self.lines(0x95, "0000000000") == ["no bit set"])
        #expect(try Self.lines(0x95, "80") == ["1 byte: Terminal Verification Results has 5; not explained"])
        #expect(try Self.source(0x95, "0000000000") == "EMV 4.4 Book 3 Annex C5 Table 46")
    }

    /// EMV 4.4 Book 3 Annex C6 Table 47: E8 = bits 8, 7, 6 and 4 of byte 1; byte 2 is RFU.
    @Test func transactionStatusInformation() throws {
        #expect(
            try Self.lines(0x9B, "E800") == [
                "byte 1 bit 8: Offline data authentication was performed",
                "byte 1 bit 7: Cardholder verification was performed",
                "byte 1 bit 6: Card risk management was performed",
                "byte 1 bit 4: Terminal risk management was performed",
            ])
        #expect(try Self.lines(0x9B, "0001") == ["byte 2 bit 1: RFU, set (should be 0)"])
    }

    // MARK: Book 3 Annex C3, Book 4 Annex A4

    /// EMV 4.4 Book 3 Annex C3 Tables 43-44: code 42 = bit 7 set (apply succeeding rule) + 02 enciphered PIN online;
    /// 1E signature; 1F no CVM; conditions 03 "if terminal supports the CVM", 00 "always", 06 "under X".
    @Test func cvmList() throws {
        #expect(
            try Self.lines(0x8E, "00000000" + "00000000" + "4203" + "1E03" + "1F00") == [
                "Amount X: 0",
                "Amount Y: 0",
                "rule 1 4203: Enciphered PIN verified online; If terminal supports the CVM; apply succeeding CV Rule if this CVM is unsuccessful",
                "rule 2 1E03: Signature (paper); If terminal supports the CVM; fail cardholder verification if this CVM is unsuccessful",
                "rule 3 1F00: No CVM required; Always; fail cardholder verification if this CVM is unsuccessful",
            ])
        // Amount X in the application currency (9F42), 1000 minor units = 10.00 EUR.
        let eur = TLV(Tag(0x9F42), [0x09, 0x78])
        #expect(
            try Self.lines(0x8E, "000003E8" + "00000000" + "0106", siblings: [eur]) == [
                "Amount X: 1000 (10.00 EUR)",
                "Amount Y: 0 (0.00 EUR)",
                "rule 1 0106: Plaintext PIN verification performed by ICC; If transaction is in the application currency and is under X value; fail cardholder verification if this CVM is unsuccessful",
            ])
        #expect(
            try Self.lines(0x8E, "000000") == [
                "3 bytes: a CVM list is Amount X and Amount Y (4 bytes each) then 2-byte CV Rules; not explained"
            ])
    }

    /// EMV 4.4 Book 4 Annex A4 Table 33: byte 3 = 0 "Unknown (for example, for signature)", 2 "Successful";
    /// 3F in byte 1 when no CVM was performed.
    @Test func cvmResults() throws {
        #expect(
            try Self.lines(0x9F34, "1E0300") == [
                "CVM performed 1E: Signature (paper); fail cardholder verification if this CVM is unsuccessful",
                "CVM condition 03: If terminal supports the CVM",
                "CVM result 00: Unknown",
            ])
        #expect(
            try Self.lines(0x9F34, "410302") == [
                "CVM performed 41: Plaintext PIN verification performed by ICC; apply succeeding CV Rule if this CVM is unsuccessful",
                "CVM condition 03: If terminal supports the CVM",
                "CVM result 02: Successful",
            ])
        #expect(try Self.lines(0x9F34, "3F0000").first == "CVM performed 3F: no CVM performed")
    }

    // MARK: Book 3 Annex C1, C2, §6.5.5.4

    /// EMV 4.4 Book 3 Annex C1 Table 41: 5C = bits 7 (SDA), 5 (cardholder verification), 4 (terminal risk
    /// management), 3 (issuer authentication); byte 2 bit 8 as Book C-2 names it.
    @Test func applicationInterchangeProfile() throws {
        #expect(
            try Self.lines(0x82, "5C00") == [
                "byte 1 bit 7: SDA supported",
                "byte 1 bit 5: Cardholder verification is supported",
                "byte 1 bit 4: Terminal risk management is to be performed",
                "byte 1 bit 3: Issuer authentication is supported",
            ])
        #expect(
            try Self.lines(0x82, "0180") == [
                "byte 1 bit 1: CDA supported", "byte 2 bit 8: EMV mode is supported (Book C-2)",
            ])
        #expect(try Self.lines(0x82, "0002") == ["byte 2 bit 2: RFU, set (should be 0)"])
    }

    /// EMV 4.4 Book 3 Annex C2 Table 42: byte 1 bits 6-5 goods, byte 1 bit 1 non-ATM, byte 2 bit 8 domestic cashback.
    @Test func applicationUsageControl() throws {
        #expect(
            try Self.lines(0x9F07, "3180") == [
                "byte 1 bit 6: Valid for domestic goods",
                "byte 1 bit 5: Valid for international goods",
                "byte 1 bit 1: Valid at terminals other than ATMs",
                "byte 2 bit 8: Domestic cashback allowed",
            ])
    }

    /// EMV 4.4 Book 3 §6.5.5.4 Table 15: bits 8-7 10 ARQC, 01 TC, 00 AAC, 11 RFU; bit 4 advice required; bits 3-1
    /// 001 "Service not allowed".
    @Test func cryptogramInformationData() throws {
        #expect(
            try Self.lines(0x9F27, "80") == [
                "byte 1 bits 8-7 = 10: cryptogram type: ARQC (Authorisation Request Cryptogram)"
            ])
        #expect(try Self.lines(0x9F27, "40") == ["byte 1 bits 8-7 = 01: cryptogram type: TC (Transaction Certificate)"])
        #expect(
            try Self.lines(0x9F27, "09") == [
                "byte 1 bits 8-7 = 00: cryptogram type: AAC (Application Authentication Cryptogram)",
                "byte 1 bit 4: Advice required",
                "byte 1 bits 3-1 = 001: reason/advice code: Service not allowed",
            ])
        #expect(
            try Self.lines(0x9F27, "C4") == [
                "byte 1 bits 8-7 = 11: cryptogram type: RFU", "byte 1 bits 3-1 = 100: reason/advice code: RFU",
            ])
    }

    // MARK: Book 4 Annex A1–A3

    /// EMV 4.4 Book 4 Annex A2 Tables 25-27: E0F8C8, the usual capabilities of an attended EMV terminal.
    @Test func terminalCapabilities() throws {
        #expect(
            try Self.lines(0x9F33, "E0F8C8") == [
                "byte 1 bit 8: Card data input: Manual key entry",
                "byte 1 bit 7: Card data input: Magnetic stripe",
                "byte 1 bit 6: Card data input: IC with contacts",
                "byte 2 bit 8: CVM: Plaintext PIN for ICC verification",
                "byte 2 bit 7: CVM: Enciphered PIN for online verification",
                "byte 2 bit 6: CVM: Signature (paper)",
                "byte 2 bit 5: CVM: Enciphered PIN for offline verification (RSA ODE)",
                "byte 2 bit 4: CVM: No CVM required",
                "byte 3 bit 8: Security: SDA",
                "byte 3 bit 7: Security: DDA",
                "byte 3 bit 4: Security: CDA",
            ])
        #expect(try Self.lines(0x9F33, "010000") == ["byte 1 bit 1: RFU, set (should be 0)"])
    }

    /// EMV 4.4 Book 4 Annex A3 Tables 28-32.
    @Test func additionalTerminalCapabilities() throws {
        #expect(
            try Self.lines(0x9F40, "F000F0A001") == [
                "byte 1 bit 8: Transaction type: Cash",
                "byte 1 bit 7: Transaction type: Goods",
                "byte 1 bit 6: Transaction type: Services",
                "byte 1 bit 5: Transaction type: Cashback",
                "byte 3 bit 8: Terminal data input: Numeric keys",
                "byte 3 bit 7: Terminal data input: Alphabetic and special characters keys",
                "byte 3 bit 6: Terminal data input: Command keys",
                "byte 3 bit 5: Terminal data input: Function keys",
                "byte 4 bit 8: Terminal data output: Print or electronic, attendant",
                "byte 4 bit 6: Terminal data output: Display, attendant",
                "byte 5 bit 1: Terminal data output: Code table 1",
            ])
    }

    /// EMV 4.4 Book 4 Annex A1 Table 24: 22 merchant, attended, offline with online capability; 14 financial
    /// institution, unattended, online only; 31 does not exist (a cardholder's terminal is unattended).
    @Test func terminalType() throws {
        #expect(
            try Self.lines(0x9F35, "22") == [
                "operational control: Merchant", "environment: Attended, offline with online capability",
            ])
        #expect(
            try Self.lines(0x9F35, "14") == [
                "operational control: Financial institution", "environment: Unattended, online only",
            ])
        #expect(try Self.lines(0x9F35, "31") == ["31: not a terminal type of Table 24"])
    }

    // MARK: Contactless books

    /// EMV Contactless Book A Table 5-4 / Book C-3 Annex A.2: 36 = EMV mode, EMV contact chip, online PIN and
    /// signature supported; byte 3 bit 7 consumer device CVM supported; byte 1 bit 7 is RFU.
    @Test func terminalTransactionQualifiers() throws {
        #expect(
            try Self.lines(0x9F66, "36004000") == [
                "byte 1 bit 6: EMV mode supported",
                "byte 1 bit 5: EMV contact chip supported",
                "byte 1 bit 3: Online PIN supported",
                "byte 1 bit 2: Signature supported",
                "byte 3 bit 7: Consumer Device CVM supported",
            ])
        #expect(try Self.lines(0x9F66, "40000000") == ["byte 1 bit 7: RFU, set (should be 0)"])
    }

    /// EMV Contactless Book C-3 Annex A.2: byte 1 bit 8 online PIN required, byte 2 bit 8 consumer device CVM
    /// performed.
    @Test func cardTransactionQualifiers() throws {
        #expect(
            try Self.lines(0x9F6C, "8080") == [
                "byte 1 bit 8: Online PIN Required", "byte 2 bit 8: Consumer Device CVM Performed",
            ])
    }

    /// EMV Contactless Book C-2 Annex A.1.161: 6C = contactless enciphered PIN online, signature, no CVM and
    /// CDCVM; byte 3 bit 8 mag-stripe mode not supported.
    @Test func terminalRiskManagementData() throws {
        #expect(
            try Self.lines(0x9F1D, "6C00800000000000") == [
                "byte 1 bit 7: Enciphered PIN verified online (Contactless)",
                "byte 1 bit 6: Signature (paper) (Contactless)",
                "byte 1 bit 4: No CVM required (Contactless)",
                "byte 1 bit 3: CDCVM (Contactless)",
                "byte 3 bit 8: Mag-stripe mode contactless transactions not supported",
            ])
    }

    // MARK: Issuer application data

    /// Visa VSDC IAD format 0 (VCPS 2.2 Appendix M): 06 length, DKI 01, CVN 0A (CVN 10), CVR 03 A4 10 00: second
    /// GENERATE AC not requested, first returned ARQC, offline PIN performed; new card.
    @Test func issuerApplicationDataVisa() throws {
        #expect(
            try Self.lines(0x9F10, "06010A03A41000") == [
                "layout: Visa (VSDC) IAD format 0",
                "byte 2: Derivation Key Index 01",
                "byte 3: Cryptogram Version Number 0A (CVN 10)",
                "bytes 4-7: Card Verification Results 03A41000",
                "CVR byte 2 bits 8-7 = 10: Second GENERATE AC: not requested",
                "CVR byte 2 bits 6-5 = 10: First GENERATE AC (or GPO): ARQC",
                "CVR byte 2 bit 3: Offline PIN verification performed",
                "CVR byte 3 bit 5: New card",
            ])
        #expect(try Self.source(0x9F10, "06010A03A41000").hasPrefix("VCPS 2.2"))
        // With issuer discretionary data after the CVR.
        let withIDD = try Self.lines(0x9F10, "06011203A00000" + "02" + "ABCD")
        #expect(withIDD.first == "layout: Visa (VSDC) IAD format 1")
        #expect(
            withIDD.suffix(2) == [
                "byte 8: length of Issuer Discretionary Data 2", "bytes 9-10: Issuer Discretionary Data ABCD",
            ])
    }

    /// Mastercard M/Chip (M/Chip Requirements Appendix B): DKI 01, CVN 10 (proprietary SKD, no counters), CVR
    /// A0 00 03 02 00 00: ARQC in the first GENERATE AC, PIN try counter 3, domestic transaction.
    @Test func issuerApplicationDataMastercard() throws {
        #expect(
            try Self.lines(0x9F10, "0110A00003020000" + "0000" + "00000000000000FF") == [
                "layout: Mastercard M/Chip 4 or M/Chip Advance (18 bytes)",
                "byte 1: Derivation Key Index 01",
                "byte 2: Cryptogram Version Number 10",
                "CVN bits 3-2: Mastercard proprietary SKD session key",
                "CVN bit 1: counters not included in AC data",
                "bytes 3-8: Card Verification Results A00003020000",
                "CVR byte 1 bits 8-7 = 10: AC returned in second GENERATE AC: not requested",
                "CVR byte 1 bits 6-5 = 10: AC returned in first GENERATE AC: ARQC",
                "CVR byte 3 bits 8-5 = 0000: Script Counter (right nibble): 0",
                "CVR byte 3 bits 4-1 = 0011: PIN Try Counter (right nibble): 3",
                "CVR byte 4 bit 2: Domestic Transaction",
                "bytes 9-10: DAC / ICC Dynamic Number 0000",
                "bytes 11-18: Counters 00000000000000FF",
            ])
        // Neither layout: not explained.
        #expect(Explainer.explain(TLV(Tag(0x9F10), [0x01, 0x02, 0x03]), context: .payment) == nil)
    }

    // MARK: uCube codes

    /// Spec §7.5: "0x3036" = receipt, approved; 0x31 in byte 1 is receipt with signature, 0x3E online request.
    @Test func nfcOutcome() throws {
        #expect(try Self.lines(0xDF72, "3036") == ["byte 1 30: CVM / receipt: receipt", "byte 2 36: result: approved"])
        #expect(
            try Self.lines(0xDF72, "313E") == [
                "byte 1 31: CVM / receipt: receipt-with-signature", "byte 2 3E: result: online-request",
            ])
        #expect(try Self.lines(0xDF72, "9999") == ["byte 1 99: CVM / receipt: unknown", "byte 2 99: result: unknown"])
    }

    // MARK: Amounts, dates, codes

    /// EMV Book 3 Annex A: 9F02 is n 12 in minor units; ISO 4217 gives EUR 2 decimals, JPY 0.
    @Test func amountsWithTheirCurrency() throws {
        let eur = TLV(Tag(0x5F2A), [0x09, 0x78])
        let jpy = TLV(Tag(0x5F2A), [0x03, 0x92])
        #expect(
            try Self.lines(0x9F02, "000000001250", siblings: [eur]) == [
                "12.50 EUR (Euro; 1250 minor units, 2 decimals)"
            ])
        #expect(
            try Self.lines(0x9F02, "000000001250", siblings: [jpy]) == ["1250 JPY (Yen; 1250 minor units, 0 decimals)"])
        #expect(
            try Self.lines(0x9F03, "000000000100") == [
                "100 minor units; no currency (5F2A) alongside, so the decimals are unknown"
            ])
        // 81, Amount Authorised (Binary): 0x04E2 = 1250.
        #expect(try Self.lines(0x81, "000004E2", siblings: [eur]) == ["12.50 EUR (Euro; 1250 minor units, 2 decimals)"])
    }

    /// EMV Book 3 Annex A: dates are YYMMDD; 2024 is a leap year, 2023 is not.
    @Test func dates() throws {
        #expect(try Self.lines(0x9A, "251231") == ["31 December 2025"])
        #expect(try Self.lines(0x9A, "240229") == ["29 February 2024"])
        #expect(try Self.lines(0x5F25, "990101") == ["1 January 1999"])
        #expect(try Self.lines(0x9A, "230229") == ["day 29 is not a day of February 2023"])
        #expect(try Self.lines(0x9A, "251301") == ["month 13 is not a month"])
        // The expiry date (5F24) is cardholder data: never explained.
        #expect(Explainer.explain(TLV(Tag(0x5F24), [0x25, 0x12, 0x31]), context: .payment) == nil)
    }

    /// ISO 3166-1: 250 France, 840 United States; 5F55 alpha-2.
    @Test func countryCodes() throws {
        #expect(try Self.lines(0x9F1A, "0250") == ["250: France (FR, FRA)"])
        #expect(try Self.lines(0x5F28, "0840") == ["840: United States (US, USA)"])
        #expect(try Self.lines(0x5F55, Hex.encode(Array("FR".utf8))) == ["FR: France (numeric 250)"])
        #expect(try Self.lines(0x9F1A, "0999") == ["999: not in ISO 3166-1"])
        #expect(try Self.source(0x9F1A, "0250").hasPrefix("ISO 3166-1"))
    }

    /// ISO 4217: 978 Euro, 392 Yen.
    @Test func currencyCodes() throws {
        #expect(try Self.lines(0x5F2A, "0978") == ["978: Euro (EUR), 2 decimals"])
        #expect(try Self.lines(0x9F42, "0392") == ["392: Yen (JPY), 0 decimals"])
        #expect(try Self.lines(0x5F2A, "0001") == ["001: not in ISO 4217"])
    }

    /// ISO 639-1: 5F2D lists the cardholder's languages in order of preference.
    @Test func languageCodes() throws {
        #expect(try Self.lines(0x5F2D, Hex.encode(Array("fren".utf8))) == ["1. fr: French", "2. en: English"])
        #expect(try Self.lines(0x5F2D, "0102") == ["not two-letter language codes"])
    }

    // MARK: Where explanations show

    /// `describe(explain:)` puts the lines under the object, one level deeper, inside templates too; without
    /// `explain` the tree is as before.
    @Test func describeShowsExplanationsBelowTheValue() throws {
        let nodes = try TLVParser.parse(try Hex.decode("77 08 9F27 01 80 95 02 00 00"), rules: .terminal)
        let plain = TagValueFormatter.describe(nodes, context: .payment)
        let explained = TagValueFormatter.describe(nodes, context: .payment, explain: true)
        #expect(plain.count == 3)
        #expect(explained[0] == plain[0])
        #expect(explained[1] == plain[1])
        #expect(explained[2] == "    byte 1 bits 8-7 = 10: cryptogram type: ARQC (Authorisation Request Cryptogram)")
        #expect(explained[3] == plain[2])
        #expect(explained[4] == "    2 bytes: Terminal Verification Results has 5; not explained")
        let fields = Explainer.fields(nodes, context: .payment)
        #expect(fields.map(\.tag) == ["9F27", "95"])
        #expect(fields[0].name == "cryptogramInformationData")
        #expect(fields[0].value == "80")
        #expect(fields[0].source == "EMV 4.4 Book 3 §6.5.5.4 Table 15")
    }

    /// Any value of any explained tag, of any length, is explained (or said not to be) without trapping.
    @Test func arbitraryValuesNeverTrap() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for tag in Explainer.explainedTags {
            for length in 0...40 {
                for _ in 0..<20 {
                    let value = (0..<length).map { _ in next() }
                    let explanation = Explainer.explain(TLV(tag, value), context: .payment)
                    if tag.rawValue != 0x9F10 {
                        #expect(explanation?.lines.isEmpty == false, "\(tag) \(Hex.encode(value))")
                    }
                }
            }
        }
    }

    /// Only the payment context is EMV: GetInfo's tags mean other things.
    @Test func getInfoTagsAreNotExplained() {
        #expect(Explainer.explain(TLV(Tag(0x95), [0x80, 0, 0, 0, 0]), context: .getInfo) == nil)
    }

    /// Every explained tag is in the dictionary, not sensitive, and each bit table declares each bit at most once.
    @Test func tablesAreWellFormed() {
        for tag in Explainer.explainedTags {
            let info = TagDictionary.info(for: tag, context: .payment)
            #expect(info != nil, "\(tag) is not in the tag dictionary")
            #expect(info?.isSensitive != true, "\(tag)")
        }
        let tables = [
            EMVBitTables.tvr, EMVBitTables.tsi, EMVBitTables.aip, EMVBitTables.auc, EMVBitTables.cid,
            EMVBitTables.terminalCapabilities, EMVBitTables.additionalTerminalCapabilities, EMVBitTables.ttq,
            EMVBitTables.ctq, EMVBitTables.terminalRiskManagementData, IssuerApplicationData.visaCVR,
            IssuerApplicationData.mastercardCVR,
        ]
        for table in tables {
            #expect(!table.source.isEmpty)
            for byte in table.firstByte..<(table.firstByte + table.length) {
                var seen: UInt8 = 0
                for bit in table.bits where bit.byte == byte {
                    #expect(seen & bit.mask == 0, "\(table.name) byte \(byte) bit \(bit.bit) twice")
                    seen |= bit.mask
                }
                for field in table.fields where field.byte == byte {
                    #expect(seen & field.mask == 0, "\(table.name) byte \(byte) field \(field.name) overlaps")
                    seen |= field.mask
                }
            }
        }
    }
}
