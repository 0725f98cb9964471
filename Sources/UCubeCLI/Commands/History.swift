import ArgumentParser
import Foundation
import UCubePayment
import UCubeProtocol

extension UCube {
    /// `ucube history`: the payment journal.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List the journalled payments (a payment whose process died shows as unknown).",
            discussion: "The journal is $XDG_STATE_HOME/ucube/journal.jsonl: a start and an outcome record per payment, never clear card data.")

        @OptionGroup var globals: GlobalOptions

        @Option(help: "Show only the last N payments.")
        var last: Int?

        func run() async throws {
            var entries: [JournalEntry]
            try Environment.requireStateDirectory()
            do {
                entries = try PaymentJournal.history(Environment.stateDirectory + "/journal.jsonl")
            } catch {
                throw CLIFailure(ExitCodes.dataError, "cannot read the journal: \(error.reason)")
            }
            if let last { entries = Array(entries.suffix(max(0, last))) }
            if globals.json {
                try JSONOutput.print(entries)
                return
            }
            if entries.isEmpty { print("no payments journalled") }
            for e in entries {
                let amount = zip2(e.amount, e.currency.flatMap(Currency.lookup)).map { $1.format(minorUnits: $0) } ?? e.amount.map(String.init) ?? "-"
                let fields = [e.startedAt ?? "-", e.status, amount, e.type ?? "", e.entryMode ?? "", e.maskedPAN ?? "", e.aid ?? "", e.requestID]
                print(fields.joined(separator: "  "))
            }
        }

        private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
            guard let a, let b else { return nil }
            return (a, b)
        }
    }
}
