import ArgumentParser
import Foundation
import Testing

@testable import UCubeCLI

/// Every command's help, asked for every way, on the command line and in the shell; every shell builtin (issue 12:
/// `help` in the shell recursed until it crashed with 139).
@Suite struct HelpEndToEndTests {
    /// Every command path under `ucube`, walked from `UCube.configuration.subcommands`: `["pay"]`, `["rpc",
    /// "get-info"]`, ….
    static let commandPaths: [[String]] = paths(of: UCube.self, prefix: [])

    private static func paths(of command: any ParsableCommand.Type, prefix: [String]) -> [[String]] {
        command.configuration.subcommands.flatMap { sub in
            let path = prefix + [sub._commandName]
            return [path] + paths(of: sub, prefix: path)
        }
    }

    @Test func theTreeIsWalked() {
        #expect(Self.commandPaths.contains(["pay"]))
        #expect(Self.commandPaths.contains(["rpc", "get-plain-tag"]))
        #expect(Self.commandPaths.count > 40)
    }

    @Test(arguments: commandPaths)
    func helpOnTheCommandLine(_ path: [String]) async throws {
        let sandbox = try UCubeSandbox()
        let usage = "USAGE: ucube \(path.joined(separator: " "))"
        for arguments in [path + ["--help"], ["help"] + path] {
            let run = try await sandbox.run(arguments)
            #expect(run.status == 0, "ucube \(arguments.joined(separator: " ")): exit \(run.status) \(run.stderr)")
            #expect(run.stdout.contains(usage), "ucube \(arguments.joined(separator: " ")): \(run.stdout)")
        }
    }

    /// `printf 'help\n' | ucube shell` printed the shell's help thousands of times, then died of SIGSEGV.
    @Test func helpAloneInTheShell() async throws {
        let run = try await UCubeSandbox().run(["shell"], input: "help\n")
        #expect(run.status == 0, "exit \(run.status): \(run.stderr.suffix(500))")
        #expect(
            run.stdout.components(separatedBy: "Shell commands:").count == 2,
            "the overview once: \(run.stdout.prefix(2000))")
        // Then the commands, each with its abstract; not the command line's root help (issue 41).
        #expect(run.stdout.contains("  pay "), "\(run.stdout.prefix(3000))")
        #expect(!run.stdout.contains("USAGE: ucube [--device <device> ...]"), "\(run.stdout.prefix(3000))")
        for builtin in ShellBuiltin.allCases {
            #expect(run.stdout.contains(builtin.usage), "\(builtin)")
        }
    }

    /// `help CMD` and `CMD --help` for every command, in shell scripts of a quarter of the commands each (one script
    /// took 139 s under load in a debug build; four in parallel keep each far inside its safety net); each a separate
    /// line, each exit 0.
    @Test(arguments: 0..<4)
    func helpOfEveryCommandInTheShell(quarter: Int) async throws {
        let paths = Self.commandPaths.enumerated().filter { $0.offset % 4 == quarter }.map(\.element)
        let lines = paths.flatMap { path in
            ["help " + path.joined(separator: " "), path.joined(separator: " ") + " --help"]
        }
        let run = try await UCubeSandbox().run(
            ["shell"], input: lines.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "exit \(run.status): \(run.stderr.suffix(500))")
        #expect(!paths.isEmpty)
        for path in paths {
            let usage = "USAGE: ucube \(path.joined(separator: " "))"
            #expect(run.stdout.components(separatedBy: usage).count >= 3, "twice: \(usage)")
        }
    }

    /// `help WORD` for every shell word (builtins and step words) names it, and the script goes on.
    @Test func helpOfEveryShellWord() async throws {
        let words = ShellBuiltin.allCases.map(\.rawValue) + StepCommand.allCases.map(\.rawValue)
        let script = words.map { "help " + $0 }.joined(separator: "\n") + "\ninfo\n"
        let run = try await UCubeSandbox().run(["shell"], input: script)
        #expect(run.status == 0, "exit \(run.status): \(run.stderr.suffix(500))")
        for builtin in ShellBuiltin.allCases {
            #expect(run.stdout.contains("USAGE: \(builtin.usage)"), "\(builtin)")
        }
        for step in StepCommand.allCases {
            #expect(run.stdout.contains("USAGE: \(step.usage)"), "\(step)")
        }
        // `cancel` is a step word and a command: both helps.
        #expect(run.stdout.contains("USAGE: ucube cancel"))
        #expect(run.stdout.contains("state: READY"), "the line after the helps ran")
    }

    /// `set`, `set NAME VALUE`, `reconnect`, `exit` and `quit`: each works, and nothing after `exit` runs.
    @Test func everyShellBuiltin() async throws {
        let sandbox = try UCubeSandbox()
        let script = """
            set
            set json on
            set trace off
            set timeout 5
            set log-level info
            set device sim
            reconnect
            set
            exit
            info
            """
        let run = try await sandbox.run(["shell"], input: script + "\n")
        #expect(run.status == 0, "exit \(run.status): \(run.stderr)")
        for line in [
            "json off", "json on", "trace off", "timeout 5.0", "log-level info", "device sim", "connected to sim",
        ] {
            #expect(run.stdout.contains(line), "\(line): \(run.stdout)")
        }
        #expect(!run.stdout.contains("serialNumber"), "nothing runs after exit")

        let quit = try await sandbox.run(["shell"], input: "quit\ninfo\n")
        #expect(quit.status == 0, "\(quit.stderr)")
        #expect(!quit.stdout.contains("serial number"))

        let bad = try await sandbox.run(["shell"], input: "set colour blue\n")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("usage: set"))
    }
}
