import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator

/// A scripted payment test suite (docs/suites.md): named card images and the cases that run payments against them
/// (`ucube test`), decoded and validated as one value. Every error names the case or card and the field.
struct PaymentSuite: Decodable {
    let name: String
    /// The suite's own card images, by name.
    let cards: [String: CardImage]
    let cases: [SuiteCase]

    enum CodingKeys: String, CodingKey, CaseIterable { case name, cards, cases }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        // The name heads the TAP stream (`# suite: NAME`): a newline in it would start a TAP line of its own.
        guard OneLine.holds(name) else {
            throw c.invalid(.name, "a suite name is one line, without control characters")
        }
        cards = try c.decodeIfPresent([String: CardImage].self, forKey: .cards) ?? [:]
        if let bad = cards.keys.sorted().first(where: { !OneLine.holds($0) }) {
            throw c.invalid(
                .cards, "a card image's name is one line, without control characters: \(JSONOutput.quote(bad))")
        }
        cases = try c.decode([SuiteCase].self, forKey: .cases)
        guard !cases.isEmpty else { throw c.invalid(.cases, "a suite has at least one case") }
        if let clash = cards.keys.sorted().first(where: { CardCatalogue.named($0) != nil }) {
            throw c.invalid(.cards, "'\(clash)' is already a simulator scenario: give the card image another name")
        }
        var names = Set<String>()
        for (index, suiteCase) in cases.enumerated() {
            guard names.insert(suiteCase.name).inserted else {
                throw Self.invalid(index, "name", "another case is already called '\(suiteCase.name)'")
            }
            guard cards[suiteCase.card] != nil || CardCatalogue.named(suiteCase.card) != nil else {
                throw Self.invalid(
                    index, "card",
                    "'\(suiteCase.card)' is neither a card image of this suite (\(cards.keys.sorted().joined(separator: ", "))) nor a simulator scenario (\(CardCatalogue.names.joined(separator: ", ")))"
                )
            }
        }
    }

    private static func invalid(_ index: Int, _ field: String, _ message: String) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: [CodingKeys.cases, AnyCodingKey(intValue: index)!, AnyCodingKey(stringValue: field)],
                debugDescription: message))
    }

    /// The card a case names: a suite image, or a simulator scenario (as a scenario, with the case's cardholder).
    func scenario(for suiteCase: SuiteCase) -> CardScenario {
        if let image = cards[suiteCase.card] {
            return image.scenario(pin: suiteCase.request.pin, choices: suiteCase.request.choices)
        }
        var scenario = CardCatalogue.named(suiteCase.card)!  // checked when decoded
        if let pin = suiteCase.request.pin { scenario.script.pin = pin }
        if !suiteCase.request.choices.isEmpty { scenario.script.choices = suiteCase.request.choices }
        return scenario
    }

    /// Reads and decodes the suite at `path`. A file that cannot be read exits 74 (io-error); one that is not a valid
    /// suite exits 65 (data, code bad-suite) with the JSON path of the field and, inside a case, its name.
    /// A suite file is read up to this size (a suite of hundreds of cases is well under a megabyte).
    static let maximumSize = 16 << 20

    static func load(path: String) throws -> PaymentSuite {
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: maximumSize)
        } catch {
            switch error {
            case .unreadable(let why):
                // As every file named on the command line (a devices file, a recording, a script): exit 64.
                throw CLIFailure(ExitCodes.usage, "cannot read the suite \(path): \(why)")
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.dataError, "the suite \(path) is larger than \(BoundedFile.limitText(maximumSize))",
                    code: .badSuite,
                    hint: "docs/suites.md describes the suite format")
            }
        }
        do {
            return try JSONDecoder().decode(PaymentSuite.self, from: data)
        } catch let error as DecodingError {
            throw CLIFailure(
                ExitCodes.dataError, "\(path): \(describe(error, data: data))", code: .badSuite,
                hint: "docs/suites.md describes the suite format")
        }
    }

    /// A decoding error as one line, with the name of the case it is in (`cases[3] ("visa declined").expect…`).
    static func describe(_ error: DecodingError, data: Data) -> String {
        var text = CardImage.describe(error)
        // Not JSON at all: Foundation's own sentence says where ("Unexpected end of file", "around line 3").
        if case .dataCorrupted(let context) = error, let underlying = context.underlyingError as NSError?,
            let why = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        {
            text += " (\(why))"
        }
        guard text.hasPrefix("cases["), let close = text.firstIndex(of: "]"),
            let index = Int(text[text.index(text.startIndex, offsetBy: 6)..<close]),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = root["cases"] as? [Any], cases.indices.contains(index),
            let name = (cases[index] as? [String: Any])?["name"] as? String
        else { return text }
        return "cases[\(index)] (\(JSONOutput.quote(name)))" + text[text.index(after: close)...]
    }

    /// The cases `--case` names (all when none), in suite order; an unknown name is a usage error.
    func select(_ names: [String]) throws -> [SuiteCase] {
        guard !names.isEmpty else { return cases }
        if let unknown = names.first(where: { name in !cases.contains { $0.name == name } }) {
            throw CLIFailure(
                ExitCodes.usage, "no case '\(unknown)' in the suite '\(name)'",
                hint: "the cases are: \(cases.map(\.name).joined(separator: ", "))")
        }
        return cases.filter { names.contains($0.name) }
    }
}

/// One case: the card, the payment request, the expected outcome, and what the operator of a real terminal does.
struct SuiteCase: Decodable {
    let name: String
    let card: String
    let request: SuiteRequest
    let expect: SuiteExpectation
    /// For a real terminal: "insert test card 3"; default: present the card the case names.
    let instruction: String

    enum CodingKeys: String, CodingKey, CaseIterable { case name, card, request, expect, instruction }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        guard !name.isEmpty, OneLine.holds(name) else {
            throw c.invalid(.name, "a case name is one non-empty line, without control characters")
        }
        card = try c.decode(String.self, forKey: .card)
        request = try c.decode(SuiteRequest.self, forKey: .request)
        expect = try c.decode(SuiteExpectation.self, forKey: .expect)
        instruction = try c.decodeIfPresent(String.self, forKey: .instruction) ?? "present the test card '\(card)'"
        // Printed on stderr as one line before the case runs on a real terminal.
        guard OneLine.holds(instruction) else {
            throw c.invalid(.instruction, "an instruction is one line, without control characters")
        }
    }
}

/// Text from a file that is shown as one line (a TAP line, a JUnit attribute, a line on stderr): it holds no control
/// character (C0, DEL and C1: newline, carriage return, escape sequences) and no Unicode line or paragraph separator.
enum OneLine {
    static func holds(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
    }

    /// `text` with every character `holds` refuses replaced by a space (a message from elsewhere, made one line).
    static func flattened(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { holds(String($0)) ? $0 : " " }))
    }
}

/// A case's payment request, in the words `ucube pay` takes.
struct SuiteRequest: Decodable {
    let amount: String
    let currency: Currency
    let transactionType: TransactionType
    let cashback: String?
    /// `nil`: the readers the card's interfaces need.
    let readers: [CardReader]?
    let cardTimeout: Int
    let languages: [String]
    /// auto, first, an AID, or terminal (the cardholder chooses on the terminal's list box).
    let select: String
    let authorize: String
    /// The cardholder's list-box answers (simulator): item numbers from 1, abort or none.
    let choices: [Int]
    /// The PIN the cardholder types (simulator).
    let pin: String?
    let forceOnlinePIN: Bool
    let forceAuthorization: Bool
    let pinFormat: PINBlockFormatCode
    /// Ask for a cancel this long after the payment starts (as Ctrl-C or `ucube cancel` would).
    let cancelAfter: Duration?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case amount, currency, type, cashback, readers, cardTimeout, languages, select, authorize, choices, pin
        case forceOnlinePIN, forceAuthorization, pinFormat, cancelAfter
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        /// A check of the command line's words (a `UsageError`), as an error at `key`.
        func field<T>(_ key: CodingKeys, _ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let error as UsageError {
                throw c.invalid(key, error.message)
            }
        }
        if let text = try? c.decode(String.self, forKey: .amount) {
            amount = text
        } else {
            amount = String(try c.decode(Int.self, forKey: .amount))
        }
        currency = try field(.currency) {
            try Parse.currency(try c.decodeIfPresent(String.self, forKey: .currency) ?? "EUR")
        }
        let type = try c.decodeIfPresent(String.self, forKey: .type) ?? "purchase"
        guard let transactionType = TransactionType(name: type) else {
            throw c.invalid(
                .type,
                "'\(type)' is not a transaction type: \(TransactionType.allCases.map(\.name).joined(separator: ", "))")
        }
        self.transactionType = transactionType
        cashback = try c.decodeIfPresent(String.self, forKey: .cashback)
        readers = try c.decodeIfPresent([String].self, forKey: .readers).map { words in
            try field(.readers) { try Parse.names(words.joined(separator: ",")) as [CardReader] }
        }
        cardTimeout = try c.decodeIfPresent(Int.self, forKey: .cardTimeout) ?? PaymentRequest.defaultCardWaitTimeout
        languages = try field(.languages) {
            try Parse.languages(
                (try c.decodeIfPresent([String].self, forKey: .languages) ?? ["en"]).joined(separator: ","))
        }
        let select = try c.decodeIfPresent(String.self, forKey: .select) ?? "auto"
        let authorize = try c.decodeIfPresent(String.self, forKey: .authorize) ?? "approve"
        self.select = select
        self.authorize = authorize
        for (key, word) in [(CodingKeys.select, select), (.authorize, authorize)] where word == "prompt" {
            throw c.invalid(key, "a suite runs unattended: prompt is not allowed")
        }
        if select != "terminal" {
            _ = try field(.select) { try PaymentTasks.selection(select, field: "select", prompts: nil) }
        }
        if authorize != Self.terminalHook {
            _ = try field(.authorize) { try PaymentTasks.authorization(authorize, field: "authorize", prompts: nil) }
        }
        let choiceWords = try c.decodeIfPresent([String].self, forKey: .choices) ?? []
        choices =
            choiceWords.isEmpty
            ? [] : try field(.choices) { try BuiltInSimulator.choices(choiceWords.joined(separator: ",")) }
        pin = try c.decodeIfPresent(String.self, forKey: .pin)
        if let pin, !((4...12).contains(pin.count) && pin.allSatisfy { $0.isASCII && $0.isNumber }) {
            throw c.invalid(.pin, "a PIN is 4 to 12 digits")
        }
        forceOnlinePIN = try c.decodeIfPresent(Bool.self, forKey: .forceOnlinePIN) ?? false
        forceAuthorization = try c.decodeIfPresent(Bool.self, forKey: .forceAuthorization) ?? false
        let format = try c.decodeIfPresent(String.self, forKey: .pinFormat) ?? "iso0"
        guard let pinFormat = PINBlockFormatCode(name: format) else {
            throw c.invalid(
                .pinFormat,
                "'\(format)' is not a PIN block format: \(PINBlockFormatCode.allCases.map(\.name).joined(separator: ", "))"
            )
        }
        self.pinFormat = pinFormat
        if let seconds = try c.decodeIfPresent(Double.self, forKey: .cancelAfter) {
            guard seconds.isFinite, (0...255).contains(seconds) else {
                throw c.invalid(.cancelAfter, "cancelAfter is 0 to 255 seconds")
            }
            cancelAfter = .milliseconds(Int(seconds * 1000))
        } else {
            cancelAfter = nil
        }
        // The request as a whole, as `pay` checks it (amount in the currency's units, cash-back type, timeout, …).
        _ = try field(.amount) { try paymentRequest(readers: [.icc], requestID: "check") }
    }

    /// The engine's request; `readers` when the case names none.
    func paymentRequest(readers defaultReaders: [CardReader], requestID: String, cvmTag: Bool = false) throws
        -> PaymentRequest
    {
        var request = PaymentRequest(
            amount: try Parse.amount(amount, currency, option: "amount"), currency: currency,
            transactionType: transactionType,
            cashback: try cashback.map { try Parse.amount($0, currency, option: "cashback") },
            readers: readers ?? defaultReaders, cardWaitTimeout: cardTimeout, preferredLanguages: languages,
            forceOnlinePIN: forceOnlinePIN, forceAuthorization: forceAuthorization, pinBlockFormat: pinFormat,
            // 9F34 is read at the end too, so an offline outcome's CVM result can be checked (the default list has it).
            finalizationPlainTags: cvmTag && !PaymentTagDefaults.finalizationPlain(.icc).contains(Tag(0x9F34))
                ? PaymentTagDefaults.finalizationPlain(.icc) + [Tag(0x9F34)] : nil,
            selectApplicationOnTerminal: select == "terminal", requestID: requestID)
        request.hostAuthorization = HostHook.names(authorize) || authorize == Self.terminalHook
        do {
            try request.validate()
        } catch {
            throw UsageError(error.reason)
        }
        return request
    }

    func selectionTask() throws -> any ApplicationSelectionTask {
        // A suite runs unattended: nobody answers a prompt (and a suite file refuses `prompt`).
        try PaymentTasks.selection(select == "terminal" ? "auto" : select, field: "select", prompts: nil)
    }

    /// `"authorize": "host"`: the terminal's hook, as a payment whose line gives no --authorize finds it (the shell's
    /// `set authorize`, the terminal's in devices.json, $UCUBE_AUTHORIZE): each terminal of a fleet run asks its own.
    static let terminalHook = "host"

    func authorizationTask(_ context: CommandContext) throws -> any AuthorizationTask {
        guard authorize == Self.terminalHook else {
            return try PaymentTasks.authorization(authorize, field: "authorize", prompts: nil)
        }
        let own = context.defaultAuthorization(for: context.deviceAddress)
        guard HostHook.names(own.word) else {
            throw UsageError(
                "authorize \"host\": no hook is set for \(context.deviceAddress) (`ucube connect DEVICE --authorize HOOK`, $\(HostChoices.environmentVariable))"
            )
        }
        var files = HostChoices.files()
        // The terminal's own hook comes with its own CA.
        if let ca = own.ca { files.ca = ca }
        return try PaymentTasks.authorization(own.word, field: "authorize", prompts: nil, files: files)
    }
}

/// What a case expects: the final status, and optionally TVR (95), TSI (9B), CVM results (9F34) and the cryptogram
/// type (9F27).
struct SuiteExpectation: Decodable {
    let status: PaymentStatus
    let tvr: [UInt8]?
    let tsi: [UInt8]?
    let cvmResult: [UInt8]?
    let cryptogram: CryptogramType?

    enum CodingKeys: String, CodingKey, CaseIterable { case status, tvr, tsi, cvmResult, cryptogram }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let word = try c.decode(String.self, forKey: .status)
        guard let status = PaymentStatus(rawValue: word.uppercased()) else {
            throw c.invalid(
                .status,
                "'\(word)' is not a payment status: \(PaymentStatus.allCases.map(\.name).joined(separator: ", "))")
        }
        self.status = status
        tvr = try c.hex(.tvr, count: 5...5)
        tsi = try c.hex(.tsi, count: 2...2)
        cvmResult = try c.hex(.cvmResult, count: 3...3)
        if let word = try c.decodeIfPresent(String.self, forKey: .cryptogram) {
            guard let type = CryptogramType(name: word) else {
                throw c.invalid(.cryptogram, "'\(word)' is not ARQC, TC or AAC")
            }
            cryptogram = type
        } else {
            cryptogram = nil
        }
    }
}

// MARK: - Checking

/// What a payment gave, in the terms a case expects.
struct SuiteObservation: Equatable {
    var status: PaymentStatus?
    var tvr: [UInt8]?
    var tsi: [UInt8]?
    var cvmResult: [UInt8]?
    var cryptogram: CryptogramType?
    /// Why the payment ended so, or why it could not run.
    var reason: String?

    init(_ context: PaymentContext) {
        status = context.status
        tvr = context.tvr
        tsi = context.tsi
        // The last 9F34 the terminal gave: after finalisation, else before the authorization.
        let tags = context.finalizationPlainTags + context.authorizationPlainTags
        cvmResult = tags.first { $0.tag == Tag(0x9F34) }?.value
        cryptogram = context.cryptogramType
        reason = context.statusReason
    }

    init(failure: String) { reason = failure }
}

/// One field that differs.
struct SuiteMismatch: Equatable {
    let field: String
    let expected: String
    let got: String
}

/// One case's result.
struct SuiteResult {
    let suiteCase: SuiteCase
    let observation: SuiteObservation
    let mismatches: [SuiteMismatch]
    let seconds: Double
    /// Why the case did not run at all (the run was stopped before it): TAP `# SKIP`, JUnit `<skipped>`.
    var notRun: String? = nil
    /// The run was stopped while this case ran: it fails, whatever its payment gave.
    var interrupted = false
    var passed: Bool { notRun == nil && !interrupted && mismatches.isEmpty }

    /// A case the stopped run never started.
    static func notRun(_ suiteCase: SuiteCase, because reason: String) -> SuiteResult {
        SuiteResult(
            suiteCase: suiteCase, observation: SuiteObservation(failure: reason), mismatches: [], seconds: 0,
            notRun: reason)
    }

    /// Compares what a case expects with what its payment gave: the status always, the others when the case names them.
    static func compare(_ expect: SuiteExpectation, _ got: SuiteObservation) -> [SuiteMismatch] {
        var out: [SuiteMismatch] = []
        func hex(_ bytes: [UInt8]?) -> String { bytes.map { Hex.encode($0) } ?? "none" }
        if got.status != expect.status {
            out.append(SuiteMismatch(field: "status", expected: expect.status.name, got: got.status?.name ?? "none"))
        }
        if let tvr = expect.tvr, tvr != got.tvr {
            out.append(SuiteMismatch(field: "tvr", expected: hex(tvr), got: hex(got.tvr)))
        }
        if let tsi = expect.tsi, tsi != got.tsi {
            out.append(SuiteMismatch(field: "tsi", expected: hex(tsi), got: hex(got.tsi)))
        }
        if let cvm = expect.cvmResult, cvm != got.cvmResult {
            out.append(SuiteMismatch(field: "cvmResult", expected: hex(cvm), got: hex(got.cvmResult)))
        }
        if let type = expect.cryptogram, type != got.cryptogram {
            out.append(
                SuiteMismatch(
                    field: "cryptogram", expected: type.name.uppercased(),
                    got: got.cryptogram?.name.uppercased() ?? "none"))
        }
        return out
    }
}

// MARK: - Reports

/// TAP 13 and JUnit XML renderings of a suite's results. Every free text (names, reasons) goes through the log's
/// card-data scrubber first.
enum SuiteReport {
    static func expectedFields(_ e: SuiteExpectation) -> [(String, String)] {
        var out = [("status", e.status.name)]
        if let tvr = e.tvr { out.append(("tvr", Hex.encode(tvr))) }
        if let tsi = e.tsi { out.append(("tsi", Hex.encode(tsi))) }
        if let cvm = e.cvmResult { out.append(("cvmResult", Hex.encode(cvm))) }
        if let type = e.cryptogram { out.append(("cryptogram", type.name.uppercased())) }
        return out
    }

    static func gotFields(_ o: SuiteObservation) -> [(String, String)] {
        func hex(_ bytes: [UInt8]?) -> String { bytes.map { Hex.encode($0) } ?? "none" }
        return [
            ("status", o.status?.name ?? "none"), ("tvr", hex(o.tvr)), ("tsi", hex(o.tsi)),
            ("cvmResult", hex(o.cvmResult)),
            ("cryptogram", o.cryptogram?.name.uppercased() ?? "none"),
        ]
    }

    /// "status: expected APPROVED, got DECLINED; tvr: …", or "interrupted: …" for the case a stop cut short.
    static func summary(_ result: SuiteResult) -> String {
        let mismatches = result.mismatches.map { "\($0.field): expected \($0.expected), got \($0.got)" }
        return ((result.interrupted ? ["interrupted: the run was stopped during this case"] : []) + mismatches)
            .joined(separator: "; ")
    }

    static func tap(_ results: [SuiteResult], suite: String) -> String {
        tapHeader(count: results.count, suite: suite)
            + results.enumerated().map { tapEntry($1, number: $0 + 1) }.joined()
            + tapFooter(results)
    }

    /// TAP's version, plan and suite name: what a stream of entries starts with.
    static func tapHeader(count: Int, suite: String) -> String {
        "TAP version 13\n1..\(count)\n# suite: \(LogScrubber.scrub(suite))\n"
    }

    /// One case's TAP line, with a YAML block of expected against got when it failed.
    static func tapEntry(_ result: SuiteResult, number: Int) -> String {
        // '#' starts a directive in TAP: escaped in the description.
        let name = LogScrubber.scrub(result.suiteCase.name).replacingOccurrences(of: "#", with: "\\#")
        if let reason = result.notRun {
            return
                "ok \(number) - \(name) # SKIP \(LogScrubber.scrub(reason).replacingOccurrences(of: "#", with: "\\#"))\n"
        }
        var lines = ["\(result.passed ? "ok" : "not ok") \(number) - \(name)"]
        if !result.passed {
            lines.append("  ---")
            lines.append("  message: \(JSONOutput.quote(LogScrubber.scrub(summary(result))))")
            lines.append("  card: \(JSONOutput.quote(result.suiteCase.card))")
            lines.append("  expected:")
            for (key, value) in expectedFields(result.suiteCase.expect) {
                lines.append("    \(key): \(JSONOutput.quote(value))")
            }
            lines.append("  got:")
            for (key, value) in gotFields(result.observation) { lines.append("    \(key): \(JSONOutput.quote(value))") }
            if let reason = result.observation.reason {
                lines.append("  reason: \(JSONOutput.quote(LogScrubber.scrub(reason)))")
            }
            lines.append("  duration_ms: \(Int(result.seconds * 1000))")
            lines.append("  ...")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func tapFooter(_ results: [SuiteResult]) -> String {
        let failed = results.filter { !$0.passed && $0.notRun == nil }.count
        let skipped = results.filter { $0.notRun != nil }.count
        return "# pass \(results.count - failed - skipped)\n# fail \(failed)\n"
            + (skipped > 0 ? "# skip \(skipped)\n" : "")
    }

    static func junit(_ results: [SuiteResult], suite: String, timestamp: Date) -> String {
        let name = LogScrubber.scrub(suite)
        let cases = results.map { result in
            var body = ["card: \(result.suiteCase.card)"]
            body += expectedFields(result.suiteCase.expect).map { "expected \($0.0): \($0.1)" }
            body += gotFields(result.observation).map { "got \($0.0): \($0.1)" }
            if let reason = result.observation.reason { body.append("reason: \(reason)") }
            let outcome: JUnitReport.Case.Outcome =
                if let reason = result.notRun {
                    .skipped(message: LogScrubber.scrub(reason))
                } else if result.passed {
                    .passed(note: nil)
                } else {
                    .failed(
                        type: result.interrupted ? "interrupted" : "mismatch",
                        message: LogScrubber.scrub(summary(result)),
                        detail: LogScrubber.scrub(body.joined(separator: "\n")))
                }
            return JUnitReport.Case(
                classname: name, name: LogScrubber.scrub(result.suiteCase.name), seconds: result.seconds,
                outcome: outcome)
        }
        return JUnitReport.document(
            name: name, cases: cases, timestamp: timestamp, seconds: results.reduce(0) { $0 + $1.seconds })
    }
}
