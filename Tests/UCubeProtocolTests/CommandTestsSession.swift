import Testing

@testable import UCubeProtocol

private typealias T = CommandTestSupport
/// The protocol's BER tag, not Swift Testing's `Tag`.
private typealias Tag = UCubeProtocol.Tag

/// Empty-payload commands, EnterSecureSession, RTC, SetInfo and the opaque commands.
@Suite struct CommandTestsSession {
    // MARK: Empty payloads (spec §5.2 "Request: empty")

    static let emptyCommands: [any EmptyPayloadCommand.Type] = [
        PowerOff.self, ExitSecureSession.self, EnterSecureSession.self, RTCGet.self, InstallForLoadKey.self,
    ]

    /// spec §2.8 and §5.2 0x0202: empty (2020, and the current SDK's payment start) or `FF FE` (the current SDK's
    /// cancel of a card wait). The frames are the ones docs/protocol.md computes: SEQ 0 empty, SEQ 2 with FF FE.
    @Test func cancelAllBothForms() throws {
        #expect(try CancelAll().encodePayload() == [])
        #expect(try CancelAll(withMessage: true).encodePayload() == [0xFF, 0xFE])
        #expect(try CancelAll(payload: []) == CancelAll())
        #expect(try CancelAll(payload: [0xFF, 0xFE]) == CancelAll(withMessage: true))
        #expect(T.errorCode { _ = try CancelAll(payload: [0x00]) } == .malformed)
        #expect(T.errorCode { _ = try CancelAll(payload: [0xFE, 0xFF]) } == .malformed)
        let empty = CommandFrame(sequence: 0, command: CancelAll.id, payload: try CancelAll().encodePayload())
        #expect(try empty.encoded() == T.bytes("02 00 00 00 02 02 46 20 03"))
        let message = CommandFrame(
            sequence: 2, command: CancelAll.id, payload: try CancelAll(withMessage: true).encodePayload())
        #expect(try message.encoded() == T.bytes("02 00 02 02 02 02 FF FE 41 E5 03"))
    }

    @Test(arguments: CommandTestsSession.emptyCommands)
    func emptyPayloadCommands(type: any EmptyPayloadCommand.Type) throws {
        let command = type.init()
        #expect(try command.encodePayload() == [])
        _ = try type.init(payload: [])
        #expect(T.errorCode { _ = try type.init(payload: [0x00]) } == .malformed)
    }

    @Test func emptyResponseIgnoresData() throws {
        #expect(try EmptyResponse(status: .success, data: []).encodeData() == [])
        #expect(try T.roundTrip(EmptyResponse()) == EmptyResponse())
    }

    // MARK: EnterSecureSession (spec §2.6 worked frame)

    @Test func enterSecureSessionFrameFixture() throws {
        // Spec §2.6: "ENTER_SECURED_SESSION (no payload, SEQ forced to 0): 02 00 00 00 51 01 2D AF 03".
        let frame = CommandFrame(
            sequence: 0,
            command: EnterSecureSession.id,
            payload: try EnterSecureSession().encodePayload()
        )
        #expect(try frame.encoded() == T.bytes("02 00 00 00 51 01 2D AF 03"))

        // Spec §2.6 response carrying the KSN FFFF9876543210E00001.
        var decoder = FrameDecoder()
        decoder.append(T.bytes("02 00 0C 00 51 01 00 00 FF FF 98 76 54 32 10 E0 00 01 CD 60 03"))
        let raw = try #require(try decoder.next())
        let response = try ResponseFrame(raw: raw, secured: false)
        let decoded = try EnterSecureSession.Response(status: response.status, data: response.data)
        #expect(decoded.ksn == T.bytes("FFFF9876543210E00001"))
        #expect(decoded.encodeData() == response.data)
        #expect(try T.roundTrip(decoded) == decoded)
        T.expectEveryPrefixFails(EnterSecureSession.Response.self, response.data)
    }

    // MARK: RTC (PROJECT CHOICE layout: day, month, year−2000, hour, minute, second)

    @Test func rtcSetBytes() throws {
        // Built by hand from the RTCLayout PROJECT CHOICE: 29, 2, 2024−2000 = 24, 13, 5, 9.
        let command = RTCSet(day: 29, month: 2, year: 2024, hour: 13, minute: 5, second: 9)
        #expect(try command.encodePayload() == T.bytes("1D 02 18 0D 05 09"))
        #expect(try T.roundTrip(command) == command)
        T.expectEveryPayloadPrefixFails(RTCSet.self, try command.encodePayload())
        #expect(T.errorCode { _ = try RTCSet(payload: T.bytes("1D 02 18 0D 05 09 00")) } == .malformed)
    }

    @Test(arguments: [
        RTCDateTime(year: 2023, month: 2, day: 29, hour: 0, minute: 0, second: 0),
        RTCDateTime(year: 1999, month: 1, day: 1, hour: 0, minute: 0, second: 0),
        RTCDateTime(year: 2256, month: 1, day: 1, hour: 0, minute: 0, second: 0),
        RTCDateTime(year: 2024, month: 13, day: 1, hour: 0, minute: 0, second: 0),
        RTCDateTime(year: 2024, month: 4, day: 31, hour: 0, minute: 0, second: 0),
        RTCDateTime(year: 2024, month: 1, day: 1, hour: 24, minute: 0, second: 0),
        RTCDateTime(year: 2024, month: 1, day: 1, hour: 0, minute: 60, second: 0),
        RTCDateTime(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 60),
    ])
    func rtcSetRefusesInvalidDates(time: RTCDateTime) {
        #expect(T.errorCode { _ = try RTCSet(time).encodePayload() } == .invalidArgument)
    }

    @Test func rtcGetResponse() throws {
        let response = RTCGet.Response(
            dateTime: RTCDateTime(year: 2000, month: 12, day: 31, hour: 23, minute: 59, second: 58)
        )
        #expect(response.encodeData() == T.bytes("1F 0C 00 17 3B 3A"))
        #expect(try T.roundTrip(response) == response)
        T.expectEveryPrefixFails(RTCGet.Response.self, response.encodeData())
        // Month 13 from a terminal is bad data, not a bad argument.
        #expect(
            T.errorCode { _ = try RTCGet.Response(status: .success, data: T.bytes("01 0D 18 00 00 00")) } == .malformed
        )
    }

    // MARK: SetInfoField (spec §5.2)

    @Test(arguments: [(0, 0x00), (1, 0x20), (31, 0x20), (32, 0x20), (100, 0x64), (255, 0xFF), (300, 0xFF)])
    func powerOffTimeoutClamp(seconds: Int, byte: UInt8) throws {
        let command = try SetInfoField.powerOffTimeout(seconds)
        #expect(try command.encodePayload() == [0xC6, 0x01, byte])
    }

    @Test func setInfoFieldBuilders() throws {
        #expect(try SetInfoField.speedMode(.quick).encodePayload() == T.bytes("FC 01 01"))
        #expect(try SetInfoField.locale("fr").encodePayload() == T.bytes("F7 02 66 72"))
        let combined = SetInfoField(
            fields: try SetInfoField.powerOffTimeout(60).fields + SetInfoField.speedMode(.slow).fields
        )
        #expect(try combined.encodePayload() == T.bytes("C6 01 3C FC 01 00"))
        #expect(try T.roundTrip(combined) == combined)
    }

    @Test func setInfoFieldRefusals() {
        #expect(T.errorCode { _ = try SetInfoField.powerOffTimeout(-1) } == .invalidArgument)
        #expect(T.errorCode { _ = try SetInfoField.locale("français") } == .invalidArgument)
        #expect(T.errorCode { _ = try SetInfoField.locale("") } == .invalidArgument)
        #expect(T.errorCode { _ = try SetInfoField(fields: []).encodePayload() } == .invalidArgument)
        // A value that cannot fit a frame is refused before the TLV length encoder could trap.
        #expect(
            T.errorCode {
                _ = try SetInfoField(fields: [TLV(Tag(0xF0), [UInt8](repeating: 1, count: 70_000))]).encodePayload()
            } == .tooLong
        )
        #expect(T.errorCode { _ = try SetInfoField(payload: []) } == .truncated)
    }

    @Test func setInfoProdIsOpaque() throws {
        let command = SetInfoProd(payload: T.bytes("01 02 03"))
        #expect(try command.encodePayload() == T.bytes("01 02 03"))
        #expect(try T.roundTrip(command) == command)
    }

    // MARK: Opaque commands (payloads not in sources)

    static let opaqueSamples: [any OpaqueCommand] = [
        CardSendAPDU(payload: T.bytes("00 A4 04 00 07 A0 00 00 00 03 10 10 00")),
        CardPowerOff(payload: []),
        MagstripeRead(payload: T.bytes("1E")),
        DisplayMessageWithKI(payload: T.bytes("01")),
        DisplayMessageWithKICustom(payload: T.bytes("02 03")),
        GetKeyInfo(payload: T.bytes("00")),
        ExportPublicKey(payload: []),
        ImportPublicKeyCert(payload: T.bytes("30 82 01 0A")),
        ImportPublicKeyPersoCert(payload: T.bytes("30 82 01 0B")),
        LoadKey(payload: Array("B0096P0TE00N0000".utf8)),
        OnlinePIN(payload: T.bytes("0A")),
        BankParametersDownload(payload: T.bytes("84 00 00 00 DB 00 00 00 A2 04 00 00")),
        BankParametersGet(payload: []),
        SetInfoProd(payload: T.bytes("AA")),
    ]

    @Test(arguments: CommandTestsSession.opaqueSamples)
    func opaqueCommandsCarryTheirBytes(command: any OpaqueCommand) throws {
        try checkOpaque(command)
    }

    private func checkOpaque<C: OpaqueCommand>(_ command: C) throws {
        #expect(try command.encodePayload() == command.payload)
        #expect(try T.roundTrip(command) == command)
        let biggest = try C(payload: [UInt8](repeating: 0x5A, count: PayloadLimits.maxPayloadSize))
        #expect(try biggest.encodePayload().count == 2054)
        let tooBig = try C(payload: [UInt8](repeating: 0x5A, count: PayloadLimits.maxPayloadSize + 1))
        #expect(T.errorCode { _ = try tooBig.encodePayload() } == .tooLong)
    }

    @Test func longRunningOpaqueCommandsWaitForTheCardholder() {
        #expect(MagstripeRead().responseTimeout == .seconds(65))
        #expect(OnlinePIN(payload: []).responseTimeout == .seconds(65))
        #expect(CardSendAPDU(payload: []).responseTimeout == nil)
    }

    @Test func rawDataResponseRoundTrip() throws {
        let response = RawDataResponse(data: T.bytes("90 00"))
        #expect(try T.roundTrip(response) == response)
        #expect(try RawDataResponse(status: .success, data: []).data == [])
    }

    @Test func payloadLimitIsTheSecuredFrameLimit() {
        // Spec §2.2: 2068-byte frames; §2.1: 9 bytes of framing; §2.3: crypto header + 4-byte MAC.
        #expect(PayloadLimits.maxPayloadSize == 2068 - 9 - 5)
    }
}
