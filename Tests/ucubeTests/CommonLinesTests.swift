import ArgumentParser
import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// `CommonLines` reads the most common command lines without ArgumentParser (a start-up cost): what it reads must be
/// exactly what the parser reads, every field of every option group, and the context resolved from it the same; and
/// it must leave every other line to the parser.
struct CommonLinesTests {
    @Test(arguments: [
        ["info"], ["--device", "sim", "info"], ["info", "--device", "sim"], ["--json", "info"], ["info", "--json"],
        ["--device", "tcp://127.0.0.1:9", "--device", "sim", "info", "--json"],
    ])
    func aLineReadHereIsWhatTheParserReads(arguments: [String]) throws {
        let read = try #require(CommonLines.info(arguments))
        let parsed = try #require(try UCube.parse(arguments) as? UCube.Info)
        // Info's options are these two groups and nothing else: an option added to it must be read here too.
        #expect(Mirror(reflecting: parsed).children.map(\.label) == ["_globals", "_fleet"])
        #expect(read.globals == parsed.globals.values)
        #expect(read.fleet == parsed.fleet.values)
        // The contexts the two dispatch paths resolve, with the same environment and remembered default.
        let fromLine = Self.context(read.globals)
        let fromParser = Self.context(parsed.globals.values)
        #expect(Self.dumped(fromLine) == Self.dumped(fromParser))
        #expect(
            fromLine.givenDevices == arguments.indices.filter { arguments[$0] == "--device" }.map { arguments[$0 + 1] })
    }

    @Test(arguments: [
        [], ["info", "--trace"], ["--device=sim", "info"], ["--device"], ["--device", "sim"], ["info", "info"],
        ["pay", "1"], ["--device", "--json", "info"], ["info", "--help"], ["help", "info"], ["--version"],
        ["info", "--parallel", "0"], ["info", "--"], ["Info"],
    ])
    func anyOtherLineIsTheParsers(arguments: [String]) {
        #expect(CommonLines.info(arguments) == nil)
    }

    private static func context(_ options: GlobalOptionValues) -> CommandContext {
        CommandContext.resolve(
            options, shell: nil, session: nil, environment: { $0 == "UCUBE_DEVICE" ? "tcp://127.0.0.1:7" : nil },
            rememberedDefault: { "remembered" }, stdinIsTerminal: false)
    }

    private static func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
