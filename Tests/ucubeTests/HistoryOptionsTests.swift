import ArgumentParser
import Foundation
import Testing
import UCubePayment
import UCubeRuntime

@testable import UCubeCLI

/// `history --since`, `--until` and `--status`, and `history totals`' report, without the binary: the values the
/// options read, and the text and JSON the report prints.
@Suite struct HistoryOptionsTests {
    /// 2026-11-28T05:11:34.500Z, in milliseconds since the epoch.
    static let now: Int64 = 1_795_849_894_500
    /// Midnight UTC opening 27 and 28 November 2026, and 2026-11-27T18:30:00Z.
    static let nov27: Int64 = 1_795_737_600_000
    static let nov28: Int64 = 1_795_824_000_000
    static let hour: Int64 = 3_600_000

    static func fixed(_ offset: Int) -> (Int64) -> Int { { _ in offset } }

    @Test func todayAndYesterdayOpenAtLocalMidnight() {
        #expect(HistoryTime.milliseconds("today", now: Self.now, localOffset: Self.fixed(0)) == Self.nov28)
        #expect(HistoryTime.milliseconds("yesterday", now: Self.now, localOffset: Self.fixed(0)) == Self.nov27)
        #expect(HistoryTime.milliseconds("Today", now: Self.now, localOffset: Self.fixed(0)) == Self.nov28)
        // At UTC+05:30 it is already 10:41 on the 28th: the day opened at 18:30 UTC the day before.
        #expect(
            HistoryTime.milliseconds("today", now: Self.now, localOffset: Self.fixed(19_800))
                == Self.nov28 - 5 * Self.hour - Self.hour / 2)
        // At UTC−08:00 it is still 21:11 on the 27th.
        #expect(
            HistoryTime.milliseconds("today", now: Self.now, localOffset: Self.fixed(-28_800))
                == Self.nov27 + 8 * Self.hour)
        #expect(
            HistoryTime.milliseconds("yesterday", now: Self.now, localOffset: Self.fixed(-28_800))
                == Self.nov27 - 16 * Self.hour)
    }

    /// On the day summer time ends (Europe/Paris, 2026-10-25 at 01:00 UTC), the day opened at UTC+2, and lasts 25 h.
    @Test func todayOnADaylightSavingChangeOpensAtTheOffsetInForceAtMidnight() throws {
        let change = try #require(ISO8601TimeText.utc("2026-10-25T01:00:00Z"))
        let paris: (Int64) -> Int = { $0 * 1000 >= change ? 3600 : 7200 }
        let noon = try #require(ISO8601TimeText.utc("2026-10-25T12:00:00Z"))
        #expect(
            HistoryTime.milliseconds("today", now: noon, localOffset: paris)
                == ISO8601TimeText.utc("2026-10-24T22:00:00Z"))
        #expect(
            HistoryTime.milliseconds("yesterday", now: noon, localOffset: paris)
                == ISO8601TimeText.utc("2026-10-23T22:00:00Z"))
        let nextDay = try #require(ISO8601TimeText.utc("2026-10-26T12:00:00Z"))
        #expect(
            HistoryTime.milliseconds("yesterday", now: nextDay, localOffset: paris)
                == ISO8601TimeText.utc("2026-10-24T22:00:00Z"))
    }

    @Test func aDateIsLocalAndADateTimeTakesItsOffset() {
        #expect(
            HistoryTime.milliseconds("2026-11-28", now: Self.now, localOffset: Self.fixed(3600)) == Self.nov28
                - Self.hour)
        #expect(
            HistoryTime.milliseconds("2026-11-28T00:00:00Z", now: Self.now, localOffset: Self.fixed(3600)) == Self.nov28
        )
        #expect(
            HistoryTime.milliseconds("2026-11-28T01:00+01:00", now: Self.now, localOffset: Self.fixed(0)) == Self.nov28)
        for text in ["tomorrow", "now", "2026-11-28T25:00", "28/11/2026", ""] {
            #expect(HistoryTime.milliseconds(text, now: Self.now, localOffset: Self.fixed(0)) == nil, "\(text)")
        }
    }

    @Test func thePeriodIsReadInTheGivenZoneAndMustNotBeEmpty() throws {
        let zone = try #require(TimeZone(secondsFromGMT: 3600))
        let now = Date(timeIntervalSince1970: 1_795_849_894.5)
        func period(_ since: String?, _ until: String?) throws -> (since: Int64?, until: Int64?) {
            try HistoryPeriodOptions.period(since: since, until: until, now: now, timeZone: zone)
        }
        let read = try period("2026-11-27", "2026-11-28")
        #expect(read.since == Self.nov27 - Self.hour && read.until == Self.nov28 - Self.hour)
        #expect(try period("yesterday", "today") == (since: Self.nov27 - Self.hour, until: Self.nov28 - Self.hour))
        #expect(try period(nil, nil) == (since: nil, until: nil))
        #expect(throws: ValidationError.self) { try period("2026-11-28", "2026-11-28") }
        #expect(throws: ValidationError.self) { try period("2026-11-28", "2026-11-27") }
        #expect(throws: ValidationError.self) { try period("the 27th", nil) }
        #expect(throws: ValidationError.self) { try period(nil, "the 28th") }
        // Parsed from a line, the options read the same.
        let parsed = try HistoryPeriodOptions.parse(["--since", "2026-11-27T12:00:00Z", "--until", "2026-11-28"])
        #expect(
            try parsed.period(now: now, timeZone: zone)
                == (since: Self.nov27 + 12 * Self.hour, until: Self.nov28 - Self.hour))
    }

    @Test func statusesAreRepeatedOrSeparatedByCommas() throws {
        #expect(
            try HistoryStatusWords.selectors(["approved,Declined", "reversed", " unknown "])
                == [.status(.approved), .status(.declined), .reversed, .unknown])
        #expect(try HistoryStatusWords.selectors([]).isEmpty)
        #expect(throws: ValidationError.self) { try HistoryStatusWords.selectors(["approved,"]) }
        #expect(throws: ValidationError.self) { try HistoryStatusWords.selectors(["approved,maybe"]) }
    }

    @Test func devicesAreNamedAsTheJournalNamesThem() throws {
        #expect(
            try UCube.History.journalDevices(["simulator", "/dev/ttyUSB0", "tcp://127.0.0.1:5000", "sim"])
                == ["sim", "serial:///dev/ttyUSB0", "tcp://127.0.0.1:5000"])
        #expect(throws: CLIFailure.self) { try UCube.History.journalDevices(["tcp://"]) }
    }

    // MARK: - The totals report

    static func entries() -> [JournalEntry] {
        func payment(_ id: String, _ amount: Int, _ currency: String, _ status: String, simulated: Bool = false)
            -> String
        {
            #"{"kind":"start","requestID":"\#(id)","time":"2026-11-28T10:00:00.000Z","amount":\#(amount),"currency":"\#(currency)","type":"purchase","device":"sim"\#(simulated ? #","simulated":true"# : "")}"#
                + "\n"
                + #"{"kind":"outcome","requestID":"\#(id)","time":"2026-11-28T10:00:01.000Z","status":"\#(status)"}"#
                + "\n"
        }
        let lines =
            payment("a", 1250, "EUR", "APPROVED") + payment("b", 5, "EUR", "DECLINED")
            + payment("c", 300, "EUR", "APPROVED")
            + #"{"kind":"reversal","requestID":"c","time":"2026-11-28T10:01:00.000Z","acknowledged":false}"# + "\n"
            + payment("d", 1250, "JPY", "APPROVED", simulated: true) + payment("e", 1, "EUR", "CANCELLED")
            + payment("f", 2, "EUR", "CANCELLED") + payment("g", 3, "XTS", "APPROVED")
        return PaymentJournal.history(parsing: Data(lines.utf8))
    }

    @Test func theTextGivesEachGroupInTheCurrencysUnits() {
        var report = TotalsReport(
            PaymentTotals(Self.entries()), filter: HistoryFilter(since: Self.nov28, devices: ["sim"]))
        report.offset = { _ in 0 }
        #expect(
            report.lines == [
                "period: from 2026-11-28 00:00:00 +00:00 (inclusive) to the last",
                "devices: sim",
                "EUR purchase: approved 1 12.50 EUR, declined 1 0.05 EUR, reversed 1 3.00 EUR (owed 1 3.00 EUR)",
                "JPY purchase (simulated): approved 1 1250 JPY, declined 0 0 JPY, reversed 0 0 JPY",
                // XTS (the testing code) has no minor units: the amount stays in minor units.
                "XTS purchase: approved 1 3 XTS, declined 0 0 XTS, reversed 0 0 XTS",
                "other: 2 (CANCELLED 2)",
                "payments: 7",
            ])
        #expect(TotalsReport(PaymentTotals([]), filter: HistoryFilter()).lines == ["other: 0", "payments: 0"])
    }

    @Test func theJSONHasAVersionAndAmountsInMinorUnits() throws {
        let report = TotalsReport(
            PaymentTotals(Self.entries()), filter: HistoryFilter(since: Self.nov28, until: Self.nov28 + 86_400_000))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(JSONOutput.encode(report).utf8)) as? [String: Any])
        #expect(json["version"] as? Int == 1)
        #expect(json["since"] as? String == "2026-11-28T00:00:00.000Z")
        #expect(json["until"] as? String == "2026-11-29T00:00:00.000Z")
        #expect((json["devices"] as? [String])?.isEmpty == true)
        #expect(json["payments"] as? Int == 7)
        let others = try #require(json["others"] as? [String: Any])
        #expect(others["count"] as? Int == 2 && (others["statuses"] as? [String: Int]) == ["CANCELLED": 2])
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.map { $0["currency"] as? String } == ["EUR", "JPY", "XTS"])
        let eur = groups[0]
        #expect(eur["type"] as? String == "purchase" && eur["simulated"] as? Bool == false)
        #expect((eur["approved"] as? [String: Int]) == ["count": 1, "amount": 1250])
        #expect((eur["declined"] as? [String: Int]) == ["count": 1, "amount": 5])
        #expect((eur["reversed"] as? [String: Int]) == ["count": 1, "amount": 300])
        #expect((eur["reversalsOwed"] as? [String: Int]) == ["count": 1, "amount": 300])
        // Every key of the documented shape is there, null or not.
        #expect(Set(json.keys) == ["version", "since", "until", "devices", "payments", "groups", "others"])
        #expect(
            Set(eur.keys) == ["currency", "type", "simulated", "approved", "declined", "reversed", "reversalsOwed"])
        let open = try #require(
            try JSONSerialization.jsonObject(
                with: Data(JSONOutput.encode(TotalsReport(PaymentTotals([]), filter: HistoryFilter())).utf8))
                as? [String: Any])
        #expect(open["since"] is NSNull && open["until"] is NSNull)
    }
}

/// The journal's form of a UTC time, as milliseconds since the epoch (the tests' oracle is `JournalEntry`'s reading).
enum ISO8601TimeText {
    static func utc(_ text: String) -> Int64? {
        PaymentJournal.history(
            parsing: Data(#"{"kind":"start","requestID":"x","time":"\#(text)"}"#.utf8)
        ).first?.millisecondsSinceEpoch
    }
}
