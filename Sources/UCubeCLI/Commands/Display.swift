import ArgumentParser
import UCubeLink
import UCubeProtocol
import UCubeRuntime

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
                """ + HelpExamples.section("display"))

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
                    ExitCodes.terminalStatus, reply.status.failureMessage(command: "DisplayMessage"))
            }
            let key = reply.response?.key
            if waitKey && key == nil { throw CLIFailure.noAnswer("no key was pressed within \(seconds) s") }
            let result = Result(text: text, timeout: seconds, key: key.map { Hex.encode([$0]) })
            try result.print(json: context.json)
        }
    }
}
