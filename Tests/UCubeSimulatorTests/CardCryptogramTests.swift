import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeSimulator

/// The simulated cards' application cryptograms (spec §12.4): an issuer holding the test IMK verifies every 9F26 the
/// terminal reports, and the second GENERATE AC checks the issuer's 91.
@Suite("Simulated cards: real EMV cryptograms")
struct CardCryptogramTests {
    static let visaAID = [UInt8](hex: "A0000000031010")

    /// The tags a terminal puts in an authorisation request's field 55 for the cryptogram: the data list and 9F26.
    static var field55Tags: [Tag] {
        (EMVApplicationCryptogram.dataTags + [0x9F26, 0x9F27]).map { Tag($0) }
    }

    /// tag → value of `tlvs`, as an acquirer's field 55.
    static func field55(_ tlvs: [TLV]) -> [UInt32: [UInt8]] {
        var data: [UInt32: [UInt8]] = [:]
        for tlv in tlvs where data[tlv.tag.rawValue] == nil { data[tlv.tag.rawValue] = tlv.value }
        return data
    }

    /// The issuer's check, with the test IMK, of the cryptogram in `data` for `card`.
    static func issuerCheck(_ card: CardProfile, _ data: [UInt32: [UInt8]]) throws -> EMVIssuer.ARQCCheck {
        try EMVIssuer.checkARQC(
            issuerMasterKey: CryptoChoices.testIssuerMasterKey, pan: card.pan,
            panSequenceNumber: card.panSequenceNumber, emvData: data)
    }

    /// Secure session, the card inserted, candidate list, init, first GENERATE AC with the field-55 tags requested.
    static func firstGenerateAC(_ link: SimulatorHarness, date: [UInt8]? = nil) async throws -> TLVResponse {
        _ = try await link.exchange(.enterSecureSession, seq: 0)
        let start = try NFCStartTransaction(
            readers: [.icc], cardWaitTimeout: 30, type: .purchase, currencyCode: 978, exponent: 2, amount: 1234
        ).encodePayload()
        try link.send(.nfcStartTransaction, start, seq: 1, secured: true)
        #expect(try await link.secured().status == .success)
        try link.send(.buildCandidateList, seq: 2)
        #expect(try await link.secured().status == .success)
        let initRequest = TransactionInit(
            aid: visaAID, currencyCode: 978, exponent: 2, type: .purchase, amount: 1234, date: date)
        try link.send(.transactionInit, try initRequest.encodePayload(), seq: 3, secured: true)
        #expect(try await link.secured().status == .success)
        let process = TransactionProcess(tvr: [0x00, 0x00, 0x00, 0x80, 0x00], requestedTags: field55Tags)
        try link.send(.transactionProcess, try process.encodePayload(), seq: 4, secured: true)
        let processed = try await link.secured()
        #expect(processed.status == .success)
        return try TLVResponse(status: processed.status, data: processed.data)
    }

    /// The second GENERATE AC with 8A `arc` and 91 `tag91`, answering the field-55 tags and 8A.
    static func secondGenerateAC(_ link: SimulatorHarness, arc: String, tag91: [UInt8]?) async throws
        -> TransactionFinalisation.Response
    {
        let final = TransactionFinalisation(
            authorisationStatus: arc == "00" ? .approved : .declined, authorisationResponseCode: Array(arc.utf8),
            issuerAuthenticationData: tag91, requestedTags: field55Tags + [Tag(0x8A)])
        try link.send(.transactionFinalisation, try final.encodePayload(), seq: 5, secured: true)
        let finalised = try await link.secured()
        return try TransactionFinalisation.Response(status: finalised.status, data: finalised.data)
    }

    static func link(_ card: String = CardCatalogue.defaultName, seed: UInt64 = 7) throws -> SimulatorHarness {
        let scenario = try #require(CardCatalogue.named(card))
        return try SimulatorHarness(scenario.configuration(SimulatorConfiguration(seed: seed, timeScale: 0.01)))
    }

    /// The 9F10 CVR byte 2 (9F10 byte 5) of `data`.
    static func cvrByte2(_ data: [UInt32: [UInt8]]) -> UInt8? { data[0x9F10].flatMap { $0.count > 4 ? $0[4] : nil } }

    // MARK: The flow an issuer sees

    @Test("the issuer verifies the ARQC; its 91 with 00 gives TC (status 7), and the TC verifies too")
    func issuerApprovesWithAValid91() async throws {
        let link = try Self.link()
        defer { Task { await link.close() } }
        let card = CardProfile.visaContact
        let first = Self.field55(try await Self.firstGenerateAC(link).tlvs)
        #expect(first[0x9F27] == [0x80])
        #expect(first[0x9F10] == [UInt8](hex: "06010A03A00000"))  // ARQC, second GENERATE AC not yet
        let check = try Self.issuerCheck(card, first)
        #expect(check.isValid)

        let final = try await Self.secondGenerateAC(
            link, arc: "00", tag91: try check.issuerAuthenticationData(arc: Array("00".utf8)))
        #expect(final.status == .finalisationApproved)
        let second = Self.field55(final.tlvs)
        #expect(second[0x9F27] == [0x40])
        #expect(second[0x9F36] == first[0x9F36] && second[0x9A] == first[0x9A] && second[0x9F37] == first[0x9F37])
        #expect(Self.cvrByte2(second) == 0x60)  // second GENERATE AC TC, first ARQC, no failure
        // The TC is the same MAC over the second answer's data (its CVR changed), under the same session key.
        #expect(second[0x9F26] != first[0x9F26])
        #expect(try Self.issuerCheck(card, second).isValid)
    }

    @Test("a 91 whose ARPC does not verify declines (AAC, status 8) whatever 8A says, and says so in the CVR")
    func aBad91Declines() async throws {
        for tamper in [0, 7, 8, 9] {
            let link = try Self.link()
            let first = Self.field55(try await Self.firstGenerateAC(link).tlvs)
            var tag91 = try Self.issuerCheck(.visaContact, first).issuerAuthenticationData(arc: Array("00".utf8))
            tag91[tamper] ^= 0x01
            let final = try await Self.secondGenerateAC(link, arc: "00", tag91: tag91)
            #expect(final.status == .finalisationDeclined, "byte \(tamper)")
            let second = Self.field55(final.tlvs)
            #expect(second[0x9F27] == [0x00])
            #expect(Self.cvrByte2(second) == 0x28)  // second AAC, first ARQC, issuer authentication failed
            #expect(try Self.issuerCheck(.visaContact, second).isValid)  // a real AAC
            await link.close()
        }
    }

    @Test("a 91 for another ARC than 8A declines; a 91 of another length declines; one for 05 with 05 declines")
    func the91MustBeForThisARC() async throws {
        for (arc91, arc, length, failed) in [("05", "00", 10, true), ("00", "00", 8, true), ("05", "05", 10, false)] {
            let link = try Self.link()
            let first = Self.field55(try await Self.firstGenerateAC(link).tlvs)
            let tag91 = try Self.issuerCheck(.visaContact, first).issuerAuthenticationData(arc: Array(arc91.utf8))
            let final = try await Self.secondGenerateAC(link, arc: arc, tag91: Array(tag91.prefix(length)))
            #expect(final.status == .finalisationDeclined)
            #expect(Self.cvrByte2(Self.field55(final.tlvs)) == (failed ? 0x28 : 0x20), "91 for \(arc91), 8A \(arc)")
            await link.close()
        }
    }

    @Test("without 91, 8A decides as before: 00 → TC, 05 → AAC")
    func without91TheARCDecides() async throws {
        for (arc, status) in [("00", Status.finalisationApproved), ("05", .finalisationDeclined)] {
            let link = try Self.link()
            _ = try await Self.firstGenerateAC(link)
            let final = try await Self.secondGenerateAC(link, arc: arc, tag91: nil)
            #expect(final.status == status)
            #expect(try Self.issuerCheck(.visaContact, Self.field55(final.tlvs)).isValid)
            await link.close()
        }
    }

    @Test("declines-second-ac: ARQC at the first GENERATE AC, AAC at the second even with a valid 91 and 00")
    func theCardThatDeclinesTheSecondGenerateAC() async throws {
        let card = try #require(CardCatalogue.named("declines-second-ac")?.card)
        #expect(card.declinesSecondGenerateAC)
        let link = try Self.link("declines-second-ac")
        defer { Task { await link.close() } }
        let first = Self.field55(try await Self.firstGenerateAC(link).tlvs)
        #expect(first[0x9F27] == [0x80])
        let check = try Self.issuerCheck(card, first)
        #expect(check.isValid)
        // Its own key: the default card's key does not verify it.
        #expect(try !Self.issuerCheck(.visaContact, first).isValid)
        let final = try await Self.secondGenerateAC(
            link, arc: "00", tag91: try check.issuerAuthenticationData(arc: Array("00".utf8)))
        #expect(final.status == .finalisationDeclined)
        let second = Self.field55(final.tlvs)
        #expect(second[0x9F27] == [0x00])
        #expect(Self.cvrByte2(second) == 0x20)  // AAC, not an issuer-authentication failure
        #expect(try Self.issuerCheck(card, second).isValid)
    }

    @Test("the first GENERATE AC's TC and AAC, and a contactless read's cryptogram, verify with the test IMK")
    func offlineAndContactlessCryptogramsVerify() async throws {
        for (name, cid, cvr) in [("approved-offline-tc", 0x40, 0x90), ("declined-aac", 0x00, 0x80)]
            as [(String, UInt8, UInt8)]
        {
            let link = try Self.link(name)
            let card = try #require(CardCatalogue.named(name)?.card)
            let first = Self.field55(try await Self.firstGenerateAC(link, date: [0x25, 0x06, 0x30]).tlvs)
            #expect(first[0x9F27] == [cid])
            #expect(first[0x9A] == [0x25, 0x06, 0x30])
            #expect(Self.cvrByte2(first) == cvr)
            #expect(try Self.issuerCheck(card, first).isValid, "\(name)")
            await link.close()
        }
        for name in ["visa-contactless", "mc-contactless-online", "visa-contactless-declined"] {
            let link = try Self.link(name)
            let card = try #require(CardCatalogue.named(name)?.card)
            _ = try await link.exchange(.enterSecureSession, seq: 0)
            let start = try NFCStartTransaction(
                readers: [.nfc], cardWaitTimeout: 30, type: .purchase, currencyCode: 978, exponent: 2, amount: 500,
                requestedTags: Self.field55Tags
            ).encodePayload()
            try link.send(.nfcStartTransaction, start, seq: 1, secured: true)
            let answer = try await link.secured()
            let read = try NFCStartTransaction.Response(status: answer.status, data: answer.data)
            let data = Self.field55(read.tlvs)
            #expect(data[0x9F26]?.count == 8 && data[0x9F37]?.count == 4)
            #expect(try Self.issuerCheck(card, data).isValid, "\(name)")
            await link.close()
        }
    }

    // MARK: Determinism

    /// 9F26 draws nothing from the seeded generator: the same seed gives the same cryptogram, another seed another
    /// unpredictable number and so another cryptogram.
    @Test("the same seed gives the same 9F26; another seed another")
    func cryptogramsFollowTheSeed() async throws {
        func arqc(seed: UInt64) async throws -> [UInt8]? {
            let link = try Self.link(seed: seed)
            defer { Task { await link.close() } }
            return try await Self.firstGenerateAC(link, date: [0x25, 0x01, 0x01]).tlvs[Tag(0x9F26)]
        }
        let first = try await arqc(seed: 11)
        #expect(first?.count == 8)
        #expect(try await arqc(seed: 11) == first)
        #expect(try await arqc(seed: 12) != first)
    }

    // MARK: The pure decisions

    @Test("the second GENERATE AC's decision table")
    func secondGenerateACDecision() {
        let ok = Array("00".utf8), no = Array("05".utf8)
        typealias Auth = EMVApplicationCryptogram.IssuerAuthentication
        let rows: [([UInt8], Auth?, Bool, CryptogramType, Bool)] = [
            (ok, nil, false, .tc, false),
            (no, nil, false, .aac, false),
            (ok, .passed(arc: ok), false, .tc, false),
            (no, .passed(arc: no), false, .aac, false),
            (ok, .passed(arc: no), false, .aac, true),
            (ok, .failed, false, .aac, true),
            (no, .failed, false, .aac, true),
            (ok, nil, true, .aac, false),
            (ok, .passed(arc: ok), true, .aac, false),
            (ok, .failed, true, .aac, true),
        ]
        for (arc, auth, declines, cryptogram, failed) in rows {
            let decision = CardCryptogram.secondGenerateAC(arc: arc, issuerAuthentication: auth, declines: declines)
            #expect(
                decision == CardCryptogram.SecondGenerateAC(cryptogram: cryptogram, issuerAuthenticationFailed: failed),
                "\(arc) \(String(describing: auth)) declines \(declines)")
        }
    }

    /// VCPS 2.2 Appendix M / VIS CVR byte 2, as `IssuerApplicationData.visaCVR` explains it.
    @Test("9F10's Visa CVR byte 2 says which cryptograms were answered and whether issuer authentication failed")
    func cvrBits() {
        let iad = [UInt8](hex: "06010A03A00000")
        func byte(_ first: CryptogramType, _ second: CardCryptogram.SecondGenerateAC? = nil, base: [UInt8] = iad)
            -> String
        {
            Hex.encode(CardCryptogram.issuerApplicationData(base, first: first, second: second))
        }
        #expect(byte(.arqc) == "06010A03A00000")
        #expect(byte(.tc) == "06010A03900000")
        #expect(byte(.aac) == "06010A03800000")
        #expect(byte(.arqc, .init(cryptogram: .tc, issuerAuthenticationFailed: false)) == "06010A03600000")
        #expect(byte(.arqc, .init(cryptogram: .aac, issuerAuthenticationFailed: true)) == "06010A03280000")
        // Offline PIN performed (bit 3) stays, an earlier failure (bit 4) does not; the bytes after the CVR stay.
        #expect(byte(.arqc, base: [UInt8](hex: "06010A03A41000")) == "06010A03A41000")
        #expect(byte(.tc, base: [UInt8](hex: "06010A03AC1000" + "02ABCD")) == "06010A03941000" + "02ABCD")
        // Not the Visa layout: as it is.
        for other in ["0110A00003020000", "06010A04A00000", "06010A03A0"] {
            #expect(byte(.aac, base: [UInt8](hex: other)) == other)
        }
        let explained = Explainer.explain(
            TLV(
                Tag(0x9F10),
                CardCryptogram.issuerApplicationData(
                    iad, first: .arqc, second: .init(cryptogram: .aac, issuerAuthenticationFailed: true))),
            context: .payment)
        #expect(explained?.lines.contains("CVR byte 2 bit 4: Issuer Authentication performed and failed") == true)
    }
}
