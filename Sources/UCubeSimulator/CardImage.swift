import UCubeProtocol

/// A payment card described in a test suite (docs/suites.md "Card images"): its interfaces, PAN, applications, how
/// it verifies the cardholder, its first cryptogram, its contactless outcome, extra or overridden tags, and how the
/// terminal answers each command while it is presented. Decoding validates every field and throws a
/// `DecodingError.dataCorrupted` whose coding path names the field, so a suite's error says where it is
/// (`cards.my-card.applications[0].aid: …`). `ucube test` runs cases against it; `ucube simulate --suite` serves it.
package struct CardImage: Sendable, Hashable, Decodable {
    /// The card the simulator presents.
    package var profile: CardProfile
    /// A link drop or a card pulled when a given command arrives.
    package var faults: SimulatorFaults
    /// How long the cardholder takes to present the card once the terminal waits for one.
    package var presentationDelay: Duration

    /// The readers a payment enables for this card when a case names none: every reader of its interfaces, in the
    /// order ICC, NFC, MSR (spec §7.3).
    package var readers: [CardReader] {
        CardProfile.Interface.allCases.filter(profile.interfaces.contains).compactMap {
            CardReader(rawValue: $0.readerID)
        }
    }

    /// The cardholder script: this card, its faults and delay, with the PIN and list-box choices of a case.
    package func script(pin: String? = nil, choices: [Int] = []) -> SimulatorScript {
        SimulatorScript(
            card: profile, choices: choices, pin: pin ?? SimulatorChoices.defaultPIN,
            cardPresentationDelay: presentationDelay, faults: faults)
    }

    /// The card as a scenario the CLI's simulator takes (`expectedStatus` is empty: the suite's case says it).
    package func scenario(pin: String? = nil, choices: [Int] = []) -> CardScenario {
        CardScenario(
            name: profile.name, summary: "card image \(profile.name) from a suite",
            script: script(pin: pin, choices: choices),
            expectedStatus: "", readers: readers)
    }

    package init(profile: CardProfile, faults: SimulatorFaults = .none, presentationDelay: Duration = .zero) {
        self.profile = profile
        self.faults = faults
        self.presentationDelay = presentationDelay
    }

    // MARK: Decoding

    enum CodingKeys: String, CodingKey, CaseIterable {
        case interfaces, preferredInterface, pan, panSequenceNumber, expiry, effectiveDate, serviceCode
        case cardholderName, issuerCountry, atr, aip, issuerApplicationData, applications, cvm, cryptogram
        case contactlessOutcome, magstripeAction, refusesTransaction, initialATC, tags, omitTags, answers, faults
        case presentationDelay
    }

    /// The `cvm` words and the card behaviour each names.
    package static let cvmWords: [(word: String, cvm: CardProfile.CardholderVerification)] = [
        ("no-cvm", .noCVMRequired), ("signature", .signature), ("offline-pin", .offlinePIN), ("online-pin", .onlinePIN),
    ]

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = decoder.codingPath.last?.stringValue ?? "card"

        let interfaceWords = try c.decode([String].self, forKey: .interfaces)
        var interfaces = Set<CardProfile.Interface>()
        for word in interfaceWords {
            guard let interface = CardProfile.Interface(rawValue: word) else {
                throw c.invalid(.interfaces, "'\(word)' is not an interface: contact, contactless or magstripe")
            }
            interfaces.insert(interface)
        }
        guard !interfaces.isEmpty else { throw c.invalid(.interfaces, "a card has at least one interface") }
        let preferred: CardProfile.Interface
        if let word = try c.decodeIfPresent(String.self, forKey: .preferredInterface) {
            guard let interface = CardProfile.Interface(rawValue: word), interfaces.contains(interface) else {
                throw c.invalid(.preferredInterface, "'\(word)' is not one of the card's interfaces")
            }
            preferred = interface
        } else {
            preferred = CardProfile.Interface.allCases.first(where: interfaces.contains) ?? .contact
        }

        let pan = try c.decode(String.self, forKey: .pan)
        guard (12...19).contains(pan.count), pan.allSatisfy(\.isASCIIDigit) else {
            throw c.invalid(.pan, "a PAN is 12 to 19 digits")
        }
        let expiry = try c.decode(String.self, forKey: .expiry)
        try Self.checkYYMM(expiry, c, .expiry)
        let effective = try c.decodeIfPresent(String.self, forKey: .effectiveDate) ?? "2201"
        try Self.checkYYMM(effective, c, .effectiveDate)
        let serviceCode = try c.decodeIfPresent(String.self, forKey: .serviceCode) ?? "201"
        guard serviceCode.count == 3, serviceCode.allSatisfy(\.isASCIIDigit) else {
            throw c.invalid(.serviceCode, "a service code is three digits")
        }
        let holder = try c.decodeIfPresent(String.self, forKey: .cardholderName) ?? "CARDHOLDER/TEST"
        guard (2...26).contains(holder.utf8.count),
            holder.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) })
        else { throw c.invalid(.cardholderName, "a cardholder name is 2 to 26 printable ASCII characters") }
        let country = try c.decodeIfPresent(String.self, forKey: .issuerCountry) ?? "250"
        guard country.count == 3, country.allSatisfy(\.isASCIIDigit), let bcd = UInt16("0" + country, radix: 16) else {
            throw c.invalid(.issuerCountry, "an issuer country is ISO 3166 numeric, three digits (250)")
        }
        let sequence = try c.decodeIfPresent(Int.self, forKey: .panSequenceNumber) ?? 1
        guard (0...99).contains(sequence) else {
            throw c.invalid(.panSequenceNumber, "a PAN sequence number is 0 to 99")
        }
        let sequenceBCD = UInt8(sequence / 10) << 4 | UInt8(sequence % 10)  // 5F34 is n2: 12 → 0x12

        let applications = try c.decode([ApplicationImage].self, forKey: .applications).map(\.application)
        var cvm = CardProfile.CardholderVerification.noCVMRequired
        if let word = try c.decodeIfPresent(String.self, forKey: .cvm) {
            guard let found = Self.cvmWords.first(where: { $0.word == word }) else {
                throw c.invalid(.cvm, "'\(word)' is not a CVM: \(Self.cvmWords.map(\.word).joined(separator: ", "))")
            }
            cvm = found.cvm
        }
        var cryptogram = CardProfile.Cryptogram.arqc
        if let word = try c.decodeIfPresent(String.self, forKey: .cryptogram) {
            switch word.uppercased() {
            case "ARQC": cryptogram = .arqc
            case "TC": cryptogram = .tc
            case "AAC": cryptogram = .aac
            default: throw c.invalid(.cryptogram, "'\(word)' is not a cryptogram type: ARQC, TC or AAC")
            }
        }
        let outcome = try c.hex(.contactlessOutcome, count: 2...2) ?? [0x30, 0x36]
        let action = try c.hex(.magstripeAction, count: 1...1)?.first ?? 0x00
        let atc = try c.decodeIfPresent(Int.self, forKey: .initialATC) ?? 0x10
        guard (0...0xFFFF).contains(atc) else { throw c.invalid(.initialATC, "an ATC is 0 to 65535") }

        var profile = CardProfile(
            name: name, interfaces: interfaces, preferredInterface: preferred, applications: applications, pan: pan,
            panSequenceNumber: sequenceBCD, expiry: expiry, effectiveDate: effective, serviceCode: serviceCode,
            cardholderName: holder, issuerCountry: bcd, atr: try c.hex(.atr, count: 2...33),
            aip: try c.hex(.aip, count: 2...2) ?? [0x38, 0x00],
            issuerApplicationData: try c.hex(.issuerApplicationData, count: 1...32) ?? [
                0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00,
            ],
            firstCryptogram: cryptogram, contactlessOutcome: outcome, initialATC: UInt16(atc),
            cardholderVerification: cvm,
            refusesTransaction: try c.decodeIfPresent(Bool.self, forKey: .refusesTransaction) ?? false,
            magstripeAction: action)

        for (key, value) in try c.decodeIfPresent([String: String].self, forKey: .tags) ?? [:] {
            guard let tag = Tag(key), let bytes = try? Hex.decode(value), bytes.count <= 252 else {
                throw c.invalid(
                    .tags,
                    "'\(key)': '\(value)' must be a tag (hex or dictionary name) and a value of at most 252 bytes in hex"
                )
            }
            profile.tagOverrides[tag.rawValue] = bytes
        }
        for key in try c.decodeIfPresent([String].self, forKey: .omitTags) ?? [] {
            guard let tag = Tag(key) else {
                throw c.invalid(.omitTags, "'\(key)' is not a tag (hex or dictionary name)")
            }
            profile.omittedTags.insert(tag.rawValue)
        }
        for (command, answer) in try c.decodeIfPresent([String: String].self, forKey: .answers) ?? [:] {
            let id = try Self.command(command, c, .answers)
            guard let status = StatusTable.lookup(answer) else {
                throw c.invalid(
                    .answers,
                    "'\(command)': '\(answer)' is not a status (a number such as -32, 0xEFE0, or a name such as CANCELLED)"
                )
            }
            profile.commandStatuses[id] = status
        }
        self.profile = profile
        self.faults = try c.decodeIfPresent(FaultImage.self, forKey: .faults)?.faults ?? .none
        let delay = try c.decodeIfPresent(Double.self, forKey: .presentationDelay) ?? 0
        guard delay.isFinite, (0...255).contains(delay) else {
            throw c.invalid(.presentationDelay, "a presentation delay is 0 to 255 seconds")
        }
        presentationDelay = .milliseconds(Int(delay * 1000))
    }

    private static func checkYYMM(_ text: String, _ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws {
        guard text.count == 4, text.allSatisfy(\.isASCIIDigit), let month = Int(text.suffix(2)),
            (1...12).contains(month)
        else { throw c.invalid(key, "'\(text)' is not a date YYMM") }
    }

    /// A command by its SDK name (TransactionProcess) or CLI word (transaction-process).
    static func command<K: CodingKey>(_ word: String, _ c: KeyedDecodingContainer<K>, _ key: K) throws -> CommandID {
        guard let descriptor = CommandCatalogue.descriptor(named: word) else {
            throw c.invalid(
                key,
                "'\(word)' is not a command (an SDK name such as TransactionProcess, or a CLI word such as transaction-process)"
            )
        }
        return descriptor.id
    }

    /// One application of a card image.
    struct ApplicationImage: Decodable {
        let application: CardProfile.Application

        enum CodingKeys: String, CodingKey, CaseIterable { case aid, label, priority, version }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            guard let aid = try c.hex(.aid, count: 5...16) else {
                throw c.invalid(.aid, "an application needs its AID")
            }
            let label = try c.decode(String.self, forKey: .label)
            guard (1...16).contains(label.utf8.count),
                label.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) })
            else { throw c.invalid(.label, "a label is 1 to 16 printable ASCII characters") }
            let priority = try c.decodeIfPresent(Int.self, forKey: .priority) ?? 1
            guard (0...15).contains(priority) else { throw c.invalid(.priority, "a priority is 0 to 15 (EMV tag 87)") }
            application = CardProfile.Application(
                aid: aid, label: label, priority: UInt8(priority),
                version: try c.hex(.version, count: 2...2) ?? [0x00, 0x96])
        }
    }

    /// The card image's faults: commands at which the cardholder pulls the card or the link drops.
    struct FaultImage: Decodable {
        let faults: SimulatorFaults

        enum CodingKeys: String, CodingKey, CaseIterable { case cardRemovedAt, disconnectAt }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            var faults = SimulatorFaults()
            if let word = try c.decodeIfPresent(String.self, forKey: .cardRemovedAt) {
                faults.cardRemovedAt = try CardImage.command(word, c, .cardRemovedAt)
            }
            if let word = try c.decodeIfPresent(String.self, forKey: .disconnectAt) {
                faults.disconnectAt = try CardImage.command(word, c, .disconnectAt)
            }
            self.faults = faults
        }
    }

    // MARK: Errors

    /// A decoding error as one line: the JSON path of the field (`cards.visa.applications[0].aid`), then what is wrong.
    package static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                if let index = key.intValue {
                    out += "[\(index)]"
                } else {
                    out += (out.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return out.isEmpty ? "the file" : out
        }
        switch error {
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(describeType(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(describeType(type)), got null"
        @unknown default:
            return "\(error)"
        }
    }

    private static func describeType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [String].Type: "a list of strings"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

/// A coding key read from the data, to list the keys an object has.
package struct AnyCodingKey: CodingKey {
    package var stringValue: String
    package var intValue: Int?
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws `dataCorrupted` naming the first key of this object that `Keys` does not list: a misspelt field
    /// (`expext`) is an error, never silently ignored.
    package func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
        let known = Set(Keys.allCases.map(\.stringValue))
        let container = try self.container(keyedBy: AnyCodingKey.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath + [AnyCodingKey(stringValue: unknown)],
                    debugDescription:
                        "unknown field; the fields here are \(Keys.allCases.map(\.stringValue).joined(separator: ", "))"
                ))
        }
    }
}

extension KeyedDecodingContainer {
    /// A `dataCorrupted` error at `key`, saying what a valid value is.
    package func invalid(_ key: Key, _ message: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: codingPath + [key], debugDescription: message))
    }

    /// Bytes given in hex at `key`, `count` bytes long, or `nil` when the key is absent.
    package func hex(_ key: Key, count: ClosedRange<Int>) throws -> [UInt8]? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let bytes = try? Hex.decode(text), count.contains(bytes.count) else {
            let size =
                count.lowerBound == count.upperBound
                ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)"
            throw invalid(key, "'\(text)' must be \(size) bytes in hex")
        }
        return bytes
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
