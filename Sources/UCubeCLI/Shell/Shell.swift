import ArgumentParser
import CReadline
import Foundation
import Logging
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeRuntime

extension UCube {
    /// `ucube shell`: the same commands at a readline prompt, on one link kept open, with session settings,
    /// completion, history and stepped payments; or a script of them.
    struct Shell: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "shell",
            abstract: "An interactive shell (GNU readline) on one open link; also runs scripts.",
            discussion: """
                Every ucube command works at the prompt with the same words (`info`, `rpc get-info C4`, `pay 10`). \
                The shell adds: set trace on|off, set json on|off, set timeout SECONDS, set device DEVICE, set authorize \
                WORD, set log-level LEVELS (and `set` alone to show them), reconnect, help, exit / quit / Ctrl-D. `pay AMOUNT --step` pauses before each \
                state: next, continue, context, tlv TAG, cancel. Ctrl-C cancels the running command (a payment only \
                before the card is read) and clears the line at the prompt. History: $XDG_STATE_HOME/ucube/history. \
                With --script FILE, or commands on standard input when it is not a terminal, lines run in order \
                (`#` starts a comment) and the first failing command stops the script with its exit code unless \
                --keep-going. Plain `ucube` on a terminal starts the shell.
                """ + HelpExamples.section("shell"))

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var fleet: FleetOptions

        @Option(help: ArgumentHelp("Run the commands of this file, one a line, then exit.", valueName: "file"))
        var script: String?

        @Flag(help: "In a script, go on after a failing command (the exit code is the last failure's).")
        var keepGoing = false

        func run(in context: CommandContext) async throws {
            // The shell's own line loop refuses `shell` (`ShellRunner.parseAndRun`); this is for any other caller.
            if context.shell != nil { throw CLIFailure(ExitCodes.usage, Self.nested) }
            if let run = try FleetRun(
                command: "shell", context: context, options: fleet.values, inputs: script.map { [$0] } ?? [])
            {
                guard let script else {
                    throw CLIFailure(
                        ExitCodes.usage, "a shell over several terminals runs a script: give it --script FILE")
                }
                let lines = try Self.lines(of: script)
                try await run.run { [globals, keepGoing] device in
                    let session = ShellSession(settings: Self.settings(globals.values, device: device))
                    let runner = ShellRunner(
                        session: session, source: PlainLineSource(lines: lines), interactive: false,
                        keepGoing: keepGoing,
                        output: DeviceOutput.current)
                    let code = await withTaskCancellationHandler {
                        await Self.loop(runner)
                    } onCancel: {
                        runner.stop()
                        session.interrupt()
                    }
                    if code != 0 { throw ExitCode(code) }
                }
                return
            }
            let session = ShellSession(settings: Self.settings(globals.values, device: globals.devices.last))
            let source: any LineSource
            let interactive: Bool
            if let script {
                source = PlainLineSource(lines: try Self.lines(of: script))
                interactive = false
            } else if context.stdinIsTerminal {
                source = ReadlineSource(session: session, historyPath: Environment.stateDirectory + "/history")
                interactive = true
            } else {
                source = PlainLineSource(lines: nil)
                interactive = false
            }
            let runner = ShellRunner(session: session, source: source, interactive: interactive, keepGoing: keepGoing)
            let code = await Self.loop(runner)
            if code != 0 { throw ExitCode(code) }
        }

        /// Why `shell` does not run inside the shell.
        static let nested = "already in the shell"

        /// The session's first settings: the shell's own options (`device`: the one terminal it drives). The rest of
        /// each line's context (`$UCUBE_DEVICE`, devices.json) is resolved line by line.
        private static func settings(_ options: GlobalOptionValues, device: String?) -> ShellSettings {
            var settings = ShellSettings()
            settings.json = options.json
            settings.trace = options.trace
            settings.timeout = options.rpcTimeout
            settings.device = device
            return settings
        }

        private static func lines(of script: String) throws -> [String] {
            let data: Data
            do {
                data = try BoundedFile.read(script, limit: PlainLineSource.maximumScriptSize)
            } catch {
                switch error {
                case .unreadable(let why):
                    throw CLIFailure(ExitCodes.usage, "cannot read the script \(script): \(why)")
                case .tooLarge:
                    throw CLIFailure(
                        ExitCodes.usage,
                        "the script \(script) is larger than \(BoundedFile.limitText(PlainLineSource.maximumScriptSize))"
                    )
                }
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CLIFailure(ExitCodes.usage, "cannot read the script \(script): not UTF-8")
            }
            // LF or CRLF line ends alike (a script saved on Windows).
            return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        }

        /// Runs the prompt loop to its end. readline() blocks its thread: the loop gets a thread of its own, never the
        /// cooperative pool.
        private static func loop(_ runner: ShellRunner) async -> Int32 {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: runner.run()) }
                thread.stackSize = 8 << 20
                thread.start()
            }
        }
    }
}

/// The prompt loop, on its own thread: reads a line, parses it with the CLI's grammar, runs it in a `Task` and
/// waits, answering the command's own prompts meanwhile. Nothing here calls `exit`.
final class ShellRunner: @unchecked Sendable {
    private let session: ShellSession
    private let source: any LineSource
    private let interactive: Bool
    private let keepGoing: Bool
    /// In a fleet run, the terminal's output, bound on the loop's thread and in each command's task; and the run, not
    /// this loop, handles Ctrl-C (`stop`).
    private let output: DeviceOutput?
    private let stopped = Atomic<Bool>(false)

    init(session: ShellSession, source: any LineSource, interactive: Bool, keepGoing: Bool, output: DeviceOutput? = nil)
    {
        self.session = session
        self.source = source
        self.interactive = interactive
        self.keepGoing = keepGoing
        self.output = output
    }

    /// Reads no more lines: the loop ends after the running command.
    func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }

    private enum Outcome {
        case status(Int32)
        case exit
    }

    func run() -> Int32 {
        // Many results on one stdout: with JSON, one document a line.
        Console.jsonLines = true
        guard output == nil else { return DeviceOutput.$current.withValue(output) { loop() } }
        installShellInterruptHandler()
        return loop()
    }

    private func loop() -> Int32 {
        var failure: Int32 = 0
        loop: while true {
            if shellTerminate.load(ordering: .sequentiallyConsistent) {
                failure = failure == 0 ? ExitCodes.cancelled.code : failure
                break loop
            }
            if stopped.load(ordering: .sequentiallyConsistent) {
                failure = failure == 0 ? ExitCodes.cancelled.code : failure
                break loop
            }
            switch source.readLine(prompt: interactive ? "ucube> " : "") {
            case .end:
                if interactive { print("") }
                break loop
            case .interrupted:
                continue
            case .tooLong:
                StandardError.write(
                    "ucube: error: a line of the input is longer than \(PlainLineSource.maximumLineLength >> 10) KiB: not a command"
                )
                failure = ExitCodes.usage.code
                break loop
            case .line(let line):
                let words: [String]
                do {
                    words = try ShellWords.split(line)
                } catch {
                    StandardError.write("ucube: error: \(error)")
                    if !interactive && !keepGoing { failure = ExitCodes.usage.code; break loop }
                    continue
                }
                guard !words.isEmpty else { continue }
                if interactive { source.remember(line) }
                let outcome = execute(words)
                ucube_flush_stdout()
                if shellTerminate.load(ordering: .sequentiallyConsistent), case .status(let code) = outcome {
                    // A SIGTERM or SIGHUP cancelled the command as Ctrl-C would: the shell ends with its code.
                    failure = code == 0 ? ExitCodes.cancelled.code : code
                    break loop
                }
                switch outcome {
                case .exit:
                    break loop
                case .status(let code):
                    if code != 0 && !interactive {
                        failure = code
                        if !keepGoing { break loop }
                    }
                }
            }
        }
        wait { await self.session.disconnect() }
        return failure
    }

    private func execute(_ words: [String]) -> Outcome {
        if let builtin = ShellBuiltin(rawValue: words[0]) {
            return builtinCommand(builtin, Array(words.dropFirst()))
        }
        if let step = StepCommand(rawValue: words[0]), step != .cancel {
            StandardError.write("ucube: error: `\(step.rawValue)` drives a `pay … --step`; none is paused")
            return .status(ExitCodes.usage.code)
        }
        return parseAndRun(words)
    }

    /// Parses `words` with the CLI's grammar and runs the command (shell builtins are not looked at here).
    private func parseAndRun(_ words: [String]) -> Outcome {
        Console.beginCommand()
        let json = CommandLineScan.wantsJSON(words) || session.settings.json
        let parsed: Result<any ParsableCommand, any Error> = Result {
            let command = try LeadingOptions.parse(words) { try UCube.parseAsRoot($0) }
            if command is UCube.Shell { throw ValidationError(UCube.Shell.nested) }
            return command
        }
        switch parsed {
        case .failure(let error):
            return .status(UCube.report(error, json: json, arguments: words))
        case .success(let command):
            Logger(layer: .api).info("shell: \(words.joined(separator: " "))")
            if let command = command as? any UCubeCommand {
                // The line's settings, resolved once: its options over the session's.
                let context = CommandContext.atDispatch(command.globals.values, session: session)
                Console.setMode(json: context.json, quiet: context.quiet)
                nonisolated(unsafe) let command = command
                return .status(runCommand(json: json) { try await command.run(in: context) })
            }
            nonisolated(unsafe) var command = command
            return .status(
                runCommand(json: json) {
                    if var asyncCommand = command as? any AsyncParsableCommand {
                        try await asyncCommand.run()
                    } else {
                        try command.run()
                    }
                })
        }
    }

    private func builtinCommand(_ builtin: ShellBuiltin, _ arguments: [String]) -> Outcome {
        switch builtin {
        case .exit, .quit:
            return .exit
        case .help:
            return help(arguments)
        case .set:
            guard !arguments.isEmpty else {
                let device = CommandContext.atDispatch(GlobalOptionValues(), session: session).deviceAddress
                for line in session.settings.lines(device: device) { print(line) }
                return .status(0)
            }
            do {
                print(try session.applySetting(arguments))
            } catch {
                return .status(UCube.report(error, json: session.settings.json))
            }
            return arguments.first == ShellSettings.Name.device.rawValue ? reconnect() : .status(0)
        case .reconnect:
            return reconnect()
        }
    }

    /// `help`: the shell's own words, then the CLI's help. `help WORD…` explains a shell word, or hands the words to
    /// ArgumentParser's `help` subcommand, never back to this builtin (it called itself until the stack overflowed).
    private func help(_ arguments: [String]) -> Outcome {
        if let word = arguments.first, arguments.count == 1 {
            if let builtin = ShellBuiltin(rawValue: word) {
                print(builtin.help)
                return .status(0)
            }
            if let step = StepCommand(rawValue: word) {
                print(step.help)
                // `cancel` is also a command: its help follows.
                guard step == .cancel else { return .status(0) }
                print("")
            }
        }
        if arguments.isEmpty {
            // The shell's own help: its words, then the commands by name (not the command line's root help, whose
            // global options and `ucube` usage are for a shell prompt of another kind).
            print(ShellBuiltin.overview + "\n")
            print(ShellBuiltin.commandList)
            return .status(0)
        }
        // ArgumentParser's own `help` subcommand: `help pay`, `help rpc get-info`.
        return parseAndRun(["help"] + arguments)
    }

    /// Closes the link and opens it again with the session's settings.
    private func reconnect() -> Outcome {
        .status(
            runCommand(json: session.settings.json) { [session] in
                await session.disconnect()
                let context = CommandContext.atDispatch(GlobalOptionValues(), session: session)
                let connection = try await session.connection(context, card: nil)
                print("connected to \(connection.address)")
            })
    }

    /// Runs one command's async work in a `Task` and waits for it on this thread, reading lines for it when it asks
    /// and turning Ctrl-C into the command's cancel.
    private func runCommand(json: Bool, _ body: @escaping @Sendable () async throws -> Void) -> Int32 {
        let mailbox = ShellMailbox()
        let session = self.session
        _ = shellInterrupt.exchange(false, ordering: .sequentiallyConsistent)
        session.commandStarting(mailbox: mailbox)
        defer { session.commandFinished() }
        let output = self.output
        let task = Task {
            var code: Int32 = 0
            do {
                try await DeviceOutput.$current.withValue(output) { try await body() }
            } catch {
                code = DeviceOutput.$current.withValue(output) { UCube.report(error, json: json) }
            }
            await session.checkLink()
            mailbox.post(.finished(code))
        }
        session.commandStarted(task)
        while true {
            guard let request = mailbox.next(timeout: 0.1) else {
                if shellInterrupt.exchange(false, ordering: .sequentiallyConsistent) { session.interrupt() }
                continue
            }
            switch request {
            case .finished(let code):
                return code
            case .read(let prompt, let reply):
                reply(source.readLine(prompt: interactive ? prompt : ""))
            }
        }
    }

    /// Waits on this thread for async work that reads no input.
    private func wait(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }
}

// MARK: - Help for the shell's own words

extension ShellBuiltin {
    /// The shell's words in one paragraph, shown by `help` before the commands.
    static var overview: String {
        """
        Shell commands: \(allCases.map(\.usage).joined(separator: ", ")) (or Ctrl-D).
        While a `pay … --step` is paused: \(StepCommand.allCases.map(\.usage).joined(separator: ", ")).
        Ctrl-C cancels the running command; Tab completes. `help WORD` explains any of these words or commands.
        """
    }

    /// The commands, a line each with its abstract, for `help` alone.
    static var commandList: String {
        let commands = UCube.configuration.subcommands.compactMap { command -> (String, String)? in
            let configuration = command.configuration
            guard configuration.shouldDisplay, let name = configuration.commandName, name != "shell" else { return nil }
            return (name, configuration.abstract)
        }
        let width = (commands.map(\.0.count).max() ?? 0) + 2
        return "Commands (`help COMMAND` shows one; the same words as `ucube COMMAND` on the command line):\n"
            + commands.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }
            .joined(separator: "\n")
    }

    var usage: String {
        switch self {
        case .set: "set [NAME VALUE]"
        case .help: "help [COMMAND]"
        case .reconnect: "reconnect"
        case .exit: "exit"
        case .quit: "quit"
        }
    }

    /// What `help WORD` prints for this word.
    var help: String {
        switch self {
        case .set:
            """
            USAGE: \(usage)

            Without arguments, shows the session's settings. They apply to every later line that does not say \
            otherwise:
              set trace on|off        hex-dump every frame on stderr (as --trace)
              set json on|off         print results as JSON (as --json)
              set timeout SECONDS     the RPC timeout (as --rpc-timeout)
              set device DEVICE       the terminal (as --device); reconnects
              set authorize WORD      each payment's --authorize when its line gives none: a host
                                      (exec:PROGRAM, https://HOST/PATH), approve, decline, unable, prompt
              set log-level LEVELS    the log levels of this process (as --log-level)
            """
        case .help:
            """
            USAGE: \(usage)

            Without arguments, lists the shell's own words and the commands. `help COMMAND [SUBCOMMAND]` shows a \
            command's help (as `ucube help COMMAND` or `COMMAND --help`), `help WORD` a shell word's.
            """
        case .reconnect:
            """
            USAGE: \(usage)

            Closes the link and opens it again with the session's settings (after `set device`, or a terminal that \
            rebooted).
            """
        case .exit, .quit:
            """
            USAGE: \(usage)

            Closes the link and leaves the shell (as Ctrl-D). A script's exit code is its first failing command's.
            """
        }
    }
}

extension StepCommand {
    var usage: String { self == .tlv ? "tlv TAG" : rawValue }

    /// What `help WORD` prints for a step word.
    var help: String {
        let what =
            switch self {
            case .next: "runs the next state, then pauses again."
            case .continue: "runs the payment to its end without pausing."
            case .context: "shows the payment context so far (JSON with `set json on`)."
            case .tlv: "shows one tag of the context, by hex (9F02) or by its tag dictionary name."
            case .cancel: "cancels the payment (too late once the card is read)."
            }
        return "USAGE: \(usage)\n\nWhile a `pay … --step` is paused: \(what)"
    }
}
