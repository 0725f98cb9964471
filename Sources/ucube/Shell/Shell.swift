import ArgumentParser
import CReadline
import Foundation
import Logging
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol

extension UCube {
    /// `ucube shell`: the same commands at a readline prompt, on one link kept open, with session settings,
    /// completion, history and stepped payments; or a script of them.
    struct Shell: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shell",
            abstract: "An interactive shell (GNU readline) on one open link; also runs scripts.",
            discussion: """
                Every ucube command works at the prompt with the same words (`info`, `rpc get-info C4`, `pay 10`). \
                The shell adds: set trace on|off, set json on|off, set timeout SECONDS, set device DEVICE, set log-level \
                LEVELS (and `set` alone to show them), reconnect, help, exit / quit / Ctrl-D. `pay AMOUNT --step` pauses before each \
                state: next, continue, context, tlv TAG, cancel. Ctrl-C cancels the running command (a payment only \
                before the card is read) and clears the line at the prompt. History: $XDG_STATE_HOME/ucube/history. \
                With --script FILE, or commands on standard input when it is not a terminal, lines run in order \
                (`#` starts a comment) and the first failing command stops the script with its exit code unless \
                --keep-going. Plain `ucube` on a terminal starts the shell.
                """)

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("Run the commands of this file, one a line, then exit.", valueName: "file"))
        var script: String?

        @Flag(help: "In a script, go on after a failing command (the exit code is the last failure's).")
        var keepGoing = false

        func validate() throws {
            if ShellSession.current != nil { throw ValidationError("already in the shell") }
        }

        func run() async throws {
            var settings = ShellSettings()
            settings.json = globals.jsonFlag
            settings.trace = globals.traceFlag
            settings.timeout = globals.rpcTimeout
            settings.device = globals.device
            let session = ShellSession(settings: settings)
            let source: any LineSource
            let interactive: Bool
            if let script {
                guard let text = try? String(contentsOfFile: script, encoding: .utf8) else {
                    throw CLIFailure(ExitCodes.usage, "cannot read the script \(script)")
                }
                source = PlainLineSource(lines: text.components(separatedBy: "\n"))
                interactive = false
            } else if isatty(0) == 1 {
                source = ReadlineSource(session: session, historyPath: Environment.stateDirectory + "/history")
                interactive = true
            } else {
                source = PlainLineSource(lines: nil)
                interactive = false
            }
            let runner = ShellRunner(session: session, source: source, interactive: interactive, keepGoing: keepGoing)
            // readline() blocks its thread: the prompt loop gets a thread of its own, never the cooperative pool.
            let code: Int32 = await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: runner.run()) }
                thread.stackSize = 8 << 20
                thread.start()
            }
            if code != 0 { throw ExitCode(code) }
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

    init(session: ShellSession, source: any LineSource, interactive: Bool, keepGoing: Bool) {
        self.session = session
        self.source = source
        self.interactive = interactive
        self.keepGoing = keepGoing
    }

    private enum Outcome {
        case status(Int32)
        case exit
    }

    func run() -> Int32 {
        installShellInterruptHandler()
        var failure: Int32 = 0
        loop: while true {
            switch source.readLine(prompt: interactive ? "ucube> " : "") {
            case .end:
                if interactive { print("") }
                break loop
            case .interrupted:
                continue
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
        Console.beginCommand()
        let json = CommandLineScan.wantsJSON(words) || session.settings.json
        let parsed: Result<any ParsableCommand, any Error> = ShellSession.$current.withValue(session) {
            Result { try UCube.parseAsRoot(words) }
        }
        switch parsed {
        case .failure(let error):
            return .status(UCube.report(error, json: json, arguments: words))
        case .success(let command):
            Logger(layer: .api).info("shell: \(words.joined(separator: " "))")
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
            if arguments.isEmpty {
                print(
                    """
                    Shell commands: set [trace on|off | json on|off | timeout SECONDS | device DEVICE | log-level LEVELS], \
                    reconnect, \
                    help [COMMAND], exit, quit (or Ctrl-D).
                    While a `pay … --step` is paused: next, continue, context, tlv TAG, cancel.
                    Ctrl-C cancels the running command; Tab completes.

                    """)
            }
            return execute(["help"] + arguments)
        case .set:
            guard !arguments.isEmpty else {
                for line in session.settings.lines { print(line) }
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

    /// Closes the link and opens it again with the session's settings.
    private func reconnect() -> Outcome {
        .status(
            runCommand(json: session.settings.json) { [session] in
                await session.disconnect()
                let globals = try GlobalOptions.parse([])
                let connection = try await session.connection(globals, card: nil)
                print("connected to \(connection.address)")
            })
    }

    /// Runs one command's async work in a `Task` and waits for it on this thread, reading lines for it when it asks
    /// and turning Ctrl-C into the command's cancel.
    private func runCommand(json: Bool, _ body: @escaping @Sendable () async throws -> Void) -> Int32 {
        let mailbox = ShellMailbox()
        let session = self.session
        _ = shellInterrupt.exchange(false, ordering: .sequentiallyConsistent)
        let task = ShellSession.$current.withValue(session) {
            Task {
                var code: Int32 = 0
                do {
                    try await body()
                } catch {
                    code = UCube.report(error, json: json)
                }
                await session.checkLink()
                mailbox.post(.finished(code))
            }
        }
        session.commandStarted(task, mailbox: mailbox)
        defer { session.commandFinished() }
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
