import Foundation
import Logging
import UCubeProtocol
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that goes to a log or leaves by `Console` passes through here: card data masked by the structure of
/// the text (`Masking.redactCardData`: a JSON document string by string, other text line by line, PANs and track
/// data as tokens of their own, card-data tags inside hex), then one line per event.
package enum LogScrubber {
    /// `text` with every PAN (plain, spaced, dashed, hex-dump BCD) and track-2-like data masked.
    package static func scrub(_ text: String) -> String {
        guard mayHoldCardData(text.utf8) else { return text }
        return Masking.redactCardData(in: text)
    }

    /// Raw bytes (a file being bundled), same rules.
    package static func scrub(_ bytes: [UInt8]) -> [UInt8] {
        guard mayHoldCardData(bytes) else { return bytes }
        return Masking.redactCardData(in: bytes)
    }

    /// JSON, or a piece of a JSON document written a part at a time: only its strings are masked
    /// (`Masking.redactCardData(inJSON:)`), so a number stays a number.
    package static func scrubJSON(_ text: String) -> String {
        guard mayHoldCardData(text.utf8) else { return text }
        return Masking.redactCardData(inJSON: text)
    }

    /// The fewest hex digits anything the scrubber masks is made of: a track-2-like run (12 digits, `Masking`) is the
    /// shortest; a card-data tag in hex (tag, length, 6 bytes of value: 16 nibbles) and a PAN (13 digits) are longer.
    static let shortestSensitiveRun = 12

    /// Whether `bytes` has a run of at least `shortestSensitiveRun` hex digits, single spaces or dashes allowed
    /// between them: the cheap test that lets most output (words, short numbers) pass without the full scan, which
    /// every byte written to stdout and stderr goes through (`Console`).
    static func mayHoldCardData<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var run = 0
        var afterSeparator = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                run += 1
                afterSeparator = false
                if run >= shortestSensitiveRun { return true }
            case UInt8(ascii: " "), UInt8(ascii: "-"):
                if afterSeparator || run == 0 { run = 0 }
                afterSeparator = run > 0
            default:
                run = 0
                afterSeparator = false
            }
        }
        return false
    }
}

/// The line format (spec §11, extended): `yyyy-MM-dd HH:mm:ss.SSS` (UTC), level, layer, message, metadata,
/// and for an event with an error ": <error>". One event is always one line: newlines in the message are escaped.
enum LogLine {
    static func format(
        date: timespec, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        error: (any Error)?
    ) -> [UInt8] {
        var text = timestamp(date) + " " + level.rawValue.uppercased() + " " + layerName(label) + ": " + message
        if let error { text += ": \(error)" }
        if !metadata.isEmpty {
            text += " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        return escapingLineBreaks(LogScrubber.scrub(text)) + [UInt8(ascii: "\n")]
    }

    /// The UTF-8 of `text` with CR and LF written as `\r` and `\n`, so that an event stays on one line.
    static func escapingLineBreaks(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 1)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            default: out.append(byte)
            }
        }
        return out
    }

    /// "rpc" for "ucube.rpc"; another library's label as it is.
    static func layerName(_ label: String) -> String { LogLayer(label: label)?.rawValue ?? label }

    static func now() -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts
    }

    /// "2026-11-22 08:16:51.123" in UTC (`UTCTime`).
    static func timestamp(_ ts: timespec) -> String {
        UTCTime(secondsSinceEpoch: Int64(ts.tv_sec), millisecond: Int(ts.tv_nsec / 1_000_000)).logText
    }
}
