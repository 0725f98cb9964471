import ArgumentParser
import Foundation
import UCubeProtocol

/// Readers for the values `ucube rpc` arguments take, in the protocol's vocabulary: hex bytes, tags (hex or
/// dictionary name), reader and language lists, one-byte values and timeouts, currencies and decimal amounts, dates.
/// Each throws a `ValidationError` that says what is allowed; used as `transform:` the message follows
/// "The value 'x' is invalid for '--option <value>':".
enum Parse {
    /// Bytes in hex; spaces, colons and dashes between bytes are allowed (`Hex.decode`).
    @Sendable static func hex(_ text: String) throws -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Bytes in hex for a value read outside a transform; the message names `argument`.
    static func hex(_ text: String, argument: String) throws -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw ValidationError("\(argument): \(error)")
        }
    }

    /// One byte: decimal 0…255 or hex with 0x (0x07).
    @Sendable static func byte(_ text: String) throws -> UInt8 {
        let value = text.hasPrefix("0x") || text.hasPrefix("0X") ? UInt8(text.dropFirst(2), radix: 16) : UInt8(text)
        guard let value else { throw ValidationError("a one-byte value is 0…255 or 0x00…0xFF") }
        return value
    }

    /// A one-byte timeout in whole seconds (spec §5.2: WaitCard, DisplayMessage, DF71 …).
    @Sendable static func seconds(_ text: String) throws -> UInt8 {
        guard let value = Int(text) else { throw ValidationError("a timeout is whole seconds, 0…255") }
        do {
            return try CommandArguments.timeoutSeconds(value, field: "the timeout")
        } catch {
            throw ValidationError(error.reason)
        }
    }

    /// A tag: hex (9F27, 0x9F27) or a tag dictionary name (cryptogramInformationData).
    @Sendable static func tag(_ text: String) throws -> Tag {
        guard let tag = Tag(text) else {
            throw ValidationError("not a tag: give hex (9F27) or a tag dictionary name (cryptogramInformationData)")
        }
        return tag
    }

    /// Comma-separated tags ("9F26,9F27" or "9F26, amountAuthorised").
    @Sendable static func tagList(_ text: String) throws -> [Tag] {
        try commaSeparated(text).map(tag)
    }

    /// Comma-separated names of a fixed value set ("icc,nfc").
    @Sendable static func names<V: NamedArgument>(_ text: String) throws -> [V] {
        try commaSeparated(text).map { word in
            guard let value = V(argument: word) else {
                throw ValidationError("'\(word)' is not one of \(V.valueList)")
            }
            return value
        }
    }

    /// Comma-separated ISO 639 languages ("fr,en"; "fra" reads as "fr"), as two-letter codes.
    @Sendable static func languages(_ text: String) throws -> [String] {
        try commaSeparated(text).map { word in
            guard let language = Language.lookup(word) else {
                throw ValidationError("'\(word)' is not an ISO 639 language code (fr, en, deu …)")
            }
            return language.alpha2
        }
    }

    /// An ISO 4217 currency: alphabetic (EUR) or numeric (978).
    @Sendable static func currency(_ text: String) throws -> Currency {
        guard let currency = Currency.lookup(text) else {
            throw ValidationError("not an ISO 4217 currency with minor units: give EUR or 978")
        }
        return currency
    }

    /// A decimal amount ("12.50") in `currency`, as minor units (spec §4 "Amounts").
    static func amount(_ text: String, _ currency: Currency, option: String) throws -> UInt64 {
        do {
            return try currency.minorUnits(fromDecimal: text)
        } catch {
            throw ValidationError("\(option): \(error.reason)")
        }
    }

    /// A two-byte authorisation response code (8A, DF73): two characters ("00", "05", "Y1") as ASCII, or four hex
    /// digits ("3030").
    @Sendable static func responseCode(_ text: String) throws -> [UInt8] {
        if text.unicodeScalars.count == 2, text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
            return Array(text.utf8)
        }
        guard text.count == 4, let bytes = try? Hex.decode(text) else {
            throw ValidationError("a response code is two characters (00) or four hex digits (3030)")
        }
        return bytes
    }

    /// "now" (UTC) or an ISO 8601 date and time in UTC: 2026-11-22T10:00:00, seconds and a trailing Z optional.
    @Sendable static func dateTime(_ text: String) throws -> RTCDateTime {
        let time = text == "now" ? now() : try isoDateTime(text)
        do {
            try time.validate()
        } catch {
            throw ValidationError(error.reason)
        }
        return time
    }

    /// The current UTC date and time.
    static func now() -> RTCDateTime {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date())
        return RTCDateTime(
            year: c.year ?? 0,
            month: c.month ?? 0,
            day: c.day ?? 0,
            hour: c.hour ?? 0,
            minute: c.minute ?? 0,
            second: c.second ?? 0
        )
    }

    private static func isoDateTime(_ text: String) throws -> RTCDateTime {
        let invalid = ValidationError("a date and time is ISO 8601 in UTC, like 2026-11-22T10:00:00, or now")
        let trimmed = text.hasSuffix("Z") ? String(text.dropLast()) : text
        let halves = trimmed.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard halves.count == 2 else { throw invalid }
        let date = halves[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        var time = halves[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        if time.count == 2 { time.append(0) }
        guard date.count == 3, time.count == 3, let y = date[0], let mo = date[1], let d = date[2], let h = time[0],
            let mi = time[1], let s = time[2]
        else { throw invalid }
        return RTCDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
    }

    /// `value` as `count` bytes of packed BCD (9A YYMMDD, 9F21 HHMMSS, 9F41, spec §4); `nil` when it does not fit.
    static func packedBCD(_ value: Int, bytes count: Int) -> [UInt8]? {
        guard value >= 0 else { return nil }
        var rest = value
        var out = [UInt8](repeating: 0, count: count)
        for index in out.indices.reversed() {
            out[index] = UInt8((rest / 10 % 10) << 4 | rest % 10)
            rest /= 100
        }
        return rest == 0 ? out : nil
    }

    private static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

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

    func validate() throws { _ = try minorUnits() }
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
