import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeSimulator

/// What the vendor's current SDK (libApp 3.5.13 and 1.3.8.19) sends, and the 2020 forms beside it: every frame here is
/// written from docs/protocol.md (§2.2, §2.3, §2.9, §4, §5.2, §15), not built with the simulator's own encoder.
@Suite("TerminalSimulator: the current SDK's dialect")
struct CurrentSDKDialectTests {
    /// A simulator whose card never comes: WaitCard stays pending until its timeout (30 s unscaled).
    static func waitingTerminal() throws -> SimulatorHarness {
        try SimulatorHarness(SimulatorConfiguration(script: SimulatorScript(card: nil), timeScale: 1))
    }

    /// STX ‖ LEN ‖ SEQ ‖ CMD ‖ payload ‖ CRC ‖ ETX (spec §2.1, §2.5), whatever its size: `CommandFrame.encoded()`
    /// keeps ucube's own 2068-byte limit.
    static func frame(seq: UInt8, _ command: CommandID, _ payload: [UInt8]) -> [UInt8] {
        let covered =
            [
                UInt8(payload.count >> 8), UInt8(payload.count & 0xFF), seq, UInt8(command.rawValue >> 8),
                UInt8(command.rawValue & 0xFF),
            ] + payload
        let crc = CRC16.xmodem(covered)
        return [0x02] + covered + [UInt8(crc >> 8), UInt8(crc & 0xFF), 0x03]
    }

    // MARK: §2.9 GetStatus and RepeatLastMessage

    @Test("GetStatus (spec §2.9 bytes) answers 0 and 00 when idle, 01 while a WaitCard is pending, with its own SEQ")
    func getStatusIdleThenBusy() async throws {
        let link = try Self.waitingTerminal()
        defer { Task { await link.close() } }
        link.write([UInt8](hex: "02 00 00 05 03 31 98 D1 03"))
        #expect(try await link.next().encoded() == [UInt8](hex: "02 00 03 05 03 31 00 00 00 2F 0C 03"))

        try link.send(.waitCard, try WaitCard(readers: [.icc, .nfc], timeoutSeconds: 30).encodePayload(), seq: 6)
        link.write([UInt8](hex: "02 00 00 05 03 31 98 D1 03"))
        // spec §2.9 example: busy (secure firmware).
        #expect(try await link.next().encoded() == [UInt8](hex: "02 00 03 05 03 31 00 00 01 3F 2D 03"))
        // The WaitCard still waits: CancelAll ends it, its own answer first (spec §2.8).
        link.write([UInt8](hex: "02 00 02 02 02 02 FF FE 41 E5 03"))
        #expect(try await link.next().encoded() == [UInt8](hex: "02 00 02 02 02 02 00 00 4C CB 03"))
        let cancelled = try await link.plain()
        #expect(cancelled.command == .waitCard && cancelled.sequence == 6 && cancelled.status == .cancelled)
    }

    @Test("RepeatLastMessage sends nothing while a command is pending; that command's answer, when it comes, repeats")
    func repeatLastMessageWhilePendingAndAfter() async throws {
        let script = SimulatorScript(cardPresentationDelay: .seconds(1))
        let link = try SimulatorHarness(SimulatorConfiguration(script: script, timeScale: 1))
        defer { Task { await link.close() } }
        try link.send(.waitCard, try WaitCard(readers: [.icc], timeoutSeconds: 30).encodePayload(), seq: 4)
        // spec §2.9 example frame (SEQ 6); it asks for the pending WaitCard's answer, which is not there yet.
        link.write([UInt8](hex: "02 00 00 06 03 30 D1 A0 03"))
        let card = try await link.next()
        #expect(card.command == .waitCard && card.sequence == 4)
        #expect(await link.inbox.pendingCount == 0)  // nothing was sent for the RepeatLastMessage itself

        // Idle now: RepeatLastMessage (SEQ 7) gets the WaitCard's answer again, byte for byte, SEQ 4 and id 0x5020.
        link.write([UInt8](hex: "02 00 00 07 03 30 E6 90 03"))
        let repeated = try await link.next()
        #expect(try repeated.encoded() == (try card.encoded()))
        // A GetStatus in between does not become "the last answer".
        link.write([UInt8](hex: "02 00 00 05 03 31 98 D1 03"))
        #expect(try await link.plain().data == [GetStatus.Response.idle])
        link.write([UInt8](hex: "02 00 00 07 03 30 E6 90 03"))
        #expect(try await link.next() == card)
    }

    @Test("RepeatLastMessage on a connection that has no answer yet is answered 0 under its own id")
    func repeatLastMessageWithNothingToRepeat() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        link.write([UInt8](hex: "02 00 00 06 03 30 D1 A0 03"))
        let answer = try await link.plain()
        #expect(answer.command == .repeatLastMessage && answer.sequence == 6 && answer.status == .success)
    }

    // MARK: §2.2 frame size, §2.3 crypto header

    /// spec §2.2: the current SDK's frames may be 2560 bytes long; one byte more is dropped like any oversize frame.
    @Test("a 2560-byte command frame is read; a 2561-byte one is dropped and the next frame answered")
    func currentSDKFrameSize() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        let atLimit = [UInt8](repeating: 0xC4, count: 2560 - 9)
        link.write(Self.frame(seq: 1, .getInfo, atLimit))
        let answer = try await link.plain()
        #expect(answer.status == .success)
        #expect(answer.data == [0xC4, 0x01, TerminalState.ready.rawValue])

        link.write(Self.frame(seq: 2, .getInfo, atLimit + [0xC4]))
        try link.send(.getInfo, [0xC4], seq: 3)
        #expect(try await link.plain().sequence == 3)
    }

    /// spec §2.3: the current SDK's crypto header is `new Random().nextInt(255)`, 0x00 … 0xFE; 2020's always 0x7F.
    @Test("a secured command is read whatever its crypto header", arguments: [UInt8(0x00), 0x5A, 0x7F, 0xFE])
    func anyCryptoHeader(header: UInt8) async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        let frame = CommandFrame(
            sequence: 1,
            command: .getPlainTag,
            payload: [0x9F, 0x1A],
            envelope: SecuredEnvelope(cryptoHeader: header)
        )
        link.write(try frame.encoded())
        let answer = try await link.secured()
        #expect(answer.status == .success)
        #expect(answer.data == [0x9F, 0x1A, 0x02, 0x02, 0x50])  // 9F1A, the terminal's country code
    }

    /// spec §2.3: the current SDK wraps a SIGNED_NOT_CHECKED command even when its payload is empty (LEN = 5); the
    /// 2020 SDK sent it plain. Both are an empty TransactionProcess.
    @Test("an empty SIGNED_NOT_CHECKED payload reads the same wrapped (LEN 5) and plain (LEN 0)")
    func emptyWrappedPayload() async throws {
        for wrapped in [true, false] {
            let link = try SimulatorHarness()
            _ = try await link.exchange(.enterSecureSession, seq: 0)
            try link.send(.nfcStartTransaction, try PaymentSimulationTests.startNFC([.icc]), seq: 1, secured: true)
            #expect(try await link.secured().status == .success)
            try link.send(.buildCandidateList, seq: 2, secured: wrapped)
            let list = try await link.secured()
            #expect(list.status == .success, "wrapped \(wrapped)")
            let candidates = try BuildCandidateList.Response(status: list.status, data: list.data).candidates
            #expect(candidates.map(\.aid) == [PaymentSimulationTests.visaAID], "wrapped \(wrapped)")
            await link.close()
        }
    }

    // MARK: §5.2 EnterSecureSession, StartNFC, InstallForLoadKey

    @Test("EnterSecureSession in SDSE mode (01 01 02 02 01 FF, spec §5.2) opens the session and answers the KSN")
    func enterSecureSessionSDSE() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        link.write([UInt8](hex: "02 00 06 00 51 01 01 01 02 02 01 FF 06 51 03"))
        #expect(
            try await link.next().encoded()
                == [UInt8](hex: "02 00 0C 00 51 01 00 00 FF FF 98 76 54 32 10 E0 00 01 CD 60 03")
        )
        #expect(await link.simulator.device.terminalState == .secured)
    }

    /// spec §5.2 0x5530: the computed example of a current payment (10.00 EUR, ICC and NFC, 30 s, 2025-06-12
    /// 14:30:05, 9F03 and DF4A always present).
    @Test("StartNFC with the current SDK's tags (9F03, 9A, 9F21, DF4A) reads and presents the card")
    func startNFCCurrentTags() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        let payload = [UInt8](
            hex: "DF70 02 11 21 DF71 01 1E DF52 01 00 9C 01 00 5F2A 02 09 78 5F36 01 02 9F02 06 00 00 00 00 10 00"
                + " 9F03 06 00 00 00 00 00 00 9A 03 25 06 12 9F21 03 14 30 05 DF4A 01 00 DF7F 01 00"
        )
        try link.send(.nfcStartTransaction, payload, seq: 1, secured: true)
        let answer = try await link.secured()
        #expect(answer.status == .success)
        let started = try NFCStartTransaction.Response(status: answer.status, data: answer.data)
        #expect(started.activatedReader == .icc)
    }

    @Test("InstallForLoadKey answers the chain and the initial data and PIN KSNs (spec §5.2 0x5130)")
    func installForLoadKeyKSNs() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        let answer = try await link.exchange(.installForLoadKey, seq: 1)
        let ca = SimulatorChoices.demoCAProdCertificate
        let kek = SimulatorChoices.demoKEKCertificate(serial: 202_401_001)
        let initialKSN = [UInt8](hex: "FFFF9876543210E00000")
        #expect(
            answer.data
                == [0x00, UInt8(ca.count)] + ca + [0x00, UInt8(kek.count)] + kek + initialKSN + initialKSN
        )
        let chain = try InstallForLoadKey.Response(status: answer.status, data: answer.data)
        #expect(chain.caCertificate == ca && chain.kekCertificate == kek)
        #expect(chain.initialDataKSN == initialKSN && chain.initialPINKSN == initialKSN)
    }

    // MARK: §4 identity

    /// spec §4: the current SDK swaps serial and part number unless C2 starts with `uCubeT`; the 2020 SDK unless it
    /// contains `UCUBE`.
    @Test("C2 is uCubeTouchUCUBE (spec §4 bytes): both SDKs' rules read serial and part number the right way round")
    func identityShapedLikeAYTTouch() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        let answer = try await link.exchange(.getInfo, [0xC2, 0xC3], seq: 1)
        let c2 = [UInt8](hex: "75 43 75 62 65 54 6F 75 63 68 55 43 55 42 45")
        #expect(answer.data == [0xC2, 0x0F] + c2 + [0xC3, 0x05, 0x00, 0x30, 0x41, 0x93, 0xA4])
        let partNumber = String(decoding: c2, as: UTF8.self)
        #expect(partNumber.hasPrefix("uCubeT") && partNumber.contains("UCUBE"))
    }

    @Test("a device.json saved with the old part number UCUBE-TOUCH-EU is read with the new one")
    func legacyPartNumberIsReplaced() throws {
        var old = DeviceState()
        old.partNumber = "UCUBE-TOUCH-EU"
        let data = try JSONEncoder().encode(old)
        #expect(try JSONDecoder().decode(DeviceState.self, from: data).partNumber == "uCubeTouchUCUBE")
        old.partNumber = "MY-OWN-PN"
        #expect(
            try JSONDecoder().decode(DeviceState.self, from: try JSONEncoder().encode(old)).partNumber == "MY-OWN-PN")
    }

    // MARK: §2.3 displays inside a session

    /// spec §2.3: both SDKs send DisplayListBox (DisplayChoice) SIGNED_NOT_CHECKED inside a session and read the
    /// answer SIGNED; the current SDK with a random crypto header.
    @Test("DisplayListBox inside a session, as the current SDK wraps it: the choice comes back secured")
    func displayListBoxInASession() async throws {
        let link = try SimulatorHarness(SimulatorConfiguration(script: SimulatorScript(choices: [2])))
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        let list = try DisplayListBox(items: ["MASTERCARD", "MAESTRO"]).encodePayload()
        let frame = CommandFrame(
            sequence: 3,
            command: .displayListBox,
            payload: list,
            envelope: SecuredEnvelope(cryptoHeader: 0x2E)
        )
        link.write(try frame.encoded())
        let answer = try await link.secured()
        #expect(answer.sequence == 3 && answer.status == .success && answer.data == [2])
        let mac = try #require(answer.envelope?.mac)
        #expect(
            try RetailMAC.verify(
                mac: mac,
                key: HostKeys.key(.macResponse, ksn: PaymentSimulationTests.sessionKSN),
                data: answer.macInput
            )
        )
    }

    // MARK: §2.8 answer delay

    @Test("with a minimum answer delay, no answer leaves sooner than that after its command")
    func minimumAnswerDelay() async throws {
        var configuration = SimulatorConfiguration()
        configuration.minimumAnswerDelay = .milliseconds(120)
        let link = try SimulatorHarness(configuration)
        defer { Task { await link.close() } }
        let clock = ContinuousClock()
        for seq: UInt8 in 1...3 {
            let sent = clock.now
            let answer = try await link.exchange(.getInfo, [0xC4], seq: seq)
            #expect(answer.sequence == seq)
            #expect(sent.duration(to: clock.now) >= .milliseconds(120))
        }
    }
}
