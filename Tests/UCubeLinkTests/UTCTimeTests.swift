import Testing
import UCubeSupport

#if canImport(Glibc)
import Glibc
#endif

/// `UTCTime` computes the calendar itself (to spare glibc's time-zone read); glibc's `gmtime_r` is the oracle.
@Suite struct UTCTimeTests {
    /// Known instants, from the Unix epoch's definition and from well-known dates (POSIX.1-2017, "Seconds Since the
    /// Epoch": 86 400 seconds a day; the Gregorian leap-year rule).
    @Test(arguments: [
        (Int64(0), "1970-01-01 00:00:00.000"),
        (Int64(951_782_400), "2000-02-29 00:00:00.000"),  // 2000 is a leap year (divisible by 400)
        (Int64(4_107_542_400), "2100-03-01 00:00:00.000"),  // 2100 is not: 28 February is followed by 1 March
        (Int64(1_795_675_738), "2026-11-26 06:48:58.000"),
        (Int64(-1), "1969-12-31 23:59:59.000"),
        (Int64(253_402_300_799), "9999-12-31 23:59:59.000"),
    ])
    func knownInstants(seconds: Int64, text: String) {
        #expect(UTCTime(secondsSinceEpoch: seconds).logText == text)
    }

    @Test func agreesWithGmtimeOverFourCenturies() {
        // Every 7 919 007 seconds (a prime step, so hours, days and months all vary) from 1900 to 2300.
        var seconds: Int64 = -2_208_988_800
        var checked = 0
        while seconds < 10_413_792_000 {
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            let time = UTCTime(secondsSinceEpoch: seconds)
            #expect(time.year == Int(parts.tm_year) + 1900, "\(seconds)")
            #expect(time.month == Int(parts.tm_mon) + 1, "\(seconds)")
            #expect(time.day == Int(parts.tm_mday), "\(seconds)")
            #expect(time.hour == Int(parts.tm_hour) && time.minute == Int(parts.tm_min), "\(seconds)")
            #expect(time.second == Int(parts.tm_sec), "\(seconds)")
            seconds += 7_919_007
            checked += 1
        }
        #expect(checked > 1500)
    }

    @Test func secondsSinceEpochIsTheInverse() {
        var seconds: Int64 = -2_208_988_800
        while seconds < 10_413_792_000 {
            let time = UTCTime(secondsSinceEpoch: seconds)
            let back = UTCTime.secondsSinceEpoch(
                year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute,
                second: time.second)
            #expect(back == seconds, "\(time.logText)")
            seconds += 7_919_007
        }
        // 2000-03-01 follows 2000-02-29 (a leap year), and the day after 31 December is the next year's first.
        #expect(UTCTime.secondsSinceEpoch(year: 2000, month: 3, day: 1) == 951_868_800)
        #expect(
            UTCTime.secondsSinceEpoch(year: 2025, month: 12, day: 32)
                == UTCTime.secondsSinceEpoch(year: 2026, month: 1, day: 1))
    }

    @Test func iso8601AndMilliseconds() {
        let time = UTCTime(secondsSinceEpoch: 1_735_732_800, millisecond: 7)
        #expect(time.iso8601 == "2025-01-01T12:00:00.007Z")
        #expect(time.logText == "2025-01-01 12:00:00.007")
        #expect(UTCTime(secondsSinceEpoch: 0, millisecond: 1500).millisecond == 999)
    }
}
