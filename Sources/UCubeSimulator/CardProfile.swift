import UCubeProtocol

/// One simulated payment card: what the terminal reads from it and how it answers the EMV steps.
///
/// A value type so scenarios can be listed, compared and tweaked (`var card = CardProfile.visaContact; card.pan = …`).
/// The default card is a Visa credit card on the contact interface that asks to go online (ARQC) at the first
/// GENERATE AC and approves at the second when the issuer says "00".
package struct CardProfile: Sendable, Hashable {
    /// How a card can meet the terminal.
    package enum Interface: String, Sendable, Hashable, CaseIterable {
        /// Inserted in the ICC reader (reader id 0x11, spec §7.3).
        case contact
        /// Tapped on the NFC reader (reader id 0x21, spec §7.3).
        case contactless
        /// Swiped through the magnetic-stripe reader of the original uCube (reader id 0x41, spec §7.3).
        case magstripe

        /// The reader id of spec §7.3.
        package var readerID: UInt8 {
            switch self {
            case .contact: SimulatorChoices.iccReader
            case .contactless: SimulatorChoices.nfcReader
            case .magstripe: SimulatorChoices.msrReader
            }
        }
    }

    /// How the card verifies the cardholder on the contact interface (EMV CVM list outcome, shown in 9F34).
    package enum CardholderVerification: String, Sendable, Hashable, CaseIterable {
        /// No CVM required (9F34 1F 03 02).
        case noCVMRequired
        /// Signature on the receipt (9F34 1E 03 00).
        case signature
        /// Offline plaintext PIN, verified by the card inside TransactionProcess (9F34 01 03 02).
        case offlinePIN
        /// Online enciphered PIN, typed inside TransactionProcess (9F34 42 03 00, TVR "online PIN entered"); the PIN
        /// block is DF3E/DF3F of the transaction and SimplifiedOnlinePIN answers it under the same PIN KSN.
        case onlinePIN

        /// CVM results (9F34) after a successful cardholder verification.
        var results: [UInt8] {
            switch self {
            case .noCVMRequired: SimulatorChoices.cvmResultsNoCVM
            case .signature: SimulatorChoices.cvmResultsSignature
            case .offlinePIN: SimulatorChoices.cvmResultsOfflinePIN
            case .onlinePIN: SimulatorChoices.cvmResultsOnlinePIN
            }
        }
    }

    /// The card's answer to the first GENERATE AC (spec §7.6 values of 9F27).
    package enum Cryptogram: UInt8, Sendable, Hashable, CaseIterable {
        /// Go online (ARQC).
        case arqc = 0x80
        /// Approved offline (TC).
        case tc = 0x40
        /// Declined offline (AAC).
        case aac = 0x00
    }

    /// One EMV application on the card (a candidate-list entry, spec §5.2 0x5510).
    package struct Application: Sendable, Hashable {
        package var aid: [UInt8]
        /// Application label (tag 50), at most 16 ASCII characters.
        package var label: String
        /// Application priority indicator (tag 87), low nibble used.
        package var priority: UInt8
        /// Application version number (tag 9F08).
        package var version: [UInt8]

        package init(aid: [UInt8], label: String, priority: UInt8 = 0x01, version: [UInt8] = [0x00, 0x96]) {
            self.aid = aid
            self.label = label
            self.priority = priority
            self.version = version
        }
    }

    /// A short name for scenarios and logs.
    package var name: String
    /// Interfaces the card supports.
    package var interfaces: Set<Interface>
    /// How the cardholder presents the card when every interface it supports is enabled.
    package var preferredInterface: Interface
    /// The card's applications, in the order the candidate list reports them.
    package var applications: [Application]
    /// Primary account number, 12 to 19 digits.
    package var pan: String
    /// PAN sequence number (5F34): two BCD digits, 0x01 for "01".
    package var panSequenceNumber: UInt8
    /// Expiry "YYMM" (the day is the last day of that month in 5F24).
    package var expiry: String
    /// Effective date "YYMM" (5F25).
    package var effectiveDate: String
    /// Magnetic-stripe service code, three digits.
    package var serviceCode: String
    /// Cardholder name (5F20), "SURNAME/FIRST NAME".
    package var cardholderName: String
    /// Issuer country, ISO 3166 numeric (5F28).
    package var issuerCountry: UInt16
    /// The ATR the ICC reader reports; `nil` → a seeded ATR (`3B 68 00 00` + 8 seeded historical bytes).
    package var atr: [UInt8]?
    /// Application interchange profile (82).
    package var aip: [UInt8]
    /// Issuer application data (9F10).
    package var issuerApplicationData: [UInt8]
    /// The first GENERATE AC decision (TransactionProcess 9F27).
    package var firstCryptogram: Cryptogram
    /// The second GENERATE AC (TransactionFinalisation) answers AAC, declined, whatever the issuer answered (a card
    /// whose own risk management refuses the online approval).
    package var declinesSecondGenerateAC: Bool
    /// DF72 outcome of a contactless read (spec §7.5): `30 36` receipt + approved offline.
    package var contactlessOutcome: [UInt8]
    /// Application transaction counter (9F36) before the first transaction of a connection.
    package var initialATC: UInt16
    /// Cardholder verification on the contact interface (done inside TransactionProcess).
    package var cardholderVerification: CardholderVerification
    /// TransactionProcess answers −301 EMV_NOT_ACCEPTED (card refused, spec §5.2 0x5512) instead of a cryptogram.
    package var refusesTransaction: Bool
    /// MSR action (DF60, spec §7.4) the terminal decides for a swipe of this card: 0x00 none, 0x01 online PIN,
    /// 0x02 chip required, 0x04 decline.
    package var magstripeAction: UInt8
    /// Data objects the card adds or overrides (tag → value), answered before the transaction's own values while the
    /// card is at a reader: a suite's card image can give any tag any value (a wrong 9F27, another DF70).
    package var tagOverrides: [UInt32: [UInt8]] = [:]
    /// Data objects the terminal never answers while this card is at a reader (a 9F27 left out).
    package var omittedTags: Set<UInt32> = []
    /// Commands the terminal answers with a status instead of their usual answer while this card is scripted (the
    /// card image's "answers": NFCStartTransaction −0x1020, TransactionInit −32 …), without data.
    package var commandStatuses: [CommandID: Status] = [:]

    package init(
        name: String,
        interfaces: Set<Interface>,
        preferredInterface: Interface,
        applications: [Application],
        pan: String,
        panSequenceNumber: UInt8 = 0x01,
        expiry: String,
        effectiveDate: String = "2201",
        serviceCode: String = "201",
        cardholderName: String,
        issuerCountry: UInt16 = 0x0250,
        atr: [UInt8]? = nil,
        aip: [UInt8] = [0x38, 0x00],
        issuerApplicationData: [UInt8] = [0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00],
        firstCryptogram: Cryptogram = .arqc,
        declinesSecondGenerateAC: Bool = false,
        contactlessOutcome: [UInt8] = [0x30, 0x36],
        initialATC: UInt16 = 0x0010,
        cardholderVerification: CardholderVerification = .noCVMRequired,
        refusesTransaction: Bool = false,
        magstripeAction: UInt8 = 0x00
    ) {
        self.name = name
        self.interfaces = interfaces
        self.preferredInterface = preferredInterface
        self.applications = applications
        self.pan = pan
        self.panSequenceNumber = panSequenceNumber
        self.expiry = expiry
        self.effectiveDate = effectiveDate
        self.serviceCode = serviceCode
        self.cardholderName = cardholderName
        self.issuerCountry = issuerCountry
        self.atr = atr
        self.aip = aip
        self.issuerApplicationData = issuerApplicationData
        self.firstCryptogram = firstCryptogram
        self.declinesSecondGenerateAC = declinesSecondGenerateAC
        self.contactlessOutcome = contactlessOutcome
        self.initialATC = initialATC
        self.cardholderVerification = cardholderVerification
        self.refusesTransaction = refusesTransaction
        self.magstripeAction = magstripeAction
    }

    /// The default card: Visa credit, contact and contactless, inserted when the ICC reader is enabled.
    /// PAN 4761739001010010 is the Visa test-card PAN printed on public acquirer test cards.
    package static let visaContact = CardProfile(
        name: "visa",
        interfaces: [.contact, .contactless],
        preferredInterface: .contact,
        applications: [Application(aid: [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10], label: "VISA CREDIT")],
        pan: "4761739001010010",
        expiry: "2512",
        cardholderName: "CARDHOLDER/VISA"
    )

    /// The interface used when `enabled` readers are offered, or `nil` when the card cannot meet any of them.
    func interface(forReaders enabled: [UInt8]) -> Interface? {
        let usable = interfaces.filter { enabled.contains($0.readerID) }
        if usable.contains(preferredInterface) { return preferredInterface }
        return Interface.allCases.first { usable.contains($0) }
    }

    // MARK: Card data objects

    /// PAN as "cn" BCD, F-padded to whole bytes (5A).
    var panBytes: [UInt8] { Self.packDigits(pan, pad: 0xF) }

    /// 5F24 YYMMDD: the last day of the expiry month.
    var expiryDate: [UInt8] {
        let digits = Array(expiry.utf8).map { $0 &- UInt8(ascii: "0") }
        let year = Int(digits[0]) * 10 + Int(digits[1])
        let month = Int(digits[2]) * 10 + Int(digits[3])
        let day = Self.lastDay(month: month, year: 2000 + year)
        return Self.packDigits(expiry + (day < 10 ? "0" : "") + String(day), pad: 0xF)
    }

    /// 5F30 service code, n3 as two BCD bytes ("201" → 02 01).
    var serviceCodeBytes: [UInt8] { Self.packDigits("0" + serviceCode, pad: 0xF) }

    /// DF61 MSR BIN: the first six PAN digits, BCD (SimulatorChoices.msrBINDigits).
    var binBytes: [UInt8] { Self.packDigits(String(pan.prefix(SimulatorChoices.msrBINDigits)), pad: 0xF) }

    /// 5F25 YYMMDD: the first day of the effective month.
    var effectiveDateBytes: [UInt8] { Self.packDigits(effectiveDate + "01", pad: 0xF) }

    /// Track 2 equivalent data (57): PAN ‖ D ‖ YYMM ‖ service code ‖ discretionary data, F-padded.
    var track2: [UInt8] {
        var nibbles = Self.digits(pan)
        nibbles.append(0xD)
        nibbles += Self.digits(expiry) + Self.digits(serviceCode) + Self.digits(SimulatorChoices.track2Discretionary)
        if nibbles.count % 2 == 1 { nibbles.append(0xF) }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    /// Track 1 equivalent data (56): "B" PAN "^" name "^" YYMM service code discretionary data, ASCII.
    var track1: [UInt8] {
        Array("B\(pan)^\(cardholderName)^\(expiry)\(serviceCode)\(SimulatorChoices.track2Discretionary)".utf8)
    }

    private static func digits(_ text: String) -> [UInt8] { text.utf8.map { $0 &- UInt8(ascii: "0") } }

    private static func packDigits(_ text: String, pad: UInt8) -> [UInt8] {
        var nibbles = digits(text)
        if nibbles.count % 2 == 1 { nibbles.append(pad) }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    private static func lastDay(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// What the simulated cardholder and card do: the card to present, the keys and list-box choices to press, the PIN
/// to type. Queues are consumed in order, one entry per display or list box.
package struct SimulatorScript: Sendable, Hashable {
    /// The card the cardholder presents when the terminal waits for one; `nil` = no card (waits time out with −2).
    package var card: CardProfile?
    /// Key codes answered to displays (DisplayMessage data, spec §5.2 PROJECT CHOICE), one per display; when empty a
    /// display answers when its timeout expires, with no key.
    package var keys: [UInt8]
    /// 1-based list-box choices, one per list box (0: the cardholder aborts; negative: no choice until the list's
    /// timeout); when empty a list box answers `SimulatorChoices.defaultListChoice`.
    package var choices: [Int]
    /// The PIN typed at SimplifiedOnlinePIN.
    package var pin: String
    /// How long the cardholder takes to present the card once the terminal waits for it (scaled by `timeScale`).
    package var cardPresentationDelay: Duration
    /// Injected faults: a link drop or a card pulled when a given command arrives.
    package var faults: SimulatorFaults

    package init(
        card: CardProfile? = .visaContact,
        keys: [UInt8] = [],
        choices: [Int] = [],
        pin: String = SimulatorChoices.defaultPIN,
        cardPresentationDelay: Duration = .zero,
        faults: SimulatorFaults = SimulatorFaults()
    ) {
        self.card = card
        self.keys = keys
        self.choices = choices
        self.pin = pin
        self.cardPresentationDelay = cardPresentationDelay
        self.faults = faults
    }

    /// `UCUBE_SIM_KEYS` / `simulate --keys`: key codes in hex, comma-separated (`01,02`).
    package static func parseKeys(_ text: String) throws(CommandError) -> [UInt8] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { word throws(CommandError) -> UInt8 in
            let hex = String(word)
            let digits = hex.hasPrefix("0x") || hex.hasPrefix("0X") ? String(hex.dropFirst(2)) : hex
            guard (1...2).contains(digits.count), let key = UInt8(digits, radix: 16) else {
                throw CommandError(.invalidArgument, "a scripted key is one byte in hex (01, 0x0A), got '\(hex)'")
            }
            return key
        }
    }

    /// `UCUBE_SIM_CHOICES` / `simulate --choices`: list-box answers, comma-separated: an item number from 1, `abort`
    /// (the cardholder aborts) or `none` (no choice until the list's timeout).
    package static func parseChoices(_ text: String) throws(CommandError) -> [Int] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { word throws(CommandError) -> Int in
            let choice = String(word)
            switch choice {
            case "abort": return 0
            case "none": return -1
            default:
                guard let number = Int(choice), (1...255).contains(number) else {
                    throw CommandError(
                        .invalidArgument, "a scripted choice is an item number 1…255, abort or none, got '\(choice)'")
                }
                return number
            }
        }
    }

    /// The default card, no scripted keys, default choices, PIN 1234.
    package static let `default` = SimulatorScript()
}

/// Faults the simulated terminal injects, each when a chosen command arrives, so a driver can be tested against a link
/// drop or a card pulled at every state of a payment. Occurrences count the arrivals of that command id since the
/// script was set (`TerminalSimulator.init`, `setScript`, `resetState`), over every connection; each fault fires once.
package struct SimulatorFaults: Sendable, Hashable {
    /// The terminal drops the link when this command arrives, without answering it: `TerminalSimulator.serve` stops
    /// reading, flushes the answers already sent, and returns `.disconnected(command)`; `SimulatorServer` then closes
    /// the TCP connection.
    package var disconnectAt: CommandID?
    /// Which arrival of `disconnectAt` drops the link (1 = the first).
    package var disconnectOccurrence: Int
    /// The cardholder pulls the card out just before the terminal handles this command: the ICC reader is empty from
    /// then on, so contact payment commands answer −35 NO_CARD (SimulatorChoices.cardRemovedStatus).
    package var cardRemovedAt: CommandID?
    /// Which arrival of `cardRemovedAt` finds the card gone (1 = the first).
    package var cardRemovedOccurrence: Int
    /// The terminal drops the link when the Nth frame (of any command, counted from when the script was set, over
    /// every connection) arrives, without answering it: like `disconnectAt`, by position in the flow.
    package var disconnectAtFrame: Int?
    /// The terminal goes silent when the Nth frame arrives: that frame and every later one on the same connection are
    /// read and never answered (a hung terminal). The next connection is answered again.
    package var silentFromFrame: Int?
    /// The terminal reboots when the Nth frame arrives, without answering it: the link drops and RAM is lost (a
    /// secure session, a download in progress), as after a power cut (spec §9).
    package var rebootAtFrame: Int?
    /// The terminal refuses every image after its last Load block as if its signature did not verify (−910): the
    /// installed version stays.
    package var refuseImages = false
    /// The terminal reads every frame and answers none, on every connection, for as long as it runs (a terminal that
    /// never answers: hung firmware, the wrong device at that address).
    package var mute = false

    package init(
        disconnectAt: CommandID? = nil,
        disconnectOccurrence: Int = 1,
        cardRemovedAt: CommandID? = nil,
        cardRemovedOccurrence: Int = 1,
        disconnectAtFrame: Int? = nil,
        silentFromFrame: Int? = nil,
        rebootAtFrame: Int? = nil
    ) {
        self.disconnectAt = disconnectAt
        self.disconnectOccurrence = max(1, disconnectOccurrence)
        self.cardRemovedAt = cardRemovedAt
        self.cardRemovedOccurrence = max(1, cardRemovedOccurrence)
        self.disconnectAtFrame = disconnectAtFrame
        self.silentFromFrame = silentFromFrame
        self.rebootAtFrame = rebootAtFrame
    }

    /// What the faults do when a command frame arrives (SimulatorChoices "Faults"): each fires once and is then spent.
    package struct Arrival: Equatable, Sendable {
        /// The link drops now, without an answer: the fault log's sentence. Nothing else fires with it.
        package var drop: String?
        /// The cardholder pulls the card out just before the terminal handles the frame.
        package var cardRemoved = false
        /// The terminal reboots now, without an answer: the fault log's sentence.
        package var reboot: String?

        package init(drop: String? = nil, cardRemoved: Bool = false, reboot: String? = nil) {
            self.drop = drop
            self.cardRemoved = cardRemoved
            self.reboot = reboot
        }
    }

    /// The `frame`th frame since the script was set (from 1), the `occurrence`th arrival of `command`: what fires, in
    /// the order the terminal applies it (a drop by command, a drop by frame, then the card pulled out and a reboot).
    package mutating func arrival(of command: CommandID, occurrence: Int, frame: Int) -> Arrival {
        if disconnectAt == command && disconnectOccurrence == occurrence {
            disconnectAt = nil
            return Arrival(drop: "fault: link dropped at \(command) (arrival \(occurrence))")
        }
        if disconnectAtFrame == frame {
            disconnectAtFrame = nil
            return Arrival(drop: "fault: drop@\(frame): link dropped at \(command)")
        }
        var fired = Arrival()
        if cardRemovedAt == command && cardRemovedOccurrence == occurrence {
            cardRemovedAt = nil
            fired.cardRemoved = true
        }
        if rebootAtFrame == frame {
            rebootAtFrame = nil
            fired.reboot = "fault: reboot@\(frame): the terminal reboots at \(command)"
        }
        return fired
    }

    /// Whether the terminal goes silent at the `frame`th frame (`silentFromFrame`): the fault log's sentence, once.
    package mutating func silence(atFrame frame: Int) -> String? {
        guard silentFromFrame == frame else { return nil }
        silentFromFrame = nil
        return "fault: silent@\(frame): no answer from this frame on, for this connection"
    }

    /// Parses the fault list of `ucube simulate --fault` and `$UCUBE_SIM_FAULT`: comma-separated `drop@N` (the link
    /// drops when the Nth frame arrives), `silent@N` (the Nth frame and the rest of that connection go unanswered),
    /// `reboot@N` (the terminal reboots when the Nth frame arrives), N counting from 1; `load-drop@K` (the link
    /// drops when the Kth Load block arrives), `refuse-image` (every image is refused after its last block, as a
    /// bad signature) and `mute` (no frame is ever answered, on any connection). Throws a sentence naming the bad item.
    package init(parsing text: String) throws(SimulatorError) {
        self.init()
        for item in text.split(separator: ",").map({ String($0.filter { $0 != " " }) }) where !item.isEmpty {
            if item == "refuse-image" {
                refuseImages = true
                continue
            }
            if item == "mute" {
                mute = true
                continue
            }
            let parts = item.split(separator: "@", maxSplits: 1).map(String.init)
            guard parts.count == 2, let n = Int(parts[1]), n >= 1 else {
                throw SimulatorError(
                    .badFault,
                    "fault '\(item)': expected drop@N, silent@N, reboot@N or load-drop@K with N, K ≥ 1, refuse-image or mute"
                )
            }
            switch parts[0] {
            case "drop": disconnectAtFrame = n
            case "silent": silentFromFrame = n
            case "reboot": rebootAtFrame = n
            case "load-drop":
                disconnectAt = .load
                disconnectOccurrence = n
            default:
                throw SimulatorError(
                    .badFault,
                    "fault '\(item)': unknown kind '\(parts[0])' (drop, silent, reboot, load-drop, refuse-image, mute)")
            }
        }
    }

    /// The faults of `simulate --fault` / `$UCUBE_SIM_FAULT` (`init(parsing:)`) over a scenario's: the link and
    /// terminal faults are the command line's; a scenario's card faults (a card pulled out) stay, and its link drop
    /// at a command stays unless the line names one (`load-drop@K`). Kept beside the fields, so a new fault is
    /// carried over where it is declared.
    package mutating func apply(commandLine positional: SimulatorFaults) {
        disconnectAtFrame = positional.disconnectAtFrame
        silentFromFrame = positional.silentFromFrame
        rebootAtFrame = positional.rebootAtFrame
        refuseImages = positional.refuseImages
        mute = positional.mute
        if let command = positional.disconnectAt {
            disconnectAt = command
            disconnectOccurrence = positional.disconnectOccurrence
        }
    }

    /// No fault.
    package static let none = SimulatorFaults()
}
