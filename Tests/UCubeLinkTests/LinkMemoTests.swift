import Testing
import UCubeProtocol

@testable import UCubeLink

/// The link session's rules between the opening and the close (`LinkMemo`), without a client or a task: what a
/// payment starting may take as known (docs/protocol.md §8.6), the read that must confirm an idle terminal (§8.7),
/// and the record written at a clean close, read back by the next process.
@Suite struct LinkMemoTests {
    static let terminal = KnownTerminal(hex: "FFFF9876543210E00000D10406000036ED0103")!
    static let other = KnownTerminal(hex: "FFFF9876543211E00000D10406000036ED0103")!
    static let plain = LinkRules(secured: false, nextSequence: 9)

    /// §8.6: whatever the record says, a link whose opening step has not run (or failed) knows nothing, and its close
    /// keeps no terminal.
    @Test func beforeTheOpeningNothingIsKnown() {
        let memo = LinkMemo()
        #expect(memo.linkStart(lostTrack: false, secured: false, commandsSent: 0) == .unknown)
        #expect(
            memo.closingRecord(rules: Self.plain, lostTrack: false, commandsSent: 0)
                == SessionRecord(
                    rules: Self.plain, owner: nil))
    }

    /// §8.6's table, from every record and preparation `LinkOpeningTests` lists: a payment starting on the opened link
    /// takes it as idle (with the client's secure-session flag) exactly when the opening says so, and the terminal
    /// the record kept while no command was sent since.
    @Test(arguments: LinkOpeningTests.cases)
    func aPaymentStartsFromWhatTheOpeningLeft(_ c: LinkOpeningTests.Case) {
        let opening = LinkOpening(c.record, preparation: c.preparation)
        let sent = c.step == .resynchronise ? 2 : 0
        let memo = LinkMemo(opening, commandsSent: sent)
        let start = memo.linkStart(lostTrack: false, secured: c.rules.secured, commandsSent: sent)
        let terminal = c.keepsTerminal ? LinkOpeningTests.terminal : nil
        #expect(start == (c.idle ? LinkStart(idle: true, secured: c.rules.secured, terminal: terminal) : .unknown))
        // One command later, the terminal may have changed what GetInfo answers: it is idle still, but not known.
        let later = memo.linkStart(lostTrack: false, secured: c.rules.secured, commandsSent: sent + 1)
        #expect(later == (c.idle ? LinkStart(idle: true, secured: c.rules.secured) : .unknown))
    }

    /// §8.6: "this process lost track of the terminal (an unanswered command, a dropped link)": the full sequence, and
    /// no record is kept, so the next process resets the terminal.
    @Test func aLinkThatLostTrackKeepsNothing() {
        var memo = LinkMemo(LinkOpening(.clean(Self.plain, Self.terminal), preparation: .payment), commandsSent: 0)
        #expect(memo.linkStart(lostTrack: true, secured: false, commandsSent: 0) == .unknown)
        #expect(memo.closingRecord(rules: Self.plain, lostTrack: true, commandsSent: 0) == nil)
        memo.remember(Self.terminal, commandsSent: 12)
        #expect(memo.linkStart(lostTrack: true, secured: false, commandsSent: 12) == .unknown)
        #expect(memo.closingRecord(rules: Self.plain, lostTrack: true, commandsSent: 12) == nil)
    }

    /// §8.6: a payment's starting steps leave the terminal's state known, whatever the link started from; the
    /// terminal it met is kept while no other command follows, and a payment that learned none forgets the old one.
    @Test func aPaymentLeavesTheTerminalItMet() {
        var memo = LinkMemo(LinkOpening(.stale(owner: 7), preparation: .payment), commandsSent: 0)
        #expect(memo.linkStart(lostTrack: false, secured: false, commandsSent: 0) == .unknown)
        memo.remember(Self.terminal, commandsSent: 12)
        #expect(memo.idle)
        #expect(
            memo.linkStart(lostTrack: false, secured: false, commandsSent: 12)
                == LinkStart(idle: true, terminal: Self.terminal))
        #expect(
            memo.linkStart(lostTrack: false, secured: true, commandsSent: 13) == LinkStart(idle: true, secured: true))
        memo.remember(Self.other, commandsSent: 20)
        #expect(memo.terminal(ifCommandsSent: 20) == Self.other)
        memo.remember(nil, commandsSent: 30)
        #expect(memo.linkStart(lostTrack: false, secured: false, commandsSent: 30) == LinkStart(idle: true))
    }

    /// §8.6: the record a clean close writes keeps the terminal only when no command followed the payment that
    /// learned it; the next process's payment, opening from that record, starts with EnterSecureSession alone.
    @Test func theClosingRecordCarriesTheTerminalToTheNextProcess() throws {
        var memo = LinkMemo(LinkOpening(.missing, preparation: .payment), commandsSent: 0)
        memo.remember(Self.terminal, commandsSent: 12)
        let rules = LinkRules(secured: false, nextSequence: 12)
        let record = try #require(memo.closingRecord(rules: rules, lostTrack: false, commandsSent: 12))
        #expect(record.line == "secured=0 next=12 terminal=\(Self.terminal.hex)\n")
        let next = LinkOpening(SessionRecord.decode(Array(record.line.utf8)), preparation: .payment)
        #expect(next.rules == rules)
        let start = LinkMemo(next, commandsSent: 0).linkStart(lostTrack: false, secured: false, commandsSent: 0)
        #expect(start == LinkStart(idle: true, terminal: Self.terminal))

        // A command after the payment (an update, a setting): the record keeps the session, not the terminal.
        let after = try #require(memo.closingRecord(rules: rules, lostTrack: false, commandsSent: 13))
        #expect(after == SessionRecord(rules: rules, owner: nil))
        #expect(SessionRecord.decode(Array(after.line.utf8)) == .clean(rules, nil))
    }

    /// §8.7: a `.query` link that took the terminal as idle on the record's word alone has its first read
    /// confirmed, once; every other link, and any later command, is sent as it is.
    @Test func onlyTheFirstReadOfAnUnverifiedLinkIsConfirmed() {
        var memo = LinkMemo(LinkOpening(.clean(Self.plain, Self.terminal), preparation: .query), commandsSent: 0)
        let first = memo.takeUnverified()
        let second = memo.takeUnverified()
        #expect(first && !second)

        for (record, preparation) in [
            (SessionRecord.Loaded.clean(Self.plain), LinkPreparation.asRecorded), (.clean(Self.plain), .ready),
            (.missing, .query), (.clean(LinkRules(secured: true, nextSequence: 3)), .query),
            (.clean(Self.plain), .payment),
        ] {
            var other = LinkMemo(LinkOpening(record, preparation: preparation), commandsSent: 0)
            let unverified = other.takeUnverified()
            #expect(!unverified, "\(record) \(preparation)")
        }

        // What a payment's steps learned is seen, not taken on trust: nothing is left to confirm.
        var paid = LinkMemo(LinkOpening(.clean(Self.plain), preparation: .query), commandsSent: 0)
        paid.remember(Self.terminal, commandsSent: 9)
        let unverified = paid.takeUnverified()
        #expect(!unverified)
    }

    /// §8.7: the read found the terminal not idle and reset it: idle now, and which terminal it is no longer known.
    @Test func aResetForgetsTheTerminal() {
        var memo = LinkMemo(LinkOpening(.clean(Self.plain, Self.terminal), preparation: .query), commandsSent: 0)
        let unverified = memo.takeUnverified()
        #expect(unverified)
        memo.wasReset(commandsSent: 3)
        #expect(memo.linkStart(lostTrack: false, secured: false, commandsSent: 3) == LinkStart(idle: true))
        #expect(
            memo.closingRecord(rules: LinkRules(secured: false, nextSequence: 1), lostTrack: false, commandsSent: 3)
                == SessionRecord(rules: LinkRules(secured: false, nextSequence: 1), owner: nil))
    }
}
