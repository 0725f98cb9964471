import ArgumentParser
import UCubeLink
import UCubeProtocol
import UCubeRuntime

extension UCube {
    /// `ucube locale get|set|list`: the terminal's merchant locale (spec §5.2 "Locale commands": GetInfo F6/F7,
    /// SetInfoField F7 — PROJECT CHOICE tags).
    struct Locale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "locale",
            abstract: "Read, set or list the terminal's merchant-interface locale.",
            discussion: HelpExamples.discussion("locale"),
            subcommands: [Get.self, Set.self, List.self])
    }
}

extension UCube.Locale {
    /// Reads GetInfo F6 and F7.
    static func read(_ connection: Connection) async throws -> (current: String?, supported: [String]) {
        let info = try await connection.client.deviceInfo(tags: [0xF6, 0xF7])
        return (info.locale, info.supportedLocales ?? [])
    }

    struct Get: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Show the current locale (GetInfo F7).",
            discussion: HelpExamples.discussion("locale get"))
        @OptionGroup var globals: GlobalOptions

        func run(in context: CommandContext) async throws {
            try await withConnection(context) { connection in
                let (current, _) = try await UCube.Locale.read(connection)
                guard let current else {
                    throw CLIFailure(ExitCodes.terminalStatus, "the terminal reports no locale (F7)")
                }
                try LocaleReport(locale: current, text: current).print(json: context.json)
            }
        }
    }

    struct List: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the locales the terminal supports (GetInfo F6).",
            discussion: HelpExamples.discussion("locale list"))
        @OptionGroup var globals: GlobalOptions

        func run(in context: CommandContext) async throws {
            try await withConnection(context) { connection in
                let (current, supported) = try await UCube.Locale.read(connection)
                try LocaleList(supported: supported, current: current).print(json: context.json)
            }
        }
    }

    struct Set: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the locale (SetInfoField F7); it must be one the terminal lists.",
            discussion: HelpExamples.discussion("locale set"))
        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("A locale from `ucube locale list`, e.g. fr.", valueName: "locale"))
        var locale: String

        func validate() throws {
            do {
                _ = try SetInfoField.locale(locale)
            } catch {
                throw ValidationError(error.reason)
            }
        }

        func run(in context: CommandContext) async throws {
            try await withConnection(context) { connection in
                let (_, supported) = try await UCube.Locale.read(connection)
                guard supported.isEmpty || supported.contains(locale) else {
                    throw CLIFailure(
                        ExitCodes.usage,
                        "the terminal does not support '\(locale)'; it supports \(supported.joined(separator: ", "))")
                }
                let reply = try await connection.client.send(try SetInfoField.locale(locale))
                guard reply.succeeded else {
                    throw CLIFailure(
                        ExitCodes.terminalStatus, reply.status.failureMessage(command: "SetInfoField"))
                }
                try LocaleReport(locale: locale, text: "locale set to \(locale)").print(json: context.json)
            }
        }
    }
}

/// `locale get` and `locale set`: `{"locale":"fr"}`, or its text.
struct LocaleReport: Report {
    let locale: String
    let text: String

    var lines: [String] { [text] }

    private enum CodingKeys: String, CodingKey { case locale }
}

/// `locale list`: `{"current":["en"],"supported":["en","fr"]}` (current is empty when the terminal names none), or a
/// line per locale with "(current)" after the current one.
struct LocaleList: Report {
    let supported: [String]
    let current: String?

    var lines: [String] { supported.map { $0 == current ? "\($0) (current)" : $0 } }

    private enum CodingKeys: String, CodingKey { case supported, current }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(supported, forKey: .supported)
        try c.encode(current.map { [$0] } ?? [], forKey: .current)
    }
}
