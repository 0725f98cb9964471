/// The totals a terminal integration reconciles against (`history totals`): for each currency and transaction type,
/// the count and the sum of the approved, the declined and the reversed payments, and the rest counted by status, so
/// that every payment given is counted exactly once. A payment counts by `JournalEntry.countedStatus`: a reversal
/// record makes it reversed whatever the card said, an operator's resolution gives it the resolved status.
/// Simulated payments (a simulator or a recording) are grouped apart from real ones, never added to them.
package struct PaymentTotals: Equatable, Sendable {
    /// A count of payments and the sum of their amounts, in the currency's minor units.
    package struct Sum: Equatable, Sendable, Encodable {
        package var count = 0
        package var amount: UInt64 = 0

        package init(count: Int = 0, amount: UInt64 = 0) {
            self.count = count
            self.amount = amount
        }

        /// Adds one payment. The sum stops at `UInt64.max` rather than wrap: a journal is read as it is, and n12
        /// amounts (spec §4) would take 18 million payments to get there.
        mutating func add(_ minorUnits: UInt64?) {
            count += 1
            let (sum, overflow) = amount.addingReportingOverflow(minorUnits ?? 0)
            amount = overflow ? .max : sum
        }
    }

    /// The payments of one currency and transaction type, real or simulated.
    package struct Group: Equatable, Sendable, Encodable {
        /// ISO 4217 alphabetic code, as journalled; nil when the journal has none.
        package var currency: String?
        /// The transaction type's name ("purchase", "refund", …), as journalled; nil when the journal has none.
        package var type: String?
        /// Taken on a simulator or a recording: not real money.
        package var simulated: Bool
        package var approved = Sum()
        package var declined = Sum()
        /// Every payment a reversal record names, acknowledged by the host or not.
        package var reversed = Sum()
        /// Of `reversed`, those whose reversal the host has not acknowledged yet: still owed.
        package var reversalsOwed = Sum()

        package init(currency: String?, type: String?, simulated: Bool) {
            self.currency = currency
            self.type = type
            self.simulated = simulated
        }

        /// The payments counted in this group: approved, declined and reversed.
        package var count: Int { approved.count + declined.count + reversed.count }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // Always present, null when the journal has none: one shape for every group.
            try container.encode(currency, forKey: .currency)
            try container.encode(type, forKey: .type)
            try container.encode(simulated, forKey: .simulated)
            try container.encode(approved, forKey: .approved)
            try container.encode(declined, forKey: .declined)
            try container.encode(reversed, forKey: .reversed)
            try container.encode(reversalsOwed, forKey: .reversalsOwed)
        }

        private enum CodingKeys: String, CodingKey {
            case currency, type, simulated, approved, declined, reversed, reversalsOwed
        }
    }

    /// One group per currency, type and simulated-or-not that has an approved, declined or reversed payment, ordered
    /// by currency, then type, real before simulated.
    package var groups: [Group]
    /// The payments that are neither approved, declined nor reversed, by counted status ("CANCELLED", "ERROR",
    /// "unknown", …).
    package var others: [String: Int]

    /// Every payment counted: those in the groups and the others.
    package var payments: Int { groups.reduce(0) { $0 + $1.count } + otherCount }

    /// The payments counted in `others`.
    package var otherCount: Int { others.values.reduce(0, +) }

    /// The totals of `entries`.
    package init(_ entries: some Sequence<JournalEntry>) {
        var groups: [GroupKey: Group] = [:]
        var others: [String: Int] = [:]
        for entry in entries {
            let status = entry.countedStatus
            let bucket: WritableKeyPath<Group, Sum>
            switch status {
            case PaymentStatus.approved.rawValue: bucket = \.approved
            case PaymentStatus.declined.rawValue: bucket = \.declined
            case JournalEntry.reversedStatus: bucket = \.reversed
            default:
                others[status, default: 0] += 1
                continue
            }
            let key = GroupKey(currency: entry.currency, type: entry.type, simulated: entry.simulated)
            var group = groups[key] ?? Group(currency: key.currency, type: key.type, simulated: key.simulated)
            group[keyPath: bucket].add(entry.amount)
            if status == JournalEntry.reversedStatus, entry.reversal?.acknowledged != true {
                group.reversalsOwed.add(entry.amount)
            }
            groups[key] = group
        }
        self.groups = groups.values.sorted {
            ($0.currency ?? "", $0.type ?? "", $0.simulated ? 1 : 0) < (
                $1.currency ?? "", $1.type ?? "", $1.simulated ? 1 : 0
            )
        }
        self.others = others
    }

    /// What a group is one of.
    private struct GroupKey: Hashable {
        var currency: String?
        var type: String?
        var simulated: Bool
    }
}
