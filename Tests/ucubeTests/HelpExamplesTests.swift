import ArgumentParser
import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// The examples of every command's help (`HelpExamples`, issue 41): every command has two or three, each parses with
/// the real parser into the command it illustrates, each shows in that command's help, and a handful of the
/// simulator's run end to end through the built binary.
@Suite struct HelpExamplesTests {
    /// Every command's path as the table keys it: "" for the root, then "pay", "rpc get-info", ….
    static let paths: [String] = [""] + HelpEndToEndTests.commandPaths.map { $0.joined(separator: " ") }

    /// Every example, with the path of the command it illustrates.
    static let examples: [(path: String, line: String)] = HelpExamples.entries.flatMap { entry in
        entry.examples.map { (entry.path, $0.line) }
    }

    /// The command type at `path`, walked from the root.
    static func command(at path: String) -> (any ParsableCommand.Type)? {
        var command: any ParsableCommand.Type = UCube.self
        for word in path.split(separator: " ") {
            guard let sub = command.configuration.subcommands.first(where: { $0._commandName == word }) else {
                return nil
            }
            command = sub
        }
        return command
    }

    /// The path of `type` in the command tree.
    static func path(of type: any ParsableCommand.Type) -> String? {
        paths.first { path in command(at: path).map { ObjectIdentifier($0) == ObjectIdentifier(type) } ?? false }
    }

    @Test func everyCommandHasTwoOrThreeExamplesAndOneEntry() {
        let tablePaths = HelpExamples.entries.map(\.path)
        #expect(Set(tablePaths).count == tablePaths.count, "a path twice: \(tablePaths)")
        #expect(Set(tablePaths) == Set(Self.paths), "missing: \(Set(Self.paths).subtracting(tablePaths).sorted())")
        #expect(Self.paths.count >= 70, "the root and every command (ArgumentParser's `help` aside)")
        for entry in HelpExamples.entries {
            #expect((2...3).contains(entry.examples.count), "\(entry.path): \(entry.examples.count) examples")
            #expect(!entry.seeAlso.isEmpty, "\(entry.path): nothing to see")
        }
    }

    /// Each example is a plain `ucube` command line that the parser takes (validation included) for the command the
    /// example illustrates (or one under it, for a group; any command, for the root).
    @Test(arguments: examples.map { [$0.path, $0.line] })
    func theExampleParsesIntoItsCommand(_ example: [String]) throws {
        let (path, line) = (example[0], example[1])
        let words = try ShellWords.split(line)
        #expect(words.first == "ucube", "\(line)")
        #expect(!line.contains("|") && !line.contains("$") && !line.contains(">"), "no pipe, variable or redirection")
        let parsed = try UCube.parseAsRoot(Array(words.dropFirst()))
        let parsedPath = try #require(Self.path(of: type(of: parsed)), "\(line) parses into \(type(of: parsed))")
        #expect(
            path.isEmpty || parsedPath == path || parsedPath.hasPrefix(path + " "),
            "\(line) is an example of `\(path)` but runs `\(parsedPath)`")
    }

    /// The help wraps its overview to the screen: a line longer than 80 columns would break a command line in two.
    @Test func everyLineFitsEightyColumns() {
        for entry in HelpExamples.entries {
            for line in HelpExamples.rendered(entry).split(separator: "\n") {
                #expect(line.count <= 80, "\(entry.path): \(line.count) columns: \(line)")
            }
        }
    }

    /// A see-also names a command of the table or a document of the repository.
    @Test func everySeeAlsoExists() {
        for entry in HelpExamples.entries {
            for name in entry.seeAlso {
                if name.hasSuffix(".md") {
                    #expect(name.hasPrefix("docs/"), "\(entry.path): \(name)")
                    let file = ManualPageTests.root.appendingPathComponent(name).path
                    #expect(FileManager.default.fileExists(atPath: file), "\(entry.path): no \(name)")
                } else {
                    #expect(Self.paths.contains(name) && !name.isEmpty, "\(entry.path): no command \(name)")
                }
            }
        }
    }

    /// Each command's help (what `--help`, `help` and the shell print) ends its overview with its examples.
    @Test(arguments: paths)
    func theHelpShowsTheExamples(_ path: String) throws {
        let type = try #require(Self.command(at: path))
        let help = UCube.helpMessage(for: type, columns: 100)
        let entry = try #require(HelpExamples.entry(path))
        #expect(help.contains(HelpExamples.rendered(entry)), "\(path): \(help)")
        for example in entry.examples { #expect(help.contains("\n  \(example.line)\n"), "\(example.line)") }
    }

    /// The man page (Scripts/generate-docs.sh) has every command's examples and see-also, and `man` shows each
    /// command line as typed (ASCII hyphens: it can be pasted).
    @Test func theManPageHasEveryExample() async throws {
        let page = try ManualPageTests.page()
        #expect(page.components(separatedBy: "\n.Sy Examples :\n").count == Self.paths.count, "one a command")
        #expect(page.components(separatedBy: "\n.Sy See also :\n").count == Self.paths.count)
        #expect(page.contains("\n.Sh EXAMPLES\n") && page.contains("\n.Sh SEE ALSO\n"), "the root's")
        let rendered = try await ManualPageTests.render()
        for (_, line) in Self.examples { #expect(rendered.contains(line), "`man ucube` lacks \(line)") }
        for entry in HelpExamples.entries {
            for example in entry.examples { #expect(rendered.contains(example.does), "\(example.does)") }
        }
    }

    /// The root's help starts with its usage; a command's help is ArgumentParser's, overview first.
    @Test func onlyTheRootsHelpPutsItsUsageFirst() {
        let root = RootHelp.usageFirst(UCube.helpMessage(columns: 80))
        #expect(root.hasPrefix("USAGE: ucube [--device <device> ...]"), "\(root.prefix(200))")
        #expect(root.contains("\n\nOVERVIEW: Drive a YouTransactor"))
        #expect(root.contains("\n\nOPTIONS:\n"))
        let pay = UCube.helpMessage(for: UCube.Pay.self, columns: 80)
        #expect(RootHelp.usageFirst(pay) == pay)
        let history = UCube.helpMessage(for: UCube.History.self, columns: 80)
        #expect(RootHelp.usageFirst(history) == history, "a group's usage names the group")
    }

    /// A handful of the simulator's examples, run as written through the built binary: each exits 0.
    static let runnable = [
        "ucube --device sim info",
        "ucube --device sim pay 12.50 --currency EUR",
        "ucube --device sim pay 10 --card visa-contactless --receipt",
        "ucube --device sim read-card",
        "ucube --device sim choose Coffee Tea Water --title Drink",
        "ucube --device sim locale list",
        "ucube --device sim rpc get-info C1 C4 D1",
        "ucube --device sim --trace rpc rtc-get",
        "ucube simulate --list-cards",
        "ucube decode 95 05 8000800000 9F27 01 80",
    ]

    @Test func theRunnableOnesAreExamples() {
        for line in Self.runnable { #expect(Self.examples.contains { $0.line == line }, "\(line)") }
    }

    @Test(arguments: runnable)
    func theExampleRuns(_ line: String) async throws {
        let run = try await UCubeSandbox().run(Array(try ShellWords.split(line).dropFirst()))
        #expect(run.status == 0, "\(line): exit \(run.status): \(run.stderr.suffix(500))")
        #expect(!run.stdout.isEmpty, "\(line) printed nothing")
    }
}
