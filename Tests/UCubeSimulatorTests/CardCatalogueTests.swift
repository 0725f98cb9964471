import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeSimulator

extension CardScenario: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// A minimal host that runs the SDK flows of spec §8 (single entry point, ICC / NFC / MSR sub-flows) at the frame
/// level and derives the final status by the SDK rules, keeping every answer for the checks.
struct SDKRun {
    /// Every command sent, with the status it got (in order).
    var steps: [(CommandID, Status)] = []
    /// The decoded DATA of every answer (ciphered answers decrypted), by command.
    var answers: [(CommandID, [UInt8])] = []
    /// DATA of every answer as it travelled (ciphertext for ciphered answers).
    var wire: [[UInt8]] = []
    var sredKSN: [UInt8] = []
    var status = ""
    var activatedReader: UInt8?
    var outcome: [UInt8]?
    var processTLVs: [TLV] = []
    var candidates: [CandidateApplication] = []
    var securedBlob: [UInt8]?
    var plainTags: [TLV] = []
    var pin: SimplifiedOnlinePIN.Response?
    var completeOutcome: [UInt8]?

    var commands: [CommandID] { steps.map(\.0) }
}

final class SDKDriver {
    let link: SimulatorHarness
    var seq: UInt8 = 0
    var secured = false
    var run = SDKRun()

    init(_ link: SimulatorHarness) { self.link = link }

    /// Sends one command the way the SDK does (wrapped when the terminal is SECURED and the input mode asks for it)
    /// and reads the answer in the layout the terminal uses; ciphered answers are decrypted with the session key.
    func call(_ id: CommandID, _ payload: [UInt8] = []) async throws -> (Status, [UInt8]) {
        let descriptor = try #require(CommandCatalogue.descriptor(for: id))
        let wrap = secured && !payload.isEmpty && descriptor.inputMode != .none
        try link.send(id, payload, seq: seq, secured: wrap)
        seq &+= 1
        let answerSecured = secured && id != .exitSecureSession && descriptor.outputMode != .none
        let raw = try await link.next()
        let frame = try ResponseFrame(raw: raw, secured: answerSecured)
        #expect(frame.command == id)
        run.steps.append((id, frame.status))
        run.wire.append(frame.data)
        var data = frame.data
        if answerSecured && descriptor.outputMode == .signedCiphered && !data.isEmpty && id != .getSecuredTag {
            data = try SRED.decrypt(ciphertext: data, bdk: CryptoChoices.testBDK, ksn: try KSN(bytes: run.sredKSN))
        }
        run.answers.append((id, data))
        return (frame.status, data)
    }

    /// One payment of 12.34 EUR on `readers`, issuer answering "00"; `status` is the SDK's final status.
    func pay(readers: [CardReader], startingSteps: Bool = false) async throws -> SDKRun {
        do {
            run.status = try await flow(readers: readers, startingSteps: startingSteps)
        } catch HarnessError.disconnected {
            run.status = "ERROR_DISCONNECT"
        }
        return run
    }

    private func flow(readers: [CardReader], startingSteps: Bool) async throws -> String {
        if startingSteps {  // START_CANCEL_ALL, START_EXIT_SECURE_SESSION (spec §8.1)
            _ = try await call(.cancelAll)
            _ = try await call(.exitSecureSession)
        }
        let (enter, ksn) = try await call(.enterSecureSession)
        guard enter == .success else { return "ERROR" }
        run.sredKSN = ksn
        secured = true
        let status = try await sale(readers: readers)
        _ = try await call(.exitSecureSession)
        secured = false
        return status
    }

    private func sale(readers: [CardReader]) async throws -> String {
        let start = try NFCStartTransaction(
            readers: readers,
            cardWaitTimeout: 30,
            type: .purchase,
            currencyCode: 978,
            exponent: 2,
            amount: 1234,
            requestedTags: [Tag(0x9F02)]
        ).encodePayload()
        let (status, data) = try await call(.nfcStartTransaction, start)
        if status == .cancelled { return "CANCELLED" }
        guard status == .success else { return "CARD_WAIT_FAILED" }
        let started = try NFCStartTransaction.Response(status: status, data: data)
        run.activatedReader = started.activatedReader?.rawValue
        switch started.activatedReader {
        case .icc: return try await contact()
        case .nfc:
            run.outcome = started.outcome?.bytes
            return try await contactless(try #require(started.outcome))
        case .msr: return try await magstripe()
        case nil: return "ERROR_WRONG_ACTIVATED_READER"
        }
    }

    private func contact() async throws -> String {
        let (listStatus, listData) = try await call(.buildCandidateList)
        if listStatus == .emvNotSupported { return "UNSUPPORTED_CARD" }
        guard listStatus == .success else { return "ERROR" }
        run.candidates = try BuildCandidateList.Response(status: listStatus, data: listData).candidates
        guard !run.candidates.isEmpty else { return "UNSUPPORTED_CARD" }
        var selected = run.candidates[0]
        if run.candidates.count > 1 {
            let box = try DisplayListBox(items: run.candidates.map(\.label)).encodePayload()
            let (boxStatus, boxData) = try await call(.displayListBox, box)
            guard boxStatus == .success else { return "CANCELLED" }
            selected = run.candidates[try DisplayListBox.Response(status: boxStatus, data: boxData).selectedIndex - 1]
        }
        let initRequest = TransactionInit(
            aid: selected.aid,
            currencyCode: 978,
            exponent: 2,
            type: .purchase,
            amount: 1234,
            requestedTags: [Tag(0x84), Tag(0x50)]
        )
        guard try await call(.transactionInit, try initRequest.encodePayload()).0 == .success else { return "ERROR" }
        let process = TransactionProcess(requestedTags: [Tag(0x9F34), Tag(0xDF3E), Tag(0xDF3F)])
        let (processStatus, processData) = try await call(.transactionProcess, try process.encodePayload())
        if processStatus == .emvNotAccepted { return "REFUSED_CARD" }
        guard processStatus == .success else { return "ERROR" }
        run.processTLVs = try TLVResponse(status: processStatus, data: processData).tlvs
        guard let cid = run.processTLVs[Tag(0x9F27)]?.first else { return "ERROR_MISSING_REQUIRED_CRYPTOGRAM" }
        switch cid {
        case 0x40: return "APPROVED"  // spec §8.1 PROJECT CHOICE: TC approved offline
        case 0x00: return "DECLINED"
        case 0x80: break
        default: return "ERROR_WRONG_CRYPTOGRAM_VALUE"
        }
        try await authorisationTags(secured: [0x57, 0x5A, 0x5F, 0x24], plain: [0x5A, 0x9F, 0x34, 0x95])
        let final = TransactionFinalisation(authorisationStatus: .approved, authorisationResponseCode: Array("00".utf8))
        let (finalStatus, _) = try await call(.transactionFinalisation, try final.encodePayload())
        switch finalStatus {
        case .finalisationApproved: return "APPROVED"
        case .finalisationDeclined: return "DECLINED"
        default: return "ERROR"
        }
    }

    private func contactless(_ outcome: NFCOutcome) async throws -> String {
        switch outcome.result {
        case .approved, .declined, .onlineRequest: break
        case .tryAnotherInterface: return "NFC_OUTCOME_TRY_OTHER_INTERFACE"
        case .cancelled: return "CANCELLED"
        case .endApplication: return "NFC_OUTCOME_END_APPLICATION"
        case .failed: return "NFC_OUTCOME_FAILED"
        case nil: return "ERROR_WRONG_NFC_OUTCOME"
        }
        try await authorisationTags(secured: [0x57, 0x5A, 0x9F, 0x6B], plain: [0x5A, 0x9F, 0x27])
        if outcome.result == .approved { return "APPROVED" }
        if outcome.result == .declined { return "DECLINED" }
        if outcome.onlinePINRequested {
            let request = try SimplifiedOnlinePIN(amountText: "12.34", currencyLabel: "EUR").encodePayload()
            let (pinStatus, pinData) = try await call(.simplifiedOnlinePIN, request)
            guard pinStatus == .success else { return "ERROR" }
            run.pin = try SimplifiedOnlinePIN.Response(status: pinStatus, data: pinData)
        }
        let complete = NFCCompleteTransaction(authorisationResponseCode: Array("00".utf8))
        let (status, data) = try await call(.nfcCompleteTransaction, try complete.encodePayload())
        guard status == .success else { return "ERROR" }
        let completed = try NFCCompleteTransaction.Response(status: status, data: data)
        run.completeOutcome = completed.outcome?.bytes
        switch completed.outcome?.result {
        case .approved: return "APPROVED"
        case .declined: return "DECLINED"
        case .cancelled: return "CANCELLED"
        default: return "ERROR"
        }
    }

    private func magstripe() async throws -> String {
        try await authorisationTags(secured: [0xDF, 0x62], plain: [0xDF, 0x60, 0xDF, 0x61])
        switch run.plainTags[Tag(0xDF60)]?.first {
        case 0x02, 0x03: return "CHIP_REQUIRED"
        case 0x04: return "DECLINED"
        case 0x00: return "APPROVED"
        default: return "ERROR"
        }
    }

    private func authorisationTags(secured: [UInt8], plain: [UInt8]) async throws {
        let (securedStatus, blob) = try await call(.getSecuredTag, secured)
        #expect(securedStatus == .success)
        run.securedBlob = blob
        let (plainStatus, plainData) = try await call(.getPlainTag, plain)
        #expect(plainStatus == .success)
        run.plainTags = try TLVResponse(status: plainStatus, data: plainData).tlvs
    }
}

@Suite("Card catalogue: every scenario ends in the status the SDK rules give")
struct CardCatalogueTests {
    static func configuration(_ scenario: CardScenario, seed: UInt64 = SimulatorChoices.defaultSeed)
        -> SimulatorConfiguration
    {
        scenario.configuration(SimulatorConfiguration(seed: seed, timeScale: 0.01))
    }

    static func pay(_ scenario: CardScenario) async throws -> SDKRun {
        let link = try SimulatorHarness(configuration(scenario))
        defer { Task { await link.close() } }
        return try await SDKDriver(link).pay(readers: scenario.readers)
    }

    @Test("the table: the names the CLI uses, unique, visa-contact first and default; named(_:) finds each")
    func table() throws {
        let expected = [
            "visa-contact", "mc-two-apps", "visa-offline-pin", "mc-online-pin", "visa-contactless",
            "mc-contactless-online", "mc-contactless-online-pin", "visa-contactless-declined",
            "visa-contactless-signature", "contactless-try-other", "contactless-end-application",
            "magstripe-chip-required", "no-common-app", "card-refused", "card-removed", "card-timeout",
            "declined-aac", "approved-offline-tc", "declines-second-ac",
        ]
        #expect(Set(CardCatalogue.names) == Set(expected))
        #expect(CardCatalogue.names.count == expected.count)
        #expect(CardCatalogue.default.name == "visa-contact")
        #expect(CardCatalogue.default.script == SimulatorScript.default)
        for name in expected { #expect(CardCatalogue.named(name)?.name == name) }
        #expect(CardCatalogue.named("nope") == nil)
        for scenario in CardCatalogue.all {
            #expect(!scenario.summary.isEmpty && !scenario.summary.contains("\n"))
            if let card = scenario.card { #expect(Masking.luhnValid(card.pan), "\(scenario.name)") }
        }
    }

    @Test("each scenario, driven as the SDK does, ends in its expected status", arguments: CardCatalogue.all)
    func scenarioEndsInExpectedStatus(_ scenario: CardScenario) async throws {
        let run = try await Self.pay(scenario)
        #expect(run.status == scenario.expectedStatus)
        #expect(run.commands.first == .enterSecureSession)
        #expect(run.commands.last == .exitSecureSession)
        #expect(run.steps.last?.1 == .success)

        // The answers that decide the status.
        let cid = run.processTLVs[Tag(0x9F27)]
        switch scenario.name {
        case "visa-contact", "visa-offline-pin", "mc-online-pin":
            #expect(run.activatedReader == 0x11)
            #expect(cid == [0x80])
            #expect(run.steps.contains { $0.0 == .transactionFinalisation && $0.1 == .finalisationApproved })
        case "mc-two-apps":
            #expect(run.candidates.map { Hex.encode($0.aid) } == ["A0000000041010", "A0000000043060"])
            #expect(run.candidates.map(\.label) == ["MASTERCARD", "MAESTRO"])
            #expect(run.candidates.map(\.priority) == [0x01, 0x02])
            #expect(run.commands.contains(.displayListBox))
            #expect(cid == [0x80])
        case "visa-contactless":
            #expect(run.activatedReader == 0x21)
            #expect(run.outcome == [0x30, 0x36])
            #expect(run.plainTags[Tag(0x9F27)] == [0x40])
        case "mc-contactless-online", "mc-contactless-online-pin":
            #expect(run.outcome == [scenario.name.hasSuffix("pin") ? 0x34 : 0x30, 0x3E])
            #expect(run.plainTags[Tag(0x9F27)] == [0x80])
            #expect(run.completeOutcome == [0x30, 0x36])
            #expect((run.pin != nil) == scenario.name.hasSuffix("pin"))
        case "visa-contactless-declined": #expect(run.outcome == [0x30, 0x37])
        case "visa-contactless-signature":
            #expect(run.outcome == [0x31, 0x36])
            #expect(try NFCOutcome(bytes: run.outcome ?? []).signatureRequired)
        case "contactless-try-other": #expect(run.outcome?.last == 0x31)
        case "contactless-end-application": #expect(run.outcome?.last == 0x3F)
        case "magstripe-chip-required":
            #expect(run.activatedReader == 0x41)
            #expect(run.plainTags[Tag(0xDF60)] == [0x02])
            #expect(run.plainTags[Tag(0xDF61)] == [0x54, 0x13, 0x33])
        case "no-common-app": #expect(run.steps.contains { $0.0 == .buildCandidateList && $0.1 == .emvNotSupported })
        case "card-refused": #expect(run.steps.contains { $0.0 == .transactionProcess && $0.1 == .emvNotAccepted })
        case "card-removed":
            #expect(run.steps.contains { $0.0 == .transactionProcess && $0.1 == SimulatorChoices.cardRemovedStatus })
        case "card-timeout": #expect(run.steps.contains { $0.0 == .nfcStartTransaction && $0.1 == .timeout })
        case "declined-aac": #expect(cid == [0x00])
        case "approved-offline-tc": #expect(cid == [0x40])
        case "declines-second-ac":
            #expect(cid == [0x80])
            #expect(run.steps.contains { $0.0 == .transactionFinalisation && $0.1 == .finalisationDeclined })
        default: Issue.record("no checks for \(scenario.name)")
        }

        // CVM results of the contact PIN scenarios (spec §5.2 0x5512: CVM inside TransactionProcess).
        if scenario.name == "visa-offline-pin" { #expect(run.processTLVs[Tag(0x9F34)] == [0x01, 0x03, 0x02]) }
        if scenario.name == "mc-online-pin" {
            #expect(run.processTLVs[Tag(0x9F34)] == [0x42, 0x03, 0x00])
            #expect(run.processTLVs[Tag(0x95)].map { $0[2] & 0x04 } == 0x04)
            #expect(run.processTLVs[Tag(0xDF3F)]?.count == 8)
        }

        // Nothing travels with a clear PAN: not in the wire DATA of any answer, not in any plain answer.
        if let card = scenario.card {
            for (id, data) in run.answers where id != .transactionInit {
                #expect(!Masking.containsUnmaskedPAN(Hex.encode(data)), "\(id) hex")
                #expect(!Masking.containsUnmaskedPAN(String(decoding: data, as: UTF8.self)), "\(id) ASCII")
                #expect(!Hex.encode(data).contains(card.pan), "\(id)")
            }
            for data in run.wire { #expect(!Hex.encode(data).contains(card.pan)) }
            if let masked = run.plainTags[Tag(0x5A)] {
                #expect(Hex.encode(masked) == Self.expectedTruncation(card.pan))
            }
        }
    }

    /// 4761739001010010 → 476173FFFFFF0010 (padded with F to whole bytes).
    static func expectedTruncation(_ pan: String) -> String {
        let digits = Array(pan)
        var out = String(digits.prefix(6)) + String(repeating: "F", count: digits.count - 10) + String(digits.suffix(4))
        if out.count % 2 == 1 { out += "F" }
        return out
    }

    @Test("GetPlainTag of 5A is the truncated PAN 476173FFFFFF0010; the truncation keeps 6 + 4 digits")
    func truncatedPAN() async throws {
        #expect(Hex.encode(SimulatorChoices.truncatedPAN([UInt8](hex: "4761739001010010"))) == "476173FFFFFF0010")
        #expect(
            Hex.encode(SimulatorChoices.truncatedPAN([UInt8](hex: "6799998900000060018F"))) == "679999FFFFFFFFF0018F"
        )
        let run = try await Self.pay(CardCatalogue.default)
        #expect(Hex.encode(try #require(run.plainTags[Tag(0x5A)])) == "476173FFFFFF0010")
    }

    @Test("GetSecuredTag blobs decrypt with the test BDK and the SRED KSN to the profile's PAN and track 2")
    func securedTagsDecrypt() async throws {
        for name in ["visa-contact", "mc-two-apps", "visa-contactless", "mc-contactless-online-pin"] {
            let scenario = try #require(CardCatalogue.named(name))
            let card = try #require(scenario.card)
            let run = try await Self.pay(scenario)
            let clear = try SRED.decrypt(
                ciphertext: try #require(run.securedBlob),
                bdk: CryptoChoices.testBDK,
                ksn: try KSN(bytes: run.sredKSN)
            )
            let tlvs = try TLVParser.parse(clear, rules: .terminal)
            #expect(Masking.panDigits(from: try #require(tlvs[Tag(0x5A)])) == card.pan)
            #expect(tlvs[Tag(0x57)] == card.track2)
            #expect(Masking.panDigits(from: try #require(tlvs[Tag(0x57)])) == card.pan)
            if card.interfaces == [.contactless] { #expect(tlvs[Tag(0x9F6B)] == card.track2) }
        }
        // The magstripe card data block DF62: TLV 56 track 1, 57 track 2.
        let swipe = try #require(CardCatalogue.named("magstripe-chip-required"))
        let run = try await Self.pay(swipe)
        let block = try SRED.decrypt(
            ciphertext: try #require(run.securedBlob),
            bdk: CryptoChoices.testBDK,
            ksn: try KSN(bytes: run.sredKSN)
        )
        let tlvs = try TLVParser.parse(block, rules: .terminal)
        #expect(tlvs[Tag(0x57)] == swipe.card?.track2)
        #expect(tlvs[Tag(0x56)].map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("B5413330089020052^") == true)
    }

    @Test("online-PIN scenarios: the PIN block decrypts with the PIN variant of the DF3E KSN to the scripted PIN")
    func pinBlocksDecrypt() async throws {
        for name in ["mc-online-pin", "mc-contactless-online-pin"] {
            var scenario = try #require(CardCatalogue.named(name))
            scenario.script.pin = "907153"
            let card = try #require(scenario.card)
            let link = try SimulatorHarness(Self.configuration(scenario))
            let driver = SDKDriver(link)
            let first = try await driver.pay(readers: scenario.readers)
            #expect(first.status == "APPROVED")
            // Contact: the PIN typed in TransactionProcess; contactless: SimplifiedOnlinePIN (both: PIN KSN …01).
            let ksn: [UInt8]
            let block: [UInt8]
            if let pin = first.pin {
                (ksn, block) = (pin.pinKSN, pin.pinBlock)
            } else {
                (ksn, block) = (
                    try #require(first.processTLVs[Tag(0xDF3E)]), try #require(first.processTLVs[Tag(0xDF3F)])
                )
            }
            #expect(Hex.encode(ksn) == "FFFF9876543210E00001")
            let key = try DUKPT.sessionKey(bdk: CryptoChoices.testBDK, ksn: try KSN(bytes: ksn), variant: .pin)
            let clearBlock = try PINBlock.decrypt(encryptedBlock: block, key: key)
            #expect(try PINBlock.decode(block: clearBlock, pan: card.pan, format: .iso0) == "907153")

            // Requested formats 1 and 3 in a later transaction: the PIN counter moved on once.
            driver.secured = false
            _ = try await driver.call(.enterSecureSession)
            driver.secured = true
            for format in [PINBlockFormat.iso1, .iso3] {
                let request = try SimplifiedOnlinePIN(
                    amountText: "12.34",
                    currencyLabel: "EUR",
                    pinBlockFormat: try #require(PINBlockFormatCode(rawValue: format.rawValue))
                ).encodePayload()
                let (status, data) = try await driver.call(.simplifiedOnlinePIN, request)
                let pin = try SimplifiedOnlinePIN.Response(status: status, data: data)
                #expect(Hex.encode(pin.pinKSN) == "FFFF9876543210E00002")
                let next = try DUKPT.sessionKey(
                    bdk: CryptoChoices.testBDK,
                    ksn: try KSN(bytes: pin.pinKSN),
                    variant: .pin
                )
                let clear = try PINBlock.decrypt(encryptedBlock: pin.pinBlock, key: next)
                #expect(try PINBlock.decode(block: clear, pan: card.pan, format: format) == "907153")
            }
            await link.close()
        }
    }

    @Test("card-timeout: WaitCard (contact-only path) answers −2 after its timeout too")
    func waitCardTimeout() async throws {
        let scenario = try #require(CardCatalogue.named("card-timeout"))
        let link = try SimulatorHarness(Self.configuration(scenario))
        defer { Task { await link.close() } }
        let answer = try await link.exchange(
            .waitCard,
            try WaitCard(readers: [.icc, .nfc], timeoutSeconds: 5).encodePayload(),
            seq: 0
        )
        #expect(answer.status == .timeout)
    }

    @Test("cardRemovedAt: TransactionFinalisation after the card is pulled answers −35")
    func cardRemovedAtFinalisation() async throws {
        var scenario = CardCatalogue.default
        scenario.script.faults = SimulatorFaults(cardRemovedAt: .transactionFinalisation)
        let run = try await Self.pay(scenario)
        #expect(run.status == "ERROR")
        #expect(run.steps.first { $0.0 == .transactionFinalisation }?.1 == .noCard)
    }

    static let contactFlow: [CommandID] = [
        .enterSecureSession, .nfcStartTransaction, .buildCandidateList, .displayListBox, .transactionInit,
        .transactionProcess, .getSecuredTag, .getPlainTag, .transactionFinalisation, .exitSecureSession,
    ]
    static let contactlessFlow: [CommandID] = [
        .enterSecureSession, .nfcStartTransaction, .getSecuredTag, .getPlainTag, .simplifiedOnlinePIN,
        .nfcCompleteTransaction, .exitSecureSession,
    ]

    @Test("disconnectAt drops the link at every command of the contact and contactless flows; the next payment works")
    func disconnectAtEveryState() async throws {
        for (name, flow) in [("mc-two-apps", Self.contactFlow), ("mc-contactless-online-pin", Self.contactlessFlow)] {
            let base = try #require(CardCatalogue.named(name))
            for command in flow {
                var scenario = base
                scenario.script.faults = SimulatorFaults(disconnectAt: command)
                let simulator = try TerminalSimulator(configuration: Self.configuration(scenario))
                let link = SimulatorHarness(simulator: simulator)
                let run = try await SDKDriver(link).pay(readers: scenario.readers)
                #expect(run.status == "ERROR_DISCONNECT", "\(name) at \(command)")
                #expect(await link.ended() == .disconnected(command))
                // Every command before the fault was answered; the chosen one was not.
                #expect(run.commands == Array(flow.prefix { $0 != command }), "\(name) at \(command)")

                // The next connection to the same terminal completes a payment (starting steps reset it).
                let again = SimulatorHarness(simulator: simulator)
                let next = try await SDKDriver(again).pay(readers: scenario.readers, startingSteps: true)
                #expect(next.status == scenario.expectedStatus, "\(name) after a drop at \(command)")
                #expect(await again.close() == .inputFinished)
            }
        }
    }

    @Test("disconnectOccurrence: the second EnterSecureSession drops the link, the first payment completes")
    func disconnectOccurrence() async throws {
        var scenario = CardCatalogue.default
        scenario.script.faults = SimulatorFaults(disconnectAt: .enterSecureSession, disconnectOccurrence: 2)
        let simulator = try TerminalSimulator(configuration: Self.configuration(scenario))
        let link = SimulatorHarness(simulator: simulator)
        let driver = SDKDriver(link)
        #expect(try await driver.pay(readers: scenario.readers).status == "APPROVED")
        driver.run = SDKRun()
        #expect(try await driver.pay(readers: scenario.readers).status == "ERROR_DISCONNECT")
        #expect(await link.ended() == .disconnected(.enterSecureSession))
    }

    /// Every byte the simulator wrote for one SDK run of `scenario`.
    static func transcript(_ scenario: CardScenario, seed: UInt64) async throws -> [UInt8] {
        let link = try SimulatorHarness(configuration(scenario, seed: seed))
        _ = try await SDKDriver(link).pay(readers: scenario.readers)
        await link.close()
        return await link.inbox.transcript
    }

    @Test("same seed, same bytes: every catalogue scenario's transcript is reproducible")
    func determinism() async throws {
        for scenario in CardCatalogue.all {
            let first = try await Self.transcript(scenario, seed: 7)
            let second = try await Self.transcript(scenario, seed: 7)
            #expect(first == second, "\(scenario.name)")
        }
        let online = try #require(CardCatalogue.named("mc-contactless-online-pin"))
        #expect(try await Self.transcript(online, seed: 7) != Self.transcript(online, seed: 8))
    }
}
