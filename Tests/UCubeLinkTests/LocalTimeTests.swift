import Foundation
import Testing
import UCubeSupport

/// `LocalTime`: the one form of a time shown to people, local with its offset; the zone's offsets come from
/// Foundation's time-zone database here (an oracle independent of the C library's `localtime_r`).
@Suite struct LocalTimeTests {
    static func offsets(_ identifier: String) -> (Int64) -> Int {
        let zone = TimeZone(identifier: identifier)!
        return { zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double($0))) }
    }

    @Test(arguments: [
        // India: +05:30 all year, so 20:30 UTC is the next day there.
        ("Asia/Kolkata", "2026-11-28T20:30:05.963Z", "2026-11-29 02:00:05 +05:30"),
        ("UTC", "2026-11-28T20:30:05.963Z", "2026-11-28 20:30:05 +00:00"),
        // West of UTC, and a zone's summer time: New York is −05:00 in November, −04:00 in July.
        ("America/New_York", "2026-11-28T02:00:00.000Z", "2026-11-27 21:00:00 -05:00"),
        ("America/New_York", "2026-07-01T12:00:00.000Z", "2026-07-01 08:00:00 -04:00"),
        // Offsets that are not whole hours, and one east of +12.
        ("Asia/Kathmandu", "2026-11-28T00:00:00Z", "2026-11-28 05:45:00 +05:45"),
        ("Pacific/Kiritimati", "2026-11-28T00:00:00Z", "2026-11-28 14:00:00 +14:00"),
        // A time written with another offset is the same moment.
        ("UTC", "2026-11-28T10:00:00+01:00", "2026-11-28 09:00:00 +00:00"),
    ])
    func aMomentIsShownInTheZone(zone: String, iso: String, shown: String) throws {
        try #require(TimeZone(identifier: zone) != nil)
        #expect(LocalTime.text(iso, offset: Self.offsets(zone)) == shown)
    }

    /// What is not a moment (a date alone, a time without an offset, an edited journal's text) is shown as it is.
    @Test(arguments: ["2026-11-28", "2026-11-28T10:00:00", "yesterday", "", "2026-13-01T00:00:00Z"])
    func whatIsNoMomentIsShownAsItIs(text: String) {
        #expect(LocalTime.text(text, offset: { _ in 19_800 }) == text)
    }

    @Test func beforeTheEpochTheSecondIsCutDown() {
        #expect(LocalTime.text(millisecondsSinceEpoch: -1, offset: { _ in 0 }) == "1969-12-31 23:59:59 +00:00")
        #expect(LocalTime.text(millisecondsSinceEpoch: 999, offset: { _ in 0 }) == "1970-01-01 00:00:00 +00:00")
    }

    /// The system's offset is the C library's reading of `TZ`: whatever zone this process runs in, it agrees with
    /// Foundation's current zone.
    @Test func theSystemOffsetIsTheCurrentZones() {
        let now = Int64(Date().timeIntervalSince1970)
        #expect(
            LocalTime.systemOffset(now)
                == TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(now))))
    }
}
