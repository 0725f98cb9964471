import ArgumentParser
import Foundation
import Synchronization
import UCubeLog
import UCubeProtocol
import UCubeSimulator

/// The shell's own words: they are not CLI subcommands, so the shell keeps them (and only them).
enum ShellBuiltin: String, CaseIterable {
    case set, help, reconnect, exit, quit
}

/// The words that drive a paused `pay --step`, legal only while it runs.
enum StepCommand: String, CaseIterable {
    case next, `continue`, context, tlv, cancel
}

/// What completion may offer depends on where the terminal stands.
struct CompletionState: Sendable, Equatable {
    /// The link's state (READY or SECURED, from `RPCClient.isSecured`); `nil` before the first link opens.
    var linkState: TerminalState?
    /// A `pay --step` is paused at the prompt.
    var stepping = false
}

/// Tab completion: walks `UCube.configuration.subcommands` and each command's own arguments (ArgumentParser's
/// help dump), then the protocol tables for values: command ids, tag names, card profiles, readers.
enum ShellCompletion {
    /// The candidates for `partial`, the word being typed, after the complete `words` before it.
    static func candidates(words: [String], partial: String, state: CompletionState) -> [String] {
        var seen = Set<String>()
        return unfiltered(words: words, partial: partial, state: state).filter {
            $0.hasPrefix(partial) && seen.insert($0).inserted
        }
    }

    private static func unfiltered(words: [String], partial: String, state: CompletionState) -> [String] {
        if state.stepping {
            guard let first = words.first else {
                return StepCommand.allCases.map(\.rawValue) + [ShellBuiltin.set.rawValue, ShellBuiltin.help.rawValue]
            }
            if first == StepCommand.tlv.rawValue && words.count == 1 { return tagNames(.payment, partial: partial) }
            if first == ShellBuiltin.set.rawValue { return setCandidates(Array(words.dropFirst())) }
            return []
        }
        guard let first = words.first else {
            return commandNames(UCube.self, state: state) + ShellBuiltin.allCases.map(\.rawValue)
        }
        if let builtin = ShellBuiltin(rawValue: first) {
            switch builtin {
            case .set: return setCandidates(Array(words.dropFirst()))
            case .help:
                return words.count == 1
                    ? commandNames(UCube.self, state: state) + ShellBuiltin.allCases.map(\.rawValue) : []
            case .reconnect, .exit, .quit: return []
            }
        }
        // Descend the command tree as far as the words name subcommands.
        var command: any ParsableCommand.Type = UCube.self
        var rest = words[...]
        while let word = rest.first, let sub = subcommand(of: command, named: word) {
            command = sub
            rest = rest.dropFirst()
        }
        let spec = CommandSpec.of(command)
        if let previous = rest.last, let option = spec.option(named: previous), option.takesValue {
            return values(for: option.valueName, listed: option.values, command: command, partial: partial)
        }
        if partial.hasPrefix("-") { return spec.optionNames }
        if rest.isEmpty, !command.configuration.subcommands.isEmpty {
            return commandNames(command, state: state)
        }
        // A positional: count the positionals already given (words that are neither options nor option values).
        var index = 0
        var skipNext = false
        for word in rest {
            if skipNext {
                skipNext = false
            } else if word.hasPrefix("-") {
                skipNext = spec.option(named: word)?.takesValue ?? false
            } else {
                index += 1
            }
        }
        guard !spec.positionals.isEmpty else { return spec.optionNames }
        let positional = spec.positionals[min(index, spec.positionals.count - 1)]
        if index >= spec.positionals.count, !positional.repeating { return spec.optionNames }
        return values(for: positional.valueName, listed: positional.values, command: command, partial: partial)
    }

    /// Subcommand names (and aliases) of `command`; under `rpc`, only the commands the terminal's state allows.
    static func commandNames(_ command: any ParsableCommand.Type, state: CompletionState) -> [String] {
        command.configuration.subcommands.flatMap { sub -> [String] in
            let name = sub.configuration.commandName ?? sub._commandName
            if command == UCube.RPC.self, let linkState = state.linkState,
                let descriptor = CommandCatalogue.descriptor(named: name),
                !descriptor.allowedStates.contains(linkState)
            {
                return []
            }
            return [name] + sub.configuration.aliases
        }
    }

    static func subcommand(of command: any ParsableCommand.Type, named word: String) -> (any ParsableCommand.Type)? {
        command.configuration.subcommands.first { sub in
            (sub.configuration.commandName ?? sub._commandName) == word || sub.configuration.aliases.contains(word)
        }
    }

    private static func setCandidates(_ words: [String]) -> [String] {
        guard let setting = words.first else { return ShellSettings.Name.allCases.map(\.rawValue) }
        guard words.count == 1, let name = ShellSettings.Name(rawValue: setting) else { return [] }
        switch name {
        case .trace, .json: return ["on", "off"]
        case .device: return ["sim", "tcp://", "serial:///dev/"]
        case .timeout: return []
        case .authorize: return ["approve", "decline", "unable", "prompt", "exec:", "https://"]
        case .logLevel: return LogLevels.levelNames + LogLayer.allCases.map { $0.rawValue + "=" }
        }
    }

    /// Values for an option or positional, by what it holds: the protocol tables first, then ArgumentParser's list.
    private static func values(
        for valueName: String, listed: [String], command: any ParsableCommand.Type, partial: String
    ) -> [String] {
        let name = command.configuration.commandName ?? command._commandName
        switch valueName {
        case "tag", "tags":
            let context: TagContext = name == CommandCatalogue.descriptor(for: .getInfo)?.cliName ? .getInfo : .payment
            return tagNames(context, partial: partial)
        case "card":
            return CardCatalogue.names
        case "readers":
            return commaList(CardReader.allCases.map(\.name), partial: partial)
        case "command-id":
            return CommandCatalogue.all.map(\.cliName)
        case "device":
            return ["sim", "tcp://", "serial:///dev/"]
        default:
            return listed
        }
    }

    private static func tagNames(_ context: TagContext, partial: String) -> [String] {
        commaList(TagDictionary.entries(in: context).map(\.name), partial: partial)
    }

    /// For a comma-separated value, completes the part after the last comma.
    private static func commaList(_ names: [String], partial: String) -> [String] {
        guard let comma = partial.lastIndex(of: ",") else { return names }
        let head = partial[...comma]
        return names.map { head + $0 }
    }
}

/// A command's arguments as ArgumentParser describes them (its `--experimental-dump-help` JSON, read once per type
/// through the library): the only source of option names the completion uses.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        let names: [String]
        let takesValue: Bool
        let valueName: String
        let values: [String]
    }

    struct Positional: Sendable {
        let valueName: String
        let values: [String]
        let repeating: Bool
    }

    let options: [Option]
    let positionals: [Positional]

    var optionNames: [String] { options.flatMap(\.names) }

    func option(named word: String) -> Option? {
        let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
        guard !word.contains("=") else { return nil }
        return options.first { $0.names.contains(name) }
    }

    private static let cache = Mutex<[ObjectIdentifier: CommandSpec]>([:])

    static func of(_ command: any ParsableCommand.Type) -> CommandSpec {
        let key = ObjectIdentifier(command)
        if let spec = cache.withLock({ $0[key] }) { return spec }
        let spec = parse(command._dumpHelp())
        cache.withLock { $0[key] = spec }
        return spec
    }

    private struct Dump: Decodable {
        struct Command: Decodable { let arguments: [Argument]? }
        struct Argument: Decodable {
            let kind: String
            let names: [Name]?
            let valueName: String?
            let allValues: [String]?
            let completionKind: Completion?
            let isRepeating: Bool?
            let shouldDisplay: Bool?
        }
        struct Name: Decodable {
            let kind: String
            let name: String
        }
        struct Completion: Decodable {
            struct List: Decodable { let values: [String] }
            let list: List?
        }
        let command: Command
    }

    static func parse(_ json: String) -> CommandSpec {
        guard let dump = try? JSONDecoder().decode(Dump.self, from: Data(json.utf8)) else {
            return CommandSpec(options: [], positionals: [])
        }
        var options: [Option] = []
        var positionals: [Positional] = []
        for argument in dump.command.arguments ?? [] where argument.shouldDisplay ?? true {
            let values = argument.completionKind?.list?.values ?? argument.allValues ?? []
            let valueName = argument.valueName ?? ""
            switch argument.kind {
            case "positional":
                positionals.append(
                    Positional(valueName: valueName, values: values, repeating: argument.isRepeating ?? false))
            default:
                let names = (argument.names ?? []).map { name in
                    switch name.kind {
                    case "short": "-" + name.name
                    case "longWithSingleDash": "-" + name.name
                    default: "--" + name.name
                    }
                }
                options.append(
                    Option(names: names, takesValue: argument.kind == "option", valueName: valueName, values: values))
            }
        }
        return CommandSpec(options: options, positionals: positionals)
    }
}
