import Testing

@testable import UCubeProtocol

private typealias T = CommandTestSupport
/// The protocol's BER tag, not Swift Testing's `Tag`.
private typealias Tag = UCubeProtocol.Tag

/// InstallForLoadKey, InstallForLoad, Load, SimplifiedOnlinePIN and BuildCandidateList. Expected bytes are built by
/// hand from the spec §5.2 tables unless a comment names another source.
@Suite struct CommandTestsDownloadPIN {
    // MARK: InstallForLoadKey

    @Test func installForLoadKeyResponse() throws {
        let data = T.bytes("00 03 01 02 03 00 02 04 05")
        let response = try InstallForLoadKey.Response(status: .success, data: data)
        #expect(response.caCertificate == T.bytes("01 02 03"))
        #expect(response.kekCertificate == T.bytes("04 05"))
        #expect(response.raw == data)
        #expect(
            try InstallForLoadKey.Response(caCertificate: T.bytes("01 02 03"), kekCertificate: T.bytes("04 05"))
                == response
        )
        #expect(try T.roundTrip(response) == response)
        T.expectEveryPrefixFails(InstallForLoadKey.Response.self, data)
    }

    @Test func installForLoadKeyKeepsTrailingBytesInRaw() throws {
        // Newer firmware appends initial KSNs (layout not in sources); the dongle certificate is the whole data.
        let data = T.bytes("00 01 AA 00 01 BB FF FF 98 76 54 32 10 E0 00 00")
        let response = try InstallForLoadKey.Response(status: .success, data: data)
        #expect(response.kekCertificate == [0xBB])
        #expect(response.encodeData() == data)
        let built = try InstallForLoadKey.Response(
            caCertificate: [0xAA],
            kekCertificate: [0xBB],
            trailing: T.bytes("FF FF 98 76 54 32 10 E0 00 00")
        )
        #expect(built == response)
        #expect(
            T.errorCode {
                _ = try InstallForLoadKey.Response(
                    caCertificate: [UInt8](repeating: 0, count: 70_000),
                    kekCertificate: []
                )
            } == .invalidArgument
        )
    }

    // MARK: InstallForLoad (signature ‖ method ‖ length (2) ‖ parameter)

    @Test func installForLoadPlain() throws {
        let command = InstallForLoad(signature: T.bytes("AA BB CC DD"), method: .plain)
        #expect(try command.encodePayload() == T.bytes("AA BB CC DD 02 00 00"))
        #expect(try T.roundTrip(command) == command)
        let sred = InstallForLoad(signature: T.bytes("01 02"), method: .sred)
        #expect(try sred.encodePayload() == T.bytes("01 02 00 00 00"))
        #expect(try T.roundTrip(sred) == sred)
    }

    @Test func installForLoadDynamic() throws {
        let key = (0..<256).map { UInt8($0) }
        let command = InstallForLoad(signature: T.bytes("AA BB"), method: .dynamic, sessionKey: key)
        #expect(try command.encodePayload() == T.bytes("AA BB 01 01 00") + key)
        #expect(try T.roundTrip(command) == command)
    }

    @Test func installForLoadReadsTheNewerLayoutFromTheEnd() throws {
        // AR-sample:test.Tools (spec §5.2): 00 01 ‖ 256-byte signature ‖ 22-byte block ending in 02 00 00.
        let payload =
            T.bytes("00 01") + [UInt8](repeating: 0x5C, count: 256)
            + T.bytes("05 01 00 00 00 1E 03 15 01 00 00 BE 2D 00 00 BE 2D 00 00 02 00 00")
        #expect(payload.count == 280)
        let command = try InstallForLoad(payload: payload)
        #expect(command.method == .plain)
        #expect(command.signature == Array(payload.prefix(277)))
        #expect(command.sessionKey == nil)
    }

    @Test func installForLoadRefusals() {
        #expect(
            T.errorCode { _ = try InstallForLoad(signature: [], method: .plain).encodePayload() } == .invalidArgument
        )
        #expect(
            T.errorCode { _ = try InstallForLoad(signature: [1], method: .dynamic).encodePayload() } == .invalidArgument
        )
        #expect(
            T.errorCode { _ = try InstallForLoad(signature: [1], method: .dynamic, sessionKey: []).encodePayload() }
                == .invalidArgument
        )
        #expect(
            T.errorCode { _ = try InstallForLoad(signature: [1], method: .sred, sessionKey: [2]).encodePayload() }
                == .invalidArgument
        )
        #expect(
            T.errorCode {
                _ = try InstallForLoad(signature: [UInt8](repeating: 1, count: 2052), method: .plain).encodePayload()
            } == .tooLong
        )
        #expect(T.errorCode { _ = try InstallForLoad(payload: T.bytes("AA BB")) } == .truncated)
        #expect(T.errorCode { _ = try InstallForLoad(payload: T.bytes("02 00 00")) } == .malformed)
        #expect(T.errorCode { _ = try InstallForLoad(payload: T.bytes("AA 05 00 00")) } == .malformed)
        // DYNAMIC with a zero length, PLAIN with a parameter: neither agrees with its method.
        #expect(T.errorCode { _ = try InstallForLoad(payload: T.bytes("AA 01 00 00")) } == .malformed)
        #expect(T.errorCode { _ = try InstallForLoad(payload: T.bytes("AA 02 00 01 FF")) } == .malformed)
    }

    // MARK: Load (flag ‖ length (2) ‖ block)

    @Test func loadBytes() throws {
        let last = Load(isLast: true, block: T.bytes("01 02 03"))
        #expect(try last.encodePayload() == T.bytes("01 00 03 01 02 03"))
        #expect(try T.roundTrip(last) == last)
        T.expectEveryPayloadPrefixFails(Load.self, try last.encodePayload())
        let full = Load(isLast: false, block: [UInt8](repeating: 0xEE, count: Load.maxBlockSize))
        #expect(try full.encodePayload().prefix(3) == [0x00, 0x07, 0xF8])
        #expect(try T.roundTrip(full) == full)
    }

    @Test func loadRefusals() {
        #expect(T.errorCode { _ = try Load(isLast: true, block: []).encodePayload() } == .invalidArgument)
        #expect(
            T.errorCode { _ = try Load(isLast: true, block: [UInt8](repeating: 0, count: 2041)).encodePayload() }
                == .invalidArgument
        )
        #expect(T.errorCode { _ = try Load(payload: T.bytes("02 00 01 AA")) } == .malformed)
        #expect(T.errorCode { _ = try Load(payload: T.bytes("01 00 01 AA BB")) } == .malformed)
        #expect(T.errorCode { _ = try Load(payload: T.bytes("01 00 00")) } == .malformed)
    }

    // MARK: SimplifiedOnlinePIN

    static let pinPayload = """
        06 31 32 2E 35 30 00  04 45 55 52 00  00
        00 06 50 49 4E 20 3F 00 00 00
        00 04 2E 2E 2E 00 00 00
        DF 30 01 04  DF 31 01 0C  DF 32 02 00 18  DF 33 02 00 18  DF 34 02 00 3C  DF 35 01 01  DF 36 01 06
        """

    @Test func simplifiedOnlinePINBytes() throws {
        // "12.50", "EUR", ISO 0, prompt "PIN ?" and wait text "..." at 0/0 font 0, then DF30…DF36 with the SDK
        // defaults 4, 12, 24, 24, 60, (1), 6.
        let command = SimplifiedOnlinePIN(amountText: "12.50", currencyLabel: "EUR")
        let payload = try command.encodePayload()
        #expect(payload == T.bytes(Self.pinPayload.replacingNewlines()))
        #expect(try T.roundTrip(command) == command)
        #expect(command.responseTimeout == .seconds(65))

        let custom = SimplifiedOnlinePIN(
            amountText: "0.99",
            currencyLabel: "GBP",
            pinBlockFormat: .iso4,
            prompt: DisplayLine(font: 1, text: "Code PIN", x: 0xFF, y: 10),
            waitText: DisplayLine(text: "Patientez"),
            minDigits: 4,
            maxDigits: 6,
            firstDigitTimeout: 30,
            interDigitTimeout: 10,
            globalTimeout: 45,
            correctionKeyMode: .eraseAll,
            digitsPerLine: 4
        )
        #expect(try T.roundTrip(custom) == custom)
        #expect(custom.responseTimeout == .seconds(50))
    }

    @Test func simplifiedOnlinePINUsesDefaultsForMissingTLVs() throws {
        let withoutTLVs = T.bytes(
            "06 31 32 2E 35 30 00 04 45 55 52 00 00 00 06 50 49 4E 20 3F 00 00 00 00 04 2E 2E 2E 00 00 00"
        )
        #expect(
            try SimplifiedOnlinePIN(payload: withoutTLVs)
                == SimplifiedOnlinePIN(amountText: "12.50", currencyLabel: "EUR")
        )
        #expect(
            T.errorCode { _ = try SimplifiedOnlinePIN(payload: withoutTLVs.replacing(at: 12, with: 0x02)) }
                == .malformed
        )
    }

    @Test(arguments: [
        (UInt64(123_450), UInt8(2), "1234.50"), (5, 2, "0.05"), (1234, 0, "1234.00"), (12_345, 3, "12.35"),
        (12_344, 3, "12.34"), (7, 1, "0.70"), (999_999_999_999, 2, "9999999999.99"), (0, 2, "0.00"),
    ])
    func amountTextHasTwoDecimalsAndNoGrouping(minorUnits: UInt64, exponent: UInt8, text: String) throws {
        #expect(try SimplifiedOnlinePIN.amountText(minorUnits: minorUnits, exponent: exponent) == text)
    }

    @Test func simplifiedOnlinePINRefusals() {
        func code(_ change: (inout SimplifiedOnlinePIN) -> Void) -> CommandError.Code? {
            var command = SimplifiedOnlinePIN(amountText: "12.50", currencyLabel: "EUR")
            change(&command)
            return T.errorCode { _ = try command.encodePayload() }
        }
        #expect(code { $0.minDigits = 3 } == .invalidArgument)
        #expect(code { $0.maxDigits = 13 } == .invalidArgument)
        #expect(
            code {
                $0.minDigits = 8
                $0.maxDigits = 6
            } == .invalidArgument
        )
        #expect(code { $0.globalTimeout = 0 } == .invalidArgument)
        #expect(code { $0.globalTimeout = 61 } == .invalidArgument)
        #expect(code { $0.amountText = "" } == .invalidArgument)
        #expect(code { $0.amountText = "12,50 €" } == .invalidArgument)
        #expect(code { $0.prompt.text = "PIN ✓" } == .invalidArgument)
        #expect(
            T.errorCode { _ = try SimplifiedOnlinePIN.amountText(minorUnits: 1_000_000_000_000, exponent: 2) }
                == .invalidArgument
        )
        #expect(T.errorCode { _ = try SimplifiedOnlinePIN.amountText(minorUnits: 1, exponent: 10) } == .invalidArgument)
    }

    @Test func simplifiedOnlinePINResponse() throws {
        // PROJECT CHOICE TLV DF3E (PIN KSN) DF3F (PIN block); values from the spec §12.3 X9.24 vectors.
        let data = T.bytes("DF 3E 0A FF FF 98 76 54 32 10 E0 00 01 DF 3F 08 1B 9C 18 45 EB 99 3A 7A")
        let response = try SimplifiedOnlinePIN.Response(status: .success, data: data)
        #expect(response.pinKSN == T.bytes("FFFF9876543210E00001"))
        #expect(response.pinBlock == T.bytes("1B9C1845EB993A7A"))
        #expect(response.encodeData() == data)
        #expect(try T.roundTrip(response) == response)
        T.expectEveryPrefixFails(SimplifiedOnlinePIN.Response.self, data)
        #expect(
            T.errorCode {
                _ = try SimplifiedOnlinePIN.Response(
                    status: .success,
                    data: T.bytes("DF 3F 08 1B 9C 18 45 EB 99 3A 7A")
                )
            } == .truncated,
            "not the TLV layout (no DF3E first): read as the current one, a KSN length of DF 3F = 57,151 bytes"
        )
    }

    @Test("SimplifiedOnlinePIN: the current dialect's LL LL KSN LL LL block, a 12-byte KSN kept whole (spec §5.2)")
    func simplifiedOnlinePINCurrentResponse() throws {
        // spec §5.2 0x5171 current dialect: 2-byte big-endian lengths, no tags (L35/L138 parseResponse).
        let data = T.bytes("00 0A FF FF 98 76 54 32 10 E0 00 01 00 08 1B 9C 18 45 EB 99 3A 7A")
        let response = try SimplifiedOnlinePIN.Response(status: .success, data: data)
        #expect(response.layout == .lengthPrefixed)
        #expect(response.pinKSN == T.bytes("FFFF9876543210E00001"))
        #expect(response.pinBlock == T.bytes("1B9C1845EB993A7A"))
        #expect(response.encodeData() == data)
        T.expectEveryPrefixFails(SimplifiedOnlinePIN.Response.self, data)
        let aes = T.bytes("00 0C 01 02 03 04 05 06 07 08 09 0A 0B 0C 00 10") + [UInt8](repeating: 0xA5, count: 16)
        let long = try SimplifiedOnlinePIN.Response(status: .success, data: aes)
        #expect(long.pinKSN.count == 12 && long.pinBlock.count == 16)
        #expect(T.errorCode { _ = try SimplifiedOnlinePIN.Response(status: .success, data: data + [0]) } == .malformed)
        #expect(
            T.errorCode {
                _ = try SimplifiedOnlinePIN.Response(
                    status: .success, data: T.bytes("00 00 00 08") + [1, 2, 3, 4, 5, 6, 7, 8])
            }
                == .malformed)
    }

    @Test("SimplifiedOnlinePIN: the current dialect's request carries 5F2A, 5F36, 9F02 and the key slot DF44")
    func simplifiedOnlinePINCurrentRequest() throws {
        let command = SimplifiedOnlinePIN(
            amountText: "10.00", currencyLabel: "EUR",
            amount: SimplifiedOnlinePIN.Amount(currencyCode: 978, exponent: 2, minorUnits: 1000, keySlot: 0x41))
        let payload = try command.encodePayload()
        // After DF36 01 06: 5F2A 02 09 78, 5F36 01 02, 9F02 06 00 00 00 00 10 00, DF44 01 41 (spec §5.2 0x5171).
        #expect(
            Hex.encode(payload).hasSuffix("DF360106" + "5F2A020978" + "5F360102" + "9F0206000000001000" + "DF440141"))
        let read = try SimplifiedOnlinePIN(payload: payload)
        #expect(read == command && read.isCurrentDialect)
        #expect(
            try !SimplifiedOnlinePIN(
                payload: try SimplifiedOnlinePIN(amountText: "1.00", currencyLabel: "EUR").encodePayload()
            ).isCurrentDialect)
    }

    // MARK: BuildCandidateList (64-byte legacy blocks)

    /// Label header `50 04` "VISA", priority 1, code table 1, selection options 0, not blocked.
    static let visaBlock =
        "84 07 A0 00 00 00 03 10 10" + zeros(9)
        + "50 04 56 49 53 41" + zeros(12)
        + "87 01 01  9F 11 01 01  DF 22 01 00  DF 04 01 00" + zeros(13)
    /// Label header `9F 12 0A` "MASTERCARD" (everything below shifted by one), priority 2, selection 0x40, blocked.
    static let mastercardBlock =
        "84 07 A0 00 00 00 04 10 10" + zeros(9)
        + "9F 12 0A 4D 41 53 54 45 52 43 41 52 44" + zeros(6)
        + "87 01 02  9F 11 01 01  DF 22 01 40  DF 04 01 01" + zeros(12)

    static func zeros(_ count: Int) -> String { String(repeating: " 00", count: count) + " " }

    @Test func buildCandidateListRequest() throws {
        #expect(try BuildCandidateList().encodePayload() == [])
        let command = BuildCandidateList(outputFormat: 0, maxApplications: 5)
        #expect(try command.encodePayload() == T.bytes("C2 02 00 00 C3 01 05"))
        #expect(try T.roundTrip(command) == command)
        #expect(try T.roundTrip(BuildCandidateList()) == BuildCandidateList())
    }

    /// spec §5.2 0x5510: what each SDK sends. libApp 3.5.13 `C2 02 00 01`; 1.3.8.19 adds `9C 01 tt`; the iOS
    /// constants' one-byte C2 reads the same; a C2 of another shape is refused.
    @Test func buildCandidateListRequestInEveryDialect() throws {
        #expect(try BuildCandidateList(payload: T.bytes("C2 02 00 01")) == BuildCandidateList(outputFormat: 1))
        let current = try BuildCandidateList(payload: T.bytes("C2 02 00 01 9C 01 00"))
        #expect(current == BuildCandidateList.currentSDK(transactionType: 0x00))
        #expect(
            try BuildCandidateList.currentSDK(transactionType: 0x00).encodePayload() == T.bytes("C2 02 00 01 9C 01 00"))
        #expect(try BuildCandidateList(payload: T.bytes("C2 01 01")).outputFormat == 1)
        #expect(T.errorCode { _ = try BuildCandidateList(payload: T.bytes("C2 02 01 01")) } == .malformed)
        #expect(T.errorCode { _ = try BuildCandidateList(payload: T.bytes("C2 03 00 00 01")) } == .malformed)
    }

    /// spec §5.2 0x5510, the full TLV layout: the example computed in docs/protocol.md (one Visa candidate, 37 bytes)
    /// decodes; two candidates keep their own AIDs and order (libApp 1.3.8.19's reading); a count that does not match
    /// the candidates, an item before the first 84 and a cut item are refused.
    @Test func buildCandidateListFullTLVResponse() throws {
        let visa = T.bytes(
            "C2 02 00 01 C3 01 01 84 07 A0 00 00 00 03 10 10 50 04 56 49 53 41 87 01 01 9F 11 01 01 DF 22 01 00 DF 04 01 00"
        )
        #expect(visa.count == 37)
        let one = try BuildCandidateList.Response(status: .success, data: visa)
        #expect(
            one.candidates == [
                CandidateApplication(
                    aid: T.bytes("A0000000031010"), label: "VISA", priority: 1, issuerCodeTableIndex: 1)
            ])
        #expect(one.encodeFullTLV() == visa)

        let two = BuildCandidateList.Response(candidates: [
            CandidateApplication(aid: T.bytes("A0000000041010"), label: "MASTERCARD", priority: 1),
            CandidateApplication(
                aid: T.bytes("A0000000043060"), label: "MAESTRO", priority: 2, blocked: true, usesPreferredName: true),
        ])
        let data = two.encodeFullTLV()
        #expect(Array(data.prefix(7)) == T.bytes("C2 02 00 01 C3 01 02"))
        #expect(try BuildCandidateList.Response(status: .success, data: data) == two)

        let wrongCount = T.bytes("C3 01 02 84 07 A0 00 00 00 03 10 10 50 04 56 49 53 41")
        #expect(T.errorCode { _ = try BuildCandidateList.Response(status: .success, data: wrongCount) } == .malformed)
        let labelFirst = T.bytes("C3 01 01 50 04 56 49 53 41 84 07 A0 00 00 00 03 10 10")
        #expect(T.errorCode { _ = try BuildCandidateList.Response(status: .success, data: labelFirst) } == .malformed)
        #expect(
            T.errorCode { _ = try BuildCandidateList.Response(status: .success, data: Array(visa.dropLast(1))) }
                == .malformed)
    }

    @Test func buildCandidateListResponseWithPreferredNameHeader() throws {
        let visa = T.bytes(Self.visaBlock)
        let mastercard = T.bytes(Self.mastercardBlock)
        #expect(visa.count == 64 && mastercard.count == 64)
        let data = [0x02] + visa + mastercard
        let response = try BuildCandidateList.Response(status: .success, data: data)
        #expect(
            response.candidates == [
                CandidateApplication(
                    aid: T.bytes("A0000000031010"),
                    label: "VISA",
                    priority: 1,
                    issuerCodeTableIndex: 1,
                    selectionOptions: 0,
                    blocked: false,
                    usesPreferredName: false
                ),
                CandidateApplication(
                    aid: T.bytes("A0000000041010"),
                    label: "MASTERCARD",
                    priority: 2,
                    issuerCodeTableIndex: 1,
                    selectionOptions: 0x40,
                    blocked: true,
                    usesPreferredName: true
                ),
            ]
        )
        #expect(response.encodeData() == data)
        #expect(try T.roundTrip(response) == response)
        T.expectEveryPrefixFails(BuildCandidateList.Response.self, data)
    }

    @Test func buildCandidateListSkipsBlocksWithoutThe84Marker() throws {
        let data = [0x02] + [UInt8](repeating: 0, count: 64) + T.bytes(Self.visaBlock)
        let response = try BuildCandidateList.Response(status: .success, data: data)
        #expect(response.candidates.map(\.label) == ["VISA"])
        #expect(try BuildCandidateList.Response(status: .success, data: [0x00]).candidates.isEmpty)
    }

    @Test func buildCandidateListRejectsBadBlocks() {
        var badHeader = T.bytes(Self.visaBlock)
        badHeader[18] = 0x51
        #expect(
            T.errorCode { _ = try BuildCandidateList.Response(status: .success, data: [0x01] + badHeader) }
                == .malformed
        )
        var longAID = T.bytes(Self.visaBlock)
        longAID[1] = 17
        #expect(
            T.errorCode { _ = try BuildCandidateList.Response(status: .success, data: [0x01] + longAID) } == .malformed
        )
    }

    @Test func candidateFieldsAreCutToTheirWidths() throws {
        let app = CandidateApplication(
            aid: [UInt8](repeating: 0xA0, count: 20),
            label: "A VERY LONG APPLICATION LABEL",
            priority: 0x1F,
            issuerCodeTableIndex: 0x12,
            selectionOptions: 0x4F
        )
        let back = try T.roundTrip(BuildCandidateList.Response(candidates: [app])).candidates
        #expect(
            back == [
                CandidateApplication(
                    aid: [UInt8](repeating: 0xA0, count: 16),
                    label: "A VERY LONG APPL",
                    priority: 0x0F,
                    issuerCodeTableIndex: 0x02,
                    selectionOptions: 0x40
                )
            ]
        )
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        String(map { $0 == "\n" ? " " : $0 })
    }
}

extension Array where Element == UInt8 {
    fileprivate func replacing(at index: Int, with byte: UInt8) -> [UInt8] {
        var copy = self
        copy[index] = byte
        return copy
    }
}
