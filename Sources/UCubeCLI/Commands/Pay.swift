import ArgumentParser
import Foundation
import Logging
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator
import UCubeSupport

extension UCube {
    /// `ucube pay AMOUNT`: one EMV payment, contact, contactless or magstripe, as the SDKs run it (spec §8).
    struct Pay: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "pay",
            abstract: "Take a payment: wait for a card, run the EMV flow, authorize, finalise.",
            discussion: """
                AMOUNT is in the currency's units: `pay 12.50 --currency EUR` is €12.50, `pay 1250 --currency JPY` \
                is ¥1250 and `pay 12.5 --currency JPY` is refused (JPY has no decimals; ISO 4217 exponents).
                Ctrl-C, or `ucube cancel` from another shell, cancels only before the card has been read; after that \
                the payment runs to its end. The outcome is journalled in $XDG_STATE_HOME/ucube/journal.jsonl \
                (see `ucube history`). The exit code tells the outcome: 0 APPROVED, 10 DECLINED, 11 CANCELLED, \
                12 card problem, 13 payment error, 5 link lost. With the simulator, --card picks a card \
                (`ucube simulate --list-cards`).
                """ + HelpExamples.section("pay"))

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("Amount in the currency's units, e.g. 12.50.", valueName: "amount"))
        var amount: String

        @Option(
            help: ArgumentHelp("ISO 4217 currency, alphabetic or numeric (default: EUR).", valueName: "code"),
            transform: Parse.currency)
        var currency: Currency = .eur

        @Option(name: .customLong("type"), help: "Transaction type (default: purchase).")
        var transactionType: TransactionType?

        @Option(help: ArgumentHelp("Cash-back amount, with --type purchase-cashback.", valueName: "decimal"))
        var cashback: String?

        @OptionGroup var cardWait: CardWaitOptions

        @Option(
            help: ArgumentHelp(
                "Preferred languages, ISO 639, comma-separated (1…6; default: en).", valueName: "languages"),
            transform: Parse.languages)
        var lang: [String]?

        @Flag(help: "Ask for the online PIN even when the card does not (contactless, magstripe).")
        var forceOnlinePIN = false

        @Flag(help: "Force the authorization (contact: TVR byte 4 bit 4; contactless: DF7F).")
        var forceAuthorization = false

        @Option(help: "PIN block format: iso0, iso1, iso3, iso4 (default: iso0).")
        var pinFormat: PINBlockFormatCode?

        @Option(
            help: ArgumentHelp(
                "The DUKPT key slot the terminal enciphers an online PIN under (DF44, spec §5.2): 0x40…0x53, or 1…20 as the vendor SDK counts them (1 = 0x40, the default).",
                valueName: "slot"))
        var pinKeySlot: String?

        /// --pin-key-slot as the slot byte (`PaymentRequest.pinKeySlots`), or a usage error.
        static func keySlot(_ text: String) throws -> UInt8 {
            let lower = text.lowercased()
            let slots = PaymentRequest.pinKeySlots
            if lower.hasPrefix("0x"), let value = UInt8(lower.dropFirst(2), radix: 16), slots.contains(value) {
                return value
            }
            if let count = Int(text), (1...slots.count).contains(count) { return slots.lowerBound + UInt8(count - 1) }
            throw ValidationError(
                "--pin-key-slot must be 0x40 to 0x53, or 1 to \(slots.count) (the vendor SDK's slot numbers), got '\(text)'"
            )
        }

        @Option(
            help: ArgumentHelp("Plain tags fetched for the authorization, comma-separated.", valueName: "tags"),
            transform: Parse.tagList)
        var authorizationTags: [Tag]?

        @Option(
            help: ArgumentHelp(
                "Secured (SRED) tags fetched for the authorization, comma-separated.", valueName: "tags"),
            transform: Parse.tagList)
        var authorizationSecuredTags: [Tag]?

        @Option(
            help: ArgumentHelp("Plain tags fetched after finalisation, comma-separated.", valueName: "tags"),
            transform: Parse.tagList)
        var finalizationTags: [Tag]?

        @Option(
            help: ArgumentHelp("Secured tags fetched after finalisation, comma-separated.", valueName: "tags"),
            transform: Parse.tagList)
        var finalizationSecuredTags: [Tag]?

        @Flag(help: "Fetch the terminal's level-2 logs (GetInfo CC, F4, F5) at the end.")
        var debugLogs = false

        @Option(
            help: ArgumentHelp(
                "The issuer's answer: exec:PROGRAM or https://HOST[:PORT]/PATH (ask a host: docs/authorization.md), approve, decline, unable, an 8A value in hex with optional issuer data (3030:91..), or prompt (a terminal only). Default: $UCUBE_AUTHORIZE, else approve.",
                valueName: "answer"))
        var authorize: String?

        @OptionGroup(title: "Authorisation host") var host: HostOptions

        @Option(
            help: ArgumentHelp(
                "Application selection: auto (EMV priority), first, an AID in hex, or prompt (a terminal only).",
                valueName: "how"))
        var select: String = "auto"

        @Option(
            help: ArgumentHelp(
                "The simulated card (with --device sim); see `ucube simulate --list-cards`.", valueName: "card"),
            completion: .list(CardCatalogue.names))
        var card: String?

        @Flag(
            help:
                "Stream the payment's events on stderr, one JSON object a line with its time: each state entered, each task, a journal failure (`journal-failed`), the end; any other line ucube writes to stderr then is a `message` event."
        )
        var events = false

        @Option(help: ArgumentHelp("A request id for the journal (default: a new UUID).", valueName: "id"))
        var requestID: String?

        @Flag(help: "Pause before each state (in `ucube shell` only): next, continue, context, tlv TAG, cancel.")
        var step = false

        @OptionGroup var receiptOptions: ReceiptOptions

        /// The words only: whether a prompt can be answered, and whether this is the shell, are the context's
        /// (`run(in:)` checks them before any link is opened).
        func validate() throws {
            try ValidationError.checking {
                _ = try request(authorizing: authorizeWord(nil))
                _ = try authorizationTask(authorizeWord(nil), prompts: .standardInput)
                _ = try selectionTask(prompts: .standardInput)
                if let card { _ = try BuiltInSimulator.scenario(named: card) }
            }
        }

        func request(authorizing authorizeWord: RememberedHook) throws -> PaymentRequest {
            let minor = try Parse.amount(amount, currency, option: "AMOUNT")
            // With a simulated card and no --readers, enable the readers that card is presented on.
            let scenarioReaders = try card.map { try BuiltInSimulator.scenario(named: $0).readers }
            var request = PaymentRequest(
                amount: minor, currency: currency, transactionType: transactionType ?? .purchase,
                cashback: try cashback.map { try Parse.amount($0, currency, option: "--cashback") },
                readers: cardWait.readers ?? scenarioReaders ?? [.icc, .nfc], cardWaitTimeout: cardWait.cardTimeout,
                preferredLanguages: lang ?? ["en"], forceOnlinePIN: forceOnlinePIN,
                forceAuthorization: forceAuthorization, pinBlockFormat: pinFormat ?? .iso0,
                // The prompt shows what an issuer would get: the person who answers it decides on those values.
                authorizationPlainTags: authorizationTags
                    ?? (authorizeWord.word == "prompt" ? PaymentTagDefaults.issuerData : nil),
                authorizationSecuredTags: authorizationSecuredTags,
                finalizationPlainTags: finalizationTags, finalizationSecuredTags: finalizationSecuredTags,
                retrieveL2Logs: debugLogs,
                readersFromTerminal: cardWait.readers == nil && scenarioReaders == nil,
                requestID: requestID ?? UUID().uuidString)
            request.hostAuthorization = HostHook.names(authorizeWord.word)
            if let pinKeySlot { request.pinKeySlot = try Self.keySlot(pinKeySlot) }
            do {
                try request.validate()
            } catch {
                throw ValidationError(error.reason)
            }
            return request
        }

        /// --authorize, else the context's (the shell's `set authorize`, the terminal's own hook, $UCUBE_AUTHORIZE),
        /// else approve; `nil`: before any context (parse-time checks), $UCUBE_AUTHORIZE.
        func authorizeWord(_ context: CommandContext?) -> RememberedHook {
            if let authorize { return RememberedHook(word: authorize, ca: nil) }
            if let context { return context.defaultAuthorization(for: context.deviceAddress) }
            return RememberedHook(word: PaymentTasks.defaultAuthorization, ca: nil)
        }

        func authorizationTask(_ authorizing: RememberedHook, prompts: PromptSource?) throws -> any AuthorizationTask {
            var files = host.files
            // A terminal's own hook comes with its own CA, unless --authorize-ca names one.
            if host.authorizeCA == nil, let ca = authorizing.ca { files.ca = ca }
            return try PaymentTasks.authorization(
                authorizing.word, prompts: prompts, timeout: try host.timeout(), files: files)
        }

        func selectionTask(prompts: PromptSource?) throws -> any ApplicationSelectionTask {
            try PaymentTasks.selection(select, prompts: prompts)
        }

        /// What `validate` cannot know at parse time: whether this line runs in the shell (`--step`) and whether a
        /// prompt can be answered. A usage error, as a parse error is.
        private func tasks(_ context: CommandContext) throws -> (any ApplicationSelectionTask, any AuthorizationTask) {
            let usage = "`ucube pay --help` shows the usage"
            if step && context.shell == nil {
                throw CLIFailure(
                    ExitCodes.usage, "--step works only inside `ucube shell` (or a script it runs)", hint: usage)
            }
            do {
                return (
                    try selectionTask(prompts: context.prompts),
                    try authorizationTask(authorizeWord(context), prompts: context.prompts)
                )
            } catch let error as ValidationError {
                throw CLIFailure(ExitCodes.usage, error.message, hint: usage)
            } catch let error as UsageError {
                throw CLIFailure(ExitCodes.usage, error.message, hint: usage)
            }
        }

        func run(in context: CommandContext) async throws {
            let (selection, authorization) = try tasks(context)
            // From here to the process's last word (its error, if any), stderr is JSON lines.
            if events { StandardError.setEventLines(true) }
            // A Ctrl-C, SIGTERM, SIGHUP or `ucube cancel` while the link opens is not lost: the payment it was meant for
            // ends CANCELLED before its first command.
            let early = StopRequest()
            let earlyInterrupts = context.shell == nil ? Interrupts.onInterrupt { early.request() } : nil
            defer { earlyInterrupts?.cancel() }
            let request = try request(authorizing: authorizeWord(context))
            let scenario = try card.map(BuiltInSimulator.scenario(named:))
            // No payment starts without its journal, nor without the place its receipt was asked to go.
            try Environment.requireStateDirectory()
            try receiptOptions.checkFile()
            let journal = PaymentJournal(path: Environment.journalPath)
            do throws(PrivateFileError) {
                try PrivateFile.checkNotALink(journal.path)
            } catch {
                throw CLIFailure.unsafePath(error)
            }
            // Reversals a host is owed (an earlier payment's process died, or a host did not acknowledge) go first.
            await Reversals.sendOwed(journalPath: journal.path)
            // One payment per request id: an id the journal has takes no payment. A generated id (a new UUID) cannot
            // be there: only a given one is claimed.
            switch requestID == nil ? .claimed : try await RequestClaim.claim(request.requestID, journal: journal) {
            case .claimed:
                break
            case .finished(let entry):
                try Self.printRecorded(entry, json: context.json)
                let status = PaymentStatus(rawValue: entry.resolution?.status ?? entry.status) ?? .error
                let exit = ExitCodes.code(for: status)
                if exit.code != 0 {
                    throw CLIFailure(exit, "payment \(entry.requestID) already ended \(status): no new payment taken")
                }
                return
            case .running(let pid):
                throw CLIFailure(
                    ExitCodes.busy, "a payment with request id \(request.requestID) is running (pid \(pid))",
                    code: .requestIdRunning,
                    hint: "one payment per request id: `ucube history show \(request.requestID)` once it ends")
            case .unresolved(let entry):
                throw CLIFailure(
                    ExitCodes.busy,
                    "a payment with request id \(entry.requestID) was started at \(entry.startedAt ?? "?") and its outcome is unknown: no new payment taken",
                    code: .requestIdUnresolved,
                    hint:
                        "find out its outcome (the acquirer, the terminal's receipt), then `ucube history resolve \(entry.requestID) --status APPROVED|DECLINED|CANCELLED`; a new payment needs a new request id"
                )
            }
            let stepping = context.shell.flatMap { step ? PaymentStepping(session: $0, json: context.json) : nil }
            var stepper: PaymentStepper? = nil
            if let stepping { stepper = { step in await stepping.pause(step) } }
            let payment = try await withConnection(context, card: scenario, prepare: .payment) { connection in
                await PaymentRunner.run(
                    on: connection, shell: context.shell, request: request, selection: selection,
                    authorization: authorization,
                    journal: journal, stepping: stepping, stepper: stepper, events: events, quiet: events || step,
                    early: early)
            }
            // A host's approval the payment did not keep is reversed before anything is printed.
            let host = await (authorization as? HostAuthorization)?.settle(payment)
            let receipt = Receipt(
                JournalEntry(payment, startedAt: payment.startedAt, finishedAt: payment.finishedAt ?? ""))
            // Once the terminal has decided, the outcome is never lost to a broken output: where the journal, stdout or
            // the receipt file cannot take it, stderr says it (spec: README, "Exit codes").
            let fate = PaymentFate.line(payment)
            if let failure = payment.journalFailure {
                StandardError.write("ucube: \(fate); the journal does not hold it (\(failure)): keep this line")
            }
            try PaymentContextJSON(context: payment, receipt: receiptOptions.receipt ? receipt : nil, host: host)
                .print(json: context.json)
            if let error = Console.stdoutError, !Console.outcomeWritten {
                StandardError.write(
                    "ucube: \(fate); its result could not be written to stdout (\(ErrorNumber.text(error)))")
            }
            do {
                try receiptOptions.write(receipt, json: context.json)
            } catch {
                StandardError.write("ucube: \(fate); its receipt could not be written")
                throw error
            }
            if let failure = payment.journalFailure {
                throw CLIFailure(ExitCodes.journalFailed, "\(fate); the journal could not record it: \(failure)")
            }
            let status = payment.status ?? .error
            let exit = ExitCodes.code(for: status)
            if exit.code != 0 {
                throw CLIFailure(exit, "payment \(status)\(payment.statusReason.map { ": " + $0 } ?? "")")
            }
        }

        /// A request id that already paid: what the journal recorded of it, as `history show` prints it.
        static func printRecorded(_ entry: JournalEntry, json: Bool) throws {
            let amount = entry.amount.flatMap { amount in
                entry.currency.flatMap(Currency.lookup).map { $0.format(minorUnits: amount) }
            }
            let status = entry.resolution.map { "\($0.status) (resolved)" } ?? entry.status
            let fields: [(String, String?)] = [
                ("status", status + (entry.reason.map { " (\($0))" } ?? "")), ("amount", amount),
                ("request id", entry.requestID), ("finished", entry.finishedAt ?? entry.resolution?.time),
                ("card", entry.maskedPAN), ("host", entry.hostDecision),
                ("reversal", entry.reversal.map { $0.acknowledged ? "acknowledged" : "owed" }),
                ("note", "already journalled: no new payment was taken"),
            ]
            let lines = fields.compactMap { label, value in value.flatMap { $0.isEmpty ? nil : "\(label): \($0)" } }
            try ValueReport(value: entry, lines: lines).print(json: json)
        }
    }
}

/// A served payment's order, parsed as this command line (`ServeCommandLine.parsePayment`).
extension UCube.Pay: PaymentWords {
    /// `--select`'s task for a served payment: nobody at this process's terminal answers a prompt.
    func selectionTask() throws -> any ApplicationSelectionTask { try selectionTask(prompts: nil) }
}
