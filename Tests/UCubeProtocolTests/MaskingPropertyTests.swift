import Foundation
import Testing

@testable import UCubeProtocol

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Issue 38: masking touches card data and nothing else. Documents and lines in every form ucube writes (text, JSON,
/// JSON Lines, TAP, JUnit XML, receipts) are generated from a seed, mixing UUIDs, hex strings, KSNs, timestamps,
/// amounts and test PANs of every network, length and grouping. After `Masking.redactCardData`, each must still
/// parse in its form, every PAN must be masked (first 6, last 4) and every other token must be exactly as it was:
/// the masked output is compared with the document built again with each PAN replaced by its masked form.
@Suite("Masking by structure: generated documents")
struct MaskingPropertyTests {
    /// Cases per form; with 6 forms, 6,000 documents in all.
    static let casesPerForm = 1_000

    /// The test card numbers the card networks publish for integration testing, as acquirers list them (Stripe's
    /// "Testing" page, PayPal Braintree's sandbox card numbers), and ucube's own test card (Visa's contact test card,
    /// spec §12.3). Each is Luhn-valid (checked below).
    static let publishedTestPANs = [
        "4111111111111111", "4012888888881881", "4222222222222", "4761739001010010",  // Visa
        "5555555555554444", "5105105105105100", "2223003122003222", "2720992720992729",  // Mastercard
        "378282246310005", "371449635398431",  // American Express
        "6011111111111117", "6011000990139424",  // Discover
        "3530111333300000", "3566002020360505",  // JCB
    ]

    @Test func publishedTestPANsAreLuhnValid() {
        for pan in Self.publishedTestPANs { #expect(Masking.luhnValid(pan), "\(pan)") }
    }

    enum Form: String, CaseIterable, Sendable {
        case text, json, jsonLines, tap, junit, receipt
    }

    @Test(arguments: Form.allCases)
    func generatedDocumentsKeepTheirShapeAndLoseOnlyCardData(form: Form) throws {
        var random = SeededGenerator(seed: 0x38_0000 + UInt64(Form.allCases.firstIndex(of: form)!))
        var pans = 0
        var others = 0
        for index in 0..<Self.casesPerForm {
            let document = Generated.document(form, using: &random)
            pans += document.pans
            others += document.others
            let masked = Masking.redactCardData(in: document.text)
            #expect(masked == document.expected, "case \(index) of \(form):\n\(document.text)")
            guard masked == document.expected else { return }
            #expect(Self.parses(masked, as: form), "case \(index) of \(form) no longer parses:\n\(masked)")
            // The text detector reads a JSON number as text: JSON's PANs are checked by the expected document.
            if form != .json && form != .jsonLines {
                #expect(!Masking.containsUnmaskedPAN(masked), "case \(index) of \(form):\n\(masked)")
            }
        }
        // The figures the report gives (printed with `swift test`'s output).
        print("MaskingPropertyTests \(form.rawValue): \(Self.casesPerForm) cases, \(pans) PANs, \(others) other tokens")
        #expect(pans > Self.casesPerForm && others > Self.casesPerForm)
    }

    /// Whether `text` is well-formed in its form: JSON by JSONSerialization, every line of JSON Lines, JUnit XML by
    /// XMLParser; text, TAP and receipts have no grammar beyond their lines, and their exact expected text is checked.
    static func parses(_ text: String, as form: Form) -> Bool {
        switch form {
        case .json:
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil
        case .jsonLines:
            return text.split(separator: "\n").allSatisfy {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil
            }
        case .junit:
            #if canImport(FoundationXML)
            return XMLParser(data: Data(text.utf8)).parse()
            #else
            return text.hasPrefix("<?xml")
            #endif
        case .text, .tap, .receipt:
            return true
        }
    }
}

/// A deterministic generator (SplitMix64): the same seed gives the same documents on every machine.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Documents built from tokens, each with what masking must make of it.
enum Generated {
    struct Document {
        var text = ""
        var expected = ""
        var pans = 0
        var others = 0
    }

    /// A token as written, and as it must come out.
    struct Token {
        let text: String
        let expected: String
        let isPAN: Bool
    }

    // MARK: Tokens

    /// A Luhn-valid PAN of a network's IIN range and one of its lengths, or a published test number.
    static func pan(using random: inout SeededGenerator) -> String {
        if Int.random(in: 0..<4, using: &random) == 0 {
            return MaskingPropertyTests.publishedTestPANs.randomElement(using: &random)!
        }
        let (prefix, lengths): (String, [Int]) =
            switch Int.random(in: 0..<6, using: &random) {
            case 0: ("4", [13, 16, 19])  // Visa
            case 1: (String(Int.random(in: 51...55, using: &random)), [16])  // Mastercard
            case 2: (String(Int.random(in: 2221...2720, using: &random)), [16])  // Mastercard 2-series
            case 3: (["34", "37"].randomElement(using: &random)!, [15])  // American Express
            case 4: ("6011", [16, 19])  // Discover
            default: (String(Int.random(in: 3528...3589, using: &random)), [16, 17, 18, 19])  // JCB
            }
        let length = lengths.randomElement(using: &random)!
        var digits = prefix
        while digits.count < length - 1 { digits += String(Int.random(in: 0...9, using: &random)) }
        for check in 0...9 where Masking.luhnValid(digits + String(check)) { return digits + String(check) }
        preconditionFailure("one check digit always completes a Luhn-valid number")
    }

    /// A PAN as people and logs write it: plain, or in groups of 4 (the last group 2–5 digits) joined by single
    /// spaces or dashes, or American Express's 4-6-5.
    static func written(_ pan: String, using random: inout SeededGenerator) -> String {
        let separator = ["", " ", "-"].randomElement(using: &random)!
        guard !separator.isEmpty else { return pan }
        let digits = Array(pan)
        var sizes: [Int]
        if digits.count == 15 && Bool.random(using: &random) {
            sizes = [4, 6, 5]
        } else {
            sizes = Array(repeating: 4, count: digits.count / 4)
            let rest = digits.count % 4
            if rest == 1 { sizes[sizes.count - 1] += 1 } else if rest > 0 { sizes.append(rest) }
        }
        var groups: [String] = []
        var start = 0
        for size in sizes {
            groups.append(String(digits[start..<(start + size)]))
            start += size
        }
        return groups.joined(separator: separator)
    }

    static func hex(_ count: Int, using random: inout SeededGenerator) -> String {
        String((0..<count).map { _ in Array("0123456789ABCDEF").randomElement(using: &random)! })
    }

    /// `count` hex digits with at least one letter: a hex string that is all digits is a number.
    static func hexWithLetter(_ count: Int, using random: inout SeededGenerator) -> String {
        var text = Array(hex(count, using: &random))
        if !text.contains(where: \.isLetter) {
            text[Int.random(in: 0..<count, using: &random)] = Array("ABCDEF").randomElement(using: &random)!
        }
        return String(text)
    }

    static func uuid(using random: inout SeededGenerator) -> String {
        if Int.random(in: 0..<20, using: &random) == 0 { return "BCA24615-7264-4963-8ACF-CE937809EEB9" }  // issue 38
        // Digit-heavy groups, so that their digits often join into Luhn-valid runs.
        func group(_ count: Int) -> String {
            Bool.random(using: &random)
                ? String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
                : hex(count, using: &random)
        }
        let text = [group(8), group(4), group(4), group(4), group(12)].joined(separator: "-")
        return Bool.random(using: &random) ? text : text.lowercased()
    }

    /// A token that is not card data, and how it is written in text.
    static func other(using random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1: return uuid(using: &random)
        case 2: return hexWithLetter(2 * Int.random(in: 4...24, using: &random), using: &random)
        case 3: return "FFFF" + hexWithLetter(16, using: &random)  // a KSN: 20 hex digits
        case 4:  // an ISO 8601 time
            return String(
                format: "2026-%02d-%02dT%02d:%02d:%02d.%03dZ", Int.random(in: 1...12, using: &random),
                Int.random(in: 1...28, using: &random), Int.random(in: 0...23, using: &random),
                Int.random(in: 0...59, using: &random), Int.random(in: 0...59, using: &random),
                Int.random(in: 0...999, using: &random))
        case 5:  // microseconds since 1970, as today's are
            return String(Int64.random(in: 1_600_000_000_000_000...1_999_999_999_999_999, using: &random))
        case 6:  // an amount
            let minor = Int.random(in: 0...99_999_999, using: &random)
            return String(format: "%d.%02d EUR", minor / 100, minor % 100)
        case 7:  // an amount in n12, as 9F02 carries it
            return String(format: "%012d", Int.random(in: 0...99_999_999, using: &random))
        default:  // a word
            return ["approved", "declined", "GetInfo", "seq", "ok", "Visa", "terminal-7"].randomElement(using: &random)!
        }
    }

    static func token(using random: inout SeededGenerator) -> Token {
        if Int.random(in: 0..<3, using: &random) == 0 {
            let pan = pan(using: &random)
            return Token(text: written(pan, using: &random), expected: Masking.maskPAN(pan), isPAN: true)
        }
        let text = other(using: &random)
        return Token(text: text, expected: text, isPAN: false)
    }

    static func tokens(_ count: ClosedRange<Int>, using random: inout SeededGenerator) -> [Token] {
        (0..<Int.random(in: count, using: &random)).map { _ in token(using: &random) }
    }

    // MARK: Documents

    /// Between tokens in a line: never a lone space, which would join a PAN's groups to a number before it (that is
    /// one token then, and masked as a precaution: MaskingOverlapTests).
    static let separators = ["; ", ", ", " | ", " = ", ": ", " (", ") ", "\t", " / "]

    static func line(_ tokens: [Token], using random: inout SeededGenerator) -> (text: String, expected: String) {
        var text = ""
        var expected = ""
        for (index, token) in tokens.enumerated() {
            if index > 0 {
                let separator = separators.randomElement(using: &random)!
                text += separator
                expected += separator
            }
            text += token.text
            expected += token.expected
        }
        return (text, expected)
    }

    static func document(_ form: MaskingPropertyTests.Form, using random: inout SeededGenerator) -> Document {
        var document = Document()
        func add(_ text: String, _ expected: String? = nil) {
            document.text += text
            document.expected += expected ?? text
        }
        func add(_ tokens: [Token]) {
            document.pans += tokens.filter(\.isPAN).count
            document.others += tokens.filter { !$0.isPAN }.count
        }
        switch form {
        case .text:
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let tokens = Self.tokens(1...8, using: &random)
                add(tokens)
                let (text, expected) = line(tokens, using: &random)
                add(text + "\n", expected + "\n")
            }
        case .json:
            // A document is an object (a --json result) or an array (decode's streamed reports).
            var value = jsonObject(depth: 0, pretty: true, using: &random)
            if Bool.random(using: &random) {
                let second = jsonObject(depth: 0, pretty: true, using: &random)
                value = JSONPiece(
                    text: "[\n  " + value.text + ",\n  " + second.text + "\n]",
                    expected: "[\n  " + value.expected + ",\n  " + second.expected + "\n]",
                    tokens: value.tokens + second.tokens)
            }
            add(value.tokens)
            add(value.text, value.expected)
        case .jsonLines:
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let value = jsonObject(depth: 1, pretty: false, using: &random)
                add(value.tokens)
                add(value.text + "\n", value.expected + "\n")
            }
        case .tap:
            let cases = Int.random(in: 1...5, using: &random)
            add("TAP version 13\n1..\(cases)\n")
            for number in 1...cases {
                let tokens = Self.tokens(1...4, using: &random)
                add(tokens)
                let (text, expected) = line(tokens, using: &random)
                let verdict = Bool.random(using: &random) ? "ok" : "not ok"
                add("\(verdict) \(number) - \(text)\n", "\(verdict) \(number) - \(expected)\n")
                add("  ---\n  message: ")
                let detail = Self.tokens(1...3, using: &random)
                add(detail)
                let (detailText, detailExpected) = line(detail, using: &random)
                add(detailText + "\n  ...\n", detailExpected + "\n  ...\n")
            }
        case .junit:
            add(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<testsuites>\n")
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let name = Self.tokens(1...2, using: &random)
                let message = Self.tokens(1...4, using: &random)
                add(name)
                add(message)
                let (nameText, nameExpected) = line(name, using: &random)
                let (messageText, messageExpected) = line(message, using: &random)
                add(#"  <testcase name=""#)
                add(nameText, nameExpected)
                add(#""><failure message=""#)
                add(messageText, messageExpected)
                add(#"">"#)
                add(messageText, messageExpected)
                add("</failure></testcase>\n")
            }
            add("</testsuites>\n")
        case .receipt:
            add("MERCHANT\n")
            for label in ["CARD", "AMOUNT", "DATE", "AID", "REF", "TERMINAL"] {
                let token = Self.token(using: &random)
                add([token])
                add("\(label)  ", "\(label)  ")
                add(token.text + "\n", token.expected + "\n")
            }
            add("APPROVED\n")
        }
        return document
    }

    struct JSONPiece {
        var text = ""
        var expected = ""
        var tokens: [Token] = []
    }

    /// Keys a generated object uses; "pan" holds card data by its field.
    static let keys = ["requestID", "message", "unixMicroseconds", "amount", "ksn", "data", "time", "note", "id"]

    static func jsonValue(depth: Int, pretty: Bool, using random: inout SeededGenerator) -> JSONPiece {
        switch depth < 3 ? Int.random(in: 0..<6, using: &random) : Int.random(in: 2..<6, using: &random) {
        case 0: return jsonObject(depth: depth + 1, pretty: pretty, using: &random)
        case 1:
            var piece = JSONPiece(text: "[", expected: "[")
            for index in 0..<Int.random(in: 0...4, using: &random) {
                let element = jsonValue(depth: depth + 1, pretty: pretty, using: &random)
                piece.text += (index > 0 ? ", " : "") + element.text
                piece.expected += (index > 0 ? ", " : "") + element.expected
                piece.tokens += element.tokens
            }
            piece.text += "]"
            piece.expected += "]"
            return piece
        case 2:
            // A number, PAN-shaped or not: numbers are never changed (ucube writes no PAN as a number).
            let number =
                Bool.random(using: &random)
                ? pan(using: &random) : String(Int64.random(in: 0...9_999_999_999_999_999, using: &random))
            return JSONPiece(text: number, expected: number)
        case 3:
            let number = String(format: "%.3f", Double.random(in: 0...1e6, using: &random))
            return JSONPiece(text: number, expected: number)
        default:
            // A string: a token, or a line of them.
            let tokens = tokens(1...3, using: &random)
            let (text, expected) = line(tokens, using: &random)
            return JSONPiece(text: quote(text), expected: quote(expected), tokens: tokens)
        }
    }

    static func jsonObject(depth: Int, pretty: Bool, using random: inout SeededGenerator) -> JSONPiece {
        var piece = JSONPiece(text: "{", expected: "{")
        let count = Int.random(in: 0...5, using: &random)
        for (index, key) in keys.shuffled(using: &random).prefix(count).enumerated() {
            let value = jsonValue(depth: depth, pretty: pretty, using: &random)
            let head = (index > 0 ? "," : "") + (pretty ? "\n  " : "") + quote(key) + (pretty ? ": " : ":")
            piece.text += head + value.text
            piece.expected += head + value.expected
            piece.tokens += value.tokens
        }
        if Bool.random(using: &random) {
            // Card data by its field: a PAN under "pan", written with a prefix that would hide it from the shape test.
            let pan = pan(using: &random)
            let head = (count > 0 ? "," : "") + quote("pan") + ":"
            piece.text += head + quote("PAN" + pan)
            piece.expected += head + quote("PAN" + Masking.maskPAN(pan))
            piece.tokens.append(Token(text: pan, expected: Masking.maskPAN(pan), isPAN: true))
        }
        piece.text += (pretty && count > 0 ? "\n" : "") + "}"
        piece.expected += (pretty && count > 0 ? "\n" : "") + "}"
        return piece
    }

    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t") + "\""
    }
}
