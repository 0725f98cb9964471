import Foundation

/// ISO 8601 in UTC with milliseconds, "2025-01-01T12:00:00.000Z": the journal's, the events' and the history's
/// times. Written by hand from `gmtime_r`: Foundation's first ISO 8601 format style costs 2.7 M instructions to set up
/// (issue 27), on every payment, for a fixed layout.
enum UTCTimestamp {
    static func string(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        var seconds = time_t(whole)
        let millis = min(999, max(0, Int(((interval - whole) * 1000).rounded(.down))))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var out = ""
        out.reserveCapacity(24)
        append(Int(parts.tm_year) + 1900, width: 4, to: &out)
        out += "-"
        append(Int(parts.tm_mon) + 1, width: 2, to: &out)
        out += "-"
        append(Int(parts.tm_mday), width: 2, to: &out)
        out += "T"
        append(Int(parts.tm_hour), width: 2, to: &out)
        out += ":"
        append(Int(parts.tm_min), width: 2, to: &out)
        out += ":"
        append(Int(parts.tm_sec), width: 2, to: &out)
        out += "."
        append(millis, width: 3, to: &out)
        out += "Z"
        return out
    }

    private static func append(_ value: Int, width: Int, to out: inout String) {
        let digits = String(value)
        if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
        out += digits
    }
}
