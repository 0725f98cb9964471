import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeSimulator

@Suite("TerminalSimulator: payments on the default Visa card")
struct PaymentSimulationTests {
    static let visaAID = [UInt8](hex: "A0000000031010")
    static let pan = [UInt8](hex: "4761739001010010")
    static let sessionKSN = "FFFF9876543210E00001"

    static func startNFC(_ readers: [CardReader], requested: [Tag] = [Tag(0x9F02)]) throws -> [UInt8] {
        try NFCStartTransaction(
            readers: readers,
            cardWaitTimeout: 30,
            type: .purchase,
            currencyCode: 978,
            exponent: 2,
            amount: 1234,
            requestedTags: requested
        ).encodePayload()
    }

    /// Enter SS, card inserted through the single entry point, candidate list, init, process: the card asks for ARQC.
    static func runToARQC(_ link: SimulatorHarness) async throws -> TLVResponse {
        let ksn = try await link.exchange(.enterSecureSession, seq: 0)
        #expect(ksn.data == [UInt8](hex: sessionKSN))

        try link.send(.nfcStartTransaction, try startNFC([.icc, .nfc]), seq: 1, secured: true)
        let start = try await link.secured()
        #expect(start.status == .success)
        let started = try NFCStartTransaction.Response(status: start.status, data: start.data)
        #expect(started.activatedReader == .icc)
        #expect(started.outcome == nil)
        #expect(started.tlvs[Tag(0x9F02)] == [0x00, 0x00, 0x00, 0x00, 0x12, 0x34])

        try link.send(.buildCandidateList, seq: 2)  // empty payload: sent plain (spec §2.3), answered secured
        let list = try await link.secured()
        let candidates = try BuildCandidateList.Response(status: list.status, data: list.data).candidates
        #expect(candidates.map(\.aid) == [visaAID])
        #expect(candidates.map(\.label) == ["VISA CREDIT"])

        let initRequest = TransactionInit(
            aid: visaAID,
            currencyCode: 978,
            exponent: 2,
            type: .purchase,
            amount: 1234,
            requestedTags: [Tag(0x5A), Tag(0x84), Tag(0x50), Tag(0x9F02), Tag(0x5F2A)]
        )
        try link.send(.transactionInit, try initRequest.encodePayload(), seq: 3, secured: true)
        let initialised = try await link.secured()
        #expect(initialised.status == .success)
        // SIGNED_CIPHERED output: decrypt with the host's data-response key.
        let key = try HostKeys.key(.dataResponse, ksn: sessionKSN)
        let clear = try SRED.decrypt(ciphertext: initialised.data, key: key)
        let initTLVs = try TLVParser.parse(clear, rules: .terminal)
        #expect(initTLVs[Tag(0x5A)] == pan)
        #expect(initTLVs[Tag(0x84)] == visaAID)
        #expect(initTLVs[Tag(0x50)] == Array("VISA CREDIT".utf8))
        #expect(initTLVs[Tag(0x5F2A)] == [0x09, 0x78])

        try link.send(.transactionProcess, try TransactionProcess().encodePayload(), seq: 4, secured: true)
        let processed = try await link.secured()
        #expect(processed.status == .success)
        let mac = try #require(processed.envelope?.mac)
        #expect(
            try RetailMAC.verify(mac: mac, key: HostKeys.key(.macResponse, ksn: sessionKSN), data: processed.macInput)
        )
        return try TLVResponse(status: processed.status, data: processed.data)
    }

    @Test("contact flow: ARQC, then finalisation with 8A 00 answers status 7 (TC)")
    func approvedContactFlow() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        let gac = try await Self.runToARQC(link)
        #expect(gac.cryptogram == .arqc)
        #expect(gac.tlvs.map(\.tag) == [Tag(0x9F27), Tag(0x9F26), Tag(0x9F10), Tag(0x9F36), Tag(0x95), Tag(0x9B)])
        #expect(gac[Tag(0x9F26)]?.count == 8)
        #expect(gac[Tag(0x9F36)] == [0x00, 0x11])
        #expect(gac[Tag(0x5A)] == nil)  // never plain

        let final = TransactionFinalisation(
            authorisationStatus: .approved,
            authorisationResponseCode: Array("00".utf8),
            requestedTags: [Tag(0x8A)]
        )
        try link.send(.transactionFinalisation, try final.encodePayload(), seq: 5, secured: true)
        let finalised = try await link.secured()
        #expect(finalised.status == .finalisationApproved)
        let response = try TransactionFinalisation.Response(status: finalised.status, data: finalised.data)
        #expect(response.approved)
        #expect(response.cryptogram == .tc)
        #expect(response.tlvs[Tag(0x8A)] == Array("00".utf8))

        #expect(try await link.exchange(.exitSecureSession, seq: 6).status == .success)
        #expect(
            try await link.exchange(.waitCardRemoval, try WaitCardRemoval().encodePayload(), seq: 7).status == .success
        )
    }

    @Test("contact flow: finalisation with 8A 05 answers status 8 (AAC)")
    func declinedContactFlow() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await Self.runToARQC(link)
        let final = TransactionFinalisation(authorisationStatus: .declined, authorisationResponseCode: Array("05".utf8))
        try link.send(.transactionFinalisation, try final.encodePayload(), seq: 5, secured: true)
        let finalised = try await link.secured()
        #expect(finalised.status == .finalisationDeclined)
        #expect(try TLVResponse(status: .success, data: finalised.data).cryptogram == .aac)
    }

    /// The current SDK's BuildCandidateList (`C2 02 00 01 9C 01 00`, libApp 1.3.8.19) gets the full TLV layout it
    /// parses (spec §5.2 0x5510): `C2 02 00 01 C3 01 NN`, then the candidates, every length one byte.
    @Test("BuildCandidateList in the current SDK's form answers the full TLV candidate list")
    func buildCandidateListFullTLV() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        try link.send(.nfcStartTransaction, try Self.startNFC([.icc, .nfc]), seq: 1, secured: true)
        #expect(try await link.secured().status == .success)
        let request = try BuildCandidateList.currentSDK(transactionType: 0x00).encodePayload()
        #expect(request == [UInt8](hex: "C2 02 00 01 9C 01 00"))
        try link.send(.buildCandidateList, request, seq: 2, secured: true)
        let list = try await link.secured()
        #expect(list.status == .success)
        #expect(Array(list.data.prefix(7)) == [UInt8](hex: "C2 02 00 01 C3 01 01"))
        // No long-form length anywhere: the current SDK miscounts `81 LL` (spec §5.2).
        let items = try TLVParser.parse(list.data, rules: .strict)
        #expect(items.allSatisfy { $0.value.count <= 0x7F })
        let candidates = try BuildCandidateList.Response(status: list.status, data: list.data).candidates
        #expect(candidates.map(\.aid) == [Self.visaAID])
        #expect(candidates.map(\.label) == ["VISA CREDIT"])
    }

    @Test("out of EMV order: TransactionProcess before TransactionInit answers −287; no card answers −35")
    func outOfOrder() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        try link.send(.buildCandidateList, seq: 1)
        #expect(try await link.secured().status == .noCard)
        _ = try await link.exchange(
            .waitCard,
            try WaitCard(readers: [.icc], timeoutSeconds: 30).encodePayload(),
            seq: 2
        )
        try link.send(.transactionProcess, try TransactionProcess().encodePayload(), seq: 3, secured: true)
        #expect(try await link.secured().status == .badTerminalState)
    }

    @Test("NFC as the only reader: the contactless read answers DF70 21 and outcome 30 36 (approved offline)")
    func contactlessApprovedOffline() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        try link.send(
            .nfcStartTransaction,
            try Self.startNFC([.nfc], requested: [Tag(0x9F02), Tag(0x9F27), Tag(0x5A)]),
            seq: 1,
            secured: true
        )
        let response = try await link.secured()
        #expect(response.status == .success)
        let started = try NFCStartTransaction.Response(status: response.status, data: response.data)
        #expect(started.activatedReader == .nfc)
        #expect(started.outcome?.bytes == [0x30, 0x36])
        #expect(started.outcome?.result == .approved)
        #expect(started.tlvs[Tag(0x9F27)] == [0x40])
        #expect(started.tlvs[Tag(0x5A)] == nil)

        try link.send(.getSecuredTag, [0x57], seq: 2, secured: true)
        let secured = try await link.secured()
        let track2 = try SRED.decrypt(
            ciphertext: secured.data,
            bdk: CryptoChoices.testBDK,
            ksn: try KSN(hex: Self.sessionKSN)
        )
        #expect(Array(track2.prefix(9)) == [UInt8](hex: "4761739001010010D2"))

        let complete = NFCCompleteTransaction(authorisationResponseCode: Array("00".utf8))
        try link.send(.nfcCompleteTransaction, try complete.encodePayload(), seq: 3, secured: true)
        let completed = try await link.secured()
        #expect(
            try NFCCompleteTransaction.Response(status: completed.status, data: completed.data).outcome?.result
                == .approved
        )
    }

    @Test("GetSecuredTag of 5A alone is the bare PAN, TDES-CBC under the data-response key (spec §12.3)")
    func securedTagDecryptsToPAN() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        _ = try await link.exchange(
            .waitCard,
            try WaitCard(readers: [.icc], timeoutSeconds: 30).encodePayload(),
            seq: 1
        )

        try link.send(.getSecuredTag, [0x5A], seq: 2, secured: true)
        let response = try await link.secured()
        #expect(response.status == .success)
        #expect(response.data.count == 8)
        let blob = try SecuredTagResponse(status: response.status, data: response.data).blob
        let plain = try SRED.decrypt(ciphertext: blob, bdk: CryptoChoices.testBDK, ksn: try KSN(hex: Self.sessionKSN))
        #expect(plain == Self.pan)
        let mac = try #require(response.envelope?.mac)
        #expect(
            try RetailMAC.verify(
                mac: mac,
                key: HostKeys.key(.macResponse, ksn: Self.sessionKSN),
                data: response.macInput
            )
        )

        // Several tags: TLV (spec §5.2).
        try link.send(.getSecuredTag, [0x5A, 0x5F, 0x24], seq: 3, secured: true)
        let several = try await link.secured()
        let clear = try SRED.decrypt(
            ciphertext: several.data,
            bdk: CryptoChoices.testBDK,
            ksn: try KSN(hex: Self.sessionKSN)
        )
        let tlvs = try TLVParser.parse(clear, rules: .terminal)
        #expect(tlvs[Tag(0x5A)] == Self.pan)
        #expect(tlvs[Tag(0x5F24)] == [0x25, 0x12, 0x31])
    }

    @Test("SimplifiedOnlinePIN answers DF3E PIN KSN and DF3F ISO-0 block of 1234 under the PIN variant")
    func onlinePIN() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        let request = try SimplifiedOnlinePIN(amountText: "12.34", currencyLabel: "EUR").encodePayload()

        try link.send(.simplifiedOnlinePIN, request, seq: 1, secured: true)
        let first = try await link.secured()
        let pin = try SimplifiedOnlinePIN.Response(status: first.status, data: first.data)
        #expect(pin.pinKSN == [UInt8](hex: "FFFF9876543210E00001"))
        let key = try HostKeys.key(.pin, ksn: "FFFF9876543210E00001")
        #expect(key == [UInt8](hex: "042666B49184CF5C68DE9628D0397B36"))  // spec §12.3 counter 1 PIN key
        #expect(try PINBlock.decrypt(block: pin.pinBlock, pan: "4761739001010010", format: .iso0, key: key) == "1234")

        // Same session: same PIN KSN. Next session: the PIN counter moves on.
        try link.send(.simplifiedOnlinePIN, request, seq: 2, secured: true)
        #expect(
            try SimplifiedOnlinePIN.Response(status: .success, data: try await link.secured().data).pinKSN == pin.pinKSN
        )
        _ = try await link.exchange(.exitSecureSession, seq: 3)
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        try link.send(.simplifiedOnlinePIN, request, seq: 1, secured: true)
        #expect(
            try SimplifiedOnlinePIN.Response(status: .success, data: try await link.secured().data).pinKSN
                == [UInt8](hex: "FFFF9876543210E00002")
        )
    }

    @Test("the current dialect's SimplifiedOnlinePIN (DF44 in the request) is answered LL LL KSN LL LL block")
    func onlinePINCurrentDialect() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        let request = try SimplifiedOnlinePIN(
            amountText: "12.34", currencyLabel: "EUR",
            amount: SimplifiedOnlinePIN.Amount(currencyCode: 978, exponent: 2, minorUnits: 1234, keySlot: 0x40)
        ).encodePayload()
        try link.send(.simplifiedOnlinePIN, request, seq: 1, secured: true)
        let answer = try await link.secured()
        // spec §5.2 0x5171: 00 0A <KSN> 00 08 <block>, what the vendor's current libraries read.
        #expect(Array(answer.data.prefix(12)) == [UInt8](hex: "000AFFFF9876543210E00001"))
        #expect(Array(answer.data[12..<14]) == [0x00, 0x08] && answer.data.count == 22)
        let pin = try SimplifiedOnlinePIN.Response(status: answer.status, data: answer.data)
        let key = try HostKeys.key(.pin, ksn: "FFFF9876543210E00001")
        #expect(try PINBlock.decrypt(block: pin.pinBlock, pan: "4761739001010010", format: .iso0, key: key) == "1234")
    }

    /// One full session, returning every byte the simulator wrote.
    static func transcript(seed: UInt64) async throws -> [UInt8] {
        let link = try SimulatorHarness(SimulatorConfiguration(seed: seed, timeScale: 0.01))
        _ = try await runToARQC(link)
        let final = TransactionFinalisation(authorisationStatus: .approved, authorisationResponseCode: Array("00".utf8))
        try link.send(.transactionFinalisation, try final.encodePayload(), seq: 5, secured: true)
        _ = try await link.next()
        try link.send(.getSecuredTag, [0x57, 0x5A], seq: 6, secured: true)
        _ = try await link.next()
        try link.send(
            .simplifiedOnlinePIN,
            try SimplifiedOnlinePIN(amountText: "12.34", currencyLabel: "EUR", pinBlockFormat: .iso3).encodePayload(),
            seq: 7,
            secured: true
        )
        _ = try await link.next()
        await link.close()
        return await link.inbox.transcript
    }

    @Test("two simulators with the same seed write byte-identical transcripts; another seed differs")
    func determinism() async throws {
        let first = try await Self.transcript(seed: 42)
        let second = try await Self.transcript(seed: 42)
        #expect(first.count > 200)
        #expect(first == second)
        let other = try await Self.transcript(seed: 43)
        #expect(other != first)
    }
}
