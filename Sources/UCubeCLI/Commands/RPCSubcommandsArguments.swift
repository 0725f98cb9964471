import ArgumentParser
import Foundation
import UCubeProtocol
import UCubeRuntime

// MARK: - Fixed value sets

/// A protocol value set (`NamedValue`) read from the command line by its name, with the names listed in help and
/// offered to completion. Its members are more specific than ArgumentParser's `RawRepresentable` defaults, so the
/// raw byte (17 for icc) is neither listed nor accepted. ArgumentParser still prints a raw-valued enum's default
/// value as its raw byte, so options of these types are optional and say their default in the help text.
protocol NamedArgument: NamedValue, ExpressibleByArgument, RawRepresentable where RawValue: ExpressibleByArgument {}

extension NamedArgument {
    package init?(argument: String) { self.init(name: argument) }
    package static var allValueStrings: [String] { allCases.map(\.name) }
    package static var allValueDescriptions: [String: String] { [:] }
    package static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    /// "icc, nfc, msr", for help texts and messages.
    static var valueList: String { allValueStrings.joined(separator: ", ") }
}

extension CardReader: NamedArgument {}
extension TransactionType: NamedArgument {}
extension EncryptionMethod: NamedArgument {}
extension AuthorisationStatus: NamedArgument {}
extension CorrectionKeyMode: NamedArgument {}

extension PINBlockFormatCode: NamedArgument {
    /// "iso0" or the format number the SDK uses ("0", "1", "3", "4").
    package init?(argument: String) {
        guard let value = Self(name: argument) ?? UInt8(argument).flatMap(Self.init(rawValue:)) else { return nil }
        self = value
    }
}

extension SpeedMode: ExpressibleByArgument {
    package init?(argument: String) {
        guard let mode = Self.allCases.first(where: { $0.description == argument.lowercased() }) else { return nil }
        self = mode
    }
    package static var allValueStrings: [String] { allCases.map(\.description) }
    package static var allValueDescriptions: [String: String] { [:] }
    package static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

// MARK: - Option groups shared by the payment commands

/// `--amount 12.50 --currency EUR`: an amount in a currency's units and the ISO 4217 currency that gives its
/// numeric code and exponent (5F2A, 5F36, spec §4).
struct AmountOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Amount in the currency's units, e.g. 12.50 (at most the currency's decimals).",
            valueName: "decimal"
        )
    )
    var amount: String

    @Option(
        help: ArgumentHelp("ISO 4217 currency, alphabetic or numeric (EUR, 978).", valueName: "code"),
        transform: Parse.currency
    )
    var currency: Currency

    var exponent: UInt8 { UInt8(currency.exponent) }

    func minorUnits() throws -> UInt64 { try Parse.amount(amount, currency, option: "--amount") }

    func validate() throws { _ = try ValidationError.checking(minorUnits) }
}

/// `--type` and `--cashback` (9C, 9F03) of TransactionInit and NFCStartTransaction.
struct TransactionTypeOptions: ParsableArguments {
    // Optional with the default in the help text: ArgumentParser prints a raw-valued enum's default as its raw byte.
    @Option(name: .customLong("type"), help: "Transaction type (9C; default: purchase).")
    var transactionType: TransactionType?

    var type: TransactionType { transactionType ?? .purchase }

    @Option(
        help: ArgumentHelp(
            "Cash-back amount (9F03) in the same currency; needs --type purchase-cashback.",
            valueName: "decimal"
        )
    )
    var cashback: String?

    func cashbackMinorUnits(_ currency: Currency) throws -> UInt64? {
        try cashback.map { try Parse.amount($0, currency, option: "--cashback") }
    }
}

/// `--tags`: the requested-tag list (C1) a payment command's answer carries.
struct RequestedTagOptions: ParsableArguments {
    @Option(
        name: .customLong("tags"),
        help: ArgumentHelp(
            "Tags the answer should carry (C1), comma-separated hex or dictionary names; repeatable.",
            valueName: "tags"
        ),
        transform: Parse.tagList
    )
    var lists: [[Tag]] = []

    var tags: [Tag] { lists.flatMap { $0 } }
}

/// `--date-time`: the transaction date and time (9A YYMMDD, 9F21 HHMMSS, BCD).
struct TransactionDateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Date and time for 9A and 9F21: ISO 8601 UTC (2026-11-22T10:00:00) or now (default: not sent).",
            valueName: "date-time"
        ),
        transform: Parse.dateTime
    )
    var dateTime: RTCDateTime?

    /// 9A.
    var date: [UInt8]? {
        dateTime.flatMap { Parse.packedBCD(($0.year % 100) * 10000 + $0.month * 100 + $0.day, bytes: 3) }
    }
    /// 9F21.
    var time: [UInt8]? { dateTime.flatMap { Parse.packedBCD($0.hour * 10000 + $0.minute * 100 + $0.second, bytes: 3) } }
}
