import Foundation
import UCubePayment

/// The answer to a `cancel` request: the line the control socket sends back (`WORD: MESSAGE`), what Ctrl-C prints,
/// and what `ucube cancel` reports and exits with. docs/architecture.md ("The control socket") lists the words.
package struct CancelAnswer: Sendable, Equatable {
    /// The answer's first word: what became of the request.
    package enum Kind: String, CaseIterable, Sendable {
        /// This request cancels: the payment will end CANCELLED, or the command is interrupted as by Ctrl-C.
        case accepted
        /// An earlier cancel was accepted, or the terminal cancelled: the payment ends (or ended) CANCELLED.
        case already
        /// Too late: the card was read, or the payment ended with another status; it runs to its end.
        case refused
        /// No payment runs: the process listening is itself a `ucube cancel` resetting the terminal.
        case none
        /// The holder cannot take the request now (too many connections, a request too slow, the process stopping).
        case busy
        /// The asker is another user.
        case denied
        /// Not a request the holder understands (unknown, or longer than a request line may be).
        case error
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package init(_ decision: CancelDecision) {
        switch decision {
        case .accepted:
            self.init(.accepted, "cancelling the payment")
        case .alreadyCancelled:
            self.init(.already, "a cancel was already accepted: the payment ends CANCELLED")
        case .refused(let reason):
            let tooLate = "too late — card already read; the payment runs to its end"
            self.init(.refused, reason == CancelDecision.tooLate ? tooLate : "cannot cancel: \(reason)")
        }
    }

    /// Parses `WORD: MESSAGE`; a line whose word is not one of ours is an `error` carrying the whole line.
    package init(line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if let colon = trimmed.firstIndex(of: ":"), let kind = Kind(rawValue: String(trimmed[..<colon])) {
            self.init(kind, trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            self.init(.error, trimmed)
        }
    }

    /// The answer as the control socket sends it (without its newline).
    package var line: String { kind.rawValue + ": " + message }
}
