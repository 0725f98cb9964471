/// A date, or a date and time, in ISO 8601's extended format, read into its fields: "2026-11-28",
/// "2026-11-28T10:00", "2026-11-28T10:00:00Z", "2026-11-28T10:00:00.250+01:00". The journal's own times
/// (`UTCTime.iso8601`) and what `history --since` and `--until` are given both read here.
///
/// Without a zone designator the time is local, as ISO 8601-1 has it ("local time" when no UTC offset is given); a
/// date alone is its first moment. Foundation's `ISO8601DateFormatter` reads one form per set of options, and a time
/// without a zone in its own fixed zone; here one reader takes every form, and the caller says which offsets are local.
/// Also accepted: a space or a lower-case `t` for the `T`, `z` for `Z`, a comma for the decimal point, offsets as
/// `±hh`, `±hhmm` or `±hh:mm`. Refused: a field out of its range (month 13, 2026-02-29, 24:00, second 60), the basic
/// format (`20261128`), week and ordinal dates, an offset on a date alone.
package struct ISO8601Time: Equatable, Sendable {
    package let year: Int
    /// 1 to 12.
    package let month: Int
    /// 1 to the month's last day.
    package let day: Int
    /// 0 to 23; 0 for a date alone.
    package let hour: Int
    package let minute: Int
    package let second: Int
    /// 0 to 999: the decimal fraction of the second, cut to milliseconds.
    package let millisecond: Int
    /// Seconds east of UTC ("Z": 0, "+01:00": 3600, "-05:30": −19800); nil: no designator, a local time.
    package let utcOffset: Int?

    /// The fields as they are; the caller keeps them in range (a day past its month counts on into the next).
    package init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0,
        utcOffset: Int? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
        self.utcOffset = utcOffset
    }

    /// The time `text` writes; nil when it is not one of the forms above.
    package init?(_ text: some StringProtocol) {
        var reader = Reader(bytes: Array(text.utf8))
        guard let year = reader.digits(4), reader.take("-"), let month = reader.digits(2), reader.take("-"),
            let day = reader.digits(2), (1...12).contains(month),
            (1...Self.days(inMonth: month, of: year)).contains(day)
        else { return nil }
        var (hour, minute, second, millisecond) = (0, 0, 0, 0)
        var offset: Int? = nil
        if !reader.atEnd {
            guard reader.take("T") || reader.take("t") || reader.take(" "), let h = reader.digits(2), reader.take(":"),
                let m = reader.digits(2), h < 24, m < 60
            else { return nil }
            (hour, minute) = (h, m)
            if reader.take(":") {
                guard let s = reader.digits(2), s < 60 else { return nil }
                second = s
                if reader.take(".") || reader.take(",") {
                    // At least one digit; past the milliseconds they only make the time more precise than needed.
                    let fraction = reader.digitRun()
                    guard !fraction.isEmpty, fraction.count <= 9 else { return nil }
                    millisecond = (fraction + [0, 0, 0]).prefix(3).reduce(0) { $0 * 10 + $1 }
                }
            }
            if reader.take("Z") || reader.take("z") {
                offset = 0
            } else if let sign = reader.take("+") ? 1 : reader.take("-") ? -1 : nil {
                guard let h = reader.digits(2), h < 24 else { return nil }
                var m = 0
                if !reader.atEnd {
                    _ = reader.take(":")
                    guard let minutes = reader.digits(2), minutes < 60 else { return nil }
                    m = minutes
                }
                offset = sign * (h * 3600 + m * 60)
            }
        }
        guard reader.atEnd else { return nil }
        self.init(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond,
            utcOffset: offset)
    }

    /// The milliseconds since 1970-01-01T00:00:00Z. A local time (no offset) is placed by `localOffset(t)`, the
    /// offset (seconds east of UTC) in force at the UTC second `t`: asked at the time read as UTC, then again at the
    /// moment that first answer gives, so that a time beside a daylight-saving change takes the offset in force then
    /// (a local time the change skips lands after it).
    package func millisecondsSinceEpoch(localOffset: (Int64) -> Int) -> Int64 {
        let asUTC = UTCTime.secondsSinceEpoch(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let seconds: Int64
        if let utcOffset {
            seconds = asUTC - Int64(utcOffset)
        } else {
            let guess = asUTC - Int64(localOffset(asUTC))
            seconds = asUTC - Int64(localOffset(guess))
        }
        return seconds * 1000 + Int64(millisecond)
    }

    /// The days of `month` (1 to 12) in `year`, by the Gregorian leap-year rule.
    package static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Reads ASCII bytes left to right.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Takes `character` if it is next.
        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` decimal digits, as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        /// The decimal digits from here on, each as a number.
        mutating func digitRun() -> [Int] {
            var run: [Int] = []
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                run.append(Int(bytes[index] - UInt8(ascii: "0")))
                index += 1
            }
            return run
        }
    }
}
