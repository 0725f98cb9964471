import ArgumentParser
import Foundation
import UCubePayment
import UCubeProtocol

extension UCube {
    /// `ucube history`: the payment journal — list it, show one payment (and its receipt), resolve an unknown one.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract:
                "List the journalled payments, show one with its receipt, or resolve one whose outcome is unknown.",
            discussion: """
                The journal is $XDG_STATE_HOME/ucube/journal.jsonl: per payment a start record before its first \
                command, a step record for each command's answer, an outcome record at its end, and the operator's \
                resolution of a payment whose process died; never clear card data. A payment with no outcome is \
                unknown: `history --unresolved` lists those no one has resolved yet, each with the last command \
                known to have reached the terminal (its answer was journalled), and `history resolve ID --status \
                STATUS` records what the operator found out (from the acquirer, say), keeping the original records.
                """,
            subcommands: [List.self, Show.self, Resolve.self],
            defaultSubcommand: List.self)

        /// The journal's payments, oldest first, once the reversals a host is owed were sent (docs/authorization.md).
        static func entries() async throws -> [JournalEntry] {
            try Environment.requireStateDirectory()
            await Reversals.sendOwed(journalPath: journalPath)
            do {
                return RunningPayments.marked(try PaymentJournal.history(journalPath))
            } catch {
                throw CLIFailure(ExitCodes.dataError, "cannot read the journal: \(error.reason)")
            }
        }

        static var journalPath: String { Environment.stateDirectory + "/journal.jsonl" }

        /// The payment `id` names: its request id, or an unambiguous prefix of it.
        static func entry(_ id: String, in entries: [JournalEntry]) throws -> JournalEntry {
            let matches = entries.filter { $0.requestID == id || $0.requestID.hasPrefix(id) }
            guard let exact = entries.last(where: { $0.requestID == id }) ?? (matches.count == 1 ? matches.first : nil)
            else {
                throw CLIFailure(
                    ExitCodes.usage,
                    matches.isEmpty
                        ? "no payment \(id) in the journal"
                        : "\(id) names \(matches.count) payments: give more of the id",
                    hint: "`ucube history` lists the request ids")
            }
            return exact
        }
    }
}

extension UCube.History {
    /// `ucube history [--last N] [--unresolved]`.
    struct List: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the journalled payments (the default).")

        @OptionGroup var globals: GlobalOptions

        @Option(help: "Show only the last N payments.")
        var last: Int?

        @Flag(
            help:
                "Only the payments whose outcome is unknown and not resolved, with the last command known to have reached the terminal, and those a host is owed a reversal for."
        )
        var unresolved = false

        func run(in context: CommandContext) async throws {
            var entries = try await UCube.History.entries()
            if unresolved { entries = entries.filter { $0.isUnresolved || $0.reversalOwed } }
            if let last { entries = Array(entries.suffix(max(0, last))) }
            try ValueReport(value: entries, lines: Self.lines(entries, unresolved: unresolved)).print(
                json: context.json)
        }

        /// A line per payment, or one saying there is none.
        static func lines(_ entries: [JournalEntry], unresolved: Bool) -> [String] {
            if entries.isEmpty { return [unresolved ? "no unresolved payments" : "no payments journalled"] }
            return entries.map { e in
                let amount =
                    e.amount.flatMap { amount in
                        e.currency.flatMap(Currency.lookup).map { $0.format(minorUnits: amount) }
                    }
                    ?? e.amount.map(String.init) ?? "-"
                let status =
                    (e.runningPID.map { "running (pid \($0))" } ?? e.resolution.map {
                        "\(e.status) (resolved \($0.status))"
                    }
                        ?? e.status) + (e.simulated ? " (simulated)" : "")
                var fields = [
                    e.startedAt ?? "-", status, amount, e.type ?? "", e.entryMode ?? "", e.maskedPAN ?? "", e.aid ?? "",
                    e.requestID,
                ]
                if e.reversalOwed { fields.append("reversal owed to the host") }
                if unresolved {
                    fields.append(
                        "last: "
                            + (e.lastCommand.map { "\($0) (status \(e.lastResult ?? 0))" } ?? "no command answered"))
                }
                return fields.joined(separator: "  ")
            }
        }
    }

    /// `ucube history show ID [--receipt] [--receipt-file FILE]`.
    struct Show: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one journalled payment, or its receipt.")

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The payment's request id, or enough of it to name one.", valueName: "id"))
        var id: String

        @OptionGroup var receiptOptions: ReceiptOptions

        func run(in context: CommandContext) async throws {
            try receiptOptions.checkFile()
            let entry = try UCube.History.entry(id, in: try await UCube.History.entries())
            let receipt = Receipt(entry)
            if receiptOptions.receipt {
                try ValueReport(value: receipt, lines: receipt.lines()).print(json: context.json)
            } else {
                let amount = entry.amount.flatMap { amount in
                    entry.currency.flatMap(Currency.lookup).map { $0.format(minorUnits: amount) }
                }
                let fields: [(String, String?)] = [
                    ("request id", entry.requestID), ("started", entry.startedAt), ("finished", entry.finishedAt),
                    ("status", entry.status + (entry.reason.map { " (\($0))" } ?? "")), ("amount", amount),
                    ("type", entry.type),
                    ("device", entry.device.map { $0 + (entry.simulated ? " (simulated: not a real payment)" : "") }),
                    ("entry mode", entry.entryMode),
                    ("card", entry.maskedPAN),
                    ("application", [entry.aid, entry.applicationLabel].compactMap { $0 }.joined(separator: " ")),
                    (
                        "last command",
                        entry.lastCommand.map {
                            "\($0) (status \(entry.lastResult ?? 0), in \(entry.lastState ?? "?"))"
                        }
                    ),
                    (
                        "resolved",
                        entry.resolution.map { "\($0.status) at \($0.time)" + ($0.note.map { ": \($0)" } ?? "") }
                    ),
                ]
                let lines = fields.compactMap { label, value in value.flatMap { $0.isEmpty ? nil : "\(label): \($0)" } }
                try ValueReport(value: entry, lines: lines).print(json: context.json)
            }
            try receiptOptions.write(receipt, json: context.json)
        }
    }

    /// `ucube history resolve ID --status STATUS [--note TEXT]`.
    struct Resolve: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "resolve",
            abstract: "Record the outcome an operator found out for a payment whose outcome is unknown.",
            discussion:
                "The payment's own records stay; a resolution record is appended. Only an unknown, unresolved payment can be resolved."
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The payment's request id, or enough of it to name one.", valueName: "id"))
        var id: String

        @Option(
            help: ArgumentHelp(
                "The outcome: \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", ")) (any case).",
                valueName: "status"))
        var status: String

        @Option(help: ArgumentHelp("Why: what the operator checked.", valueName: "text"))
        var note: String?

        func validate() throws {
            guard PaymentStatus(rawValue: status.uppercased()) != nil else {
                throw ValidationError(
                    "--status must be one of \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run(in context: CommandContext) async throws {
            let entry = try UCube.History.entry(id, in: try await UCube.History.entries())
            if let pid = entry.runningPID {
                throw CLIFailure(
                    ExitCodes.busy,
                    "payment \(entry.requestID) is still running (pid \(pid)): its outcome is not known yet",
                    hint:
                        "wait for it to end, or stop it with `ucube cancel`; only a payment whose process ended can be resolved"
                )
            }
            guard entry.isUnknown else {
                throw CLIFailure(
                    ExitCodes.usage, "payment \(entry.requestID) has an outcome: \(entry.status)",
                    hint: "only a payment whose outcome is unknown can be resolved")
            }
            if let resolution = entry.resolution {
                throw CLIFailure(
                    ExitCodes.usage,
                    "payment \(entry.requestID) is already resolved: \(resolution.status) at \(resolution.time)")
            }
            let decided = PaymentStatus(rawValue: status.uppercased())!
            do {
                try PaymentJournal(path: UCube.History.journalPath).recordResolution(
                    requestID: entry.requestID, status: decided, note: note, time: PaymentEngine.timestamp())
            } catch {
                throw CLIFailure(ExitCodes.ioError, "cannot write the journal: \(error.reason)")
            }
            let resolved = try UCube.History.entry(entry.requestID, in: try await UCube.History.entries())
            try ValueReport(
                value: resolved, lines: ["payment \(entry.requestID): unknown, resolved \(decided.rawValue)"]
            )
            .print(json: context.json)
        }
    }
}
