/// A moment in UTC, broken down into its calendar fields, and the two ways ucube writes one: the log's
/// "2026-11-22 08:16:51.123" (spec §11) and ISO 8601's "2026-11-22T08:16:51.123Z" (the journal, the events, `history`).
///
/// The fields come from the days-to-civil algorithm of H. Hinnant's "chrono-Compatible Low-Level Date Algorithms"
/// (proleptic Gregorian calendar), not from `gmtime_r`: glibc's `gmtime_r` reads the time-zone database
/// (`/etc/localtime`, seven system calls) on its first call even though UTC needs none of it, and every command that
/// logs a line paid for it. The digits are written into a fixed buffer: padded string interpolation cost 9 k
/// instructions a line.
package struct UTCTime: Equatable, Sendable {
    package let year: Int
    /// 1 to 12.
    package let month: Int
    /// 1 to 31.
    package let day: Int
    package let hour: Int
    package let minute: Int
    package let second: Int
    /// 0 to 999.
    package let millisecond: Int

    /// `secondsSinceEpoch` seconds after 1970-01-01T00:00:00Z (before it when negative), plus `millisecond`.
    package init(secondsSinceEpoch: Int64, millisecond: Int = 0) {
        let secondsPerDay: Int64 = 86_400
        var days = secondsSinceEpoch / secondsPerDay
        var secondOfDay = secondsSinceEpoch % secondsPerDay
        if secondOfDay < 0 {
            secondOfDay += secondsPerDay
            days -= 1
        }
        // Days since 0000-03-01, counted in 400-year eras of 146 097 days; a year here starts in March, so that the
        // leap day is the last day of its year.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        self.year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        self.month = Int(month)
        self.day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
        self.hour = Int(secondOfDay / 3600)
        self.minute = Int(secondOfDay % 3600 / 60)
        self.second = Int(secondOfDay % 60)
        self.millisecond = min(999, max(0, millisecond))
    }

    /// The seconds since the epoch of a UTC calendar time: the inverse of `init(secondsSinceEpoch:)`, by the same
    /// paper's days-from-civil algorithm (months 1 to 12; a day out of its month counts on into the next).
    package static func secondsSinceEpoch(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0
    ) -> Int64 {
        let (year, month, day) = (Int64(year), Int64(month), Int64(day))
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// "2026-11-22 08:16:51.123": the log's timestamps (spec §11).
    package var logText: String { text(dateTimeSeparator: UInt8(ascii: " "), zulu: false) }

    /// "2026-11-22T08:16:51.123Z".
    package var iso8601: String { text(dateTimeSeparator: UInt8(ascii: "T"), zulu: true) }

    private func text(dateTimeSeparator: UInt8, zulu: Bool) -> String {
        var bytes = [UInt8](repeating: 0, count: zulu ? 24 : 23)
        func put(_ value: Int, at offset: Int, width: Int) {
            var value = max(0, value)
            for i in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[i] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, width: 4)
        put(month, at: 5, width: 2)
        put(day, at: 8, width: 2)
        put(hour, at: 11, width: 2)
        put(minute, at: 14, width: 2)
        put(second, at: 17, width: 2)
        put(millisecond, at: 20, width: 3)
        bytes[4] = UInt8(ascii: "-")
        bytes[7] = UInt8(ascii: "-")
        bytes[10] = dateTimeSeparator
        bytes[13] = UInt8(ascii: ":")
        bytes[16] = UInt8(ascii: ":")
        bytes[19] = UInt8(ascii: ".")
        if zulu { bytes[23] = UInt8(ascii: "Z") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
