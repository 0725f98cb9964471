import ArgumentParser
import UCubeRuntime

/// A command's own options written before its name (`ucube --tms https://tms.example mdm-update`, as `--device` and
/// `--json` may be): ArgumentParser reads the words before a subcommand as the root's, and took the URL for a command.
/// When a line fails to parse and such options precede the command, they are moved after it and the line is parsed
/// again; an option the command does not take is a usage error that says so. Only a line that failed is looked at,
/// so a line that parses costs nothing more.
enum LeadingOptions {
    /// Parses `arguments` with `parser`; when that fails and options of the command come before its name, parses the
    /// line with them moved after it. Throws the first error when there is nothing to move.
    static func parse(
        _ arguments: [String], with parser: ([String]) throws -> any ParsableCommand
    ) throws -> any ParsableCommand {
        do {
            return try parser(arguments)
        } catch {
            // Help, a completion request (`---completion`) and the like are not failures: nothing to move.
            guard UCube.exitCode(for: error) == .validationFailure, let moved = try moved(arguments) else {
                throw error
            }
            return try parser(moved)
        }
    }

    /// `arguments` with the options before the command's name that are not the root's (and their values) moved to
    /// just after the command's words (`rpc get-info` is two): nil when there are none, or when a word before the
    /// command is neither an option nor the value of one. Throws a usage error when the command does not take one.
    static func moved(_ arguments: [String]) throws(CLIFailure) -> [String]? {
        let words = Array(arguments.prefix { $0 != "--" })
        // Most lines start with their command: nothing to look up.
        guard let first = words.first, first.hasPrefix("-"), !first.hasPrefix("---") else { return nil }
        let root = CommandSpec.of(UCube.self)
        // The command's first word, skipping the root's options and their values; the other words before it.
        var stray: [Int] = []
        var index = 0
        var command: (any ParsableCommand.Type)? = nil
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("-"), let option = root.option(named: Self.name(word)) {
                index += option.takesValue && !word.contains("=") ? 2 : 1
                continue
            }
            if !word.hasPrefix("-"), let found = ShellCompletion.subcommand(of: UCube.self, named: word) {
                command = found
                break
            }
            stray.append(index)
            index += 1
        }
        guard var command, !stray.isEmpty else { return nil }
        var path = [words[index]]
        var last = index
        while last + 1 < words.count, let sub = ShellCompletion.subcommand(of: command, named: words[last + 1]) {
            command = sub
            last += 1
            path.append(words[last])
        }
        // Each stray word must be an option of the command or the value of the one before it.
        let spec = CommandSpec.of(command)
        var moving: [String] = []
        var position = 0
        while position < stray.count {
            let word = words[stray[position]]
            guard word.hasPrefix("-") else { return nil }
            guard let option = spec.option(named: Self.name(word)) else {
                let line = (["ucube"] + path).joined(separator: " ")
                let nearest = Suggestion.nearest(
                    to: Self.name(word), in: spec.optionNames.filter { $0.hasPrefix("--") })
                throw CLIFailure(
                    ExitCodes.usage, "unknown option '\(Self.name(word))' for `\(line)`",
                    hint: nearest.isEmpty
                        ? "`\(line) --help` lists its options"
                        : "did you mean \(nearest.map { "'\($0)'" }.joined(separator: " or "))?")
            }
            moving.append(word)
            position += 1
            // Its value is the next word before the command, when it is there (else the parser says it is missing).
            if option.takesValue && !word.contains("="), position < stray.count,
                stray[position] == stray[position - 1] + 1
            {
                moving.append(words[stray[position]])
                position += 1
            }
        }
        let strayIndices = Set(stray)
        var result: [String] = []
        for (offset, word) in arguments.enumerated() where !strayIndices.contains(offset) {
            result.append(word)
            if offset == last { result += moving }
        }
        return result
    }

    /// `arguments` as they parse: with a command's options moved after it when they came first, else as they are.
    static func reordered(_ arguments: [String]) -> [String] {
        ((try? moved(arguments)) ?? nil) ?? arguments
    }

    /// The option's name in `--name=value`.
    private static func name(_ word: String) -> String {
        String(word.prefix { $0 != "=" })
    }
}
