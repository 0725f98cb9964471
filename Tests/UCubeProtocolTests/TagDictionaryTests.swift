import Testing

@testable import UCubeProtocol

@Suite("Tag dictionary")
struct TagDictionaryTests {
    // MARK: Table contents

    /// Official names from EMV Book 3 v4.3 Annex A1 ("Data Elements Dictionary").
    @Test(
        arguments: [
            (0x42, "Issuer Identification Number (IIN)"),
            (0x57, "Track 2 Equivalent Data"),
            (0x5A, "Application Primary Account Number (PAN)"),
            (0x5F2A, "Transaction Currency Code"),
            (0x5F34, "Application Primary Account Number (PAN) Sequence Number"),
            (0x84, "Dedicated File (DF) Name"),
            (0x8C, "Card Risk Management Data Object List 1 (CDOL1)"),
            (0x95, "Terminal Verification Results"),
            (0x9F02, "Amount, Authorised (Numeric)"),
            (0x9F1E, "Interface Device (IFD) Serial Number"),
            (0x9F26, "Application Cryptogram"),
            (0x9F27, "Cryptogram Information Data"),
            (0x9F36, "Application Transaction Counter (ATC)"),
            (0x9F39, "Point-of-Service (POS) Entry Mode"),
            (0x9F4E, "Merchant Name and Location"),
            (0xBF0C, "File Control Information (FCI) Issuer Discretionary Data"),
        ] as [(UInt32, String)]
    )
    func officialEMVNames(tag: UInt32, title: String) throws {
        let info = try #require(TagDictionary.info(for: Tag(tag), context: .payment))
        #expect(info.title == title)
        #expect(info.source.hasPrefix("EMV Book 3"))
    }

    /// Every EMV tag the payment commands exchange (EMV Book 3 Annex A1 and the contactless kernel books).
    @Test func everyCommonEMVTagIsPresent() {
        let tags: [UInt32] = [
            0x42, 0x4F, 0x50, 0x56, 0x57, 0x5A, 0x5F20, 0x5F24, 0x5F25, 0x5F28, 0x5F2A, 0x5F2D, 0x5F30, 0x5F34, 0x5F36,
            0x61, 0x6F, 0x70, 0x71, 0x72, 0x73, 0x77, 0x80, 0x81, 0x82, 0x83, 0x84, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8C,
            0x8D, 0x8E, 0x8F, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9F01,
            0x9F02, 0x9F03, 0x9F06, 0x9F07, 0x9F08, 0x9F09, 0x9F0B, 0x9F0D, 0x9F0E, 0x9F0F, 0x9F10, 0x9F11, 0x9F12,
            0x9F13, 0x9F14, 0x9F15, 0x9F16, 0x9F17, 0x9F1A, 0x9F1B, 0x9F1C, 0x9F1D, 0x9F1E, 0x9F1F, 0x9F20, 0x9F21,
            0x9F22, 0x9F23, 0x9F26, 0x9F27, 0x9F2D, 0x9F2E, 0x9F2F, 0x9F32, 0x9F33, 0x9F34, 0x9F35, 0x9F36, 0x9F37,
            0x9F38, 0x9F39, 0x9F3A, 0x9F3B, 0x9F3C, 0x9F3D, 0x9F40, 0x9F41, 0x9F42, 0x9F43, 0x9F44, 0x9F45, 0x9F46,
            0x9F47, 0x9F48, 0x9F49, 0x9F4A, 0x9F4B, 0x9F4C, 0x9F4D, 0x9F4E, 0xA5, 0xBF0C, 0x9F53, 0x9F6B, 0x9F6C,
            0x9F66, 0x9F7C, 0x9F6E,
        ]
        let missing = tags.filter { TagDictionary.info(for: Tag($0), context: .payment) == nil }
        #expect(missing.isEmpty, "missing: \(missing.map { Tag($0).description })")
    }

    /// Proprietary payment tags of spec §4, §5.2 and §7.3–§7.8, each citing the spec.
    @Test func everyProprietaryPaymentTagIsPresent() {
        let tags: [UInt32] = [
            0xC1, 0xC2, 0xC3, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xDF04, 0xDF05, 0xDF0D, 0xDF0E, 0xDF0F, 0xDF12, 0xDF13,
            0xDF14, 0xDF15, 0xDF16, 0xDF22, 0xDF2D, 0xDF30, 0xDF31, 0xDF32, 0xDF33, 0xDF34, 0xDF35, 0xDF36, 0xDF37,
            0xDF3E, 0xDF3F, 0xDF42, 0xDF50, 0xDF52, 0xDF5A, 0xDF60, 0xDF61, 0xDF62, 0xDF70, 0xDF71, 0xDF72, 0xDF73,
            0xDF76, 0xDF7F, 0xDFC302, 0xDF8129,
        ]
        for raw in tags {
            let info = TagDictionary.info(for: Tag(raw), context: .payment)
            #expect(info?.source.hasPrefix("spec §") == true, "\(Tag(raw)): \(String(describing: info))")
        }
    }

    /// Every tag of spec §7.1, the E8 nested tags, and the PROJECT CHOICE locale tags F6/F7 (spec §5.2).
    @Test func everyGetInfoTagIsPresent() {
        let getInfo: [UInt32] = [
            0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xCB, 0xCC, 0xCD, 0xCF, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8,
            0xD9, 0xDA, 0xDB, 0xE7, 0xE8, 0xE9, 0xEA, 0xEB, 0xEC, 0xED, 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xF0,
            0xF1, 0xF3, 0xF4, 0xF5, 0xFB, 0xFC, 0xFD, 0xF6, 0xF7,
        ]
        let missing = getInfo.filter { TagDictionary.info(for: Tag($0), context: .getInfo) == nil }
        #expect(missing.isEmpty, "missing: \(missing.map { Tag($0).description })")
        let nested: [UInt32] = [0xD1, 0xA0, 0xA2, 0xC4]
        #expect(nested.allSatisfy { TagDictionary.info(for: Tag($0), context: .nfcInfo) != nil })
        #expect(TagDictionary.info(for: Tag(0xC3), context: .getInfo)?.name == "terminalSerialNumber")
        #expect(TagDictionary.info(for: Tag(0xD1), context: .nfcInfo)?.name == "nfcFirmwareVersion")
        #expect(TagDictionary.context(inside: Tag(0xE8), of: .getInfo) == .nfcInfo)
        #expect(TagDictionary.context(inside: Tag(0x70), of: .payment) == .payment)
    }

    @Test func namesAreUniqueIdentifiersAcrossTheWholeTable() {
        var seen: [String: TagInfo] = [:]
        for info in TagDictionary.all {
            let key = info.name.lowercased()
            #expect(seen[key] == nil, "\(info.name) used by \(info.tag) and \(seen[key]!.tag)")
            seen[key] = info
            let scalars = Array(info.name.unicodeScalars)
            #expect(scalars.first.map { ("a"..."z").contains($0) } == true, "\(info.name)")
            #expect(scalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) })
        }
    }

    @Test func tagAndContextIdentifyOneRow() {
        var seen = Set<String>()
        for info in TagDictionary.all {
            #expect(seen.insert("\(info.context) \(info.tag)").inserted, "\(info.tag) twice in \(info.context)")
        }
    }

    @Test func lookupByNameIgnoresCase() {
        #expect(TagDictionary.entry(named: "amountAuthorised")?.tag == Tag(0x9F02))
        #expect(TagDictionary.entry(named: "AMOUNTAUTHORISED")?.tag == Tag(0x9F02))
        #expect(TagDictionary.entry(named: "terminalserialnumber")?.context == .getInfo)
        #expect(TagDictionary.entry(named: "noSuchTag") == nil)
        #expect(Tag("cryptogramInformationData") == Tag(0x9F27))
        #expect(
            TagDictionary.entries(for: Tag(0xC1)).map(\.context).sorted { $0.rawValue < $1.rawValue } == [
                .getInfo, .payment,
            ]
        )
    }

    /// Cardholder data (PCI DSS) and the SRED tags of spec §5.2 are sensitive; ciphertext (DF3F) is not.
    @Test func sensitivity() {
        let sensitive: [UInt32] = [
            0x56, 0x57, 0x5A, 0x5F20, 0x5F24, 0x5F30, 0x99, 0x9F0B, 0x9F1F, 0x9F20, 0x9F6B, 0xDF5A, 0xDF62,
        ]
        for raw in sensitive {
            #expect(TagDictionary.info(for: Tag(raw), context: .payment)?.isSensitive == true, "\(Tag(raw))")
        }
        for raw: UInt32 in [0x9F02, 0x9F27, 0xDF3E, 0xDF3F, 0xDF61, 0x84] {
            #expect(TagDictionary.info(for: Tag(raw), context: .payment)?.isSensitive == false, "\(Tag(raw))")
        }
        #expect(TagDictionary.all.filter { $0.context != .payment }.allSatisfy { !$0.isSensitive })
    }

    // MARK: Rendering

    private func tlv(_ tag: UInt32, _ hex: String) -> TLV {
        do {
            return TLV(Tag(tag), try Hex.decode(hex))
        } catch {
            Issue.record("bad test vector \(hex): \(error)")
            return TLV(Tag(tag), [])
        }
    }

    private func render(_ tag: UInt32, _ hex: String, _ context: TagContext = .payment) -> String {
        TagValueFormatter.render(tlv(tag, hex), context: context)
    }

    /// Spec §2.6: the GetInfo response data `C4 01 03 D1 04 06 00 00 37`.
    @Test func specGetInfoResponse() throws {
        let nodes = try TLVParser.parse(Hex.decode("C4 01 03 D1 04 06 00 00 37"))
        #expect(TagValueFormatter.render(nodes[0], context: .getInfo) == "SECURED")
        #expect(TagValueFormatter.render(nodes[1], context: .getInfo) == "6.0.0.55")
        #expect(
            TagValueFormatter.describe(nodes, context: .getInfo) == [
                "C4 terminalState: SECURED",
                "D1 svppFirmwareVersion: 6.0.0.55",
            ]
        )
    }

    /// Spec §4: versions print bytes 128…255 as positive numbers.
    @Test func versionBytesAreUnsigned() {
        #expect(render(0xD1, "80FF0001", .getInfo) == "128.255.0.1")
        #expect(render(0xA0, "0102030405", .nfcInfo) == "1.2.3.4")  // "> 4 bytes, first 4 used" (spec §7.1 E8)
        #expect(render(0xD1, "0102", .getInfo) == "0102")
    }

    /// Spec §4: C3 is a 5-byte big-endian integer divided by 4; C2 loses its spaces.
    @Test func serialAndPartNumber() {
        // 0x72FA646853 = 493 827 156 051 = 4 × 123 456 789 012 + 3.
        #expect(render(0xC3, "72FA646853", .getInfo) == "123456789012")
        #expect(render(0xC3, "0000000064", .getInfo) == "25")
        #expect(render(0xC2, Hex.encode(Array("UCUBE TOUCH 01 ".utf8)), .getInfo) == "UCUBETOUCH01")
    }

    /// Spec §12.2: the PROJECT CHOICE simulator value of tag CD.
    @Test func ksnFormats() {
        let value =
            "00 00 28 FFFF987654 01 50 FFFF9876543210E00000 03 15 000000 FF "
            + "01 00 28 FFFF987654 01 50 FFFF9876543210E00000 03 15 000000 FF"
        #expect(
            render(0xCD, value, .getInfo)
                == "key 0 (PIN): KSI FFFF987654, KSN FFFF9876543210E00000, TSC 21 bits; "
                + "key 1 (data): KSI FFFF987654, KSN FFFF9876543210E00000, TSC 21 bits"
        )
        #expect(render(0xCD, "00 00 28 FFFF98", .getInfo) == "000028FFFF98")  // truncated: shown as hex
    }

    /// Spec §7.5: "0x3036" = receipt, approved.
    @Test func nfcOutcome() {
        #expect(render(0xDF72, "3036") == "30 36: receipt, approved")
        #expect(render(0xDF72, "313E") == "31 3E: receipt-with-signature, online-request")
        #expect(render(0xDF72, "3340") == "33 40: unknown CVM 33, unknown result 40")
    }

    /// Spec §7.6: 0x80 ARQC, 0x40 TC, 0x00 AAC.
    @Test func cryptogramInformationData() throws {
        #expect(render(0x9F27, "80") == "80 (ARQC)")
        #expect(render(0x9F27, "40") == "40 (TC)")
        #expect(render(0x9F27, "00") == "00 (AAC)")
        #expect(render(0x9F27, "C0") == "C0 (RFU)")
        let nodes = try TLVParser.parse(Hex.decode("9F27 01 80"))
        #expect(TagValueFormatter.describe(nodes, context: .payment) == ["9F27 cryptogramInformationData: 80 (ARQC)"])
    }

    @Test func getInfoValues() {
        #expect(render(0xC5, "55", .getInfo) == "85%")
        #expect(render(0xC6, "3C", .getInfo) == "60 s")
        #expect(render(0xFB, "01", .getInfo) == "01 (charging)")
        #expect(render(0xFC, "00", .getInfo) == "00 (slow)")
        #expect(render(0xED, "03", .getInfo) == "03 (ready)")
        #expect(render(0xF6, Hex.encode(Array("en\0fr\0".utf8)), .getInfo) == "en, fr")
        #expect(render(0xF7, Hex.encode(Array("en".utf8)), .getInfo) == "en")
        #expect(render(0xDB, "00550911E31DB7", .getInfo) == "00550911E31DB7 (LEGACY KEY)")
        #expect(render(0xDB, "BEA704B46856", .getInfo) == "BEA704B46856 (DEV KEY)")
        #expect(render(0xC4, "07", .getInfo) == "07")
    }

    @Test func paymentValues() {
        #expect(render(0x9F02, "000000001250") == "1250")
        #expect(render(0x9F02, "0000000012") == "0000000012")  // not 6 bytes: hex
        #expect(render(0x5F2A, "0978") == "978 (EUR)")
        #expect(render(0x5F2A, "0392") == "392 (JPY)")
        #expect(render(0x9A, "250131") == "2025-01-31")
        #expect(render(0x9F21, "143005") == "14:30:05")
        #expect(render(0x9C, "09") == "09 (purchase-cashback)")
        #expect(render(0xDF70, "1121") == "11 (ICC), 21 (NFC)")
        #expect(render(0x8A, "3030") == "\"00\" (approved)")
        #expect(render(0x8A, "3931") == "\"91\" (unable to go online)")
        #expect(render(0xDF2D, Hex.encode(Array("fren".utf8))) == "fr (French), en (English)")
        #expect(render(0x50, Hex.encode(Array("VISA CREDIT".utf8))) == "VISA CREDIT")
        #expect(render(0x50, "00FF") == "00FF")  // not printable: hex
        #expect(render(0xDF50, "01") == "yes")
        #expect(render(0xDF34, "003C") == "60 s")
        #expect(render(0xDF12, "00002710") == "10000")
        #expect(
            render(0xC1, "9F2795DFC302")
                == "9F27 cryptogramInformationData, 95 terminalVerificationResults, DFC302 finalisationTagDFC302"
        )
        #expect(render(0x9F38, "9F02069A03") == "9F02 amountAuthorised (6), 9A transactionDate (3)")
        #expect(render(0xDF99, "0102") == "0102")
    }

    /// An amount next to its currency code is also shown in major units.
    @Test func describeAppliesTheCurrencyExponent() throws {
        let nodes = try TLVParser.parse(Hex.decode("5F2A 02 0978 9F02 06 000000001250"))
        #expect(
            TagValueFormatter.describe(nodes, context: .payment) == [
                "5F2A transactionCurrencyCode: 978 (EUR)",
                "9F02 amountAuthorised: 1250 (12.50 EUR)",
            ]
        )
    }

    /// Sensitive values never render in clear: PANs masked first 6 / last 4, the rest hidden.
    @Test func sensitiveValuesAreMasked() throws {
        #expect(render(0x5A, "4761739001010010") == "476173******0010")
        #expect(render(0x5A, "4012345678909F") == "401234***8909")
        #expect(render(0x57, "4761739001010010D25122011234567890") == "476173******0010=****")
        #expect(render(0x9F6B, "4761739001010010D2512201") == "476173******0010=****")
        #expect(render(0x56, Hex.encode(Array("B4761739001010010^DOE/JOHN^2512201".utf8))) == "B476173******0010^****")
        #expect(render(0x5F20, Hex.encode(Array("DOE/JOHN".utf8))) == "<8 bytes hidden>")
        #expect(render(0x5F24, "251231") == "<3 bytes hidden>")
        #expect(render(0xDF62, "0011223344") == "<5 bytes hidden>")
        #expect(render(0x99, "1234") == "<2 bytes hidden>")
        #expect(render(0xDF3F, "1B9C1845EB993A7A") == "1B9C1845EB993A7A")  // ciphertext may be shown
    }

    /// A READ RECORD template with a PAN, track 2 and a name: the tree shows every child and leaks none of them.
    @Test func describeTemplateMasksChildren() throws {
        let record = try TLVParser.parse(
            Hex.decode(
                "70 25 5A 08 4761739001010010 57 0E 4761739001010010D2512201123F 5F20 08"
                    + Hex.encode(Array("DOE/JOHN".utf8))
            )
        )
        let lines = TagValueFormatter.describe(record, context: .payment)
        #expect(
            lines == [
                "70 readRecordResponseMessageTemplate:",
                "  5A applicationPAN: 476173******0010",
                "  57 track2EquivalentData: 476173******0010=****",
                "  5F20 cardholderName: <8 bytes hidden>",
            ]
        )
        #expect(!lines.contains { Masking.containsUnmaskedPAN($0) })
        #expect(!lines.joined().contains("DOE"))
        // Rendered on one line the template shows its tags, not its bytes.
        #expect(TagValueFormatter.render(record[0], context: .payment) == "3 objects: 5A 57 5F20")
    }

    /// Even an unknown tag carrying a BCD PAN does not print it in clear.
    @Test func unknownTagWithPANIsRedacted() {
        #expect(render(0xDF99, "4761739001010010") == "476173******0010")
    }

    /// GetInfo E8 nests NFC-module tags whose numbers mean something else at the top level (spec §7.1).
    @Test func describeNFCInfos() throws {
        let nodes = try TLVParser.parse(Hex.decode("E8 09 D1 04 01 02 03 04 C4 01 01 D1 04 06 00 00 37"))
        #expect(
            TagValueFormatter.describe(nodes, context: .getInfo) == [
                "E8 nfcInfos:",
                "  D1 nfcFirmwareVersion: 1.2.3.4",
                "  C4 nfcFirmwareState: 01",
                "D1 svppFirmwareVersion: 6.0.0.55",
            ]
        )
        #expect(
            TagValueFormatter.describe([tlv(0xDF99, "01")], context: .payment, indent: 2) == ["    DF99 (unknown): 01"]
        )
    }
}
