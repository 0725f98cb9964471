#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one form of a time shown to people: "2026-11-28 20:00:05 +05:30", local time (`TZ`, else the system's zone)
/// with its offset, to the second. History tables, `history show`, receipts and `history totals`' period use it; JSON,
/// the journal, the log and every other file keep ISO 8601 in UTC (`UTCTime.iso8601`), which a program reads back
/// whatever zone it runs in.
package enum LocalTime {
    /// `iso` (an ISO 8601 date and time with its offset, as the journal keeps it: "2026-11-28T14:30:05.123Z") in the
    /// zone whose offset, in seconds east of UTC, at the UTC second `t` is `offset(t)`. A text that is not such a time
    /// (a date alone, no offset, garbage from an edited journal) comes back as it is: nothing is invented.
    package static func text(_ iso: String, offset: (Int64) -> Int) -> String {
        guard let time = ISO8601Time(iso), time.utcOffset != nil, iso.count > 10 else { return iso }
        let milliseconds = time.millisecondsSinceEpoch(localOffset: { _ in 0 })
        return text(millisecondsSinceEpoch: milliseconds, offset: offset)
    }

    /// The moment `milliseconds` after the epoch (cut to its second) in the zone `offset` gives.
    package static func text(millisecondsSinceEpoch milliseconds: Int64, offset: (Int64) -> Int) -> String {
        let second = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let east = offset(second)
        let local = UTCTime(secondsSinceEpoch: second + Int64(east))
        let date = local.logText.prefix(19)
        let magnitude = abs(east) / 60
        return "\(date) \(east < 0 ? "-" : "+")\(twoDigits(magnitude / 60)):\(twoDigits(magnitude % 60))"
    }

    /// This process's offset from UTC at the UTC second `t`, in seconds east: the C library's reading of `TZ`, or of
    /// `/etc/localtime` when `TZ` is unset (`localtime_r`'s `tm_gmtoff`); 0 when it cannot say.
    package static func systemOffset(_ second: Int64) -> Int {
        var time = time_t(second)
        var fields = tm()
        guard localtime_r(&time, &fields) != nil else { return 0 }
        return Int(fields.tm_gmtoff)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
