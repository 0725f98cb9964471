/// What the host does with a request whose card checks out, by the last two digits of its amount in minor units, as
/// payment gateways' test hosts do (12.05 → declined 05). The one table of these rules: the host reads it, the
/// tests check every row and docs/host-simulator.md shows it (a test compares the two).
package struct HostAmountRule: Sendable, Hashable {
    /// What the host answers.
    package enum Outcome: Sendable, Hashable {
        /// `"decision": "decline"` with this response code (8A).
        case decline(String)
        /// `"decision": "unable"` with this response code.
        case unable(String)
        /// No answer: the connection is held open until the client gives up (or `HostSimulatorChoices.holdLimit`).
        case noAnswer
    }

    /// The amount's last two digits in minor units (0…99).
    package let cents: Int
    package let outcome: Outcome
    /// What the rule stands for, as the response code's meaning says (ISO 8583:1987).
    package let meaning: String

    /// Every rule; an amount ending in other digits is approved with 00.
    package static let table: [HostAmountRule] = [
        HostAmountRule(cents: 5, outcome: .decline("05"), meaning: "do not honour"),
        HostAmountRule(cents: 12, outcome: .noAnswer, meaning: "no answer: the client's timeout"),
        HostAmountRule(cents: 14, outcome: .decline("14"), meaning: "invalid card number"),
        HostAmountRule(cents: 51, outcome: .decline("51"), meaning: "insufficient funds"),
        HostAmountRule(cents: 54, outcome: .decline("54"), meaning: "expired card"),
        HostAmountRule(cents: 55, outcome: .decline("55"), meaning: "incorrect PIN"),
        HostAmountRule(cents: 61, outcome: .decline("61"), meaning: "exceeds withdrawal amount limit"),
        HostAmountRule(cents: 91, outcome: .unable("91"), meaning: "issuer or switch inoperative"),
    ]

    /// The rule for `amount` (minor units), nil when it is approved.
    package static func rule(forAmount amount: UInt64) -> HostAmountRule? {
        table.first { UInt64($0.cents) == amount % 100 }
    }

    /// The rows of docs/host-simulator.md's table, one a line: `| .05 | decline | 05 | do not honour |`.
    package static var markdownRows: [String] {
        table.map { rule in
            let cents = rule.cents < 10 ? ".0\(rule.cents)" : ".\(rule.cents)"
            let (decision, code): (String, String) =
                switch rule.outcome {
                case .decline(let code): ("decline", code)
                case .unable(let code): ("unable", code)
                case .noAnswer: ("no answer", "—")
                }
            return "| \(cents) | \(decision) | \(code) | \(rule.meaning) |"
        }
    }
}
