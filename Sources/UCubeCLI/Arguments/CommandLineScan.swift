import ArgumentParser
import Foundation
import UCubeRuntime

/// What the raw command line asks for, read before (or without) ArgumentParser, so that a line that does not parse
/// still gets the output it asked for.
enum CommandLineScan {
    /// Whether the root's help may be shown: asked for (`-h`, `--help`, `help`, the docs' `--experimental-dump-help`),
    /// or in the shell, whose `help` shows it. Any other command line never shows it.
    static func mayShowRootHelp(_ arguments: [String]) -> Bool {
        arguments.isEmpty
            || arguments.contains { ["-h", "--help", "help", "--experimental-dump-help", "shell"].contains($0) }
    }

    /// Whether the command line may run, complete or show the help of an `rpc` subcommand: an `rpc` word, the root's
    /// help or the shell (`mayShowRootHelp`), or a completion script's request (`---completion`,
    /// `--generate-completion-script`).
    static func mayReachRPCCommands(_ arguments: [String]) -> Bool {
        mayShowRootHelp(arguments)
            || arguments.contains {
                $0 == "rpc" || $0.hasPrefix("---completion") || $0.hasPrefix("--generate-completion")
            }
    }

    /// `--json` appears before any `--` (after which words are operands).
    static func wantsJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// When `arguments` name a command that does not exist (`ucube pya 10`, `ucube rpc get-inf`), the failure to
    /// report, with the nearest command names as the hint; nil otherwise.
    static func unknownCommand(_ arguments: [String]) -> CLIFailure? {
        let (command, path, word) = walk(arguments)
        // ArgumentParser's own `help` word, and commands whose first operand is not a command, parse otherwise.
        guard let word, word != "help", !command.configuration.subcommands.isEmpty,
            command.configuration.defaultSubcommand == nil, CommandSpec.of(command).positionals.isEmpty
        else { return nil }
        let nearest = Suggestion.nearest(to: word, in: ShellCompletion.commandNames(command, state: CompletionState()))
        let parent = path.isEmpty ? "" : path.joined(separator: " ") + " "
        return CLIFailure(
            ExitCodes.usage, "unknown command '\(parent)\(word)'", code: .unknownCommand,
            hint: nearest.isEmpty
                ? "`ucube \(parent)--help` lists the commands"
                : "did you mean \(nearest.map { "'\(parent)\($0)'" }.joined(separator: " or "))?")
    }

    /// The command words of `arguments` (`["rpc", "get-info"]`).
    static func commandPath(_ arguments: [String]) -> [String] { walk(arguments).1 }

    /// Follows the command names in `arguments` the way the shell's completion does, skipping options and their
    /// values (ArgumentParser's own description of each command says which take one): the deepest command, the
    /// words that named it, and the first other word after it (nil when none, or after `--`).
    private static func walk(_ arguments: [String]) -> (any ParsableCommand.Type, [String], String?) {
        var command: any ParsableCommand.Type = UCube.self
        var path: [String] = []
        var skipValue = false
        for word in arguments {
            if word == "--" { break }
            if skipValue {
                skipValue = false
            } else if word.hasPrefix("-") {
                skipValue = CommandSpec.of(command).option(named: word)?.takesValue ?? false
            } else if let sub = ShellCompletion.subcommand(of: command, named: word) {
                command = sub
                path.append(word)
            } else {
                return (command, path, word)
            }
        }
        return (command, path, nil)
    }
}
