import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// A scripted payment test suite (docs/suites.md): named card images and the cases that run payments against them
/// (`ucube test`), decoded and validated as one value. Every error names the case or card and the field.
package struct PaymentSuite: Decodable {
    package let name: String
    /// The suite's own card images, by name.
    package let cards: [String: CardImage]
    package let cases: [SuiteCase]

    package enum CodingKeys: String, CodingKey, CaseIterable { case name, cards, cases }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        // The name heads the TAP stream (`# suite: NAME`): a newline in it would start a TAP line of its own.
        guard OneLine.holds(name) else {
            throw c.invalid(.name, "a suite name is one line, without control characters")
        }
        cards = try c.decodeIfPresent([String: CardImage].self, forKey: .cards) ?? [:]
        if let bad = cards.keys.sorted().first(where: { !OneLine.holds($0) }) {
            throw c.invalid(
                .cards, "a card image's name is one line, without control characters: \(JSONOutput.quote(bad))")
        }
        cases = try c.decode([SuiteCase].self, forKey: .cases)
        guard !cases.isEmpty else { throw c.invalid(.cases, "a suite has at least one case") }
        if let clash = cards.keys.sorted().first(where: { CardCatalogue.named($0) != nil }) {
            throw c.invalid(.cards, "'\(clash)' is already a simulator scenario: give the card image another name")
        }
        var names = Set<String>()
        for (index, suiteCase) in cases.enumerated() {
            guard names.insert(suiteCase.name).inserted else {
                throw Self.invalid(index, "name", "another case is already called '\(suiteCase.name)'")
            }
            guard cards[suiteCase.card] != nil || CardCatalogue.named(suiteCase.card) != nil else {
                throw Self.invalid(
                    index, "card",
                    "'\(suiteCase.card)' is neither a card image of this suite (\(cards.keys.sorted().joined(separator: ", "))) nor a simulator scenario (\(CardCatalogue.names.joined(separator: ", ")))"
                )
            }
        }
    }

    private static func invalid(_ index: Int, _ field: String, _ message: String) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: [CodingKeys.cases, AnyCodingKey(intValue: index)!, AnyCodingKey(stringValue: field)],
                debugDescription: message))
    }

    /// The card a case names: a suite image, or a simulator scenario (as a scenario, with the case's cardholder).
    package func scenario(for suiteCase: SuiteCase) -> CardScenario {
        if let image = cards[suiteCase.card] {
            return image.scenario(pin: suiteCase.request.pin, choices: suiteCase.request.choices)
        }
        var scenario = CardCatalogue.named(suiteCase.card)!  // checked when decoded
        if let pin = suiteCase.request.pin { scenario.script.pin = pin }
        if !suiteCase.request.choices.isEmpty { scenario.script.choices = suiteCase.request.choices }
        return scenario
    }

    /// Reads and decodes the suite at `path`. A file that cannot be read exits 74 (io-error); one that is not a valid
    /// suite exits 65 (data, code bad-suite) with the JSON path of the field and, inside a case, its name.
    /// A suite file is read up to this size (a suite of hundreds of cases is well under a megabyte).
    package static let maximumSize = 16 << 20

    package static func load(path: String) throws -> PaymentSuite {
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: maximumSize)
        } catch {
            switch error {
            case .unreadable(let why):
                // As every file named on the command line (a devices file, a recording, a script): exit 64.
                throw CLIFailure(ExitCodes.usage, "cannot read the suite \(path): \(why)")
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.dataError, "the suite \(path) is larger than \(BoundedFile.limitText(maximumSize))",
                    code: .badSuite,
                    hint: "docs/suites.md describes the suite format")
            }
        }
        do {
            return try JSONDecoder().decode(PaymentSuite.self, from: data)
        } catch let error as DecodingError {
            throw CLIFailure(
                ExitCodes.dataError, "\(path): \(describe(error, data: data))", code: .badSuite,
                hint: "docs/suites.md describes the suite format")
        }
    }

    /// A decoding error as one line, with the name of the case it is in (`cases[3] ("visa declined").expect…`).
    package static func describe(_ error: DecodingError, data: Data) -> String {
        var text = CardImage.describe(error)
        // Not JSON at all: Foundation's own sentence says where ("Unexpected end of file", "around line 3").
        if case .dataCorrupted(let context) = error, let underlying = context.underlyingError as NSError?,
            let why = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        {
            text += " (\(why))"
        }
        guard text.hasPrefix("cases["), let close = text.firstIndex(of: "]"),
            let index = Int(text[text.index(text.startIndex, offsetBy: 6)..<close]),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = root["cases"] as? [Any], cases.indices.contains(index),
            let name = (cases[index] as? [String: Any])?["name"] as? String
        else { return text }
        return "cases[\(index)] (\(JSONOutput.quote(name)))" + text[text.index(after: close)...]
    }

    /// The cases `--case` names (all when none), in suite order; an unknown name is a usage error.
    package func select(_ names: [String]) throws -> [SuiteCase] {
        guard !names.isEmpty else { return cases }
        if let unknown = names.first(where: { name in !cases.contains { $0.name == name } }) {
            throw CLIFailure(
                ExitCodes.usage, "no case '\(unknown)' in the suite '\(name)'",
                hint: "the cases are: \(cases.map(\.name).joined(separator: ", "))")
        }
        return cases.filter { names.contains($0.name) }
    }
}
