import ArgumentParser
import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

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
                STATUS` records what the operator found out (from the acquirer, say), keeping the original records. \
                `history totals` counts and sums the payments of a period, per currency and transaction type.

                Without a subcommand, `history` lists (`history list`), with its options: --last N (only the last N \
                payments), --unresolved (only those whose outcome is unknown and not resolved), --status STATUS, \
                --since TIME, --until TIME, --device NAME (`ucube history list --help` says more).
                """ + HelpExamples.section("history"),
            subcommands: [List.self, Show.self, Resolve.self, Totals.self],
            defaultSubcommand: List.self)

        /// The journal's payments, oldest first, once the reversals a host is owed were sent (docs/authorization.md).
        static func entries() async throws -> [JournalEntry] {
            try Environment.requireStateDirectory()
            await Reversals.sendOwed(journalPath: Environment.journalPath)
            do {
                return RunningPayments.marked(try PaymentJournal.history(Environment.journalPath))
            } catch {
                throw CLIFailure(ExitCodes.dataError, "cannot read the journal: \(error.reason)")
            }
        }

        /// The filter the line asks for: `period`, `statuses`, and the line's own `--device` (never the shell's
        /// `set device`, `$UCUBE_DEVICE` or the remembered default: without `--device`, every device).
        static func filter(
            period: HistoryPeriodOptions, statuses: Set<StatusSelector>, context: CommandContext
        ) throws -> HistoryFilter {
            let (since, until) = try period.period(now: Date(), timeZone: .current)
            return HistoryFilter(
                since: since, until: until, statuses: statuses, devices: try journalDevices(context.givenDevices))
        }

        /// The devices `given` names, as the journal writes them (`DeviceAddress.description`: `simulator` is
        /// "sim", `/dev/ttyUSB0` "serial:///dev/ttyUSB0"); a name remembered by `ucube connect` is its address, as
        /// the payment journalled it.
        static func journalDevices(_ given: [String]) throws -> Set<String> {
            var devices = Set<String>()
            for text in given {
                do {
                    var address = try DeviceAddress(parsing: text)
                    if case .remembered(let name) = address {
                        guard let known = try RememberedDevices.find(name) else {
                            throw CLIFailure(
                                ExitCodes.usage, "unknown device '\(name)': not a device address or a remembered name",
                                hint:
                                    "the journal names devices by address (sim, tcp://HOST:PORT, …: `history show ID` and `history --json` give it); `ucube connect --list` shows the remembered names"
                            )
                        }
                        address = try DeviceAddress(parsing: known.address)
                    }
                    devices.insert(address.description)
                } catch let error as LinkError {
                    throw CLIFailure(ExitCodes.usage, error.reason)
                }
            }
            return devices
        }

        /// The payment `id` names: its request id or its payment key, or an unambiguous prefix of one. Several
        /// payments may carry one request id (each has its own key): the last of them, unless `preferring` picks
        /// exactly one (`history resolve` prefers the one whose outcome is unknown); when it picks several, the id
        /// is ambiguous and their keys are named.
        static func entry(
            _ id: String, in entries: [JournalEntry], preferring: (JournalEntry) -> Bool = { _ in false }
        ) throws -> JournalEntry {
            // An empty id is a prefix of every id: it names no payment.
            guard !id.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CLIFailure(
                    ExitCodes.usage, "an empty id names no payment", hint: "`ucube history` lists the request ids")
            }
            let exact = entries.filter { $0.requestID == id || $0.payment == id }
            if let last = exact.last {
                let preferred = exact.filter(preferring)
                guard preferred.count <= 1 else {
                    throw CLIFailure(
                        ExitCodes.usage,
                        "\(id) names \(preferred.count) payments: \(preferred.map { $0.payment ?? $0.requestID }.joined(separator: ", "))",
                        hint: "give the payment key of the one you mean (`ucube history show ID --json` gives it)")
                }
                return preferred.first ?? last
            }
            let matches = entries.filter { $0.requestID.hasPrefix(id) || $0.payment?.hasPrefix(id) == true }
            guard matches.count == 1, let only = matches.first else {
                throw CLIFailure(
                    ExitCodes.usage,
                    matches.isEmpty
                        ? "no payment \(id) in the journal"
                        : "\(id) names \(matches.count) payments: give more of the id",
                    hint: "`ucube history` lists the request ids")
            }
            return only
        }
    }
}

extension UCube.History {
    /// `ucube history [--last N] [--unresolved] [--status STATUS] [--since TIME] [--until TIME] [--device NAME]`.
    struct List: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the journalled payments (the default).",
            discussion: """
                The filters combine: a payment is listed when it started in the period (--since inclusive, --until \
                exclusive), has one of the statuses given, and was taken on one of the devices given (--device: an \
                address as the journal records it, as `history show ID` gives it, or a name remembered by \
                `ucube connect`; without it, every device). A payment counts by the operator's resolution when it \
                has one, and as REVERSED when a reversal record names it, as `history totals` counts it.
                """ + HelpExamples.section("history list"))

        @OptionGroup var globals: GlobalOptions

        @Option(help: "Show only the last N payments.")
        var last: Int?

        @Flag(
            help:
                "Only the payments whose outcome is unknown and not resolved, with the last command known to have reached the terminal (--status unresolved), and those a host is owed a reversal for."
        )
        var unresolved = false

        @Option(
            name: .customLong("status"),
            help: ArgumentHelp(
                "Only the payments with this status; repeat it, or separate statuses with commas, for any of them: \(StatusSelector.allNames.joined(separator: ", ")) (any case). unknown: no outcome, resolution or reversal; unresolved: what --unresolved lists; reversed: a reversal record names it.",
                valueName: "status"),
            completion: .list(StatusSelector.allNames.map { $0.lowercased() }))
        var statusWords: [String] = []

        @OptionGroup var period: HistoryPeriodOptions

        func validate() throws { _ = try HistoryStatusWords.selectors(statusWords) }

        func run(in context: CommandContext) async throws {
            var statuses = try HistoryStatusWords.selectors(statusWords)
            if unresolved { statuses.insert(.unresolved) }
            let filter = try UCube.History.filter(period: period, statuses: statuses, context: context)
            var entries = filter.apply(try await UCube.History.entries())
            if let last { entries = Array(entries.suffix(max(0, last))) }
            try ValueReport(value: entries, lines: Self.lines(entries, filter: filter)).print(json: context.json)
        }

        /// A line per payment, or one saying there is none; with the last command that reached the terminal when
        /// only the unresolved are asked for. Times in local time (`LocalTime`, the zone `offset` gives).
        static func lines(
            _ entries: [JournalEntry], filter: HistoryFilter, offset: (Int64) -> Int = LocalTime.systemOffset
        ) -> [String] {
            let unresolved = filter.statuses == [.unresolved]
            if entries.isEmpty {
                if unresolved && filter.since == nil && filter.until == nil && filter.devices.isEmpty {
                    return ["no unresolved payments"]
                }
                return [filter.takesAll ? "no payments journalled" : "no payments match"]
            }
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
                        ?? e.status) + (e.reversal.map { $0.acknowledged ? " (reversed)" : " (reversal owed)" } ?? "")
                    + (e.simulated ? " (simulated)" : "")
                var fields = [
                    e.startedAt.map { LocalTime.text($0, offset: offset) } ?? "-", status, amount, e.type ?? "",
                    e.entryMode ?? "", e.maskedPAN ?? "", e.aid ?? "",
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
            commandName: "show", abstract: "Show one journalled payment, or its receipt.",
            discussion: HelpExamples.discussion("history show"))

        @OptionGroup var globals: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "The payment's request id or its payment key, or enough of one to name it.", valueName: "id"))
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
                // Times for people: local (`LocalTime`); the JSON form keeps the journal's UTC.
                let local = { (iso: String) in LocalTime.text(iso, offset: LocalTime.systemOffset) }
                let fields: [(String, String?)] = [
                    ("request id", entry.requestID), ("payment", entry.payment),
                    ("started", entry.startedAt.map(local)),
                    ("finished", entry.finishedAt.map(local)),
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
                        entry.resolution.map { "\($0.status) at \(local($0.time))" + ($0.note.map { ": \($0)" } ?? "") }
                    ),
                    (
                        "reversal",
                        entry.reversal.map {
                            ($0.acknowledged ? "acknowledged" : "owed") + " at \(local($0.time))"
                                + ($0.hostReference.map { ", host reference \($0)" } ?? "")
                                + ($0.reason.map { ": \($0)" } ?? "")
                        }
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
                + HelpExamples.section("history resolve")
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "The payment's request id or its payment key, or enough of one to name it.", valueName: "id"))
        var id: String

        @Option(
            help: ArgumentHelp(
                "The outcome: \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", ")) (any case).",
                valueName: "status"),
            completion: .list(PaymentStatus.allCases.map { $0.rawValue.lowercased() }))
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
            // Of the payments that carry the id, the one an operator can resolve (a crashed one, say).
            let entry = try UCube.History.entry(id, in: try await UCube.History.entries(), preferring: \.isUnresolved)
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
                try PaymentJournal(path: Environment.journalPath).recordResolution(
                    requestID: entry.requestID, payment: entry.payment, status: decided, note: note,
                    time: PaymentEngine.timestamp())
            } catch {
                throw CLIFailure(ExitCodes.ioError, "cannot write the journal: \(error.reason)")
            }
            let after = try await UCube.History.entries()
            let resolved = after.last { $0.identity == entry.identity } ?? entry
            try ValueReport(
                value: resolved, lines: ["payment \(entry.requestID): unknown, resolved \(decided.rawValue)"]
            )
            .print(json: context.json)
        }
    }

    /// `ucube history totals [--since TIME] [--until TIME] [--device NAME]`.
    struct Totals: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "totals",
            abstract: "Count and sum the journalled payments of a period, per currency and transaction type.",
            discussion: """
                The end-of-day figures a terminal integration reconciles against: for each currency and \
                transaction type, the count and the amount of the approved, declined and reversed payments (and of \
                the reversals the host has not acknowledged yet), then the rest (cancelled, failed, unknown, …) \
                counted by status, so that every payment of the period counts once. A payment resolved by an \
                operator counts by the resolved status; one that a reversal record names counts as reversed, \
                whatever the card said. Simulated payments are totalled apart. Amounts are formatted with the \
                currency's exponent; with --json they are minor units (an integer) in an object with a `version`.
                """ + HelpExamples.section("history totals"))

        @OptionGroup var globals: GlobalOptions

        @OptionGroup var period: HistoryPeriodOptions

        func run(in context: CommandContext) async throws {
            let filter = try UCube.History.filter(period: period, statuses: [], context: context)
            let entries = filter.apply(try await UCube.History.entries())
            try TotalsReport(PaymentTotals(entries), filter: filter).print(json: context.json)
        }
    }
}
