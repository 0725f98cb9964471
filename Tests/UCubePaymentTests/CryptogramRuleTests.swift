import Testing
import UCubeProtocol

@testable import UCubePayment

/// The card's cryptogram decides an approval, not the terminal's status (docs/protocol.md §8.3, issue 13): every
/// combination of status and 9F27, with and without 9F26, at each place an approval can come from.
///
/// 9F27 values: 00 AAC, 40 TC, 80 ARQC, C0 reserved (EMV Book 3 Table 14: bits 8–7 give the type).
@Suite struct CryptogramRuleTests {
    static let ac = Fixture.cryptogram

    /// What a verdict ends the payment as.
    static func status(_ verdict: CryptogramRule.Verdict) -> PaymentStatus {
        switch verdict {
        case .approve: .approved
        case .decline: .declined
        case .missing: .errorMissingRequiredCryptogram
        case .wrong: .errorWrongCryptogramValue
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let cid: [UInt8]?
        let cryptogram: [UInt8]?
        let expected: PaymentStatus
        var testDescription: String {
            "9F27 \(cid.map(\.hex) ?? "absent"), 9F26 \(cryptogram.map { "\($0.count) bytes" } ?? "absent") → \(expected.rawValue)"
        }
    }

    /// The rule for an approval that must be a TC (TransactionProcess's TC, finalisation status 7, an offline
    /// contactless approval).
    static let tcRequired: [Case] = [
        Case(cid: nil, cryptogram: ac, expected: .errorMissingRequiredCryptogram),
        Case(cid: nil, cryptogram: nil, expected: .errorMissingRequiredCryptogram),
        Case(cid: [0x00], cryptogram: ac, expected: .declined),
        Case(cid: [0x00], cryptogram: nil, expected: .declined),
        Case(cid: [0x40], cryptogram: ac, expected: .approved),
        Case(cid: [0x40], cryptogram: nil, expected: .errorMissingRequiredCryptogram),
        Case(cid: [0x40], cryptogram: [1, 2, 3], expected: .errorWrongCryptogramValue),
        Case(cid: [0x80], cryptogram: ac, expected: .errorWrongCryptogramValue),
        Case(cid: [0xC0], cryptogram: ac, expected: .errorWrongCryptogramValue),
        Case(cid: [0x40, 0x00], cryptogram: ac, expected: .errorWrongCryptogramValue),
        Case(cid: [], cryptogram: ac, expected: .errorWrongCryptogramValue),
    ]

    @Test(arguments: tcRequired)
    func ruleForATC(_ c: Case) {
        #expect(Self.status(CryptogramRule.judge(cid: c.cid, cryptogram: c.cryptogram, accepting: [.tc])) == c.expected)
    }

    /// Drives the machine through `feeds`, then answers every closing step as a good terminal would, and returns the
    /// final status.
    static func finish(_ request: PaymentRequest, _ feeds: [Feed]) -> PaymentStatus? {
        var (m, action) = replay(request, feeds)
        for _ in 0..<10 {
            if let status = action.finished { return status }
            switch action.command {
            case .getPlainTag: action = m.responseReceived(Fixture.plainOK)
            case .getSecuredTag: action = m.responseReceived(Fixture.securedOK)
            case .waitCardRemoval: action = m.responseReceived(Fixture.removedOK)
            case .exitSecureSession: action = m.responseReceived(Fixture.exitOK)
            default: return nil
            }
        }
        return nil
    }

    /// The cryptogram that approved is the one the payment reports (journal, receipt, --json): a 9F26 or 9F27 read
    /// after the decision (the finalisation tags) or a second copy in the same answer does not replace it. Found by
    /// the whole-driver fuzz target (Fuzz/README.md): an APPROVED payment reported a 3-byte 9F26.
    @Test(arguments: [false, true])
    func theApprovingCryptogramIsTheOneReported(duplicateInTheSameAnswer: Bool) {
        var tlvs = [TLV(Tag(0x9F27), [0x40]), TLV(Tag(0x9F26), Self.ac)]
        if duplicateInTheSameAnswer { tlvs += [TLV(Tag(0x9F27), [0x00]), TLV(Tag(0x9F26), [1, 2, 3])] }
        let processed = TerminalResponse.ok(TransactionProcess.self, TLVResponse(tlvs: tlvs))
        var (m, action) = replay(
            Fixture.request(),
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])),
                .response(Fixture.initOK),
                .task(.riskManagementDone(tvr: [0, 0, 0, 0, 0])), .response(processed),
            ])
        let later = TerminalResponse.ok(
            GetPlainTag.self, TLVResponse(tlvs: [TLV(Tag(0x9F27), [0x80]), TLV(Tag(0x9F26), [9, 9, 9])]))
        var readAfter = false
        for _ in 0..<10 where action.finished == nil {
            switch action.command {
            case .getPlainTag:
                action = m.responseReceived(later)
                readAfter = true
            case .getSecuredTag: action = m.responseReceived(Fixture.securedOK)
            case .waitCardRemoval: action = m.responseReceived(Fixture.removedOK)
            case .exitSecureSession: action = m.responseReceived(Fixture.exitOK)
            default: break
            }
        }
        #expect(readAfter, "the closing steps read plain tags after the decision")
        #expect(action.finished == .approved)
        #expect(m.context.cryptogram == Self.ac)
        #expect(m.context.cryptogramType == .tc)
    }

    /// Contact, first GENERATE AC (TransactionProcess): a TC approves offline only with its 9F26; an AAC declines;
    /// an ARQC goes online only with its 9F26.
    @Test(arguments: tcRequired)
    func transactionProcess(_ c: Case) {
        var tlvs: [TLV] = []
        if let cid = c.cid { tlvs.append(TLV(Tag(0x9F27), cid)) }
        if let cryptogram = c.cryptogram { tlvs.append(TLV(Tag(0x9F26), cryptogram)) }
        let processed = TerminalResponse.ok(TransactionProcess.self, TLVResponse(tlvs: tlvs))
        let feeds: [Feed] =
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])),
                .response(Fixture.initOK),
                .task(.riskManagementDone(tvr: [0, 0, 0, 0, 0])), .response(processed),
            ]
        // An ARQC with its 9F26 is not a final answer: it goes to the authorization (tested elsewhere).
        let expected: PaymentStatus? = c.cid == [0x80] && c.cryptogram == Self.ac ? nil : c.expected
        #expect(Self.finish(Fixture.request(), feeds) == expected)
    }

    @Test func anARQCWithout9F26IsNotAuthorized() {
        let processed = TerminalResponse.ok(TransactionProcess.self, TLVResponse(tlvs: [TLV(Tag(0x9F27), [0x80])]))
        let feeds: [Feed] =
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])),
                .response(Fixture.initOK),
                .task(.riskManagementDone(tvr: [0, 0, 0, 0, 0])), .response(processed),
            ]
        #expect(Self.finish(Fixture.request(), feeds) == .errorMissingRequiredCryptogram)
    }

    /// Contact, second GENERATE AC (TransactionFinalisation): status 7 approves only with a TC and its 9F26; status 8
    /// declines whatever 9F27 says.
    @Test(arguments: [true, false], tcRequired)
    func finalisation(status7: Bool, _ c: Case) {
        var tlvs: [TLV] = []
        if let cid = c.cid { tlvs.append(TLV(Tag(0x9F27), cid)) }
        if let cryptogram = c.cryptogram { tlvs.append(TLV(Tag(0x9F26), cryptogram)) }
        let feeds: [Feed] =
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])),
                .response(Fixture.initOK),
                .task(.riskManagementDone(tvr: [0, 0, 0, 0, 0])), .response(Fixture.processed(cid: [0x80])),
                .response(Fixture.securedOK), .response(Fixture.plainWithPAN), .task(.authorized(.approved)),
                .response(Fixture.finalised(status: status7, tlvs: tlvs)),
            ]
        #expect(Self.finish(Fixture.request(), feeds) == (status7 ? c.expected : .declined))
    }

    /// Contactless, an offline approval (outcome 30 36): the StartNFC answer must carry the card's TC and 9F26.
    @Test(arguments: tcRequired)
    func contactlessOfflineApproval(_ c: Case) {
        var tlvs: [TLV] = []
        if let cid = c.cid { tlvs.append(TLV(Tag(0x9F27), cid)) }
        if let cryptogram = c.cryptogram { tlvs.append(TLV(Tag(0x9F26), cryptogram)) }
        let tapped = TerminalResponse.ok(
            NFCStartTransaction.self,
            .init(activatedReader: .nfc, outcome: NFCOutcome(cvmByte: 0x30, resultByte: 0x36), tlvs: tlvs))
        #expect(Self.finish(Fixture.request(), startingFeeds + [.response(tapped)]) == c.expected)
    }

    /// Contactless, online: CompleteNFC answers approved (30 36). The card's cryptogram is then its ARQC (or a TC
    /// from CompleteNFC), and the issuer must have approved.
    @Test(arguments: [
        Case(cid: nil, cryptogram: nil, expected: .approved),  // CompleteNFC adds nothing: StartNFC's ARQC stands
        Case(cid: [0x40], cryptogram: ac, expected: .approved),
        Case(cid: [0x00], cryptogram: ac, expected: .declined),
        Case(cid: [0xC0], cryptogram: ac, expected: .errorWrongCryptogramValue),
        Case(cid: [0x40], cryptogram: nil, expected: .errorMissingRequiredCryptogram),
    ])
    func contactlessOnlineApproval(_ c: Case) {
        var tlvs: [TLV] = []
        if let cid = c.cid { tlvs.append(TLV(Tag(0x9F27), cid)) }
        if let cryptogram = c.cryptogram { tlvs.append(TLV(Tag(0x9F26), cryptogram)) }
        let completed = TerminalResponse.ok(
            NFCCompleteTransaction.self, .init(outcome: NFCOutcome(cvmByte: 0x30, resultByte: 0x36), tlvs: tlvs))
        let feeds: [Feed] =
            startingFeeds + [
                .response(Fixture.tapped(0x30, 0x3E)), .response(Fixture.securedOK), .response(Fixture.plainOK),
                .task(.authorized(.approved)), .response(completed),
            ]
        #expect(Self.finish(Fixture.request(), feeds) == c.expected)
    }

    /// An online contactless payment whose StartNFC answer carried no cryptogram at all cannot be approved.
    @Test func contactlessOnlineApprovalWithoutAnyCryptogram() {
        let tapped = TerminalResponse.ok(
            NFCStartTransaction.self,
            .init(activatedReader: .nfc, outcome: NFCOutcome(cvmByte: 0x30, resultByte: 0x3E), tlvs: []))
        let feeds: [Feed] =
            startingFeeds + [
                .response(tapped), .response(Fixture.securedOK), .response(Fixture.plainOK),
                .task(.authorized(.approved)),
                .response(Fixture.completed(0x30, 0x36)),
            ]
        #expect(Self.finish(Fixture.request(), feeds) == .errorMissingRequiredCryptogram)
    }

    /// The issuer declined, yet CompleteNFC says approved: the terminal is not believed.
    @Test func contactlessApprovalOverAnIssuerDecline() {
        let feeds: [Feed] =
            startingFeeds + [
                .response(Fixture.tapped(0x30, 0x3E)), .response(Fixture.securedOK), .response(Fixture.plainOK),
                .task(.authorized(.declined)), .response(Fixture.completed(0x30, 0x36)),
            ]
        #expect(Self.finish(Fixture.request(), feeds) == .declined)
    }
}
