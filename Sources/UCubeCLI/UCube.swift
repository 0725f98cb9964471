import ArgumentParser
import Foundation
import Logging
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator
import UCubeSupport
import UCubeTMS
import UCubeTMSSimulator

/// The `ucube` command: drives a YouTransactor uCube / uCube Touch terminal, or the built-in simulator.
/// The entry point the `ucube` executable calls.
package enum CLI {
    package static func main() async { await UCube.main() }
}

struct UCube: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        var configuration = CommandConfiguration(
            commandName: "ucube",
            abstract: "Drive a YouTransactor uCube / uCube Touch payment terminal from a shell.",
            discussion: includeDiscussion ? discussion : "",
            version: BuildInfo.versionLine,
            subcommands: [
                Info.self, Pay.self, ReadCard.self, Display.self, Choose.self, Cancel.self, History.self, Locale.self,
                RPC.self,
                Decode.self, Simulate.self, Sim.self, Test.self, Shell.self,
                Scan.self, Connect.self, MDMRegister.self, MDMUpdate.self, FleetMergeCommand.self, SendLogs.self,
                Diagnose.self, Serve.self,
            ]
        )
        if parsingWithoutCompletionCheck { configuration._superCommandName = "" }
        return configuration
    }

    /// Whether the root's and the `rpc` subcommands' discussions go into their configurations. They appear only in
    /// help (and the docs generated from it), and building them (every exit code, error code, variable and file; each
    /// command's security modes and states) was a measurable share of a short command's start-up: `main` leaves them
    /// out when the arguments ask for no help.
    nonisolated(unsafe) static var includeDiscussion = true

    /// Whether `rpc` lists its command subcommands, one per terminal command. The parser builds the whole command
    /// tree at every start, and these 38 configurations were most of it: `main` leaves them out when the arguments
    /// can reach none of them (no `rpc` word, no help, no shell, no completion request).
    nonisolated(unsafe) static var includeRPCCommands = true

    /// Exit codes, error codes, environment and files, for the root's help.
    static var discussion: String {
        """
        Devices: --device sim (the built-in simulator, the default), tcp://HOST:PORT (e.g. `ucube simulate \
        --listen`), serial:///dev/rfcommN (RFCOMM or a pseudo-terminal), ble://ADDRESS|NAME (a uCube Touch through BlueZ), rfcomm://ADDRESS \
        (a classic uCube), or a name remembered by `ucube connect`.

        Exit codes:
        \(ExitCodes.all.map { "  \($0.code)  \($0.meaning)" }.joined(separator: "\n"))

        Errors: a failure prints `ucube: error: MESSAGE` and, when there is something to do, `hint: HINT` on \
        stderr; --log-level debug adds the library's own text as `detail: ...`. With --json, stdout also gets \
        the error as one JSON object on one line (the last line of a streaming command such as `mdm-update \
        --json`): {"error":{"code":"connection-refused","detail":null,"exit":5,"exitName":"link",\
        "hint":"...","message":"..."},"version":1} (docs/json.md). Every key is always there: code is a stable name from the list below, exit \
        the exit code and exitName its name, hint and detail may be null (detail is filled only with \
        --log-level debug). A command that already printed its JSON result (pay DECLINED, an rpc answer with \
        a terminal status) adds no error object: the result and the exit code say it. A failed write to stdout \
        exits 74 (a closed pipe, as in `ucube ... | head`, without a message).

        Error codes, by exit code:
        \(CLIErrorCode.catalogueLines.joined(separator: "\n"))

        Environment:
        \(Environment.variables.map { "  \($0.name)  \($0.meaning)" }.joined(separator: "\n"))

        Files:
        \(Environment.files.map { "  \($0.path)  \($0.meaning)" }.joined(separator: "\n"))
        """ + HelpExamples.section("")
    }

    @OptionGroup var globals: GlobalOptions

    /// Runs the command line and maps every failure to its documented exit code, printing it once (`report`). Plain
    /// `ucube` on a terminal starts the shell.
    static func main() async {
        // A reader that goes away (`ucube … | head`) must not kill the process mid-work (a firmware update): with
        // SIGPIPE ignored the write fails with EPIPE instead, `Console` notes it and the exit code reports it.
        signal(SIGPIPE, SIG_IGN)
        // A file over the size limit (`ulimit -f`) must not kill a payment between its answer and its journal record:
        // the write fails with EFBIG, and the journal's failure is handled (exit 19, the outcome on stderr).
        signal(SIGXFSZ, SIG_IGN)
        // Every file ucube creates (logs, journal, bundles, identities, recordings) is for its user alone: 0600, and
        // 0700 for directories, whatever the library that creates it asks for.
        Environment.userUmask = umask(0o077)
        var arguments = Array(CommandLine.arguments.dropFirst())
        // ArgumentParser accepts --version only alone, and prints just the version. Answering it here skips building
        // the command tree (most of the parse's cost): scripts call `ucube --version` to check what is installed.
        // `-V` is its short form, and with --json it is a JSON object (`{"commit":"…","jsonVersion":1,"version":"…"}`:
        // its `version` is ucube's, as before; `jsonVersion` the `version` every other JSON output carries).
        let versionWords: Set<String> = ["--version", "-V", "--json"]
        if !arguments.isEmpty, arguments.count <= 2, Set(arguments).isSubset(of: versionWords),
            arguments.contains(where: { $0 != "--json" })
        {
            RawOutput.stdout(
                arguments.contains("--json")
                    ? JSONOutput.Value.object([
                        ("commit", .string(BuildInfo.commit)), ("version", .string(BuildInfo.version)),
                        ("jsonVersion", .number(String(JSONOutput.version))),
                    ]).line + "\n"
                    : BuildInfo.versionLine + "\n")
            return
        }
        // `--help` alone prints the root help without building the command tree: RootHelp holds it as generated
        // from the tree with the docs (checked by CI and by a test), wrapped here to the terminal's width as the
        // parser would.
        if arguments == ["--help"] || arguments == ["-h"],
            let help = RootHelp.rendered(columns: RootHelp.currentColumns())
        {
            RawOutput.stdout(help)
            return
        }
        if arguments.isEmpty && isatty(0) == 1 { arguments = [Shell.configuration.commandName ?? "shell"] }
        includeDiscussion = CommandLineScan.mayShowRootHelp(arguments)
        includeRPCCommands = CommandLineScan.mayReachRPCCommands(arguments)
        let json = CommandLineScan.wantsJSON(arguments)
        var code: Int32 = 0
        do {
            if let info = CommonLines.info(arguments) {
                // Its type and options known: no protocol check, and no option group built.
                let context = CommandContext.atDispatch(info.globals, session: nil)
                Console.setMode(json: context.json, quiet: context.quiet)
                startLogging(context.logLevels, mirrorToStderr: context.mirrorsLogToStderr, arguments: arguments)
                try await Info.run(in: context, fleet: info.fleet)
            } else {
                try await runParsed(arguments)
            }
        } catch {
            code = report(error, json: json, arguments: arguments)
        }
        // A replay that left its recording fails as such, whatever the command made of the link's failure (a payment
        // makes it an ERROR status).
        if let divergence = ReplaySource.divergence, code != ExitCodes.replayDiverged.code {
            code = report(divergence, json: json, arguments: arguments)
        }
        if code == 0, let errno = Console.stdoutError, !Console.outcomeWritten {
            // stdout is gone before the outcome reached it: the message can only go to stderr. A closed pipe is the
            // reader's choice (`| head`): only the exit code says the output was cut short. A reader that went away
            // after the outcome arrived whole had what it asked for: the exit code is the outcome's.
            let failure = CLIFailure.stdout(errno: errno)
            if errno != EPIPE { Console.report(failure, json: false, showDetail: false) }
            log(failure)
            code = failure.exit.code
        }
        Foundation.exit(code)
    }

    /// Runs the command ArgumentParser reads from `arguments`, with its settings resolved here, once.
    private static func runParsed(_ arguments: [String]) async throws {
        var command = try parse(arguments)
        if let command = command as? any UCubeCommand {
            let context = CommandContext.atDispatch(command.globals.values, session: nil)
            Console.setMode(json: context.json, quiet: context.quiet)
            startLogging(context.logLevels, mirrorToStderr: context.mirrorsLogToStderr, arguments: arguments)
            if let path = context.record { try SessionRecorder.start(path: path, arguments: arguments) }
            try await command.run(in: context)
            return
        }
        // A command group, help: no settings to read.
        startLogging(LogLevels(), mirrorToStderr: false, arguments: arguments)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    /// `parseAsRoot`, without ArgumentParser's check for a `--generate-completion-script` request unless the
    /// arguments hold one: the check parses them again with two more parsers, built for it on every run (9.8 M of
    /// `info`'s 33.6 M instructions; most of them first checks of types that the real parse then makes itself, so
    /// skipping it saves 1.4 M). ArgumentParser skips it for a command that has a super-command name, which only its
    /// help and usage texts show: the root has one only while `arguments` are parsed, and texts are rendered after.
    /// A command's options written before its name are moved after it (`LeadingOptions`).
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        guard !arguments.contains(where: { $0.contains("generate-completion-script") }) else {
            return try parseAsRoot(arguments)
        }
        return try LeadingOptions.parse(arguments) { arguments in
            try $parsingWithoutCompletionCheck.withValue(true) { try parseAsRoot(arguments) }
        }
    }

    /// True only inside `parse` (its task: the parse is synchronous), so that no other parse or rendered text sees it.
    @TaskLocal static var parsingWithoutCompletionCheck = false

    /// Bootstraps the log (spec §11) with the command's `--log-level` and logs the command line (api layer; the
    /// handler masks any PAN in it). When the state directory cannot hold the log, says so once and goes on without
    /// it: only the commands that keep state there need it (`Environment.requireStateDirectory`).
    static func startLogging(_ levels: LogLevels, mirrorToStderr: Bool, arguments: [String]) {
        if let problem = Environment.stateDirectoryProblem(Environment.logDirectory) {
            Environment.warnStateUnusable("no log is kept: \(Environment.logDirectory) cannot be used: \(problem)")
        }
        LogSystem.bootstrap(
            directory: Environment.logDirectory, levels: levels, mirrorToStderr: mirrorToStderr,
            metadata: DeviceOutput.logMetadata, stderr: Console.err)
        Logger(layer: .api).info("ucube \(arguments.joinedWithoutLookup(separator: " "))")
    }

    /// Prints what went wrong (or the help or version asked for) and returns the exit code. Never exits: the shell
    /// uses it after each line. Every failure becomes one `CLIFailure`: text on stderr, and with `json` the error
    /// object on stdout (`Console.report`). `arguments` is the command line, for a mistyped command's suggestion.
    static func report(_ error: any Error, json: Bool, arguments: [String] = []) -> Int32 {
        if let code = error as? ExitCode { return code.rawValue }
        // The runtime's word parsers' usage errors read as ArgumentParser's own: with the usage line, exit 64.
        let error = (error as? UsageError).map { ValidationError(usage: $0) } ?? error
        let failure: CLIFailure
        var text: String? = nil
        switch error {
        case is CLIFailure, is LinkError, is TMSError, is SimulatorError, is TMSSimulatorError, is CocoaError:
            failure = CLIFailure(reporting: error)
        default:
            switch exitCode(for: error) {
            case .success:
                // Help, version, completion scripts: not failures. The root's help puts its usage first.
                print(RootHelp.usageFirst(fullMessage(for: error)))
                return 0
            case .validationFailure:
                // ArgumentParser's usage errors are 64 (EX_USAGE), the same as ours.
                // The line as it was parsed last: a command's options moved after it (`LeadingOptions`).
                let arguments = LeadingOptions.reordered(arguments)
                if let unknown = CommandLineScan.unknownCommand(arguments) {
                    failure = unknown
                } else {
                    let command = (["ucube"] + CommandLineScan.commandPath(arguments)).joined(separator: " ")
                    // Card data typed where an amount goes (`ucube pay 4761…`) is masked like any other output, and
                    // the first line reads `ucube: error:` as every other failure does.
                    failure = CLIFailure(
                        ExitCodes.usage, LogScrubber.scrub(message(for: error)),
                        hint: "`\(command) --help` shows the usage")
                    let full = fullMessage(for: error)
                    text = LogScrubber.scrub(full.hasPrefix("Error: ") ? "ucube: error: " + full.dropFirst(7) : full)
                }
            default:
                failure = CLIFailure(reporting: error)
            }
        }
        let showDetail = (LogSystem.levels?.lowest).map { $0 <= .debug } ?? false
        if let text {
            StandardError.write(text)
            if json { Console.report(failure, json: true, showDetail: showDetail, textAlreadyShown: true) }
        } else {
            Console.report(failure, json: json, showDetail: showDetail)
        }
        log(failure)
        return failure.exit.code
    }

    /// Logs a failure with its code (the detail at debug level), when the log is running.
    private static func log(_ failure: CLIFailure) {
        guard LogSystem.isBootstrapped else { return }
        let logger = Logger(layer: .api)
        logger.notice("exit \(failure.exit.code) (\(failure.code)): \(failure.message)")
        if let detail = failure.detail { logger.debug("detail: \(detail)") }
    }
}
