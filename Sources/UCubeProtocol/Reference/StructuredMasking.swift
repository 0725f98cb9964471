/// Card data masked by the structure of what is written, not by a pattern over the whole text: the one masker every
/// byte ucube writes passes through (`Console` at the door, the log, the journal, the history, reports, receipts,
/// run files; docs/architecture.md "Nothing sensitive leaks").
///
/// - A JSON document (an object or an array) is masked value by value: each string, decoded, is masked as text (a
///   PAN or track data as a whole token or inside the string, card data in hex), and the strings under a card-data
///   key (`cardDataKeys`) have every run of 12–19 digits masked whatever its shape. Only strings change, and only
///   digits (and hex digits) become `*`, so the document stays valid JSON with the same structure. Numbers are left
///   alone: ucube never writes a PAN as a JSON number (a PAN is a string everywhere: `TagValueFormatter`,
///   `Masking.hex`), while a number field may hold any 13–19 digits (a timestamp in microseconds, a counter, an
///   amount in minor units), and a masked number would no longer be a number.
/// - Any other text is masked line by line: a line that is a JSON document by itself (JSON Lines, a one-line
///   `--json` result) as above, the rest as text (`redactCardDataInHex`, then `redactPANs`: a card number is a
///   digit run that is a token of its own, so UUIDs, hex strings, KSNs and decimals come out whole).
extension Masking {
    /// Keys whose string value is card data by its field: any run of 12–19 digits in it is masked.
    static let cardDataKeys: Set<String> = ["pan", "track1", "track2", "track2equivalent", "cardnumber"]

    /// `text` with its card data masked, by structure (see above).
    package static func redactCardData(in text: String) -> String {
        guard let masked = redactedByStructure(Array(text.utf8), text: textRule) else { return text }
        return String(decoding: masked, as: UTF8.self)
    }

    /// `redactCardData(in:)` on raw bytes (a log file read in chunks, whatever its encoding): outside JSON, only
    /// digits and separators are looked at (`redactPANs`), every other byte is copied as it is.
    package static func redactCardData(in bytes: [UInt8]) -> [UInt8] {
        redactedByStructure(bytes, text: { redactPANs(in: $0) }) ?? bytes
    }

    /// `text` known to be JSON, or a piece of a JSON document written a part at a time (an array's elements, one
    /// write each): only the strings are masked, as in a whole document; what lies outside strings is kept as is.
    package static func redactCardData(inJSON text: String) -> String {
        let bytes = Array(text.utf8)
        let strings = JSONStrings.lenient(bytes)
        guard let masked = redacting(strings, in: bytes[...]) else { return text }
        return String(decoding: masked, as: UTF8.self)
    }

    /// How text that is not JSON is masked: card-data tags in hex, then PANs and track data in text.
    private static func textRule(_ bytes: [UInt8]) -> [UInt8] {
        Array(redactPANs(in: redactCardDataInHex(String(decoding: bytes, as: UTF8.self))).utf8)
    }

    /// nil when nothing changed.
    private static func redactedByStructure(_ bytes: [UInt8], text: ([UInt8]) -> [UInt8]) -> [UInt8]? {
        if let strings = JSONStrings.strict(bytes[...]) { return redacting(strings, in: bytes[...]) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var changed = false
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let line = bytes[start..<end]
            let masked: [UInt8]?
            if let strings = JSONStrings.strict(line) {
                masked = redacting(strings, in: line)
            } else {
                let result = text(Array(line))
                masked = result.elementsEqual(line) ? nil : result
            }
            if let masked {
                out += masked
                changed = true
            } else {
                out += line
            }
            if end < bytes.count { out.append(UInt8(ascii: "\n")) }
            start = end + 1
        }
        return changed ? out : nil
    }

    /// `bytes` with each string literal in `strings` masked; nil when none changed.
    private static func redacting(_ strings: [JSONStrings.Literal], in bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var index = bytes.startIndex
        var changed = false
        for literal in strings {
            guard let decoded = JSONStrings.decode(bytes[literal.content]) else { continue }
            // A card-data field's digit runs first: the text rule's hex reading would hide other digits of them.
            var masked = decoded
            if let key = literal.key, cardDataKeys.contains(key.lowercased()) { masked = redactDigitRuns(in: masked) }
            masked = redactCardData(inString: masked)
            guard masked != decoded else { continue }
            if !changed {
                out.reserveCapacity(bytes.count)
                changed = true
            }
            out += bytes[index..<literal.content.lowerBound]
            out += JSONStrings.encodeContent(masked)
            index = literal.content.upperBound
        }
        guard changed else { return nil }
        out += bytes[index...]
        return out
    }

    /// A JSON string's value, masked as text; a string that is itself a JSON document (a payload carried as text)
    /// is masked as one.
    private static func redactCardData(inString text: String) -> String {
        guard text.utf8.contains(where: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return text }
        return redactCardData(in: text)
    }

    /// Every run of 12–19 digits masked (`maskPAN`), whatever its boundaries or check digit: the value of a field
    /// that holds card data.
    private static func redactDigitRuns(in text: String) -> String {
        var out = ""
        var run = ""
        func flush() {
            out += track2PANLengths.contains(run.count) ? maskPAN(run) : run
            run = ""
        }
        for character in text {
            if character.isASCII, character.isNumber {
                run.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }
}

/// The string literals of JSON text, found by a strict parser (a whole document: an object or an array, nothing
/// after it but white space; RFC 8259) or leniently (every quoted string, for a piece of a document).
enum JSONStrings {
    struct Literal {
        /// The bytes between the quotes, escapes undecoded.
        let content: Range<Int>
        /// For a value in an object, its key (decoded).
        let key: String?
    }

    /// Nesting deeper than this is not taken for a document (hostile input, no stack overflow): it is masked as text.
    static let maximumDepth = 512

    /// The literals of `bytes` if they are one JSON object or array (white space around it allowed); nil otherwise,
    /// and for a bare scalar (a line "4111111111111111" is text, not a JSON number).
    static func strict(_ bytes: ArraySlice<UInt8>) -> [Literal]? {
        var parser = Parser(bytes: bytes, index: bytes.startIndex)
        parser.skipSpace()
        guard parser.index < bytes.endIndex,
            bytes[parser.index] == UInt8(ascii: "{") || bytes[parser.index] == UInt8(ascii: "[")
        else { return nil }
        guard parser.value(depth: 0, key: nil) else { return nil }
        parser.skipSpace()
        return parser.index == bytes.endIndex ? parser.literals : nil
    }

    /// Every quoted string in `bytes`, outside which nothing is interpreted.
    static func lenient(_ bytes: [UInt8]) -> [Literal] {
        var literals: [Literal] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            let start = index + 1
            var cursor = start
            while cursor < bytes.count, bytes[cursor] != UInt8(ascii: "\"") {
                cursor += bytes[cursor] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard cursor < bytes.count else { break }
            literals.append(Literal(content: start..<cursor, key: nil))
            index = cursor + 1
        }
        return literals
    }

    private struct Parser {
        let bytes: ArraySlice<UInt8>
        var index: Int
        var literals: [Literal] = []

        init(bytes: ArraySlice<UInt8>, index: Int) {
            self.bytes = bytes
            self.index = index
        }

        mutating func skipSpace() {
            while index < bytes.endIndex,
                [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[index])
            {
                index += 1
            }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.endIndex, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func value(depth: Int, key: String?) -> Bool {
            guard depth < JSONStrings.maximumDepth else { return false }
            skipSpace()
            guard index < bytes.endIndex else { return false }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                skipSpace()
                if consume(UInt8(ascii: "}")) { return true }
                repeat {
                    skipSpace()
                    guard let range = string() else { return false }
                    literals.append(Literal(content: range, key: nil))
                    skipSpace()
                    guard consume(UInt8(ascii: ":")) else { return false }
                    let name = JSONStrings.decode(bytes[range])
                    guard value(depth: depth + 1, key: name) else { return false }
                    skipSpace()
                } while consume(UInt8(ascii: ","))
                return consume(UInt8(ascii: "}"))
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if consume(UInt8(ascii: "]")) { return true }
                repeat {
                    guard value(depth: depth + 1, key: nil) else { return false }
                    skipSpace()
                } while consume(UInt8(ascii: ","))
                return consume(UInt8(ascii: "]"))
            case UInt8(ascii: "\""):
                guard let range = string() else { return false }
                literals.append(Literal(content: range, key: key))
                return true
            case UInt8(ascii: "t"): return word("true")
            case UInt8(ascii: "f"): return word("false")
            case UInt8(ascii: "n"): return word("null")
            default: return number()
            }
        }

        mutating func word(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard bytes.endIndex - index >= expected.count,
                bytes[index..<(index + expected.count)].elementsEqual(expected)
            else { return false }
            index += expected.count
            return true
        }

        /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        mutating func number() -> Bool {
            _ = consume(UInt8(ascii: "-"))
            if !consume(UInt8(ascii: "0")) {
                guard index < bytes.endIndex, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index]) else {
                    return false
                }
                digits()
            }
            if consume(UInt8(ascii: ".")) {
                guard digits() > 0 else { return false }
            }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                guard digits() > 0 else { return false }
            }
            return true
        }

        @discardableResult
        mutating func digits() -> Int {
            let start = index
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        /// A string literal at `index` (RFC 8259 §7): the range of its content, or nil if it is not one.
        mutating func string() -> Range<Int>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.endIndex {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return start..<(index - 1)
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.endIndex else { return nil }
                    switch bytes[index + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 2
                    case UInt8(ascii: "u"):
                        guard index + 6 <= bytes.endIndex,
                            bytes[(index + 2)..<(index + 6)].allSatisfy({ Masking.hexValue($0) != nil })
                        else { return nil }
                        index += 6
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    index += 1
                }
            }
            return nil
        }
    }

    /// A string literal's content decoded (escapes resolved); nil if an escape is malformed.
    static func decode(_ content: ArraySlice<UInt8>) -> String? {
        guard content.contains(UInt8(ascii: "\\")) else { return String(decoding: content, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var pendingHigh: UInt32?
        var raw: [UInt8] = []
        func flushRaw() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        var index = content.startIndex
        while index < content.endIndex {
            let byte = content[index]
            guard byte == UInt8(ascii: "\\") else {
                raw.append(byte)
                index += 1
                continue
            }
            flushRaw()
            guard index + 1 < content.endIndex else { return nil }
            let escaped = content[index + 1]
            index += 2
            var code: UInt32
            switch escaped {
            case UInt8(ascii: "b"): code = 0x08
            case UInt8(ascii: "f"): code = 0x0C
            case UInt8(ascii: "n"): code = 0x0A
            case UInt8(ascii: "r"): code = 0x0D
            case UInt8(ascii: "t"): code = 0x09
            case UInt8(ascii: "u"):
                guard index + 4 <= content.endIndex else { return nil }
                code = 0
                for hexByte in content[index..<(index + 4)] {
                    guard let value = Masking.hexValue(hexByte) else { return nil }
                    code = code << 4 | UInt32(value)
                }
                index += 4
            default: code = UInt32(escaped)
            }
            if let high = pendingHigh {
                pendingHigh = nil
                if (0xDC00...0xDFFF).contains(code) {
                    code = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                } else {
                    scalars.append("\u{FFFD}")
                }
            }
            if (0xD800...0xDBFF).contains(code) {
                pendingHigh = code
                continue
            }
            scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
        }
        flushRaw()
        if pendingHigh != nil { scalars.append("\u{FFFD}") }
        return String(scalars)
    }

    /// `text` as the content of a JSON string literal: quote, backslash and control characters escaped.
    static func encodeContent(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20:
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default:
                out.append(byte)
            }
        }
        return out
    }
}
