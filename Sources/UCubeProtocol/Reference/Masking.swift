/// PAN and track-data masking, and the Luhn-based detector that proves nothing leaked.
///
/// Output, logs, journals and bundles show a PAN only as first 6 / last 4 (PCI DSS requirement 3.4, the most it
/// allows) — see docs/architecture.md "Nothing sensitive leaks".
package enum Masking {
    /// What stands for each hidden digit.
    package static let maskCharacter: Character = "*"

    /// What stands for a hidden digit inside BCD bytes that are kept rather than shown (a recording's frames,
    /// `maskingCardData(in:)`): F, as terminals themselves truncate a PAN they send in clear (47 61 73 FF FF FF 00 10).
    /// Not a digit, so no masked PAN passes a Luhn check; F nibbles with digits after them are hidden digits, F
    /// nibbles at the end are padding.
    package static let maskedNibble: UInt8 = 0xF

    /// What stands for the hidden part of track data after the separator, whatever its length.
    static let hiddenRest = "****"

    /// "4761739001010010" → "476173******0010": first 6 and last 4 kept (PCI DSS). Shorter than 13 digits, fewer
    /// are kept so that at least half of the digits stay hidden.
    package static func maskPAN(_ digits: String) -> String {
        let chars = Array(digits)
        let n = chars.count
        let first: Int
        let last: Int
        if n >= 13 {
            first = 6
            last = 4
        } else {
            let visible = n / 2
            last = min(4, visible / 2)
            first = min(6, visible - last)
        }
        return String(chars.prefix(first)) + String(repeating: maskCharacter, count: n - first - last)
            + String(chars.suffix(last))
    }

    /// PAN digits from packed BCD ("cn": left-justified, padded with F), e.g. 5A: 47 61 73 90 01 01 00 10 →
    /// "4761739001010010". Stops at the first nibble that is neither a digit nor F; an F with digits after it is a
    /// hidden digit (`maskedNibble`), shown as `*`, and F nibbles at the end are padding.
    package static func panDigits(from bcd: [UInt8]) -> String {
        var out = ""
        for nibble in nibbles(bcd) {
            if nibble == maskedNibble {
                out.append(maskCharacter)
                continue
            }
            guard nibble <= 9 else { break }
            out.append(Character(Unicode.Scalar(UInt8(ascii: "0") + nibble)))
        }
        while out.last == maskCharacter { out.removeLast() }
        return out
    }

    /// Track 2 equivalent data (57, 9F6B: PAN, separator nibble D, expiry, service code, discretionary data, F pad):
    /// the PAN masked, everything after the separator hidden: "476173******0010=****".
    package static func maskTrack2(_ bytes: [UInt8]) -> String {
        var pan = ""
        var sawSeparator = false
        for nibble in nibbles(bytes) {
            if nibble == 0xD {
                sawSeparator = true
                break
            }
            if nibble == maskedNibble {
                pan.append(maskCharacter)
                continue
            }
            guard nibble <= 9 else { break }
            pan.append(Character(Unicode.Scalar(UInt8(ascii: "0") + nibble)))
        }
        while pan.last == maskCharacter { pan.removeLast() }
        guard !pan.isEmpty else { return hidden(bytes.count) }
        return maskPAN(pan) + (sawSeparator ? "=" + hiddenRest : "")
    }

    /// Track 1 data (56; ISO/IEC 7813 format B, ASCII "B<PAN>^<name>^<expiry>…"): "B476173******0010^****".
    package static func maskTrack1(_ bytes: [UInt8]) -> String {
        var rest = bytes[...]
        var prefix = ""
        if rest.first == UInt8(ascii: "%") { rest = rest.dropFirst() }
        if rest.first == UInt8(ascii: "B") {
            prefix = "B"
            rest = rest.dropFirst()
        }
        let pan = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard !pan.isEmpty else { return hidden(bytes.count) }
        let hasMore = pan.count < rest.count
        return prefix + maskPAN(String(decoding: pan, as: UTF8.self)) + (hasMore ? "^" + hiddenRest : "")
    }

    /// "<n bytes hidden>": how a sensitive value that is not a PAN is shown.
    package static func hidden(_ count: Int) -> String {
        "<\(count) byte\(count == 1 ? "" : "s") hidden>"
    }

    // MARK: What a log may show

    /// Commands whose data (both ways) cannot carry card data, PIN blocks or keys, so the RPC log may show it in hex.
    /// PROJECT CHOICE (spec §11 logs "sent message: <hex>" for every frame; we never do for the rest): an allowlist
    /// of clock, information, display, session and power commands, none of which the catalogue confines to SECURED.
    /// Every other command — card, payment, PIN, tag, key and binary loading, unknown ids — is logged by name,
    /// sequence, length and status only.
    package static let commandsWithLoggableData: Set<CommandID> = [
        .cancelAll, .rtcGet, .rtcSet, .getInfo, .setInfoField, .displayMessage, .displayListBox, .powerOff,
        .enterSecureSession, .exitSecureSession, .getKeyInfo, .waitCardRemoval, .cardPowerOff, .bankParametersGet,
    ]

    /// Whether the RPC log may show this command's data (see `commandsWithLoggableData`).
    package static func commandDataIsLoggable(_ id: CommandID) -> Bool { commandsWithLoggableData.contains(id) }

    // MARK: Luhn detection

    /// The Luhn (ISO/IEC 7812-1 Annex B) check on a digit string; `false` for empty text or any non-digit.
    package static func luhnValid(_ digits: String) -> Bool {
        let values = digits.utf8.map { Int($0) - Int(UInt8(ascii: "0")) }
        guard !values.isEmpty, values.allSatisfy({ (0...9).contains($0) }) else { return false }
        var sum = 0
        for (i, digit) in values.reversed().enumerated() {
            if i % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    /// Whether `text` holds a PAN or track 2 data in clear: a run of 13–19 digits passing the Luhn check, either
    /// unbroken, written in groups of 3–6 digits separated by single spaces or dashes ("4012 3456 7890 9"), or as a
    /// hex dump of packed BCD ("47 61 73 90 01 01 00 10", "40 12 34 56 78 90 9F"); or track-2-like data, 12 or
    /// more digits, a separator `=` or `D`, then 4 or more digits ("4761739001010010D2512201…").
    package static func containsUnmaskedPAN(_ text: String) -> Bool {
        !sensitiveSpans(in: Array(text.utf8)).isEmpty
    }

    /// `text` with every PAN that `containsUnmaskedPAN` would find replaced by its masked form (first 6, last 4), and
    /// track-2-like data by the masked PAN, its separator and "****". Numbers that are not PANs (amounts, serial
    /// numbers, timestamps, Luhn-failing runs, runs longer than 19 digits) are left alone.
    package static func redactPANs(in text: String) -> String {
        let bytes = Array(text.utf8)
        guard let redacted = redacted(bytes) else { return text }
        return String(decoding: redacted, as: UTF8.self)
    }

    /// `redactPANs(in:)` on raw bytes (a log file read in chunks, whatever its encoding): only ASCII digits and
    /// separators are looked at, every other byte is copied as it is.
    package static func redactPANs(in bytes: [UInt8]) -> [UInt8] {
        redacted(bytes) ?? bytes
    }

    /// nil when nothing is sensitive.
    private static func redacted(_ bytes: [UInt8]) -> [UInt8]? {
        let spans = sensitiveSpans(in: bytes)
        guard !spans.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        for span in spans {
            out += bytes[index..<span.range.lowerBound]
            out += Array(span.replacement.utf8)
            index = span.range.upperBound
        }
        out += bytes[index...]
        return out
    }

    static let panLengths = 13...19
    /// Digits per group in a written PAN ("4761 7390 …") or per byte in a hex dump of BCD ("47 61 …").
    static let groupLengths = 2...6
    /// Track 2 (ISO/IEC 7813): the PAN before the separator has at most 19 digits; 12 is the shortest run taken
    /// for one, so that "count=1234" stays.
    static let track2PANLengths = 12...19
    /// After "=": the YYMM expiry at least.
    static let track2MinimumRestLength = 4
    /// After a hex "D": the YYMM expiry and the 3-digit service code.
    static let track2MinimumHexRestLength = 7

    private struct Span {
        let range: Range<Int>
        let replacement: String
    }

    /// Sensitive byte ranges, in order and not overlapping, each with what replaces it.
    private static func sensitiveSpans(in bytes: [UInt8]) -> [Span] {
        // Maximal runs of ASCII digits.
        var runs: [Range<Int>] = []
        var i = 0
        while i < bytes.count {
            guard isDigit(bytes[i]) else {
                i += 1
                continue
            }
            let start = i
            while i < bytes.count && isDigit(bytes[i]) { i += 1 }
            runs.append(start..<i)
        }
        func digits(_ from: Int, _ through: Int) -> String {
            String(decoding: runs[from...through].flatMap { bytes[$0] }, as: UTF8.self)
        }
        /// The run after `r` starts one byte after `r` ends, and that byte is one of `separators`.
        func joined(_ r: Int, by separators: [UInt8]) -> Bool {
            r + 1 < runs.count && runs[r + 1].lowerBound == runs[r].upperBound + 1
                && separators.contains(bytes[runs[r].upperBound])
        }
        /// Luhn-valid, not all zeros (zero-filled data passes the Luhn check but is no PAN), and issued by a card
        /// industry (`cardIndustries`): a microsecond timestamp (1…) that passes the Luhn check by chance is no PAN.
        func isPANCandidate(_ digits: String) -> Bool {
            guard let first = digits.utf8.first, cardIndustries.contains(first) else { return false }
            return luhnValid(digits) && digits.utf8.contains { $0 != UInt8(ascii: "0") }
        }
        /// The byte at `index`, just outside a run of digits (before it with `step` -1, after it with 1), belongs
        /// to the same token, so the digits are part of something longer than a card number: a letter, a digit or
        /// `_` (a word, a hex string, a KSN); a dash with a group of hex digits beyond it (a UUID,
        /// "BCA24615-7264-4963-8ACF-CE937809EEB9", whose digit groups may join into a Luhn-valid run); a point with
        /// a digit beyond it (a decimal number, a version).
        func continuesToken(_ index: Int, step: Int) -> Bool {
            guard index >= 0, index < bytes.count else { return false }
            let byte = bytes[index]
            if isWordByte(byte) { return true }
            var beyond = index + step
            guard beyond >= 0, beyond < bytes.count else { return false }
            switch byte {
            case UInt8(ascii: "."):
                return isDigit(bytes[beyond])
            case UInt8(ascii: "-"):
                var hexDigits = 0
                while beyond >= 0, beyond < bytes.count, isWordByte(bytes[beyond]) {
                    guard isHexDigit(bytes[beyond]) else { return false }
                    hexDigits += 1
                    beyond += step
                }
                return hexDigits > 0
            default:
                return false
            }
        }
        /// A byte of a hex dump ("9F") stands at `start`: two hex digits with neither a hex digit before nor after.
        func isHexPair(at start: Int) -> Bool {
            start >= 0 && start + 1 < bytes.count && isHexDigit(bytes[start]) && isHexDigit(bytes[start + 1])
                && (start == 0 || !isHexDigit(bytes[start - 1]))
                && (start + 2 == bytes.count || !isHexDigit(bytes[start + 2]))
        }
        /// The value of the hex byte written at `start`, if one is.
        func pairValue(at start: Int) -> Int? {
            guard isHexPair(at: start) else { return nil }
            return Int(String(decoding: bytes[start..<(start + 2)], as: UTF8.self), radix: 16)
        }
        /// Runs `first…last` (digit pairs, the last maybe one digit and the F pad) stand in a longer hex dump: a
        /// byte sits next to them, one space away. There, the Luhn check alone is no sign of a PAN (a dump's
        /// digit-only stretches pass it by chance, and a masked `--trace` line could no longer be decoded): the
        /// stretch must also be TLV-shaped, the byte before it its length. Card data under a known tag is found by
        /// `redactCardDataInHex` whatever its shape.
        func isPANInHexDump(_ first: Int, _ last: Int) -> Bool {
            guard runs[first..<last].allSatisfy({ $0.count == 2 }), runs[last].count <= 2 else { return true }
            let before = runs[first].lowerBound - 1
            let after = runs[last].upperBound + (runs[last].count == 1 ? 1 : 0)
            let inDump =
                (before >= 0 && bytes[before] == UInt8(ascii: " ") && isHexPair(at: before - 2))
                || (after < bytes.count && bytes[after] == UInt8(ascii: " ") && isHexPair(at: after + 1))
            guard inDump else { return true }
            return before >= 0 && bytes[before] == UInt8(ascii: " ") && pairValue(at: before - 2) == last - first + 1
        }
        func isPadNibble(_ index: Int) -> Bool { index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "f") }
        /// Run `r`, a separator and run `r + 1` look like track 2. In hex, D is also an ordinary digit (ASCII text
        /// in hex is mostly decimal digits), so there the PAN must pass the Luhn check and the expiry and service
        /// code must follow.
        func isTrack2(_ r: Int) -> Bool {
            guard track2PANLengths.contains(runs[r].count), r + 1 < runs.count,
                runs[r + 1].lowerBound == runs[r].upperBound + 1
            else { return false }
            switch bytes[runs[r].upperBound] {
            case UInt8(ascii: "="):
                return runs[r + 1].count >= track2MinimumRestLength
            case UInt8(ascii: "D"), UInt8(ascii: "d"):
                return runs[r + 1].count >= track2MinimumHexRestLength && luhnValid(digits(r, r))
            default:
                return false
            }
        }

        var spans: [Span] = []
        var r = 0
        while r < runs.count {
            // Track 2 equivalent data: PAN, separator (= in text, D in hex), expiry and the rest.
            if isTrack2(r) {
                let separator = String(UnicodeScalar(bytes[runs[r].upperBound]))
                spans.append(
                    Span(
                        range: runs[r].lowerBound..<runs[r + 1].upperBound,
                        replacement: maskPAN(digits(r, r)) + separator + hiddenRest))
                r += 2
                continue
            }
            // An unbroken run that is a token of its own: not one inside a hex string ("…C1085A17002024010001C2…",
            // where card data is found by its tag, `redactCardDataInHex`), a word, a UUID or the fraction of a
            // decimal number ("0.4761739001010010", a JSON double printed with 17 significant digits).
            if panLengths.contains(runs[r].count) {
                if isPANCandidate(digits(r, r)), !continuesToken(runs[r].lowerBound - 1, step: -1),
                    !continuesToken(runs[r].upperBound, step: 1)
                {
                    spans.append(Span(range: runs[r], replacement: maskPAN(digits(r, r))))
                }
                r += 1
                continue
            }
            // Groups of 2–6 digits joined by single spaces or dashes: "4761 7390 0101 0010", "4761-7390-…", and hex
            // dumps of packed BCD "47 61 73 90 01 01 00 10", whose odd-length PAN ends in a digit and the F pad
            // nibble ("… 90 9F").
            guard groupLengths.contains(runs[r].count) else {
                r += 1
                continue
            }
            var end = r
            while joined(end, by: [UInt8(ascii: " "), UInt8(ascii: "-")]) {
                let next = runs[end + 1]
                if groupLengths.contains(next.count) {
                    end += 1
                } else {
                    if next.count == 1, isPadNibble(next.upperBound) { end += 1 }
                    break
                }
            }
            // Every Luhn-valid stretch of whole groups is masked, and overlapping or touching stretches as one: a
            // stretch that passes by chance next to a real PAN must not leave the PAN's middle digits visible.
            // A stretch must be a token of its own, as an unbroken run must: "24615-7264-4963" inside a UUID is not
            // a card number written in groups.
            func isOwnToken(_ first: Int, _ last: Int) -> Bool {
                let upper = runs[last].upperBound + (runs[last].count == 1 ? 1 : 0)  // the F pad
                return !continuesToken(runs[first].lowerBound - 1, step: -1) && !continuesToken(upper, step: 1)
            }
            var marked: [ClosedRange<Int>] = []
            for first in r...end {
                var total = 0
                for last in first...end {
                    total += runs[last].count
                    if total > panLengths.upperBound { break }
                    if panLengths.contains(total), isPANCandidate(digits(first, last)), isPANInHexDump(first, last),
                        isOwnToken(first, last)
                    {
                        if let previous = marked.last, first <= previous.upperBound + 1 {
                            marked[marked.count - 1] = previous.lowerBound...max(previous.upperBound, last)
                        } else {
                            marked.append(first...last)
                        }
                    }
                }
            }
            for stretch in marked {
                var upper = runs[stretch.upperBound].upperBound
                if runs[stretch.upperBound].count == 1 { upper += 1 }  // the F pad
                spans.append(
                    Span(
                        range: runs[stretch.lowerBound].lowerBound..<upper,
                        replacement: maskPAN(digits(stretch.lowerBound, stretch.upperBound))))
            }
            r = end + 1
        }
        return spans
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// An ASCII letter, digit or `_`: a byte that joins the characters around it into one token.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// The first digit of a card's PAN, its major industry identifier (ISO/IEC 7812-1 §4.2): 2 (Mastercard's 2-series),
    /// 3 travel and entertainment (American Express, JCB, Diners), 4 and 5 banking and financial, 6 merchandising
    /// and banking (Discover, UnionPay, Maestro). A digit run that starts otherwise is no card a uCube reads.
    static let cardIndustries = UInt8(ascii: "2")...UInt8(ascii: "6")

    static func nibbles(_ bytes: [UInt8]) -> [UInt8] { bytes.flatMap { [$0 >> 4, $0 & 0x0F] } }
}
