/// A command's result as one value: its JSON form (`Encodable`) and its text form (`lines`). A command builds its
/// report and hands it to `Report.print`, the one place that chooses between the two forms; it never prints either
/// itself. Commands that stream (events, progress, decoded frames) render each event in `Output/` instead
/// (docs/architecture.md, "Standard streams").
package protocol Report: Encodable {
    /// The text form, a line each, without newlines.
    var lines: [String] { get }
}

extension Report {
    /// Prints the report on stdout in one write (`Console.outcome`): one JSON document with `json` (pretty, or one
    /// line), else its lines.
    package func print(json: Bool, pretty: Bool = true) throws {
        if json {
            try JSONOutput.print(self, pretty: pretty)
        } else {
            let text = lines.map { $0 + "\n" }.joined()
            if !text.isEmpty { Console.outcome(text) }
        }
    }
}

/// A result whose JSON form is a value the command already has (a journal entry, a list of them, a receipt), shown as
/// `lines` in text: the value is encoded as itself, not wrapped.
package struct ValueReport<Value: Encodable>: Report {
    package let value: Value
    package let lines: [String]

    package init(value: Value, lines: [String]) {
        self.value = value
        self.lines = lines
    }

    package func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
