import ArgumentParser
import UCubeLink
import UCubeProtocol
import UCubeRuntime

extension UCube {
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
                """ + HelpExamples.section("choose"))

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
                    ExitCodes.terminalStatus, reply.status.failureMessage(command: "DisplayListBox"))
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
