import Testing

@testable import UCubeProtocol

private typealias T = CommandTestSupport
/// The protocol's BER tag, not Swift Testing's `Tag`.
private typealias Tag = UCubeProtocol.Tag

/// WaitCard, WaitCardRemoval, GetPlainTag/GetSecuredTag, DisplayMessage and DisplayListBox.
@Suite struct CommandTestsCardDisplay {
    // MARK: WaitCard (spec §5.2)

    @Test func waitCardBytes() throws {
        let command = WaitCard(readers: [.icc, .nfc], timeoutSeconds: 30)
        #expect(try command.encodePayload() == T.bytes("11 21 1E"))
        #expect(try T.roundTrip(command) == command)
        #expect(command.responseTimeout == .seconds(35))
        #expect(try WaitCard(payload: T.bytes("41 00")) == WaitCard(readers: [.msr], timeoutSeconds: 0))
    }

    @Test func waitCardRefusals() throws {
        #expect(T.errorCode { _ = try WaitCard(readers: [], timeoutSeconds: 30).encodePayload() } == .invalidArgument)
        #expect(
            T.errorCode { _ = try WaitCard(readers: [.icc, .icc], timeoutSeconds: 30).encodePayload() }
                == .invalidArgument
        )
        #expect(T.errorCode { _ = try WaitCard(payload: []) } == .truncated)
        #expect(T.errorCode { _ = try WaitCard(payload: [0x1E]) } == .truncated)
        #expect(T.errorCode { _ = try WaitCard(payload: T.bytes("12 1E")) } == .malformed)
        #expect(T.errorCode { _ = try CommandArguments.timeoutSeconds(256) } == .invalidArgument)
        #expect(T.errorCode { _ = try CommandArguments.timeoutSeconds(-1) } == .invalidArgument)
        #expect(try CommandArguments.timeoutSeconds(255) == 255)
    }

    @Test func waitCardResponseICC() throws {
        // Byte 0 reader, ICC status, ATR length, ATR (spec §5.2).
        let data = T.bytes("11 00 03 3B 02 14")
        let response = try WaitCard.Response(status: .success, data: data)
        #expect(response == WaitCard.Response(reader: .icc, iccStatus: 0, atr: T.bytes("3B 02 14")))
        #expect(response.encodeData() == data)
        #expect(try T.roundTrip(response) == response)
        T.expectEveryPrefixFails(WaitCard.Response.self, data)
    }

    @Test func waitCardResponseNFCAndMSR() throws {
        let nfc = try WaitCard.Response(status: .success, data: [0x21])
        #expect(nfc == WaitCard.Response(reader: .nfc))
        #expect(nfc.encodeData() == [0x21])
        #expect(try WaitCard.Response(status: .success, data: [0x41, 0xFF]).reader == .msr)
        #expect(T.errorCode { _ = try WaitCard.Response(status: .success, data: [0x99]) } == .malformed)
    }

    // MARK: WaitCardRemoval (spec §5.2 "11 tt", default 30)

    @Test func waitCardRemovalBytes() throws {
        let command = WaitCardRemoval()
        #expect(try command.encodePayload() == T.bytes("11 1E"))
        #expect(try T.roundTrip(WaitCardRemoval(timeoutSeconds: 255)) == WaitCardRemoval(timeoutSeconds: 255))
        #expect(command.responseTimeout == .seconds(35))
        T.expectEveryPayloadPrefixFails(WaitCardRemoval.self, try command.encodePayload())
        #expect(T.errorCode { _ = try WaitCardRemoval(payload: T.bytes("21 1E")) } == .malformed)
        #expect(T.errorCode { _ = try WaitCardRemoval(payload: T.bytes("11 1E 00")) } == .malformed)
    }

    // MARK: Tag lists (spec §4, §5.2)

    @Test func getPlainTagSecuredFrameFixture() throws {
        // Spec §2.6: secured GetPlainTag, SEQ 1, payload DF60 9F27, crypto 0x7F, zero MAC.
        let command = GetPlainTag(tags: [Tag(0xDF60), Tag(0x9F27)])
        let payload = try command.encodePayload()
        #expect(payload == T.bytes("DF 60 9F 27"))
        let frame = CommandFrame(sequence: 1, command: GetPlainTag.id, payload: payload, envelope: SecuredEnvelope())
        #expect(try frame.encoded() == T.bytes("02 00 09 01 50 26 7F DF 60 9F 27 00 00 00 00 1D 63 03"))
        #expect(try T.roundTrip(command) == command)
    }

    @Test func getSecuredTagBytes() throws {
        // SRED tags (spec §5.2 0x5025), plus a 3-byte tag written big-endian minimal (PROJECT CHOICE spec §4).
        let command = GetSecuredTag(tags: [Tag(0x5A), Tag(0x57), Tag(0x5F24), Tag(0xDFC302)])
        #expect(try command.encodePayload() == T.bytes("5A 57 5F 24 DF C3 02"))
        #expect(try T.roundTrip(command) == command)
    }

    @Test func tagListRefusals() {
        #expect(T.errorCode { _ = try GetPlainTag(tags: []).encodePayload() } == .invalidArgument)
        // 0x1F announces a second tag byte, so it cannot be written alone.
        #expect(T.errorCode { _ = try GetSecuredTag(tags: [Tag(0x1F)]).encodePayload() } == .invalidArgument)
        #expect(T.errorCode { _ = try GetPlainTag(payload: []) } == .truncated)
        #expect(T.errorCode { _ = try GetPlainTag(payload: T.bytes("9F")) } == .malformed)
        let many = GetPlainTag(tags: [Tag](repeating: Tag(0x9F27), count: 1100))
        #expect(T.errorCode { _ = try many.encodePayload() } == .tooLong)
    }

    @Test func securedTagResponseIsTheBlob() throws {
        let response = SecuredTagResponse(blob: T.bytes("1B 9C 18 45 EB 99 3A 7A"))
        #expect(response.encodeData() == response.blob)
        #expect(try T.roundTrip(response) == response)
    }

    @Test func tlvResponseCryptogram() throws {
        let data = T.bytes("9F 27 01 80 DF 60 01 00")
        let response = try TLVResponse(status: .success, data: data)
        #expect(response.cryptogram == .arqc)
        #expect(response[Tag(0xDF60)] == [0x00])
        #expect(try T.roundTrip(response).encodeData() == data)
        #expect(try TLVResponse(status: .success, data: T.bytes("9F 27 01 40")).cryptogram == .tc)
        #expect(try TLVResponse(status: .success, data: T.bytes("9F 27 01 00")).cryptogram == .aac)
        #expect(try TLVResponse(status: .success, data: T.bytes("9F 27 01 C0")).cryptogram == nil)
        #expect(try TLVResponse(status: .success, data: []).cryptogram == nil)
        #expect(T.errorCode { _ = try TLVResponse(status: .success, data: T.bytes("9F 27 02 80")) } == .malformed)
    }

    // MARK: DisplayMessage (spec §2.6 "Hello world")

    static let helloWorld = "02 00 05 01 00 0C 48 65 6C 6C 6F 20 77 6F 72 6C 64 00 FF 00"

    @Test func displayMessageHelloWorldFixture() throws {
        let command = DisplayMessage(text: "Hello world", timeout: 2)
        let payload = try command.encodePayload()
        #expect(payload == T.bytes(Self.helloWorld))
        let frame = CommandFrame(sequence: 1, command: DisplayMessage.id, payload: payload)
        #expect(
            try frame.encoded()
                == T.bytes("02 00 14 01 50 40 02 00 05 01 00 0C 48 65 6C 6C 6F 20 77 6F 72 6C 64 00 FF 00 3A C9 03")
        )
        #expect(try DisplayMessage(payload: payload) == command)
        #expect(command.responseTimeout == .seconds(7))
        T.expectEveryPayloadPrefixFails(DisplayMessage.self, payload)
    }

    @Test func displayMessageTwoLatin1Lines() throws {
        // Two lines as the sample sends (spec §5.2): "Café" in ISO-8859-1 (é = E9), then "OK ?" at x 0, y 0x0A.
        let command = DisplayMessage(
            timeoutSeconds: 0x1E,
            abortKeys: 0x07,
            clearConfig: 0x02,
            lines: [DisplayLine(font: 1, text: "Café"), DisplayLine(font: 2, text: "OK ?", x: 0, y: 0x0A)]
        )
        #expect(
            try command.encodePayload()
                == T.bytes("1E 07 02 02  01 05 43 61 66 E9 00 FF 00  02 05 4F 4B 20 3F 00 00 0A")
        )
        #expect(try T.roundTrip(command) == command)
    }

    @Test func displayMessageRefusals() {
        #expect(T.errorCode { _ = try DisplayMessage(text: "Zażółć").encodePayload() } == .invalidArgument)
        #expect(T.errorCode { _ = try DisplayMessage(text: "€5").encodePayload() } == .invalidArgument)
        #expect(
            T.errorCode { _ = try DisplayMessage(text: String(repeating: "x", count: 255)).encodePayload() }
                == .invalidArgument
        )
        #expect(
            T.errorCode { _ = try DisplayMessage(timeoutSeconds: 0, lines: []).encodePayload() } == .invalidArgument
        )
        let longest = DisplayMessage(text: String(repeating: "x", count: 254))
        #expect(T.errorCode { _ = try longest.encodePayload() } == nil)
        // Nine longest lines need more than a frame.
        let tooMany = DisplayMessage(
            timeoutSeconds: 0,
            lines: Array(repeating: DisplayLine(text: String(repeating: "y", count: 254)), count: 9)
        )
        #expect(T.errorCode { _ = try tooMany.encodePayload() } == .tooLong)
        // A line whose terminator is not 00.
        #expect(T.errorCode { _ = try DisplayMessage(payload: T.bytes("02 00 05 01 00 02 41 01 FF 00")) } == .malformed)
        #expect(T.errorCode { _ = try DisplayMessage(payload: T.bytes(Self.helloWorld + " 00")) } == .malformed)
    }

    @Test func displayMessageResponse() throws {
        #expect(try DisplayMessage.Response(status: .success, data: []).key == nil)
        let pressed = DisplayMessage.Response(key: 0x01)
        #expect(pressed.encodeData() == [0x01])
        #expect(try T.roundTrip(pressed) == pressed)
        #expect(try T.roundTrip(DisplayMessage.Response()) == DisplayMessage.Response())
    }

    // MARK: DisplayListBox (spec §5.2 SDK layout)

    @Test func displayListBoxBytes() throws {
        // Built by hand from the §5.2 table: timeout 60, title font 0, title "\0", scroll font 0, scroll label 00,
        // text font 0, list length 16, "Visa\0Mastercard\0".
        let command = DisplayListBox(items: ["Visa", "Mastercard"])
        #expect(
            try command.encodePayload()
                == T.bytes("3C 00 01 00 00 00 00 10 56 69 73 61 00 4D 61 73 74 65 72 63 61 72 64 00")
        )
        #expect(try T.roundTrip(command) == command)
        #expect(command.responseTimeout == .seconds(65))
        T.expectEveryPayloadPrefixFails(DisplayListBox.self, try command.encodePayload())

        let titled = DisplayListBox(timeoutSeconds: 10, title: "Pay with", items: ["A"])
        #expect(try titled.encodePayload() == T.bytes("0A 00 09 50 61 79 20 77 69 74 68 00 00 00 00 02 41 00"))
        #expect(try T.roundTrip(titled) == titled)
        #expect(DisplayListBox(title: "", items: ["A"]).title == nil)
    }

    @Test func displayListBoxToleratesMiniPOSNewlines() throws {
        // MP items end with "\n" before the 0x00 (spec §5.2).
        let command = try DisplayListBox(payload: T.bytes("3C 00 01 00 00 00 01 06 41 0A 00 42 0A 00"))
        #expect(command.items == ["A", "B"])
    }

    @Test func displayListBoxRefusals() {
        #expect(T.errorCode { _ = try DisplayListBox(items: []).encodePayload() } == .invalidArgument)
        #expect(T.errorCode { _ = try DisplayListBox(items: ["Café"]).encodePayload() } == .invalidArgument)
        #expect(
            T.errorCode { _ = try DisplayListBox(title: "Wähle", items: ["A"]).encodePayload() } == .invalidArgument
        )
        // 20 items of 9 characters + terminator = 200 bytes: the SDK's cap, accepted; one more byte is refused.
        let full = DisplayListBox(items: Array(repeating: String(repeating: "i", count: 9), count: 20))
        #expect(T.errorCode { _ = try full.encodePayload() } == nil)
        var over = full
        over.items[0] += "i"
        #expect(T.errorCode { _ = try over.encodePayload() } == .invalidArgument)
        #expect(T.errorCode { _ = try DisplayListBox(payload: T.bytes("3C 00 01 00 00 00 00 01 41")) } == .malformed)
    }

    @Test func displayListBoxResponse() throws {
        let response = try DisplayListBox.Response(status: .success, data: [0x02])
        #expect(response.selectedIndex == 2)
        #expect(try T.roundTrip(response) == response)
        T.expectEveryPrefixFails(DisplayListBox.Response.self, [0x02])
        #expect(T.errorCode { _ = try DisplayListBox.Response(status: .success, data: [0x00]) } == .malformed)
    }
}
