import ArgumentParser
import Foundation
import Logging
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeSimulator

/// The `ucube` command: drives a YouTransactor uCube / uCube Touch terminal, or the built-in simulator.
@main
struct UCube: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ucube",
        abstract: "Drive a YouTransactor uCube / uCube Touch payment terminal from a shell.",
        discussion: """
            Devices: --device sim (the built-in simulator, the default), tcp://HOST:PORT (e.g. `ucube simulate \
            --listen`), serial:///dev/rfcommN (RFCOMM or a pseudo-terminal), ble://ADDRESS|NAME (a uCube Touch through BlueZ), rfcomm://ADDRESS \
            (a classic uCube), or a name remembered by `ucube connect`.

            Exit codes:
            \(ExitCodes.all.map { "  \($0.code)  \($0.meaning)" }.joined(separator: "\n"))
            """,
        version: BuildInfo.versionLine,
        subcommands: [
            Info.self, Pay.self, Cancel.self, History.self, Locale.self, RPC.self, Decode.self, Simulate.self, Shell.self,
            Scan.self, Connect.self, MDMRegister.self, MDMUpdate.self, SendLogs.self,
        ]
    )

    @OptionGroup var globals: GlobalOptions

    /// Runs the command line and maps every failure to its documented exit code, printing one clear line. Plain
    /// `ucube` on a terminal starts the shell.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        // ArgumentParser accepts --version only alone, and prints just the version. Answering it here skips building
        // the command tree (most of the parse's cost): scripts call `ucube --version` to check what is installed.
        if arguments == ["--version"] {
            RawOutput.stdout(BuildInfo.versionLine + "\n")
            return
        }
        if arguments.isEmpty && isatty(0) == 1 { arguments = [Shell.configuration.commandName ?? "shell"] }
        do {
            var command = try parseAsRoot(arguments)
            startLogging(command, arguments: arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = report(error)
            if code != 0, LogSystem.isBootstrapped {
                Logger(layer: .api).notice("exit \(code): \((error as? CLIFailure)?.message ?? fullMessage(for: error))")
            }
            Foundation.exit(code)
        }
    }

    /// Bootstraps the log (spec §11) with the command's `--log-level` and logs the command line (api layer; the
    /// handler masks any PAN in it).
    static func startLogging(_ command: any ParsableCommand, arguments: [String]) {
        let globals = Mirror(reflecting: command).children.lazy.compactMap {
            ($0.value as? OptionGroup<GlobalOptions>)?.wrappedValue
        }.first
        LogSystem.bootstrap(
            directory: Environment.logDirectory, levels: globals?.logLevels ?? LogLevels(),
            mirrorToStderr: globals?.logLevel != nil)
        Logger(layer: .api).info("ucube \(arguments.joined(separator: " "))")
    }

    /// Prints what went wrong (or the help or version asked for) and returns the exit code. Never exits: the shell
    /// uses it after each line.
    static func report(_ error: any Error) -> Int32 {
        switch error {
        case let failure as CLIFailure:
            StandardError.write("ucube: error: \(failure.message)")
            return failure.exit.code
        case let error as LinkError:
            let failure = CLIFailure(error)
            StandardError.write("ucube: error: \(failure.message)")
            return failure.exit.code
        case let code as ExitCode:
            return code.rawValue
        default:
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                return 0
            }
            StandardError.write(fullMessage(for: error))
            // ArgumentParser's own usage errors are 64 (EX_USAGE), the same as ours.
            return code == .validationFailure ? ExitCodes.usage.code : code.rawValue
        }
    }
}

/// Runs `body` with an open connection and always closes it, saving the link session. Inside `ucube shell` the
/// shell's one link is used and stays open.
func withConnection<T>(
    _ globals: GlobalOptions, card: CardScenario? = nil, _ body: (Connection) async throws -> T
) async throws -> T {
    if let session = ShellSession.current {
        return try await body(try await session.connection(globals, card: card))
    }
    let connection = try await Connection.open(globals, card: card)
    do {
        let result = try await body(connection)
        await connection.close()
        return result
    } catch {
        await connection.close()
        throw error
    }
}
