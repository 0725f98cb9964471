import Testing
import UCubeSupport

/// `ISO8601Time` reads the journal's times and what `history --since` and `--until` are given.
@Suite struct ISO8601TimeTests {
    /// Seconds east of UTC in a zone with no daylight-saving time: every local time is placed by it.
    static func fixed(_ offset: Int) -> (Int64) -> Int { { _ in offset } }

    /// Europe/Paris in 2026: UTC+1, and UTC+2 from 2026-03-29T01:00:00Z to 2026-10-25T01:00:00Z (EU summer time:
    /// Directive 2000/84/EC, the last Sunday of March and of October at 01:00 UTC).
    static func paris(_ second: Int64) -> Int {
        let start = UTCTime.secondsSinceEpoch(year: 2026, month: 3, day: 29, hour: 1)
        let end = UTCTime.secondsSinceEpoch(year: 2026, month: 10, day: 25, hour: 1)
        return second >= start && second < end ? 7200 : 3600
    }

    /// Milliseconds since the epoch of a UTC calendar time.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, ms: Int64 = 0) -> Int64 {
        UTCTime.secondsSinceEpoch(year: year, month: month, day: day, hour: hour, minute: minute) * 1000 + ms
    }

    @Test(arguments: [
        // The journal's own form (UTCTime.iso8601) reads back to the moment it wrote.
        ("2026-11-28T10:00:00.000Z", utc(2026, 11, 28, 10)),
        ("2026-11-28T10:00:00.250Z", utc(2026, 11, 28, 10, ms: 250)),
        ("2026-11-28T10:00:00Z", utc(2026, 11, 28, 10)),
        ("2026-11-28T10:00Z", utc(2026, 11, 28, 10)),
        ("2026-11-28t10:00:00z", utc(2026, 11, 28, 10)),
        ("2026-11-28 10:00:00Z", utc(2026, 11, 28, 10)),
        // Offsets: the moment is the local time less the offset.
        ("2026-11-28T10:00:00+01:00", utc(2026, 11, 28, 9)),
        ("2026-11-28T10:00+0100", utc(2026, 11, 28, 9)),
        ("2026-11-28T10:00+01", utc(2026, 11, 28, 9)),
        ("2026-11-28T10:00:00-05:30", utc(2026, 11, 28, 15, 30)),
        ("2026-11-28T00:30:00+02:00", utc(2026, 11, 27, 22, 30)),
        // Fractions: a comma for the point, digits past the millisecond cut.
        ("2026-11-28T10:00:00,5Z", utc(2026, 11, 28, 10, ms: 500)),
        ("2026-11-28T10:00:00.123456789Z", utc(2026, 11, 28, 10, ms: 123)),
        ("2024-02-29T23:59:59.999Z", utc(2024, 2, 29, 23, 59, ms: 59_999)),
    ])
    func timesWithAZone(text: String, milliseconds: Int64) throws {
        let time = try #require(ISO8601Time(text), "\(text)")
        #expect(time.utcOffset != nil)
        // The local offset is never asked for: the text gives its own.
        #expect(
            time.millisecondsSinceEpoch(localOffset: { _ in
                Issue.record("asked"); return 0
            }) == milliseconds)
    }

    @Test func whatUTCTimeWritesReadsBack() throws {
        for seconds: Int64 in [0, 951_782_400, 1_795_675_738, 4_107_542_400] {
            let written = UTCTime(secondsSinceEpoch: seconds, millisecond: 42).iso8601
            #expect(ISO8601Time(written)?.millisecondsSinceEpoch(localOffset: Self.fixed(0)) == seconds * 1000 + 42)
        }
    }

    @Test func withoutAZoneTheTimeIsLocal() throws {
        let date = try #require(ISO8601Time("2026-11-28"))
        #expect(date.utcOffset == nil && date.hour == 0 && date.minute == 0)
        #expect(date.millisecondsSinceEpoch(localOffset: Self.fixed(0)) == Self.utc(2026, 11, 28))
        #expect(date.millisecondsSinceEpoch(localOffset: Self.fixed(3600)) == Self.utc(2026, 11, 27, 23))
        #expect(date.millisecondsSinceEpoch(localOffset: Self.fixed(-18_000)) == Self.utc(2026, 11, 28, 5))
        let time = try #require(ISO8601Time("2026-11-28T10:15"))
        #expect(time.millisecondsSinceEpoch(localOffset: Self.fixed(3600)) == Self.utc(2026, 11, 28, 9, 15))
    }

    /// The offset is the one in force at the moment meant, not at the same figures read as UTC.
    @Test func aLocalTimeBesideADaylightSavingChangeTakesTheOffsetInForceThen() throws {
        // Summer time began 2026-03-29 at 02:00 local (01:00 UTC): midnight that day is still UTC+1.
        #expect(ISO8601Time("2026-03-29")?.millisecondsSinceEpoch(localOffset: Self.paris) == Self.utc(2026, 3, 28, 23))
        #expect(
            ISO8601Time("2026-03-29T03:00")?.millisecondsSinceEpoch(localOffset: Self.paris) == Self.utc(2026, 3, 29, 1)
        )
        // Summer time ended 2026-10-25 at 03:00 local (01:00 UTC): midnight that day is still UTC+2, the next UTC+1.
        #expect(
            ISO8601Time("2026-10-25")?.millisecondsSinceEpoch(localOffset: Self.paris) == Self.utc(2026, 10, 24, 22))
        #expect(
            ISO8601Time("2026-10-26")?.millisecondsSinceEpoch(localOffset: Self.paris) == Self.utc(2026, 10, 25, 23))
        // 02:30 does not exist on 29 March: it lands after the change, not before it.
        let skipped = try #require(
            ISO8601Time("2026-03-29T02:30")?.millisecondsSinceEpoch(localOffset: Self.paris))
        #expect(skipped >= Self.utc(2026, 3, 29, 1))
    }

    @Test(arguments: [
        "", "today", "2026", "2026-11", "20261128", "2026-11-28T", "2026-11-28T10", "2026-11-28T1000",
        "2026-13-01", "2026-00-10", "2026-11-31", "2026-02-29", "2100-02-29", "2026-11-00", "2026-11-28T24:00",
        "2026-11-28T10:60", "2026-11-28T10:00:60", "2026-11-28T10:00:00.", "2026-11-28T10:00:00.1234567890Z",
        "2026-11-28Z", "2026-11-28+01:00", "2026-11-28T10:00+1", "2026-11-28T10:00+24:00", "2026-11-28T10:00+01:60",
        "2026-11-28T10:00:00Z ", " 2026-11-28", "2026-11-28T10:00:00ZZ", "2026-W48-6", "2026-332", "２０２６-11-28",
        "-2026-11-28", "2026-11-28T10:00+01:00:00",
    ])
    func notATime(text: String) {
        #expect(ISO8601Time(text) == nil, "\(text)")
    }

    @Test func leapDays() {
        #expect(ISO8601Time("2024-02-29") != nil && ISO8601Time("2000-02-29") != nil)
        #expect(ISO8601Time("2026-02-29") == nil && ISO8601Time("1900-02-29") == nil)
        #expect(ISO8601Time.days(inMonth: 2, of: 2024) == 29 && ISO8601Time.days(inMonth: 2, of: 2100) == 28)
    }
}
