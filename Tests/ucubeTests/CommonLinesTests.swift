import ArgumentParser
import Foundation
import Testing

@testable import UCubeCLI

/// `CommonLines` reads the most common command lines without ArgumentParser (a start-up cost): what it reads must be
/// exactly what the parser reads, every field of every option group, and it must leave every other line to the parser.
struct CommonLinesTests {
    @Test(arguments: [
        ["info"], ["--device", "sim", "info"], ["info", "--device", "sim"], ["--json", "info"], ["info", "--json"],
        ["--device", "tcp://127.0.0.1:9", "--device", "sim", "info", "--json"],
    ])
    func aLineReadHereIsWhatTheParserReads(arguments: [String]) throws {
        let read = try #require(CommonLines.info(arguments))
        let parsed = try UCube.parse(arguments)
        #expect(type(of: read) == type(of: parsed))
        // dump shows each option's state: a field the shortcut left unset shows as a definition, not a value.
        #expect(Self.dumped(read) == Self.dumped(parsed))
        #expect(!Self.dumped(read).contains("definition"), "\(Self.dumped(read))")
    }

    @Test(arguments: [
        [], ["info", "--trace"], ["--device=sim", "info"], ["--device"], ["--device", "sim"], ["info", "info"],
        ["pay", "1"], ["--device", "--json", "info"], ["info", "--help"], ["help", "info"], ["--version"],
        ["info", "--parallel", "0"], ["info", "--"], ["Info"],
    ])
    func anyOtherLineIsTheParsers(arguments: [String]) {
        #expect(CommonLines.info(arguments) == nil)
    }

    private static func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
