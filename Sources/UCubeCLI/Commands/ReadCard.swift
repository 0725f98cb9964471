import ArgumentParser
import Synchronization
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator

extension UCube {
    /// `ucube read-card`: waits for a card as a payment's first steps do and shows what is safe to show, without
    /// taking a payment.
    struct ReadCard: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "read-card",
            abstract:
                "Wait for a card and show its masked PAN, expiry, application, scheme and entry mode, without a payment.",
            discussion: """
                The steps: CancelAll and ExitSecureSession (the terminal READY), EnterSecureSession, then \
                NFCStartTransaction, the single entry point that waits on every enabled reader (spec §5.2 0x5530), \
                for a 0.00 EUR INQUIRY (9C 31). PROJECT CHOICE: the terminal reads a card only inside a transaction; \
                this one is never authorised, completed or finalised. On the chip reader NFCStartTransaction only \
                waits for the insertion and BuildCandidateList lists the card's applications (no GENERATE AC is ever \
                sent); on the contactless reader the card's whole read, its first cryptogram included, happens \
                inside NFCStartTransaction (spec §5.2 0x5530) and is abandoned; on the stripe reader the swipe is \
                read. What is safe comes from GetPlainTag (spec §5.2 0x5026): 4F/84 AID, 50 label, 5A the PAN as \
                the terminal truncates it (only the first 6 and last 4 digits are ever printed), 5F24 the expiry when \
                the terminal gives it in plain (the uCube lists 5F24 among its SRED tags, spec §5.2 0x5025, and then \
                it is not shown: ucube never deciphers SRED data). The scheme is named from the AID's RID \
                (ISO/IEC 7816-5), or the PAN's first digits (ISO/IEC 7812) for a swipe. Then the card is powered \
                off and its removal awaited (WaitCardRemoval, chip only), and CancelAll and ExitSecureSession leave \
                the terminal READY, whatever happened.
                Exit codes: 0 read, 4 no card within --card-timeout, 11 cancelled (Ctrl-C, `ucube cancel`), 12 a \
                card problem (no application in common, a failed read), 3 another terminal status. With --json: \
                {"aid":"A0000000031010","applicationLabel":"VISA CREDIT","applications":[{"aid":"A0000000031010",\
                "label":"VISA CREDIT","priority":1}],"entryMode":"icc","expiry":null,"maskedPAN":"476173******0010",\
                "scheme":"Visa"} (every key always there; applications is empty off the chip reader). With the \
                simulator, --card picks the card (`ucube simulate --list-cards`).
                """ + HelpExamples.section("read-card"))

        @OptionGroup var globals: GlobalOptions

        @OptionGroup var cardWait: CardWaitOptions

        @Option(
            help: ArgumentHelp(
                "The simulated card (with --device sim); see `ucube simulate --list-cards`.", valueName: "card"),
            completion: .list(CardCatalogue.names))
        var card: String?

        func validate() throws {
            try ValidationError.checking {
                guard (1...255).contains(cardWait.cardTimeout) else {
                    throw ValidationError("--card-timeout is 1…255 seconds, got \(cardWait.cardTimeout)")
                }
                if let readers = cardWait.readers, Set(readers).count != readers.count {
                    throw ValidationError("--readers names a reader twice")
                }
                if let card { _ = try BuiltInSimulator.scenario(named: card) }
            }
        }

        func run(in context: CommandContext) async throws {
            let scenario = try card.map(BuiltInSimulator.scenario(named:))
            let readers = cardWait.readers ?? scenario?.readers ?? [.icc, .nfc]
            let timeout = UInt8(cardWait.cardTimeout)
            let reading = try await withConnection(context, card: scenario, prepare: .asRecorded) { connection in
                let client = connection.client
                // READY with nothing pending, as a payment's starting steps (spec §8.1), also in the shell, whose
                // link may have a secure session open.
                try await client.resynchronise()
                let inserted = InsertedFlag()
                let result: Result<CardReading, any Error>
                let countdown = Countdown.onTerminal(json: context.json)
                countdown?.start(PaymentProgress.instruction(.presentCard, readers: readers), seconds: Int(timeout))
                defer { countdown?.finish() }
                do {
                    result = .success(
                        try await Interruptible.run("read-card", shell: context.shell) {
                            try await CardReading.read(client, readers: readers, timeout: timeout) {
                                inserted.set()
                                countdown?.finish()
                            }
                        })
                } catch let failure as CardReading.Failure {
                    result = .failure(CLIFailure(failure))
                } catch {
                    result = .failure(error)
                }
                // Whatever happened: the card powered off and taken out, nothing pending, no secure session.
                if inserted.isSet, await client.isConnected {
                    _ = try? await client.send(WaitCardRemoval())
                }
                if await client.isConnected { _ = try? await client.resynchronise() }
                return try result.get()
            }
            try reading.print(json: context.json)
        }
    }
}

/// Whether a chip card went into the reader (set inside the cancellable task, read after it).
final class InsertedFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// `read-card`'s result as text; its JSON form is `CardReading`'s own (UCubePayment).
extension CardReading: Report {
    package var lines: [String] {
        var out = ["entry mode: \(entryMode.rawValue)"]
        out.append("card: \(maskedPAN ?? "(the terminal gave no PAN in plain)")")
        out.append("expiry: \(expiry ?? "(not given in plain; an SRED tag on this terminal)")")
        if let aid { out.append("application: \(Hex.encode(aid))\(applicationLabel.map { " " + $0 } ?? "")") }
        out.append("scheme: \(scheme ?? "unknown")")
        if applications.count > 1 {
            for app in applications { out.append("  candidate: \(app.aid) \(app.label) (priority \(app.priority))") }
        }
        return out
    }
}

extension CLIFailure {
    /// A failed `read-card` as the exit codes name it: 4 no card, 11 cancelled, 12 the card's problem, 3 another
    /// terminal status.
    init(_ failure: CardReading.Failure) {
        switch failure {
        case .noCard(let timeout):
            self = .noAnswer("no card was presented within \(timeout) s", option: "--card-timeout")
        case .cancelled:
            self = .cancelled("read-card")
        case .noCommonApplication:
            self.init(
                ExitCodes.card, "the card has no application in common with the terminal (EMV_NOT_SUPPORT, -300)")
        case .noActivatedReader:
            self.init(ExitCodes.protocolError, "NFCStartTransaction answered no activated reader (DF70)")
        case .status(let status, let command, let cardProblem):
            self.init(
                cardProblem ? ExitCodes.card : ExitCodes.terminalStatus,
                status.failureMessage(command: command))
        }
    }
}
