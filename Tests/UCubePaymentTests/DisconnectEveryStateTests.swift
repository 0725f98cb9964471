import Foundation
import Testing
import UCubeCrypto
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubePayment

/// The terminal drops the link at every command of the contact and the contactless flow (simulator fault
/// `disconnectAt`, one run per command). Each run ends in exactly one final outcome — ERROR_DISCONNECT, or the status
/// already decided when the drop comes after it — the journal records that outcome, and the next payment on a new
/// link to the same terminal is approved.
@Suite struct DisconnectEveryStateTests {
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var commands: [CommandID] = []
        private var finished = 0
        func sent(_ id: CommandID) { lock.withLock { commands.append(id) } }
        func finish() { lock.withLock { finished += 1 } }
        var sentCommands: [CommandID] { lock.withLock { commands } }
        var finishedCount: Int { lock.withLock { finished } }
    }

    /// Runs one payment on a new link to `simulator`.
    static func pay(
        _ simulator: TerminalSimulator, readers: [CardReader], journal: PaymentJournal, recorder: Recorder,
        securedTags: [UCubeProtocol.Tag]? = nil
    ) async -> PaymentContext {
        // A fault (or the end of the link) drops the client's stream, as the CLI's `sim` does.
        let link = TransportFactory.inProcess { peer in
            _ = await simulator.serve(input: peer.input, output: { peer.write($0) })
        }
        let client = RPCClient(transport: link.transport, defaultTimeout: .seconds(30)) { event in
            if case .sent(_, let frame) = event { recorder.sent(frame.command) }
        }
        let engine = PaymentEngine(client: client, authorization: FixedAuthorization(.approve), journal: journal)
        let request = PaymentRequest(
            amount: 1000, readers: readers, authorizationSecuredTags: securedTags, requestID: UUID().uuidString)
        let context = await engine.run(request) { event in
            if case .finished = event { recorder.finish() }
        }
        await client.close()
        await link.peer?.value
        return context
    }

    static func journal() -> (PaymentJournal, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-drop-\(UUID())").path
        return (PaymentJournal(path: dir + "/journal.jsonl"), dir)
    }

    @Test(arguments: [("visa-contact", [CardReader.icc, .nfc]), ("mc-contactless-online-pin", [CardReader.nfc])])
    func dropAtEveryCommand(card: String, readers: [CardReader]) async throws {
        let scenario = try #require(CardCatalogue.named(card))
        // A clean run gives the flow's command sequence.
        let clean = Recorder()
        let (cleanJournal, cleanDir) = Self.journal()
        defer { try? FileManager.default.removeItem(atPath: cleanDir) }
        let base = SimulatorConfiguration(timeScale: 0.01)
        let reference = await Self.pay(
            try TerminalSimulator(configuration: scenario.configuration(base)), readers: readers, journal: cleanJournal,
            recorder: clean)
        #expect(reference.status == .approved)
        let flow = clean.sentCommands
        #expect(flow.count >= 8)
        // The answer to this command decides the status; a drop after it keeps the status.
        let decisive = try #require(flow.lastIndex { $0 == .transactionFinalisation || $0 == .nfcCompleteTransaction })

        for (index, command) in flow.enumerated() {
            let occurrence = flow[...index].filter { $0 == command }.count
            var configuration = scenario.configuration(base)
            configuration.script.faults = SimulatorFaults(disconnectAt: command, disconnectOccurrence: occurrence)
            let simulator = try TerminalSimulator(configuration: configuration)
            let (journal, dir) = Self.journal()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let recorder = Recorder()
            let context = await Self.pay(simulator, readers: readers, journal: journal, recorder: recorder)

            let expected: PaymentStatus = index > decisive ? .approved : .errorDisconnect
            #expect(
                context.status == expected,
                "\(card): drop at \(command) #\(occurrence) gave \(String(describing: context.status))")
            #expect(recorder.finishedCount == 1, "\(card): \(recorder.finishedCount) outcomes for a drop at \(command)")
            let history = try PaymentJournal.history(journal.path)
            #expect(history.count == 1)
            #expect(
                history.first?.status == expected.name, "\(card): journal says \(history.first?.status ?? "nothing")")

            // The next payment, on a new link to the same terminal, works (its starting steps reset the terminal).
            let next = await Self.pay(simulator, readers: readers, journal: journal, recorder: Recorder())
            #expect(
                next.status == .approved,
                "\(card): payment after a drop at \(command) gave \(String(describing: next.status))")
        }
    }

    // The context's secured blob is readable with the X9.24 test BDK and holds the profile's PAN; the online PIN
    // block decrypts with the PIN key to the scripted PIN (spec §12.3).
    @Test func securedDataAndPINBlockDecryptWithTheTestBDK() async throws {
        let scenario = try #require(CardCatalogue.named("mc-contactless-online-pin"))
        let simulator = try TerminalSimulator(
            configuration: scenario.configuration(SimulatorConfiguration(timeScale: 0.01)))
        let (journal, dir) = Self.journal()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The SRED blob is asked for, as for an acquirer (no default list asks for one, spec §8.6).
        let context = await Self.pay(
            simulator, readers: [.nfc], journal: journal, recorder: Recorder(),
            securedTags: [UCubeProtocol.Tag(0x57), UCubeProtocol.Tag(0x5A), UCubeProtocol.Tag(0x5F24)])
        #expect(context.status == .approved)
        let card = try #require(scenario.card)

        let sredKSN = try KSN(bytes: try #require(context.sredKSN))
        let blob = try #require(context.authorizationSecuredData)
        let plain = try SRED.decrypt(ciphertext: blob, bdk: CryptoChoices.testBDK, ksn: sredKSN)
        let tlvs = try TLVParser.parse(plain, rules: .terminal)
        #expect(Masking.panDigits(from: try #require(tlvs[Tag(0x5A)])) == card.pan)

        let pinKSN = try KSN(bytes: try #require(context.pinKSN))
        let pinKey = try DUKPT.sessionKey(bdk: CryptoChoices.testBDK, ksn: pinKSN, variant: .pin)
        let block = try #require(context.onlinePINBlock)
        let pin = try PINBlock.decrypt(block: block, pan: card.pan, format: .iso0, key: pinKey)
        #expect(pin == scenario.script.pin)
    }
}
