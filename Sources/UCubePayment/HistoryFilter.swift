import UCubeSupport

extension JournalEntry {
    /// The status of a payment that a reversal record names (`history --status reversed`, `history totals`).
    package static let reversedStatus = "REVERSED"

    /// What the payment counts as: reversed when a reversal record names it (whatever the card said), else the
    /// operator's resolution, else its own status ("unknown" without an outcome). `history --status` and
    /// `history totals` both count by it, so the list and the totals agree.
    package var countedStatus: String {
        if reversal != nil { return Self.reversedStatus }
        return resolution?.status ?? status
    }

    /// When the payment took place, in milliseconds since the epoch: its start, else its outcome (a journal that
    /// lost the start). Nil when neither time reads as ISO 8601; the journal writes UTC, and a time without a zone is
    /// taken as UTC.
    package var millisecondsSinceEpoch: Int64? {
        (startedAt ?? finishedAt).flatMap(ISO8601Time.init)?.millisecondsSinceEpoch(localOffset: { _ in 0 })
    }
}

/// One value of `history --status`: a payment's status as `JournalEntry.countedStatus` gives it, or one of the
/// states `history` shows a payment without an outcome in.
package enum StatusSelector: Hashable, Sendable {
    /// The payment counts as this status (its own, or the operator's resolution), and no reversal names it.
    case status(PaymentStatus)
    /// A reversal record names the payment.
    case reversed
    /// No outcome, no resolution and no reversal: `unknown` in `history` (running or not).
    case unknown
    /// No outcome, no resolution, and no process runs it: what `history --unresolved` lists (a reversal or not).
    case unresolved

    /// The words `history --status` takes besides the statuses' own names.
    package static let words = ["reversed", "unknown", "unresolved"]

    /// Every value as the help and the errors list it: the statuses, then `words`.
    package static var allNames: [String] { PaymentStatus.allCases.map(\.rawValue) + words }

    /// The selector `word` names, in any case; nil for none.
    package init?(parsing word: some StringProtocol) {
        switch word.lowercased() {
        case "reversed": self = .reversed
        case "unknown": self = .unknown
        case "unresolved": self = .unresolved
        default:
            guard let status = PaymentStatus(rawValue: word.uppercased()) else { return nil }
            self = .status(status)
        }
    }

    /// Whether `entry` is one this selector names.
    package func matches(_ entry: JournalEntry) -> Bool {
        switch self {
        case .status(let status): entry.countedStatus == status.rawValue
        case .reversed: entry.reversal != nil
        case .unknown: entry.countedStatus == JournalEntry.unknownStatus
        case .unresolved: entry.isUnresolved || entry.reversalOwed
        }
    }
}

/// Which journalled payments `history` and `history totals` take: every condition given must hold.
package struct HistoryFilter: Equatable, Sendable {
    /// The first moment of the period, in milliseconds since the epoch: a payment at it is in (inclusive).
    package var since: Int64?
    /// The end of the period: a payment at it is out (exclusive), so that one day's `--until` is the next one's
    /// `--since` and no payment is counted twice.
    package var until: Int64?
    /// Any of these; empty: every status.
    package var statuses: Set<StatusSelector>
    /// The devices as the journal names them (`DeviceAddress.description`: "sim", "tcp://HOST:PORT", …), any of
    /// them; empty: every device.
    package var devices: Set<String>

    package init(
        since: Int64? = nil, until: Int64? = nil, statuses: Set<StatusSelector> = [], devices: Set<String> = []
    ) {
        self.since = since
        self.until = until
        self.statuses = statuses
        self.devices = devices
    }

    /// Whether the filter takes every payment.
    package var takesAll: Bool { since == nil && until == nil && statuses.isEmpty && devices.isEmpty }

    /// Whether `entry` is in. With a period, a payment whose time does not read (`millisecondsSinceEpoch`) is out.
    package func matches(_ entry: JournalEntry) -> Bool {
        if since != nil || until != nil {
            guard let time = entry.millisecondsSinceEpoch else { return false }
            if let since, time < since { return false }
            if let until, time >= until { return false }
        }
        if !devices.isEmpty {
            guard let device = entry.device, devices.contains(device) else { return false }
        }
        return statuses.isEmpty || statuses.contains { $0.matches(entry) }
    }

    /// The entries that are in, in their order.
    package func apply(_ entries: [JournalEntry]) -> [JournalEntry] {
        takesAll ? entries : entries.filter(matches)
    }
}
