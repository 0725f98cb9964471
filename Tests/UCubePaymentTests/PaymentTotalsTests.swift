import Foundation
import Testing

@testable import UCubePayment

/// `history totals` and `history --status`, read from journal lines in memory: what each payment counts as, and
/// totals that count every payment once.
@Suite struct PaymentTotalsTests {
    static func history(_ records: [String]) -> [JournalEntry] {
        PaymentJournal.history(parsing: Data((records.joined(separator: "\n") + "\n").utf8))
    }

    /// A start and an outcome: one finished payment.
    static func payment(
        _ id: String, _ amount: Int, _ status: String, currency: String = "EUR", type: String = "purchase",
        time: String = "2026-11-28T10:00:00.000Z", device: String = "sim", simulated: Bool = false
    ) -> [String] {
        [
            #"{"kind":"start","requestID":"\#(id)","time":"\#(time)","amount":\#(amount),"currency":"\#(currency)","type":"\#(type)","device":"\#(device)"\#(simulated ? #","simulated":true"# : "")}"#,
            #"{"kind":"outcome","requestID":"\#(id)","time":"\#(time)","amount":\#(amount),"currency":"\#(currency)","type":"\#(type)","status":"\#(status)"}"#,
        ]
    }

    static func reversal(_ id: String, acknowledged: Bool) -> String {
        #"{"kind":"reversal","requestID":"\#(id)","time":"2026-11-28T10:05:00.000Z","hostReference":"H-\#(id)","reason":"card declined after the host approved","acknowledged":\#(acknowledged)}"#
    }

    @Test func approvedDeclinedAndReversedAreCountedAndSummedPerCurrencyAndType() {
        let entries = Self.history(
            Self.payment("a1", 1250, "APPROVED") + Self.payment("a2", 500, "APPROVED")
                + Self.payment("d1", 700, "DECLINED") + Self.payment("r1", 300, "APPROVED")
                + [Self.reversal("r1", acknowledged: true)]
                + Self.payment("j1", 1000, "APPROVED", currency: "JPY")
                + Self.payment("f1", 900, "APPROVED", type: "refund"))
        let totals = PaymentTotals(entries)
        var eurPurchase = PaymentTotals.Group(currency: "EUR", type: "purchase", simulated: false)
        eurPurchase.approved = .init(count: 2, amount: 1750)
        eurPurchase.declined = .init(count: 1, amount: 700)
        eurPurchase.reversed = .init(count: 1, amount: 300)
        var eurRefund = PaymentTotals.Group(currency: "EUR", type: "refund", simulated: false)
        eurRefund.approved = .init(count: 1, amount: 900)
        var jpy = PaymentTotals.Group(currency: "JPY", type: "purchase", simulated: false)
        jpy.approved = .init(count: 1, amount: 1000)
        #expect(totals.groups == [eurPurchase, eurRefund, jpy])
        #expect(totals.others.isEmpty && totals.payments == 6)
    }

    /// A reversal makes its payment reversed, whatever the card said, and until the host acknowledges it, it is owed.
    @Test func aReversalCountsAsReversedAndOwedUntilAcknowledged() {
        let entries = Self.history(
            Self.payment("owed", 400, "APPROVED") + [Self.reversal("owed", acknowledged: false)]
                + Self.payment("acked", 600, "DECLINED") + [Self.reversal("acked", acknowledged: false)]
                + [Self.reversal("acked", acknowledged: true)]
                // Once acknowledged, a later record does not take it back.
                + Self.payment("kept", 100, "APPROVED") + [Self.reversal("kept", acknowledged: true)]
                + [Self.reversal("kept", acknowledged: false)]
                // The process died after the host authorised: the card's outcome is unknown, the reversal is owed.
                + [
                    #"{"kind":"start","requestID":"died","time":"2026-11-28T11:00:00.000Z","amount":50,"currency":"EUR","type":"purchase"}"#
                ]
                + [Self.reversal("died", acknowledged: false)]
                // A reversal for no payment journalled adds no payment.
                + [Self.reversal("nobody", acknowledged: true)])
        #expect(entries.map(\.countedStatus) == ["REVERSED", "REVERSED", "REVERSED", "REVERSED"])
        #expect(entries.map { $0.reversal?.acknowledged } == [false, true, true, false])
        #expect(entries[0].reversal?.hostReference == "H-owed" && entries[0].reversal?.reason != nil)
        let totals = PaymentTotals(entries)
        #expect(totals.groups.count == 1 && totals.payments == 4)
        #expect(totals.groups.first?.approved == .init() && totals.groups.first?.declined == .init())
        #expect(totals.groups.first?.reversed == .init(count: 4, amount: 1150))
        #expect(totals.groups.first?.reversalsOwed == .init(count: 2, amount: 450))
    }

    @Test func aResolvedPaymentCountsByItsResolution() {
        let entries = Self.history([
            #"{"kind":"start","requestID":"lost","time":"2026-11-28T10:00:00.000Z","amount":800,"currency":"EUR","type":"purchase"}"#,
            #"{"kind":"resolution","requestID":"lost","time":"2026-11-28T12:00:00.000Z","status":"APPROVED","note":"acquirer"}"#,
            #"{"kind":"start","requestID":"open","time":"2026-11-28T10:01:00.000Z","amount":200,"currency":"EUR","type":"purchase"}"#,
        ])
        #expect(entries.map(\.countedStatus) == ["APPROVED", "unknown"])
        let totals = PaymentTotals(entries)
        #expect(totals.groups.map(\.approved) == [.init(count: 1, amount: 800)])
        #expect(totals.others == ["unknown": 1] && totals.payments == 2)
    }

    /// Every payment counts once: in a group, or among the others by status.
    @Test func theRestIsCountedByStatusSoTheTotalsReconcileWithTheList() {
        let entries = Self.history(
            Self.payment("a", 100, "APPROVED") + Self.payment("c1", 200, "CANCELLED")
                + Self.payment("c2", 300, "CANCELLED") + Self.payment("e", 400, "ERROR_DISCONNECT")
                + [#"{"kind":"start","requestID":"u","time":"2026-11-28T10:00:00.000Z","amount":5,"currency":"EUR"}"#])
        let totals = PaymentTotals(entries)
        #expect(totals.others == ["CANCELLED": 2, "ERROR_DISCONNECT": 1, "unknown": 1])
        #expect(totals.otherCount == 4 && totals.payments == entries.count)
        #expect(totals.groups.map(\.count) == [1])
    }

    @Test func simulatedPaymentsAreTotalledApartFromRealOnes() {
        let entries = Self.history(
            Self.payment("real", 1000, "APPROVED", device: "tcp://10.0.0.5:5000")
                + Self.payment("sim", 1, "APPROVED", simulated: true))
        let totals = PaymentTotals(entries)
        #expect(totals.groups.map(\.simulated) == [false, true])
        #expect(totals.groups.map(\.approved.amount) == [1000, 1])
    }

    @Test func noPaymentsAreZeroTotals() {
        let totals = PaymentTotals([])
        #expect(totals.groups.isEmpty && totals.others.isEmpty && totals.payments == 0)
    }

    /// Sums of a hostile journal stop at the largest amount rather than wrap to a small one or trap.
    @Test func aSumThatWouldOverflowStopsAtTheLargestAmount() {
        let big = UInt64.max / 2 + 1
        let entries = Self.history(Self.payment("x", 0, "APPROVED") + Self.payment("y", 0, "APPROVED")).map { entry in
            var entry = entry
            entry.amount = big
            return entry
        }
        #expect(PaymentTotals(entries).groups.first?.approved == .init(count: 2, amount: .max))
    }

    // MARK: - The filter

    static let day: [String] =
        payment("before", 1, "APPROVED", time: "2026-11-27T23:59:59.999Z")
        + payment("midnight", 2, "APPROVED", time: "2026-11-28T00:00:00.000Z")
        + payment("noon", 3, "DECLINED", time: "2026-11-28T12:00:00.000Z", device: "tcp://10.0.0.5:5000")
        + payment("last", 4, "CANCELLED", time: "2026-11-28T23:59:59.999Z")
        + payment("next", 5, "APPROVED", time: "2026-11-29T00:00:00.000Z")

    /// Midnight UTC opening 28, 29 and 30 November 2026, in milliseconds since the epoch (POSIX: 86 400 s a day).
    static let nov28: Int64 = 1_795_824_000_000
    static let nov29: Int64 = 1_795_910_400_000
    static let nov30: Int64 = 1_795_996_800_000

    @Test func sinceIsInclusiveAndUntilExclusive() {
        let entries = Self.history(Self.day)
        let filter = HistoryFilter(since: Self.nov28, until: Self.nov29)
        #expect(filter.apply(entries).map(\.requestID) == ["midnight", "noon", "last"])
        // Consecutive days share their bound, and no payment is in both.
        let next = HistoryFilter(since: Self.nov29, until: Self.nov30)
        #expect(next.apply(entries).map(\.requestID) == ["next"])
        #expect(HistoryFilter(until: Self.nov28).apply(entries).map(\.requestID) == ["before"])
        #expect(HistoryFilter(since: Self.nov29).apply(entries).map(\.requestID) == ["next"])
    }

    @Test func filtersCombine() {
        let entries = Self.history(Self.day)
        let day = HistoryFilter(since: Self.nov28, until: Self.nov29)
        var approvedOrCancelled = day
        approvedOrCancelled.statuses = [.status(.approved), .status(.cancelled)]
        #expect(approvedOrCancelled.apply(entries).map(\.requestID) == ["midnight", "last"])
        var onTheSimulator = approvedOrCancelled
        onTheSimulator.devices = ["sim"]
        #expect(onTheSimulator.apply(entries).map(\.requestID) == ["midnight", "last"])
        var onTheTerminal = day
        onTheTerminal.devices = ["tcp://10.0.0.5:5000"]
        #expect(onTheTerminal.apply(entries).map(\.requestID) == ["noon"])
        onTheTerminal.statuses = [.status(.approved)]
        #expect(onTheTerminal.apply(entries).isEmpty)
        #expect(HistoryFilter().apply(entries).count == 5 && HistoryFilter().takesAll)
    }

    @Test func statusSelectorsMatchWhatThePaymentCountsAs() {
        let entries = Self.history(
            Self.payment("approved", 1, "APPROVED") + Self.payment("reversed", 2, "APPROVED")
                + [Self.reversal("reversed", acknowledged: true)] + [
                    #"{"kind":"start","requestID":"resolved","time":"2026-11-28T10:00:00.000Z"}"#,
                    #"{"kind":"resolution","requestID":"resolved","time":"2026-11-28T10:00:01.000Z","status":"DECLINED"}"#,
                    #"{"kind":"start","requestID":"open","time":"2026-11-28T10:00:00.000Z"}"#,
                ])
        func ids(_ selectors: Set<StatusSelector>) -> [String] {
            HistoryFilter(statuses: selectors).apply(entries).map(\.requestID)
        }
        #expect(ids([.status(.approved)]) == ["approved"], "a reversed payment is not approved")
        #expect(ids([.reversed]) == ["reversed"])
        #expect(ids([.status(.declined)]) == ["resolved"], "a resolved payment counts by its resolution")
        #expect(ids([.unknown]) == ["open"])
        #expect(ids([.unresolved]) == ["open"])
        var running = entries
        running[3].runningPID = 42
        #expect(HistoryFilter(statuses: [.unresolved]).apply(running).isEmpty, "running is not unresolved")
        #expect(HistoryFilter(statuses: [.unknown]).apply(running).map(\.requestID) == ["open"])
        // Each payment is in exactly one of the buckets the totals count by.
        let buckets: [Set<StatusSelector>] = [[.status(.approved)], [.status(.declined)], [.reversed], [.unknown]]
        #expect(buckets.map { ids($0).count }.reduce(0, +) == entries.count)
    }

    @Test func statusWordsParseInAnyCase() {
        #expect(StatusSelector(parsing: "approved") == .status(.approved))
        #expect(StatusSelector(parsing: "CARD_WAIT_FAILED") == .status(.cardWaitFailed))
        #expect(StatusSelector(parsing: "Unresolved") == .unresolved)
        #expect(StatusSelector(parsing: "REVERSED") == .reversed)
        #expect(StatusSelector(parsing: "unknown") == .unknown)
        #expect(StatusSelector(parsing: "approve") == nil && StatusSelector(parsing: "") == nil)
        #expect(StatusSelector.allNames.count == PaymentStatus.allCases.count + 3)
    }

    /// With a period, a payment whose time does not read is out; without one, it is in.
    @Test func aTimeThatDoesNotReadIsOutsideEveryPeriod() {
        let entries = Self.history(Self.payment("odd", 1, "APPROVED", time: "t1"))
        #expect(entries.first?.millisecondsSinceEpoch == nil)
        #expect(HistoryFilter(since: 0).apply(entries).isEmpty)
        #expect(HistoryFilter(statuses: [.status(.approved)]).apply(entries).count == 1)
    }
}
