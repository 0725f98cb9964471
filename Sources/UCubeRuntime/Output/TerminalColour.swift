import UCubePayment

/// Colour for statuses and severities on a terminal: APPROVED green, DECLINED and the other failed statuses red,
/// CANCELLED and warnings yellow, `hint:` and `detail:` dim, `ucube: error:` red, diagnose's severities and TAP's
/// `ok`/`not ok`/`# SKIP` by what they mean. `Console` alone applies it, to text it has already masked, so an
/// escape code can never sit between a PAN and the masker (a PAN after `m` would read as part of a longer token and
/// come out whole). Never in JSON (a `--json` command's stdout, JSON lines, `Console.outJSON`), never in a file or the
/// log: only `Console.out` and `Console.err` call it, and only for a stream that `enabled` says is a colour terminal.
package enum TerminalColour {
    /// Whether a stream gets colour: a terminal, `NO_COLOR` unset or empty (no-color.org: "when present and not an
    /// empty string"), and a `TERM` that is set and not `dumb` (a terminal without escape codes: Emacs' shell, some
    /// CI consoles). A pure function of `isatty` and the environment; `Console` asks it once per stream.
    package static func enabled(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    /// What a coloured piece of text says.
    package enum Style: Equatable, Sendable {
        case good, bad, warning, dim

        /// Its SGR code (ECMA-48 §8.3.117): green, bold red, yellow, faint.
        package var code: String {
            switch self {
            case .good: "32"
            case .bad: "1;31"
            case .warning: "33"
            case .dim: "2"
            }
        }
    }

    /// `text` wrapped in `style`'s escape codes, reset after.
    package static func painted(_ text: some StringProtocol, _ style: Style) -> String {
        "\u{1B}[\(style.code)m\(text)\u{1B}[0m"
    }

    /// How each payment status is coloured: approved good, cancelled a warning, every other one bad.
    package static func style(ofStatus status: PaymentStatus) -> Style {
        switch status {
        case .approved: .good
        case .cancelled: .warning
        default: .bad
        }
    }

    /// The words coloured wherever they stand as a word on stdout: the payment statuses, each by `style(ofStatus:)`.
    package static let statusWords: [String: Style] = Dictionary(
        uniqueKeysWithValues: PaymentStatus.allCases.map { ($0.rawValue, style(ofStatus: $0)) })

    /// Line starts, after any indentation, coloured up to and including the text given: stderr's messages, the
    /// hints under diagnose's findings, diagnose's severities, TAP's verdicts. The first that matches a line wins.
    package static let prefixes: [(prefix: String, style: Style)] = [
        ("ucube: error:", .bad), ("ucube: warning:", .warning), ("hint:", .dim), ("detail:", .dim),
        ("not ok", .bad), ("ok", .good), ("warning", .warning), ("blocking", .bad), ("skipped", .dim),
    ]

    /// `masked` coloured when `colour` (the stream is a colour terminal), as it is otherwise: `Console` calls it on
    /// text `LogScrubber.scrub` has masked, in the same expression, so the order cannot change.
    package static func apply(_ masked: String, when colour: Bool) -> String { colour ? apply(masked) : masked }

    /// `text` (whole lines, as `Console` is given them, already masked) with its statuses and severities coloured.
    /// A line that is JSON (it starts with `{`, `[` or `"` after its indentation), or that redraws a status line
    /// (carriage return, escape codes of its own), is left as it is.
    package static func apply(_ text: String) -> String {
        guard !text.isEmpty, !text.contains("\u{1B}") else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(line).joined(separator: "\n")
    }

    /// One line, coloured.
    package static func line(_ line: Substring) -> String {
        let body = line.drop { $0 == " " }
        guard let first = body.first, !"{[\"\r".contains(first) else { return String(line) }
        let indent = line[line.startIndex..<body.startIndex]
        for (prefix, style) in prefixes where body.hasPrefix(prefix) {
            let after = body.dropFirst(prefix.count)
            // A whole word: `ok` is not `okay`.
            guard after.first.map({ !isWordCharacter($0) }) ?? true else { continue }
            if style == .dim { return indent + painted(body, .dim) }
            // TAP's skipped case is an `ok` line with a `# SKIP` directive: neither a pass nor a failure.
            let skipped = prefix == "ok" && after.contains(" # SKIP")
            return indent + painted(prefix, skipped ? .warning : style) + words(after)
        }
        return indent + words(body)
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// `text` with each status word (letters, digits and `_` bounded by anything else) coloured.
    private static func words(_ text: Substring) -> String {
        var out = ""
        var word = ""
        func flush() {
            if let style = statusWords[word] { out += painted(word, style) } else { out += word }
            word = ""
        }
        for character in text {
            if isWordCharacter(character) {
                word.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }
}
