import ArgumentParser
import UCubeLink
import UCubeProtocol

/// A long terminal command that Ctrl-C and `ucube cancel` can stop: `body` runs in a task of its own, and either
/// cancels that task, which makes the RPC client send CancelAll (the pending command then answers −32, spec §5.2
/// 0x0202). In the shell, Ctrl-C reaches the same cancel through the session.
enum Interruptible {
    static func run<T: Sendable>(
        _ what: String, shell: ShellSession?, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        // Every way to stop it is in place before the work starts, so none can come too early to count.
        let stop = CancelSlot()
        ControlSocket.route {
            stop.cancel()
                ? CancelAnswer(.accepted, "cancelling `ucube \(what)`")
                : CancelAnswer(.already, "`ucube \(what)` is already being cancelled")
        }
        defer { ControlSocket.route(nil) }
        do {
            if let session = shell {
                let task = Task { try await body() }
                stop.hold { task.cancel() }
                return try await session.onInterrupt({ stop.cancel() }) { try await task.value }
            }
            return try await Interrupts.cancelling(body, stop: stop)
        } catch is CancellationError {
            throw CLIFailure.cancelled(what)
        }
    }

    /// Opens the link, sends one prompt command that Ctrl-C and `ucube cancel` can stop, and returns its reply.
    static func send<C: RPCCommand>(_ request: C, _ what: String, context: CommandContext) async throws -> Reply<
        C.Response
    > {
        try await withConnection(context, prepare: .asRecorded) { connection in
            let client = connection.client
            return try await run(what, shell: context.shell) {
                try Task.checkCancellation()
                return try await client.send(request)
            }
        }
    }
}

extension CLIFailure {
    /// Ctrl-C or `ucube cancel` stopped a prompt or a card wait (the terminal answered −32).
    static func cancelled(_ what: String) -> CLIFailure {
        CLIFailure(ExitCodes.cancelled, "\(what) cancelled; the terminal is back in READY")
    }

    /// A prompt's own timeout expired with no answer.
    static func noAnswer(_ message: String) -> CLIFailure {
        CLIFailure(ExitCodes.timeout, message, hint: "a longer --timeout gives the person at the terminal more time")
    }
}

/// Limits the prompts check before any link is opened (exit 64).
enum PromptLimits {
    /// DisplayMessage and DisplayListBox carry their timeout in one byte (spec §5.2).
    static let timeouts = 0...255

    static func check(timeout: Int, option: String = "--timeout") throws {
        guard timeouts.contains(timeout) else {
            throw ValidationError("\(option) is 0…255 seconds (one byte on the wire), got \(timeout)")
        }
    }

    /// Control characters (a newline, a tab) have no place on the terminal's one-line texts.
    static func checkPrintable(_ text: String, _ what: String) throws {
        guard !text.isEmpty else { throw ValidationError("\(what) is empty") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw ValidationError(
                "\(what) has a control character (a newline, a tab…); the terminal shows one line of text")
        }
    }
}

extension UCube {
    /// `ucube display TEXT`: DisplayMessage with one centred line (spec §5.2 0x5040).
    struct Display: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "display",
            abstract: "Show a message on the terminal's screen; with --wait-key, wait for a key and print it.",
            discussion: """
                TEXT is one line of ISO-8859-1 text, at most 254 characters (DisplayMessage, spec §5.2). Without \
                --wait-key the message is put on the screen and the command returns once the terminal has shown it \
                for --timeout seconds (default 0: at once; a key pressed ends it sooner and is printed). With \
                --wait-key the OK, CANCEL and ABORT keys end the display (abort-key mask 0x07, as the samples send) \
                and the key is printed: `key: 0x01`; no key within --timeout (default 30) exits 4. Which code each \
                key has is not in the sources: the byte is printed as the terminal sends it. Ctrl-C, or `ucube \
                cancel` from another shell, ends the display with CancelAll (exit 11). With --json: \
                {"key":"01","text":"TEXT","timeout":30} (key null when no key ended the display). With the \
                simulator, `--keys` / $UCUBE_SIM_KEYS script the keys pressed.
                """)

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The text to show (one line, at most 254 characters).", valueName: "text"))
        var text: String

        @Option(
            help: ArgumentHelp(
                "Seconds the display lasts, 0…255 (default 0, or 30 with --wait-key).", valueName: "seconds"))
        var timeout: Int?

        @Flag(help: "Let the OK, CANCEL and ABORT keys end the display, wait for one and print it.")
        var waitKey = false

        var seconds: Int { timeout ?? (waitKey ? 30 : 0) }

        /// The abort-key mask a sample sends (spec §5.2 0x5040: "a sample uses 0x07"); 0 when no key is awaited.
        static let abortKeys: UInt8 = 0x07

        func request() -> DisplayMessage {
            DisplayMessage(
                timeoutSeconds: UInt8(clamping: seconds), abortKeys: waitKey ? Self.abortKeys : 0,
                lines: [DisplayLine(text: text)])
        }

        func validate() throws {
            try PromptLimits.check(timeout: seconds)
            if waitKey && seconds == 0 { throw ValidationError("--wait-key needs a --timeout of at least 1 second") }
            try PromptLimits.checkPrintable(text, "the text")
            do {
                _ = try request().encodePayload()
            } catch {
                throw ValidationError("the text: \(error.reason)")
            }
        }

        struct Result: Report {
            let text: String
            let timeout: Int
            let key: String?

            var lines: [String] { ["displayed: \(text)"] + (key.map { ["key: 0x\($0)"] } ?? []) }

            private enum CodingKeys: String, CodingKey { case text, timeout, key }

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(text, forKey: .text)
                try c.encode(timeout, forKey: .timeout)
                try c.encode(key, forKey: .key)
            }
        }

        func run(in context: CommandContext) async throws {
            let countdown = waitKey ? Countdown.onTerminal(json: context.json) : nil
            countdown?.start("Waiting for a key on the terminal", seconds: seconds)
            defer { countdown?.finish() }
            let reply = try await Interruptible.send(request(), "display", context: context)
            switch reply.status {
            case .success: break
            case .cancelled: throw CLIFailure.cancelled("display")
            case .timeout: throw CLIFailure.noAnswer("no key was pressed within \(seconds) s")
            default:
                throw CLIFailure(
                    ExitCodes.terminalStatus, RPCOutput.statusMessage(reply.status, command: "DisplayMessage"))
            }
            let key = reply.response?.key
            if waitKey && key == nil { throw CLIFailure.noAnswer("no key was pressed within \(seconds) s") }
            let result = Result(text: text, timeout: seconds, key: key.map { Hex.encode([$0]) })
            try result.print(json: context.json)
        }
    }

    /// `ucube choose ITEM…`: DisplayListBox (spec §5.2 0x5042); prints the chosen item.
    struct Choose: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "choose",
            abstract: "Show a list on the terminal's screen and print the item the person at the terminal chooses.",
            discussion: """
                Each ITEM is printable ASCII; together, with one terminator byte each, they fit in 200 bytes, and \
                the --title in 254 characters (DisplayListBox, spec §5.2). The choice is printed as its number, \
                counted from 1, and its text: `2: Tea`. The cardholder's abort on the terminal, Ctrl-C and `ucube \
                cancel` (CancelAll) exit 11; no choice within --timeout (default 60) exits 4. With --json: \
                {"index":2,"item":"Tea","title":null}. With the simulator, `--choices` / $UCUBE_SIM_CHOICES script \
                the answers (an item number, abort or none); without one the simulator chooses item 1.
                """)

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The items to choose from, in order.", valueName: "item"))
        var items: [String] = []

        @Option(help: ArgumentHelp("A title shown above the list.", valueName: "text"))
        var title: String?

        @Option(help: ArgumentHelp("Seconds the list waits for a choice, 1…255 (default 60).", valueName: "seconds"))
        var timeout: Int = Int(DisplayListBox.defaultTimeout)

        func request() -> DisplayListBox {
            DisplayListBox(timeoutSeconds: UInt8(clamping: timeout), title: title, items: items)
        }

        func validate() throws {
            guard !items.isEmpty else { throw ValidationError("give at least one <item> to choose from") }
            try PromptLimits.check(timeout: timeout)
            if timeout == 0 { throw ValidationError("--timeout must be at least 1 second for a choice") }
            for (index, item) in items.enumerated() { try PromptLimits.checkPrintable(item, "item \(index + 1)") }
            if let title, !title.isEmpty { try PromptLimits.checkPrintable(title, "--title") }
            do {
                _ = try request().encodePayload()
            } catch {
                throw ValidationError(error.reason)
            }
        }

        struct Result: Report {
            let index: Int
            let item: String
            let title: String?

            var lines: [String] { ["\(index): \(item)"] }

            private enum CodingKeys: String, CodingKey { case index, item, title }

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(index, forKey: .index)
                try c.encode(item, forKey: .item)
                try c.encode(title, forKey: .title)
            }
        }

        func run(in context: CommandContext) async throws {
            let request = request()
            let reply = try await Interruptible.send(request, "choose", context: context)
            switch reply.status {
            case .success: break
            case .cancelled: throw CLIFailure.cancelled("choose")
            case .aborted:
                throw CLIFailure(ExitCodes.cancelled, "the list was aborted on the terminal (ECMD_ABORTED, -114)")
            case .timeout: throw CLIFailure.noAnswer("no item was chosen within \(timeout) s")
            default:
                throw CLIFailure(
                    ExitCodes.terminalStatus, RPCOutput.statusMessage(reply.status, command: "DisplayListBox"))
            }
            guard let index = reply.response?.selectedIndex, items.indices.contains(index - 1) else {
                throw CLIFailure(
                    ExitCodes.protocolError,
                    "the terminal answered item \(reply.response?.selectedIndex ?? 0) of a list of \(items.count)")
            }
            let result = Result(index: index, item: items[index - 1], title: request.title)
            try result.print(json: context.json)
        }
    }
}
