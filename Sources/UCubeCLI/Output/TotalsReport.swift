import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

/// `history totals`' result: the totals of the payments a filter took, with the filter's period and devices.
/// docs/history.md documents the JSON form, key by key; its `version` is every output's (`JSONOutput.version`).
struct TotalsReport: Report {
    let totals: PaymentTotals
    let filter: HistoryFilter
    /// The local offset at a UTC second, for the text's period (`LocalTime`); the JSON keeps UTC.
    var offset: (Int64) -> Int = LocalTime.systemOffset

    init(_ totals: PaymentTotals, filter: HistoryFilter) {
        self.totals = totals
        self.filter = filter
    }

    /// A moment as the report writes it: ISO 8601 UTC with milliseconds.
    static func text(_ milliseconds: Int64) -> String {
        let (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return millisecond < 0
            ? UTCTime(secondsSinceEpoch: seconds - 1, millisecond: Int(millisecond) + 1000).iso8601
            : UTCTime(secondsSinceEpoch: seconds, millisecond: Int(millisecond)).iso8601
    }

    /// "17.00 EUR" with the currency's exponent; the minor units and the code when the currency is not known.
    static func amount(_ minorUnits: UInt64, currency: String?) -> String {
        if let known = currency.flatMap(Currency.lookup) { return known.format(minorUnits: minorUnits) }
        return "\(minorUnits)" + (currency.map { " \($0)" } ?? "")
    }

    var lines: [String] {
        var lines: [String] = []
        if filter.since != nil || filter.until != nil {
            let local = { LocalTime.text(millisecondsSinceEpoch: $0, offset: offset) }
            let since = filter.since.map { "from \(local($0)) (inclusive)" } ?? "from the first payment"
            let until = filter.until.map { "to \(local($0)) (exclusive)" } ?? "to the last"
            lines.append("period: \(since) \(until)")
        }
        if !filter.devices.isEmpty { lines.append("devices: " + filter.devices.sorted().joined(separator: ", ")) }
        for group in totals.groups {
            func sum(_ name: String, _ sum: PaymentTotals.Sum) -> String {
                "\(name) \(sum.count) \(Self.amount(sum.amount, currency: group.currency))"
            }
            var line =
                "\(group.currency ?? "?") \(group.type ?? "?")\(group.simulated ? " (simulated)" : ""): "
                + [sum("approved", group.approved), sum("declined", group.declined), sum("reversed", group.reversed)]
                .joined(separator: ", ")
            if group.reversalsOwed.count > 0 { line += " (" + sum("owed", group.reversalsOwed) + ")" }
            lines.append(line)
        }
        let others = totals.others.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        lines.append(
            "other: \(totals.otherCount)" + (others.isEmpty ? "" : " (" + others.joined(separator: ", ") + ")"))
        lines.append("payments: \(totals.payments)")
        return lines
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONOutput.version, forKey: .version)
        try container.encode(filter.since.map(Self.text), forKey: .since)
        try container.encode(filter.until.map(Self.text), forKey: .until)
        try container.encode(filter.devices.sorted(), forKey: .devices)
        try container.encode(totals.payments, forKey: .payments)
        try container.encode(totals.groups, forKey: .groups)
        try container.encode(Others(count: totals.otherCount, statuses: totals.others), forKey: .others)
    }

    private struct Others: Encodable {
        let count: Int
        let statuses: [String: Int]
    }

    private enum CodingKeys: String, CodingKey {
        case version, since, until, devices, payments, groups, others
    }
}
