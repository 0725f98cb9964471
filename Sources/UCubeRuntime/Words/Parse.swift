import Foundation
import UCubeProtocol

/// Readers for the values `ucube rpc` arguments take, in the protocol's vocabulary: hex bytes, tags (hex or
/// dictionary name), reader and language lists, one-byte values and timeouts, currencies and decimal amounts, dates.
/// Each throws a `UsageError` that says what is allowed; used as `transform:` the message follows
/// "The value 'x' is invalid for '--option <value>':".
package enum Parse {
    /// Bytes in hex; spaces, colons and dashes between bytes are allowed (`Hex.decode`).
    @Sendable package static func hex(_ text: String) throws -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// Bytes in hex for a value read outside a transform; the message names `argument`.
    package static func hex(_ text: String, argument: String) throws -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw UsageError("\(argument): \(error)")
        }
    }

    /// One byte: decimal 0…255 or hex with 0x (0x07).
    @Sendable package static func byte(_ text: String) throws -> UInt8 {
        let value = text.hasPrefix("0x") || text.hasPrefix("0X") ? UInt8(text.dropFirst(2), radix: 16) : UInt8(text)
        guard let value else { throw UsageError("a one-byte value is 0…255 or 0x00…0xFF") }
        return value
    }

    /// A one-byte timeout in whole seconds (spec §5.2: WaitCard, DisplayMessage, DF71 …).
    @Sendable package static func seconds(_ text: String) throws -> UInt8 {
        guard let value = Int(text) else { throw UsageError("a timeout is whole seconds, 0…255") }
        do {
            return try CommandArguments.timeoutSeconds(value, field: "the timeout")
        } catch {
            throw UsageError(error.reason)
        }
    }

    /// A tag: hex (9F27, 0x9F27) or a tag dictionary name (cryptogramInformationData).
    @Sendable package static func tag(_ text: String) throws -> Tag {
        guard let tag = Tag(text) else {
            throw UsageError("not a tag: give hex (9F27) or a tag dictionary name (cryptogramInformationData)")
        }
        return tag
    }

    /// Comma-separated tags ("9F26,9F27" or "9F26, amountAuthorised").
    @Sendable package static func tagList(_ text: String) throws -> [Tag] {
        try commaSeparated(text).map(tag)
    }

    /// Comma-separated names of a fixed value set ("icc,nfc").
    @Sendable package static func names<V: NamedValue>(_ text: String) throws -> [V] {
        try commaSeparated(text).map { word in
            guard let value = V(name: word) else {
                throw UsageError("'\(word)' is not one of \(V.allCases.map(\.name).joined(separator: ", "))")
            }
            return value
        }
    }

    /// Comma-separated ISO 639 languages ("fr,en"; "fra" reads as "fr"), as two-letter codes.
    @Sendable package static func languages(_ text: String) throws -> [String] {
        try commaSeparated(text).map { word in
            guard let language = Language.lookup(word) else {
                throw UsageError("'\(word)' is not an ISO 639 language code (fr, en, deu …)")
            }
            return language.alpha2
        }
    }

    /// An ISO 4217 currency: alphabetic (EUR) or numeric (978).
    @Sendable package static func currency(_ text: String) throws -> Currency {
        guard let currency = Currency.lookup(text) else {
            throw UsageError("not an ISO 4217 currency with minor units: give EUR or 978")
        }
        return currency
    }

    /// A decimal amount ("12.50") in `currency`, as minor units (spec §4 "Amounts").
    package static func amount(_ text: String, _ currency: Currency, option: String) throws -> UInt64 {
        do {
            return try currency.minorUnits(fromDecimal: text)
        } catch {
            throw UsageError("\(option): \(error.reason)")
        }
    }

    /// A two-byte authorisation response code (8A, DF73): two characters ("00", "05", "Y1") as ASCII, or four hex
    /// digits ("3030").
    @Sendable package static func responseCode(_ text: String) throws -> [UInt8] {
        if text.unicodeScalars.count == 2, text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
            return Array(text.utf8)
        }
        guard text.count == 4, let bytes = try? Hex.decode(text) else {
            throw UsageError("a response code is two characters (00) or four hex digits (3030)")
        }
        return bytes
    }

    /// "now" (UTC) or an ISO 8601 date and time in UTC: 2026-11-22T10:00:00, seconds and a trailing Z optional.
    @Sendable package static func dateTime(_ text: String) throws -> RTCDateTime {
        let time = text == "now" ? now() : try isoDateTime(text)
        do {
            try time.validate()
        } catch {
            throw UsageError(error.reason)
        }
        return time
    }

    /// The current UTC date and time.
    package static func now() -> RTCDateTime {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date())
        return RTCDateTime(
            year: c.year ?? 0,
            month: c.month ?? 0,
            day: c.day ?? 0,
            hour: c.hour ?? 0,
            minute: c.minute ?? 0,
            second: c.second ?? 0
        )
    }

    private static func isoDateTime(_ text: String) throws -> RTCDateTime {
        let invalid = UsageError("a date and time is ISO 8601 in UTC, like 2026-11-22T10:00:00, or now")
        let trimmed = text.hasSuffix("Z") ? String(text.dropLast()) : text
        let halves = trimmed.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard halves.count == 2 else { throw invalid }
        let date = halves[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        var time = halves[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        if time.count == 2 { time.append(0) }
        guard date.count == 3, time.count == 3, let y = date[0], let mo = date[1], let d = date[2], let h = time[0],
            let mi = time[1], let s = time[2]
        else { throw invalid }
        return RTCDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// `value` as `count` bytes of packed BCD (9A YYMMDD, 9F21 HHMMSS, 9F41, spec §4); `nil` when it does not fit.
    package static func packedBCD(_ value: Int, bytes count: Int) -> [UInt8]? {
        guard value >= 0 else { return nil }
        var rest = value
        var out = [UInt8](repeating: 0, count: count)
        for index in out.indices.reversed() {
            out[index] = UInt8((rest / 10 % 10) << 4 | rest % 10)
            rest /= 100
        }
        return rest == 0 ? out : nil
    }

    private static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
