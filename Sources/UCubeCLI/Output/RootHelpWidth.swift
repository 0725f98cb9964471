import Foundation
import UCubeSupport

/// `ucube --help` at any width without the parser: RootHelp.swift holds the help split where ArgumentParser wraps it,
/// and this lays it out the way ArgumentParser 1.8 does, its usage first (`usageFirst`) (`HelpGenerator.rendered(screenWidth:)` and
/// `String.wrapped(to:wrappingIndent:)`, both internal to it). A test compares the two at many widths.
extension RootHelp {
    /// An option or a subcommand: its label and its one-line description.
    struct Element {
        let label: String
        let abstract: String
    }

    struct Section {
        let title: String
        let elements: [Element]
    }

    /// Where labels start and where abstracts start (`HelpGenerator.helpIndent`, `labelColumnWidth`).
    static let labelIndent = 2
    static let labelColumn = 26

    /// The root help at `columns`, with the newline `print` adds: what `ucube help` prints at that width. Nil when
    /// `columns` leaves no room beside the labels, where ArgumentParser stops wrapping (and asserts in a debug
    /// build): the parser then renders it.
    static func rendered(columns: Int) -> String? {
        guard columns > labelColumn else { return nil }
        var text = usage + "\n\n" + wrapped(overview, columns: columns, indent: 0) + "\n\n"
        // `joinedWithoutLookup`: the standard library's `joined` would cost `--help` its one conformance scan.
        text += sections.map { section in
            section.title + ":\n"
                + section.elements.map { rendered($0, columns: columns) }.joinedWithoutLookup(separator: "")
        }.joinedWithoutLookup(separator: "\n")
        return text + footer + "\n"
    }

    /// `help` (ArgumentParser's text: the overview, then the usage) with its usage first when it is the root's: the
    /// root's overview is long (devices, exit codes, error codes, variables, files, examples), and the usage is what
    /// a reader looks for first. The root's usage names no command (`USAGE: ucube [--device <device> ...] …`); any
    /// other text (a command's help, a version) is returned as it is. ArgumentParser's own `--version` gets its short
    /// name, `-V`, which `UCube.main` answers before the parser (its label keeps its width: the column stays).
    static func usageFirst(_ help: String) -> String {
        guard help.hasPrefix("OVERVIEW: "), let start = help.range(of: "\n\nUSAGE: ucube ") else { return help }
        guard let next = help[start.upperBound...].first, "[<-".contains(next) else { return help }
        let usageAndRest = help[help.index(start.lowerBound, offsetBy: 2)...]
        let end = usageAndRest.range(of: "\n\n")?.lowerBound ?? usageAndRest.endIndex
        return
            (String(usageAndRest[..<end]) + "\n\n" + String(help[..<start.lowerBound]) + String(usageAndRest[end...]))
            .replacingOccurrences(of: "\n  --version    ", with: "\n  -V, --version")
    }

    private static func rendered(_ element: Element, columns: Int) -> String {
        let label = String(repeating: " ", count: labelIndent) + element.label
        guard !element.abstract.isEmpty else { return label + "\n" }
        let abstract = wrapped(element.abstract, columns: columns, indent: labelColumn)
        // A label short enough takes the start of the abstract's first line (its indent); a longer one is alone on
        // its line.
        return label + (label.count < labelColumn ? String(abstract.dropFirst(label.count)) : "\n" + abstract) + "\n"
    }

    /// `text` in lines of at most `columns` characters, each but empty ones indented by `indent`: a line ends at its
    /// own line break, else at the last space that fits, else (a word longer than the line) at the next space.
    /// ArgumentParser counts `Character`s; this counts Unicode scalars, 50 times faster (String's grapheme breaking
    /// was 9 M instructions of `--help`): the same count for RootHelp's texts, where every character is one scalar
    /// (a test checks it).
    static func wrapped(_ text: String, columns: Int, indent: Int) -> String {
        let width = columns - indent
        let scalars = Array(text.unicodeScalars)
        var lines: [ArraySlice<Unicode.Scalar>] = []
        var start = 0
        while true {
            let end = min(start + width, scalars.count)
            let chunk = scalars[start..<end]
            if let lineBreak = chunk.lastIndex(of: "\n") {
                lines += scalars[start..<lineBreak].split(separator: "\n", omittingEmptySubsequences: false)
                start = lineBreak + 1
            } else if end == scalars.count {
                lines.append(chunk)
                break
            } else if let space = chunk.lastIndex(of: " ") ?? scalars[start...].firstIndex(of: " ") {
                lines.append(scalars[start..<space])
                start = space + 1
            } else {
                lines.append(scalars[start...])
                break
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + lines.count * (indent + 1))
        for (number, line) in lines.enumerated() {
            if number > 0 { bytes.append(UInt8(ascii: "\n")) }
            guard !line.isEmpty else { continue }
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
            for scalar in line { UTF8.encode(scalar) { bytes.append($0) } }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The width ArgumentParser would wrap help at: `$COLUMNS` when it is a number, else the width of the terminal on
    /// standard output, else 80 (its `Platform.terminalWidth`).
    static func currentColumns() -> Int {
        if let text = getenv("COLUMNS"), let columns = Int(String(cString: text)) { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
