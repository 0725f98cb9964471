import Testing

@testable import UCubeProtocol

private typealias T = CommandTestSupport

/// The current SDK's forms of the commands (docs/protocol.md §2.2, §2.9, §5.2, §15), beside the 2020 forms.
@Suite struct CurrentSDKCommandTests {
    /// spec §2.9: both recovery commands are empty, NONE both ways, accepted in every state, and not long-running.
    @Test func recoveryCommandsAreInTheCatalogue() throws {
        for (id, word) in [(CommandID(0x0330), "repeat-last-message"), (CommandID(0x0331), "get-status")] {
            let descriptor = try #require(CommandCatalogue.descriptor(for: id))
            #expect(descriptor.cliName == word)
            #expect(descriptor.inputMode == .none && descriptor.outputMode == .none)
            #expect(descriptor.allowedStates == Set(TerminalState.allCases))
            #expect(!descriptor.isLongRunning)
        }
        // spec §2.9 examples: GetStatus SEQ 5, RepeatLastMessage SEQ 6.
        #expect(
            try CommandFrame(sequence: 5, command: .getStatus, payload: try GetStatus().encodePayload()).encoded()
                == T.bytes("02 00 00 05 03 31 98 D1 03"))
        #expect(
            try CommandFrame(sequence: 6, command: .repeatLastMessage, payload: try RepeatLastMessage().encodePayload())
                .encoded() == T.bytes("02 00 00 06 03 30 D1 A0 03"))
    }

    /// spec §2.9: status 0 and at least one byte; 0 idle, 1 / 2 / 3 busy, anything else unknown; no byte fails.
    @Test(arguments: [
        (UInt8(0), "idle"), (1, "busy (secure firmware)"), (2, "busy (non-secure firmware)"),
        (3, "busy (secure and non-secure firmware)"), (9, "unknown"),
    ])
    func getStatusResponse(_ state: UInt8, _ meaning: String) throws {
        let response = try GetStatus.Response(status: .success, data: [state, 0xAA])
        #expect(response.processState == state)
        #expect(response.meaning == meaning)
        #expect(response.encodeData() == [state])
        T.expectEveryPrefixFails(GetStatus.Response.self, [state])
    }

    /// spec §5.2 0x5101: empty (2020 and default) or `01 01 mm 02 01 oo` (SDSE); anything else is malformed.
    @Test func enterSecureSessionBothForms() throws {
        #expect(try EnterSecureSession(payload: []).dataEncryption == nil)
        let sdse = try EnterSecureSession(payload: T.bytes("01 01 02 02 01 FF"))
        #expect(sdse.dataEncryption == EnterSecureSession.DataEncryption(mechanism: 2, option: 0xFF))
        #expect(try sdse.encodePayload() == T.bytes("01 01 02 02 01 FF"))
        // spec §5.2 frame of the sample's default VOLTAGE mechanism, SEQ 0.
        #expect(
            try CommandFrame(sequence: 0, command: .enterSecureSession, payload: try sdse.encodePayload()).encoded()
                == T.bytes("02 00 06 00 51 01 01 01 02 02 01 FF 06 51 03"))
        for bad in ["01", "01 01 02", "02 01 02 01 01 FF", "01 01 02 02 01 FF 00"] {
            #expect(T.errorCode { _ = try EnterSecureSession(payload: T.bytes(bad)) } == .malformed, "\(bad)")
        }
    }

    /// spec §5.2 0x5130: the current parser reads a 10-byte data iKSN, then a 10-byte PIN iKSN, when they follow.
    @Test func installForLoadKeyInitialKSNs() throws {
        let data = T.bytes("00 01 AA 00 01 BB FFFF9876543210E00000 FFFF9876543210E00001")
        let response = try InstallForLoadKey.Response(status: .success, data: data)
        #expect(response.initialDataKSN == T.bytes("FFFF9876543210E00000"))
        #expect(response.initialPINKSN == T.bytes("FFFF9876543210E00001"))
        #expect(response.encodeData() == data)
        let built = try InstallForLoadKey.Response(
            caCertificate: [0xAA], kekCertificate: [0xBB], initialDataKSN: T.bytes("FFFF9876543210E00000"),
            initialPINKSN: T.bytes("FFFF9876543210E00001"))
        #expect(built == response)
        // 2020: no KSN; fewer than 10 trailing bytes are kept in the raw data but are no KSN.
        let old = try InstallForLoadKey.Response(status: .success, data: T.bytes("00 01 AA 00 01 BB 01 02 03"))
        #expect(old.initialDataKSN == nil && old.initialPINKSN == nil)
        #expect(
            T.errorCode {
                _ = try InstallForLoadKey.Response(caCertificate: [], kekCertificate: [], initialDataKSN: [1])
            }
                == .invalidArgument)
    }

    /// spec §2.2: 2068 bytes for the 2020 SDK (and ucube's own decoder), 2560 for the current SDK.
    @Test(arguments: [FrameLimits.maxFrameSize, FrameLimits.currentSDKMaxFrameSize])
    func decoderFrameLimit(_ limit: Int) throws {
        var decoder = FrameDecoder(maxFrameSize: limit)
        let atLimit = try RawFrame(sequence: 1, command: .getInfo, body: [UInt8](repeating: 0xC4, count: limit - 9))
            .encodedUnchecked()
        decoder.append(atLimit)
        #expect(try decoder.next()?.body.count == limit - 9)
        let over = [0x02, UInt8((limit - 8) >> 8), UInt8((limit - 8) & 0xFF)]
        decoder.append(over)
        #expect(throws: FrameError.self) { _ = try decoder.next() }
    }
}

extension RawFrame {
    /// STX ‖ LEN ‖ SEQ ‖ CMD ‖ body ‖ CRC ‖ ETX without the 2068-byte check of `encoded()` (spec §2.1, §2.5).
    func encodedUnchecked() throws -> [UInt8] {
        let covered =
            [
                UInt8(body.count >> 8), UInt8(body.count & 0xFF), sequence,
                UInt8(command.rawValue >> 8), UInt8(command.rawValue & 0xFF),
            ] + body
        let crc = CRC16.xmodem(covered)
        return [0x02] + covered + [UInt8(crc >> 8), UInt8(crc & 0xFF), 0x03]
    }
}
