import ArgumentParser
import Foundation
import Logging
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator
import UCubeSupport

extension UCube {
    /// `ucube pay AMOUNT`: one EMV payment, contact, contactless or magstripe, as the SDKs run it (spec §8).
    struct Pay: AsyncParsableCommand {
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
                """)

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
                "The issuer's answer: approve, decline, unable, an 8A value in hex with optional issuer data (3030:91..), or prompt (a terminal only).",
                valueName: "answer"))
        var authorize: String = "approve"

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

        func validate() throws {
            if step && ShellSession.current == nil {
                throw ValidationError("--step works only inside `ucube shell` (or a script it runs)")
            }
            _ = try request()
            _ = try authorizationTask()
            _ = try selectionTask()
            if let card { _ = try BuiltInSimulator.scenario(named: card) }
        }

        func request() throws -> PaymentRequest {
            let minor = try Parse.amount(amount, currency, option: "AMOUNT")
            // With a simulated card and no --readers, enable the readers that card is presented on.
            let scenarioReaders = try card.map { try BuiltInSimulator.scenario(named: $0).readers }
            let request = PaymentRequest(
                amount: minor, currency: currency, transactionType: transactionType ?? .purchase,
                cashback: try cashback.map { try Parse.amount($0, currency, option: "--cashback") },
                readers: cardWait.readers ?? scenarioReaders ?? [.icc, .nfc], cardWaitTimeout: cardWait.cardTimeout,
                preferredLanguages: lang ?? ["en"], forceOnlinePIN: forceOnlinePIN,
                forceAuthorization: forceAuthorization, pinBlockFormat: pinFormat ?? .iso0,
                // The prompt shows what an issuer would get: the person who answers it decides on those values.
                authorizationPlainTags: authorizationTags
                    ?? (authorize == "prompt" ? PaymentTagDefaults.issuerData : nil),
                authorizationSecuredTags: authorizationSecuredTags,
                finalizationPlainTags: finalizationTags, finalizationSecuredTags: finalizationSecuredTags,
                retrieveL2Logs: debugLogs,
                readersFromTerminal: cardWait.readers == nil && scenarioReaders == nil,
                requestID: requestID ?? UUID().uuidString)
            do {
                try request.validate()
            } catch {
                throw ValidationError(error.reason)
            }
            return request
        }

        func authorizationTask() throws -> any AuthorizationTask { try PaymentTasks.authorization(authorize) }

        func selectionTask() throws -> any ApplicationSelectionTask { try PaymentTasks.selection(select) }

        func run() async throws {
            // From here to the process's last word (its error, if any), stderr is JSON lines.
            if events { StandardError.setEventLines(true) }
            // A Ctrl-C, SIGTERM, SIGHUP or `ucube cancel` while the link opens is not lost: the payment it was meant for
            // ends CANCELLED before its first command.
            let early = StopRequest()
            let earlyInterrupts = ShellSession.current == nil ? Interrupts.onInterrupt { early.request() } : nil
            defer { earlyInterrupts?.cancel() }
            let request = try request()
            let scenario = try card.map(BuiltInSimulator.scenario(named:))
            // No payment starts without its journal, nor without the place its receipt was asked to go.
            try Environment.requireStateDirectory()
            try receiptOptions.checkFile()
            let journal = PaymentJournal(path: Environment.stateDirectory + "/journal.jsonl")
            do throws(PrivateFileError) {
                try PrivateFile.checkNotALink(journal.path)
            } catch {
                throw CLIFailure.unsafePath(error)
            }
            let session = ShellSession.current
            let stepping = step ? PaymentStepping(session: session!, json: globals.json) : nil
            var stepper: PaymentStepper? = nil
            if let stepping { stepper = { step in await stepping.pause(step) } }
            let context = try await withConnection(globals, card: scenario, prepare: .payment) { connection in
                let selection = try selectionTask()
                let authorization = try authorizationTask()
                return await PaymentRunner.run(
                    on: connection, request: request, selection: selection, authorization: authorization,
                    journal: journal, stepping: stepping, stepper: stepper, events: events, quiet: events || step,
                    early: early)
            }
            let receipt = Receipt(
                JournalEntry(context, startedAt: context.startedAt, finishedAt: context.finishedAt ?? ""))
            // Once the terminal has decided, the outcome is never lost to a broken output: where the journal, stdout or
            // the receipt file cannot take it, stderr says it (spec: README, "Exit codes").
            let fate = PaymentFate.line(context)
            if let failure = context.journalFailure {
                StandardError.write("ucube: \(fate); the journal does not hold it (\(failure)): keep this line")
            }
            if globals.json {
                try JSONOutput.print(
                    PaymentContextJSON(context: context, receipt: receiptOptions.receipt ? receipt : nil))
            } else {
                for line in PaymentSummary.lines(context) { print(line) }
                if receiptOptions.receipt {
                    print("")
                    for line in receipt.lines() { print(line) }
                }
            }
            if let error = Console.stdoutError {
                StandardError.write(
                    "ucube: \(fate); its result could not be written to stdout (\(ErrorNumber.text(error)))")
            }
            do {
                try receiptOptions.write(receipt, json: globals.json)
            } catch {
                StandardError.write("ucube: \(fate); its receipt could not be written")
                throw error
            }
            if let failure = context.journalFailure {
                throw CLIFailure(ExitCodes.journalFailed, "\(fate); the journal could not record it: \(failure)")
            }
            let status = context.status ?? .error
            let exit = ExitCodes.code(for: status)
            if exit.code != 0 {
                throw CLIFailure(exit, "payment \(status)\(context.statusReason.map { ": " + $0 } ?? "")")
            }
        }
    }
}

/// The words `pay --authorize` and `--select` take (and a suite case's `authorize` and `select`), as tasks.
enum PaymentTasks {
    /// approve, decline, unable, prompt (a terminal only), or an 8A value in hex with optional issuer data.
    static func authorization(_ text: String, field: String = "--authorize") throws -> any AuthorizationTask {
        switch text {
        case "approve": return FixedAuthorization(.approve)
        case "decline": return FixedAuthorization(.decline)
        case "unable": return FixedAuthorization(.unable)
        case "prompt":
            guard Terminal.isInteractive else {
                throw ValidationError(
                    "\(field) prompt needs a terminal on stdin or `ucube shell`; use approve, decline, unable or an 8A value"
                )
            }
            return PromptAuthorization()
        default:
            do {
                return FixedAuthorization(.raw(try AuthorizationResponse(parsing: text)))
            } catch {
                throw ValidationError(
                    "\(field) must be approve, decline, unable, prompt, or an 8A value in hex with optional issuer data (3030:91…); '\(text)': \(error.reason)"
                )
            }
        }
    }

    /// auto (EMV priority), first, prompt (a terminal only), or an AID in hex.
    static func selection(_ text: String, field: String = "--select") throws -> any ApplicationSelectionTask {
        switch text {
        case "auto": return EMVPrioritySelection()
        case "first": return FirstApplicationSelection()
        case "prompt":
            guard Terminal.isInteractive else {
                throw ValidationError(
                    "\(field) prompt needs a terminal on stdin or `ucube shell`; use auto, first or an AID")
            }
            return PromptSelection()
        default:
            let aid = try Parse.hex(text, argument: field)
            guard (5...16).contains(aid.count) else { throw ValidationError("\(field): an AID is 5 to 16 bytes") }
            return FixedAIDSelection(aid: aid)
        }
    }
}

/// Runs one payment on an open connection as `pay` does, for `pay` and `test`: the engine, `ucube cancel` through the
/// control socket, Ctrl-C (the shell's handler inside `ucube shell`, SIGINT otherwise) through the cancel rule, the
/// progress line, `--events`, stepping.
enum PaymentRunner {
    static func run(
        on connection: Connection, request: PaymentRequest, selection: any ApplicationSelectionTask,
        authorization: any AuthorizationTask, journal: PaymentJournal, stepping: PaymentStepping? = nil,
        stepper: PaymentStepper? = nil, events: Bool = false, quiet: Bool = false, cancelAfter: Duration? = nil,
        onStop: (@Sendable () -> Void)? = nil, early: StopRequest? = nil
    ) async -> PaymentContext {
        let session = ShellSession.current
        let engine = PaymentEngine(
            client: connection.client, selection: selection, authorization: authorization,
            journal: journal, deviceName: connection.address.description, simulated: connection.address.isSimulated,
            stepper: stepper,
            logger: Logger(layer: .payment))
        stepping?.attach(engine)
        // `onStop`: the caller (a suite run) stops too, whatever the payment's cancel rule answers.
        ControlSocket.route {
            onStop?()
            return CancelAnswer(await engine.cancel())
        }
        let cancelOnInterrupt: @Sendable () -> Void = {
            onStop?()
            Task {
                let answer = CancelAnswer(await engine.cancel())
                StandardError.write("ucube: \(answer.message)")
            }
        }
        // A scripted cancel (a suite case's cancelAfter) asks the engine as Ctrl-C would, once, after the delay.
        let scheduledCancel = cancelAfter.map { delay in
            Task {
                try? await Task.sleep(for: delay)
                if !Task.isCancelled { _ = await engine.cancel() }
            }
        }
        let progress = PaymentProgress.make(request, quiet: quiet)
        // What the link knows of the terminal decides the starting steps (spec §8.6); asked here, right before the
        // payment, so that a shell's earlier commands count.
        let link = await connection.linkStart()
        let runPayment: @Sendable () async -> PaymentContext = {
            let context = await engine.run(request, link: link) { event in
                progress?.show(event)
                if case .journalFailed(let reason) = event {
                    StandardError.write(
                        "ucube: the journal cannot be written (\(reason)): the payment is cancelled if it still can be, completed otherwise; its outcome follows"
                    )
                }
                if events { StandardError.writeEvent(event) }
            }
            progress?.finish()
            return context
        }
        let context: PaymentContext
        if let session {
            // In the shell, Ctrl-C reaches the shell's own handler; it asks the engine, as below.
            session.setStepping(stepping != nil)
            context = await session.onInterrupt(cancelOnInterrupt, runPayment)
            session.setStepping(false)
        } else {
            let interrupts = Interrupts.onInterrupt(cancelOnInterrupt)
            // An interrupt before this handler took over was noted: the engine cancels before its first command.
            if early?.isRequested == true { _ = await engine.cancel() }
            context = await runPayment()
            interrupts.cancel()
        }
        scheduledCancel?.cancel()
        await connection.remember(context.knownTerminal)
        // A process that ends with this payment keeps answering from it until it exits: a cancel then learns that the
        // payment is already cancelled or over, rather than being taken as a Ctrl-C that would kill the process before
        // it prints the outcome. The shell goes on to other commands, which `ucube cancel` interrupts as Ctrl-C would.
        if session != nil { ControlSocket.route(nil) }
        return context
    }
}

/// The human summary of a payment.
enum PaymentSummary {
    static func lines(_ c: PaymentContext) -> [String] {
        var out: [String] = []
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty { out.append("\(label): \(value)") }
        }
        add("status", (c.status?.name ?? "unknown") + (c.statusReason.map { " (\($0))" } ?? ""))
        add(
            "amount",
            c.amount.map { c.request.currency.format(minorUnits: $0) + " (\(c.request.transactionType.name))" })
        add("device", c.device.map { $0 + (c.simulated ? " (simulated: not a real payment)" : "") })
        add("entry mode", c.entryMode?.rawValue)
        if let aid = c.selectedAID { add("application", Hex.encode(aid) + (c.applicationLabel.map { " " + $0 } ?? "")) }
        add(
            "card",
            c.maskedPAN.map { pan in
                pan
                    + (c.expiryMonth.flatMap { m in c.expiryYear.map { " exp \(twoDigits(m))/\(twoDigits($0 % 100))" } }
                        ?? "")
            })
        out.append("signature required: \(c.signatureRequired ? "yes" : "no")")
        add(
            "cryptogram",
            c.cryptogramType.map { $0.name.uppercased() + (c.cryptogram.map { " " + Hex.encode($0) } ?? "") })
        add("TVR", c.tvr.map { Hex.encode($0) })
        add("TSI", c.tsi.map { Hex.encode($0) })
        add("authorization", c.authorization.map { "8A " + String(decoding: $0.arc, as: UTF8.self) })
        add(
            "NFC outcome",
            (c.nfcFinalOutcome ?? c.nfcOutcome).map {
                TagValueFormatter.render(TLV(Tag(0xDF72), $0.bytes), context: .payment)
            })
        add("SRED KSN", c.sredKSN.map { Hex.encode($0) })
        add("PIN KSN", c.pinKSN.map { Hex.encode($0) })
        add("request id", c.request.requestID)
        out.append("round trips: \(c.roundTrips)")
        if let timings = c.timings, !timings.phases.isEmpty {
            out.append(
                "timings: "
                    + timings.phases.map { "\($0.phase.label) \(twoDecimals($0.seconds)) s" }.joined(separator: ", "))
        }
        for e in c.errors { out.append("error\(e.state.map { " at \($0)" } ?? ""): \(e.reason)") }
        return out
    }

    /// `value` as `%02d` writes it, without `String(format:)`.
    static func twoDigits(_ value: Int) -> String { (0..<10).contains(value) ? "0\(value)" : "\(value)" }

    /// `seconds` with two decimals, as `%.2f` writes it (half to even), without `String(format:)`: its first use
    /// sets up Foundation's formatting machinery, on every payment (issue 27).
    static func twoDecimals(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        let product = abs(seconds) * 100
        var rounded = product.rounded(.toNearestOrEven)
        // A tie after the multiplication may be none in the exact product: its residual (exact, by a fused
        // multiply-add) says which way printf, which rounds the exact value, goes.
        if product - product.rounded(.down) == 0.5 {
            let residual = (-product).addingProduct(abs(seconds), 100)
            if residual > 0 { rounded = product.rounded(.up) } else if residual < 0 { rounded = product.rounded(.down) }
        }
        let hundredths = Int(rounded)
        let fraction = hundredths % 100
        return (seconds < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "")
            + "\(fraction)"
    }
}

/// Whether stdin is a terminal a person can answer prompts on.
enum Terminal {
    /// A person (or, in `ucube shell`, the script's next lines) can answer prompts.
    static var isInteractive: Bool { ShellSession.current != nil || isatty(0) == 1 }

    /// Reads one line: at the shell's prompt inside `ucube shell` (`nil` on Ctrl-C or the end of the input), else
    /// from stdin on a thread of its own (never on the cooperative pool).
    static func readLine(prompt: String) async -> String? {
        if let session = ShellSession.current {
            guard case .line(let line) = await session.readLine(prompt: prompt) else { return nil }
            return line
        }
        return await withCheckedContinuation { continuation in
            Thread {
                RawOutput.stderr(prompt)
                // A terminal's line discipline bounds a typed line; stdin may still be something else.
                continuation.resume(returning: try? BoundedFile.readLine(limit: PlainLineSource.maximumLineLength))
            }.start()
        }
    }
}

/// `--authorize prompt`: shows what the issuer would get and reads approve / decline / unable / an 8A value.
struct PromptAuthorization: AuthorizationTask {
    func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws -> AuthorizationResponse {
        StandardError.write(
            "authorization: \(request.entryMode.rawValue), \(context.request.currency.format(minorUnits: request.amount)), cryptogram \(request.cryptogram?.name ?? "none")\(request.onlinePIN ? ", online PIN" : "")"
        )
        // Each value with its tag, its name and what it means ("9F27 cryptogramInformationData: 80 (ARQC)"), the
        // explained ones (TVR, CVM results, IAD …) bit by bit below them.
        let tags = context.authorizationPlainTags.map { TLV($0.tag, $0.value) }
        for line in TagValueFormatter.describe(tags, context: .payment, indent: 1, explain: true) {
            StandardError.write(line)
        }
        while true {
            guard let line = await Terminal.readLine(prompt: "approve / decline / unable / 8A hex[:issuer data]? ")
            else {
                throw TaskCancelled()
            }
            switch line.trimmingCharacters(in: .whitespaces) {
            case "approve", "a": return .approved
            case "decline", "d": return .declined
            case "unable", "u": return .unableToGoOnline
            case "cancel": throw TaskCancelled()
            case let text:
                if let response = try? AuthorizationResponse(parsing: text) { return response }
                StandardError.write("not understood: \(text)")
            }
        }
    }
}

/// `--select prompt`: lists the candidates and reads a number.
struct PromptSelection: ApplicationSelectionTask {
    func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws -> CandidateApplication? {
        for (i, c) in candidates.enumerated() {
            StandardError.write(
                "  \(i + 1). \(Hex.encode(c.aid)) \(c.label) (priority \(c.priority))\(c.blocked ? " blocked" : "")")
        }
        while true {
            guard let line = await Terminal.readLine(prompt: "application 1…\(candidates.count)? ") else { return nil }
            if let n = Int(line.trimmingCharacters(in: .whitespaces)), candidates.indices.contains(n - 1) {
                return candidates[n - 1]
            }
            if line.trimmingCharacters(in: .whitespaces) == "cancel" { return nil }
        }
    }
}

/// `--readers` and `--card-timeout`: which readers wait for a card, and for how long (`pay`, `read-card`).
struct CardWaitOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Readers to enable, comma-separated: icc, nfc, msr (pay: default the terminal's own, from GetInfo: icc,nfc on a uCube Touch, msr,icc on a uCube, and nfc once its NFC module is ready; read-card: default icc,nfc).",
            valueName: "readers"),
        transform: { try Parse.names($0) as [CardReader] })
    var readers: [CardReader]?

    @Option(help: ArgumentHelp("Seconds to wait for a card, 1…255.", valueName: "seconds"))
    var cardTimeout: Int = PaymentRequest.defaultCardWaitTimeout
}
