import Foundation
import UCubeRuntime
import UCubeSimulator

/// What a shell completes with from the suite file already on the command line (docs/suites.md): `test --case` with
/// its case names, `simulate --suite-card` and `sim suite FILE` with its card images and case names (and `sim card`
/// with the simulator's cards). Nothing when no suite is there yet or it does not load: a completion never fails
/// aloud.
enum SuiteCompletion {
    /// `test SUITE --case NAME`: the cases of the first word that is a suite (a `.json` file that loads), the word being
    /// completed (`index`) aside.
    static func caseNames(_ words: [String], index: Int, prefix: String) -> [String] {
        for (position, word) in words.enumerated() where position != index {
            let path = unquoted(word)
            guard path.hasSuffix(".json"), let suite = load(path) else { continue }
            return matching(suite.cases.map(\.name), prefix)
        }
        return []
    }

    /// `simulate --suite FILE --suite-card NAME`: the card images, then the cases, of the suite `--suite` names.
    static func suiteCards(_ words: [String], prefix: String) -> [String] {
        var path: String? = nil
        for (position, word) in words.enumerated() {
            if word == "--suite", position + 1 < words.count {
                path = unquoted(words[position + 1])
            } else if word.hasPrefix("--suite=") {
                path = unquoted(String(word.dropFirst("--suite=".count)))
            }
        }
        guard let path, let suite = load(path) else { return [] }
        return matching(suite.cards.keys.sorted() + suite.cases.map(\.name), prefix)
    }

    /// `sim card NAME`: the simulator's cards; `sim suite FILE CASE`: the suites (`.json`) of the directory being
    /// typed, then FILE's cards and cases. Nothing for the other verbs, whose values are free.
    static func simValues(_ words: [String], index: Int, prefix: String) -> [String] {
        guard let sim = words.firstIndex(of: "sim"),
            let verb = words[(sim + 1)...].firstIndex(where: { Steering.Verb(rawValue: $0) != nil }), verb < index
        else { return [] }
        switch (Steering.Verb(rawValue: words[verb]), index - verb) {
        case (.card?, 1):
            return matching(CardCatalogue.names, prefix)
        case (.suite?, 1):
            let typed = unquoted(prefix)
            let directory = typed.lastIndex(of: "/").map { String(typed[...$0]) } ?? ""
            let entries =
                (try? FileManager.default.contentsOfDirectory(
                    atPath: directory.isEmpty ? "." : (directory as NSString).expandingTildeInPath)) ?? []
            return matching(entries.filter { $0.hasSuffix(".json") }.map { directory + $0 }.sorted(), typed)
        case (.suite?, 2):
            guard let suite = load(unquoted(words[verb + 1])) else { return [] }
            return matching(suite.cards.keys.sorted() + suite.cases.map(\.name), prefix)
        default:
            return []
        }
    }

    private static func load(_ path: String) -> PaymentSuite? {
        try? PaymentSuite.load(path: (path as NSString).expandingTildeInPath)
    }

    private static func matching(_ names: [String], _ prefix: String) -> [String] {
        var seen = Set<String>()
        return names.filter { $0.hasPrefix(prefix) && seen.insert($0).inserted }
    }

    /// A shell word as typed, without its quotes or backslash escapes (the shells pass words verbatim).
    static func unquoted(_ word: String) -> String {
        var out = ""
        var quote: Character? = nil
        var escaped = false
        for character in word {
            if escaped {
                out.append(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
            } else if let open = quote {
                if character == open { quote = nil } else { out.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
            } else {
                out.append(character)
            }
        }
        return out
    }
}
