import ArgumentParser
import Synchronization
import UCubeLink
import UCubePayment
import UCubeProtocol
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
            guard (1...255).contains(cardWait.cardTimeout) else {
                throw ValidationError("--card-timeout is 1…255 seconds, got \(cardWait.cardTimeout)")
            }
            if let readers = cardWait.readers, Set(readers).count != readers.count {
                throw ValidationError("--readers names a reader twice")
            }
            if let card { _ = try BuiltInSimulator.scenario(named: card) }
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

/// What `read-card` shows: never the clear PAN, never track data.
struct CardReading: Report, Sendable {
    struct Application: Encodable, Sendable {
        let aid: String
        let label: String
        let priority: Int
    }

    var entryMode: EntryMode
    var maskedPAN: String?
    /// MM/YY.
    var expiry: String?
    var aid: [UInt8]?
    var applicationLabel: String?
    var scheme: String?
    var applications: [Application] = []

    /// The safe tags asked of GetPlainTag: AID (4F, 84), label (50), PAN as the terminal truncates it (5A), expiry
    /// (5F24).
    static let plainTags: [Tag] = [Tag(0x4F), Tag(0x84), Tag(0x50), Tag(0x5A), Tag(0x5F24)]

    /// The transaction read-card starts: 0.00 EUR, INQUIRY (PROJECT CHOICE: no amount is ever at stake).
    static func startRequest(readers: [CardReader], timeout: UInt8) -> NFCStartTransaction {
        NFCStartTransaction(
            readers: readers, cardWaitTimeout: timeout, type: .inquiry, currencyCode: Currency.eur.numeric,
            exponent: UInt8(Currency.eur.exponent), amount: 0, requestedTags: [Tag(0x4F), Tag(0x84), Tag(0x50)])
    }

    /// Runs the steps inside the cancellable task; `insertedICC` is called once a chip card is in the reader.
    static func read(
        _ client: RPCClient, readers: [CardReader], timeout: UInt8, insertedICC: @Sendable () -> Void
    ) async throws -> CardReading {
        try Task.checkCancellation()
        let session = try await client.send(EnterSecureSession())
        try check(session.status, "EnterSecureSession", cancelled: "read-card")
        try Task.checkCancellation()
        let start = try await client.send(startRequest(readers: readers, timeout: timeout))
        switch start.status {
        case .success: break
        case .timeout: throw CLIFailure.noAnswer("no card was presented within \(timeout) s", option: "--card-timeout")
        default: try check(start.status, "NFCStartTransaction", cancelled: "read-card", cardProblem: true)
        }
        guard let response = start.response, let reader = response.activatedReader else {
            throw CLIFailure(ExitCodes.protocolError, "NFCStartTransaction answered no activated reader (DF70)")
        }
        var reading = CardReading(entryMode: entryMode(reader))
        reading.absorb(response.tlvs)
        if reader == .icc {
            insertedICC()
            let list = try await client.send(BuildCandidateList())
            if list.status == .emvNotSupported {
                throw CLIFailure(
                    ExitCodes.card, "the card has no application in common with the terminal (EMV_NOT_SUPPORT, -300)")
            }
            try check(list.status, "BuildCandidateList", cancelled: "read-card", cardProblem: true)
            let candidates = list.response?.candidates ?? []
            reading.applications = candidates.map {
                Application(aid: Hex.encode($0.aid), label: $0.label, priority: Int($0.priority))
            }
            // The application the terminal would try first (EMV priority: 1 is the highest, 0 none).
            if let first = candidates.filter({ !$0.blocked }).min(by: { rank($0.priority) < rank($1.priority) }) {
                reading.aid = first.aid
                reading.applicationLabel = first.label.isEmpty ? nil : first.label
            }
        }
        let tags = try await client.send(GetPlainTag(tags: plainTags))
        try check(tags.status, "GetPlainTag", cancelled: "read-card")
        reading.absorb(tags.response?.tlvs ?? [])
        reading.scheme =
            reading.aid.flatMap(CardSchemes.scheme(aid:))
            ?? reading.maskedPAN.flatMap(CardSchemes.scheme(panPrefix:))
        return reading
    }

    private static func rank(_ priority: UInt8) -> Int { priority == 0 ? 16 : Int(priority) }

    static func entryMode(_ reader: CardReader) -> EntryMode {
        switch reader {
        case .icc: .icc
        case .nfc: .nfc
        case .msr: .msr
        }
    }

    /// A non-success status as the failure the exit codes name.
    static func check(_ status: Status, _ command: String, cancelled what: String, cardProblem: Bool = false) throws {
        switch status {
        case .success: return
        case .cancelled: throw CLIFailure.cancelled(what)
        default:
            let message = RPCOutput.statusMessage(status, command: command)
            throw CLIFailure(cardProblem ? ExitCodes.card : ExitCodes.terminalStatus, message)
        }
    }

    /// Keeps the safe values: the AID, the label, the PAN masked, the expiry as MM/YY.
    mutating func absorb(_ tlvs: [TLV]) {
        for tlv in tlvs {
            let value = tlv.value
            switch tlv.tag.rawValue {
            case 0x4F, 0x84: if !value.isEmpty && aid == nil { aid = value }
            case 0x50:
                if applicationLabel == nil, !value.isEmpty, value.allSatisfy({ (0x20...0x7E).contains($0) }) {
                    applicationLabel = String(decoding: value, as: UTF8.self)
                }
            case 0x5A: if let masked = PaymentContext.maskedPAN(fromBCD: value) { maskedPAN = masked }
            case 0x5F24: if let text = Self.expiry(value) { expiry = text }
            default: break
            }
        }
    }

    /// 5F24 (YYMMDD, BCD) as MM/YY; nil unless the month is 01…12.
    static func expiry(_ value: [UInt8]) -> String? {
        guard value.count >= 2 else { return nil }
        let digits = value.prefix(2).flatMap { [$0 >> 4, $0 & 0x0F] }
        guard digits.allSatisfy({ $0 <= 9 }) else { return nil }
        let month = Int(digits[2]) * 10 + Int(digits[3])
        guard (1...12).contains(month) else { return nil }
        return "\(digits[2])\(digits[3])/\(digits[0])\(digits[1])"
    }

    var lines: [String] {
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

    private enum CodingKeys: String, CodingKey {
        case entryMode, maskedPAN, expiry, aid, applicationLabel, scheme, applications
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entryMode.rawValue, forKey: .entryMode)
        try c.encode(maskedPAN, forKey: .maskedPAN)
        try c.encode(expiry, forKey: .expiry)
        try c.encode(aid.map { Hex.encode($0) }, forKey: .aid)
        try c.encode(applicationLabel, forKey: .applicationLabel)
        try c.encode(scheme, forKey: .scheme)
        try c.encode(applications, forKey: .applications)
    }
}
