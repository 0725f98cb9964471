import ArgumentParser
import UCubeLink
import UCubeProtocol

extension UCube {
    /// `ucube locale get|set|list`: the terminal's merchant locale (spec §5.2 "Locale commands": GetInfo F6/F7,
    /// SetInfoField F7 — PROJECT CHOICE tags).
    struct Locale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "locale",
            abstract: "Read, set or list the terminal's merchant-interface locale.",
            subcommands: [Get.self, Set.self, List.self])
    }
}

extension UCube.Locale {
    /// Reads GetInfo F6 and F7.
    static func read(_ connection: Connection) async throws -> (current: String?, supported: [String]) {
        let info = try await connection.client.deviceInfo(tags: [0xF6, 0xF7])
        return (info.locale, info.supportedLocales ?? [])
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Show the current locale (GetInfo F7).")
        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            try await withConnection(globals) { connection in
                let (current, _) = try await UCube.Locale.read(connection)
                guard let current else { throw CLIFailure(ExitCodes.terminalStatus, "the terminal reports no locale (F7)") }
                if globals.json { try JSONOutput.print(["locale": current]) } else { print(current) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the locales the terminal supports (GetInfo F6).")
        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            try await withConnection(globals) { connection in
                let (current, supported) = try await UCube.Locale.read(connection)
                if globals.json {
                    try JSONOutput.print(["supported": supported, "current": current.map { [$0] } ?? []])
                } else {
                    for locale in supported { print(locale == current ? "\(locale) (current)" : locale) }
                }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the locale (SetInfoField F7); it must be one the terminal lists.")
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

        func run() async throws {
            try await withConnection(globals) { connection in
                let (_, supported) = try await UCube.Locale.read(connection)
                guard supported.isEmpty || supported.contains(locale) else {
                    throw CLIFailure(
                        ExitCodes.usage, "the terminal does not support '\(locale)'; it supports \(supported.joined(separator: ", "))")
                }
                let reply = try await connection.client.send(try SetInfoField.locale(locale))
                guard reply.succeeded else {
                    throw CLIFailure(ExitCodes.terminalStatus, RPCOutput.statusMessage(reply.status, command: "SetInfoField"))
                }
                if globals.json { try JSONOutput.print(["locale": locale]) } else { print("locale set to \(locale)") }
            }
        }
    }
}
