import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// A case's payment request, in the words `ucube pay` takes.
package struct SuiteRequest: Decodable {
    package let amount: String
    package let currency: Currency
    package let transactionType: TransactionType
    package let cashback: String?
    /// `nil`: the readers the card's interfaces need.
    package let readers: [CardReader]?
    package let cardTimeout: Int
    package let languages: [String]
    /// auto, first, an AID, or terminal (the cardholder chooses on the terminal's list box).
    package let select: String
    package let authorize: String
    /// The cardholder's list-box answers (simulator): item numbers from 1, abort or none.
    package let choices: [Int]
    /// The PIN the cardholder types (simulator).
    package let pin: String?
    package let forceOnlinePIN: Bool
    package let forceAuthorization: Bool
    package let pinFormat: PINBlockFormatCode
    /// Ask for a cancel this long after the payment starts (as Ctrl-C or `ucube cancel` would).
    package let cancelAfter: Duration?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case amount, currency, type, cashback, readers, cardTimeout, languages, select, authorize, choices, pin
        case forceOnlinePIN, forceAuthorization, pinFormat, cancelAfter
    }

    package init(from decoder: any Decoder) throws {
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
            _ = try field(.select) { try PaymentTasks.selection(select, field: "select", prompt: nil) }
        }
        if authorize != Self.terminalHook {
            _ = try field(.authorize) { try PaymentTasks.authorization(authorize, field: "authorize", prompt: nil) }
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
    package func paymentRequest(readers defaultReaders: [CardReader], requestID: String, cvmTag: Bool = false) throws
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

    package func selectionTask() throws -> any ApplicationSelectionTask {
        // A suite runs unattended: nobody answers a prompt (and a suite file refuses `prompt`).
        try PaymentTasks.selection(select == "terminal" ? "auto" : select, field: "select", prompt: nil)
    }

    /// `"authorize": "host"`: the terminal's hook, as a payment whose line gives no --authorize finds it (the shell's
    /// `set authorize`, the terminal's in devices.json, $UCUBE_AUTHORIZE): each terminal of a fleet run asks its own.
    package static let terminalHook = "host"

    package func authorizationTask(_ context: CommandContext) throws -> any AuthorizationTask {
        guard authorize == Self.terminalHook else {
            return try PaymentTasks.authorization(authorize, field: "authorize", prompt: nil)
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
        return try PaymentTasks.authorization(own.word, field: "authorize", prompt: nil, files: files)
    }
}
