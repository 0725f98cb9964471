import Foundation
import Testing
import UCubeProtocol

@testable import UCubeLink

/// The link session record (`$XDG_RUNTIME_DIR/ucube/session-DEVICE`, the line its file holds): what `line` writes,
/// `decode` reads back, and any other content is a stale session, so the next command resets the terminal.
@Suite struct SessionRecordTests {
    @Test func aRecordReadsBackAsWritten() throws {
        let closed = SessionRecord(rules: LinkRules(secured: true, nextSequence: 200), owner: nil)
        #expect(closed.line == "secured=1 next=200\n")
        #expect(SessionRecord.decode(Array(closed.line.utf8)) == .clean(LinkRules(secured: true, nextSequence: 200)))

        let open = SessionRecord(rules: LinkRules(secured: false, nextSequence: 0), owner: 4242)
        #expect(open.line == "secured=0 next=0 owner=4242\n")
        #expect(SessionRecord.decode(Array(open.line.utf8)) == .stale(owner: 4242))
    }

    /// A clean exit after a payment keeps the terminal it met (spec §8.6); a process still holding the link keeps none.
    @Test func aCleanRecordKeepsTheKnownTerminal() throws {
        let terminal = try #require(KnownTerminal(hex: "FFFF9876543210E00000D10406000036ED0103"))
        let closed = SessionRecord(rules: LinkRules(secured: false, nextSequence: 9), owner: nil, terminal: terminal)
        #expect(closed.line == "secured=0 next=9 terminal=FFFF9876543210E00000D10406000036ED0103\n")
        #expect(
            SessionRecord.decode(Array(closed.line.utf8))
                == .clean(LinkRules(secured: false, nextSequence: 9), terminal)
        )
        let open = SessionRecord(rules: LinkRules(secured: false, nextSequence: 9), owner: 77, terminal: terminal)
        #expect(open.line == "secured=0 next=9 owner=77\n")
    }

    @Test func noFileIsAMissingRecord() {
        #expect(SessionRecord.decode(nil) == .missing)
    }

    @Test(
        arguments: [
            "", "\n", "secured=0 next=7", "secured=0\n", "next=7\n", "secured=2 next=7\n", "secured=0 next=256\n",
            "secured=0 next=-1\n", "secured=0 next=7 owner=0\n", "secured=0 next=7 owner=x\n",
            "secured=0 next=7 next=8\n", "secured=0 next=7 colour=red\n", "secured=0  next=7\n",
            "secured=0 next=7\nsecured=1 next=8\n", #"{"secured":false,"nextSequence":7}"#,
            "secured=0 next=7 terminal=XYZ\n", "secured=0 next=7 terminal=FFFF9876543210E00001D104\n",
            "secured=0 next=7 owner=5 terminal=FFFF9876543210E00000D104\n",
        ])
    func anythingElseIsAStaleSession(text: String) {
        #expect(SessionRecord.decode(Array(text.utf8)) == .stale(owner: nil), "\(text.debugDescription)")
    }
}

/// How a link starts from the record (`LinkOpening`): the one rule the CLI, the fuzz driver and the payment benchmark
/// open a link by.
@Suite struct LinkOpeningTests {
    static let terminal = KnownTerminal(hex: "FFFF9876543210E00000D10406000036ED0103")
    static let plain = LinkRules(secured: false, nextSequence: 9)
    static let secured = LinkRules(secured: true, nextSequence: 12)
    static let fresh = LinkRules()

    struct Case: Sendable, CustomTestStringConvertible {
        let record: SessionRecord.Loaded
        let preparation: LinkPreparation
        let step: LinkOpening.Step
        let rules: LinkRules
        let idle: Bool
        let keepsTerminal: Bool
        var testDescription: String { "\(record) \(preparation)" }

        init(
            _ record: SessionRecord.Loaded, _ preparation: LinkPreparation, _ step: LinkOpening.Step,
            _ rules: LinkRules, idle: Bool, keepsTerminal: Bool
        ) {
            (self.record, self.preparation, self.step, self.rules) = (record, preparation, step, rules)
            (self.idle, self.keepsTerminal) = (idle, keepsTerminal)
        }
    }

    /// Every record against every preparation: a record that is not clean is never trusted, a payment sends nothing
    /// here, `ready` always resynchronises, a clean secured session kept for `asRecorded` is checked, and `query`
    /// trusts a clean record that kept no secure session (its first answer confirms it).
    static let cases: [Case] = [
        Case(.missing, .ready, .resynchronise, fresh, idle: true, keepsTerminal: false),
        Case(.missing, .asRecorded, .resynchronise, fresh, idle: true, keepsTerminal: false),
        Case(.missing, .payment, .none, fresh, idle: false, keepsTerminal: false),
        Case(.stale(owner: 7), .ready, .resynchronise, fresh, idle: true, keepsTerminal: false),
        Case(.stale(owner: nil), .asRecorded, .resynchronise, fresh, idle: true, keepsTerminal: false),
        Case(.stale(owner: 7), .payment, .none, fresh, idle: false, keepsTerminal: false),
        Case(.clean(plain, terminal), .ready, .resynchronise, plain, idle: true, keepsTerminal: true),
        Case(.clean(plain, terminal), .asRecorded, .none, plain, idle: true, keepsTerminal: true),
        Case(.clean(plain, terminal), .payment, .none, plain, idle: true, keepsTerminal: true),
        Case(.clean(secured), .asRecorded, .verifySecureSession, secured, idle: true, keepsTerminal: false),
        Case(.clean(secured), .payment, .none, secured, idle: true, keepsTerminal: false),
        // `query` (info): nothing first after a clean exit that kept no secure session; its GetInfo confirms it.
        Case(.missing, .query, .resynchronise, fresh, idle: true, keepsTerminal: false),
        Case(.stale(owner: 7), .query, .resynchronise, fresh, idle: true, keepsTerminal: false),
        Case(.clean(plain, terminal), .query, .none, plain, idle: true, keepsTerminal: true),
        Case(.clean(secured), .query, .resynchronise, secured, idle: true, keepsTerminal: false),
    ]

    @Test(arguments: cases)
    func theRecordDecidesTheStartingSteps(_ c: Case) {
        let opening = LinkOpening(c.record, preparation: c.preparation)
        #expect(opening.step == c.step)
        #expect(opening.rules == c.rules)
        #expect(opening.idle == c.idle)
        #expect(opening.terminal == (c.keepsTerminal ? Self.terminal : nil))
        // Only a link that skipped the reset on the record's word has its first answer checked.
        #expect(opening.unverified == (c.preparation == .query && c.step == .none))
        // The record written while the link is open names its owner, and so reads back stale.
        let mark = opening.openRecord(owner: 4242)
        #expect(SessionRecord.decode(Array(mark.line.utf8)) == .stale(owner: 4242))
        #expect(mark.rules == c.rules)
    }

    /// The resynchronisation against the simulator: after commands have moved the numbering on, CancelAll and
    /// ExitSecureSession go through and numbering starts again at 0, the link still usable.
    @Test func aResynchronisationBringsTheTerminalBackToReady() async throws {
        let h = try ClientSimulatorTests.harness()
        let opening = LinkOpening(.stale(owner: 99), preparation: .ready)
        #expect(await h.client.rules.nextSequence == 0)
        _ = try await h.client.send(GetInfo(tags: [0xC4]))
        #expect(await h.client.rules.nextSequence != 0)
        try await opening.perform(on: h.client)
        let rules = await h.client.rules
        #expect(rules.nextSequence == 0 && !rules.secured)
        let (cancel, exit) = try await h.client.resynchronise()
        #expect(cancel == .success)
        #expect(exit == .success)
        #expect(try await h.client.send(GetInfo(tags: [0xC4])).response?.state == .ready)
        await h.client.close()
    }
}
