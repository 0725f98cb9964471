/// A command's result as one value: its JSON form (`Encodable`) and its text form (`lines`). A command builds its
/// report and hands it to `Report.print`, the one place that chooses between the two forms; it never prints either
/// itself. (Commands still being moved to reports print through `Console`; docs/architecture.md, "Standard streams".)
protocol Report: Encodable {
    /// The text form, a line each, without newlines.
    var lines: [String] { get }
}

extension Report {
    /// Prints the report on stdout: one JSON document with `json` (pretty, or one line), else its lines.
    func print(json: Bool, pretty: Bool = true) throws {
        if json {
            try JSONOutput.print(self, pretty: pretty)
        } else {
            for line in lines { Console.line(line) }
        }
    }
}
