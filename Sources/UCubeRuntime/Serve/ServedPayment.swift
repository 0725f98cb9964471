import Foundation
import UCubePayment
import UCubeProtocol

/// One payment as `ucube serve` answers it (`GET /v1/payments/{requestId}`, and in its events).
package struct ServedPayment: Sendable {
    package enum Phase: String, Sendable, Encodable {
        /// Claimed in the journal; the link is opening.
        case starting
        /// The terminal runs it.
        case running
        /// It ended: `status` and `outcome` say how.
        case finished
        /// It could not start (the link, the journal): no command reached the terminal for it; the same request id
        /// may be posted again.
        case failed

        package var isFinal: Bool { self == .finished || self == .failed }
    }

    package let requestID: String
    package let device: String
    package let amount: UInt64
    package let currency: String
    package let type: String
    package var phase: Phase = .starting
    /// Counts the payment's changes: an answer read before a later event (a POST's, under load) is older and a client
    /// keeps the newer (the demo page does).
    package var version = 0
    /// The last state the engine entered (spec §8.1).
    package var state: String? = nil
    package var prompt: ServedPrompt? = nil
    package var status: String? = nil
    package var outcome: ServedOutcome? = nil
    package var error: ServeError? = nil
    /// "accepted" once a cancel was accepted.
    package var cancel: String? = nil
    /// Answered from the journal: an earlier payment with this request id (another process, an earlier server).
    package var journalled: JournalEntry? = nil
    /// The receipt of a journalled payment (`history show ID --receipt`).
    package var receiptFromJournal: [String]? = nil

    package var location: String {
        "/v1/payments/"
            + (requestID.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(
                    CharacterSet(charactersIn: "/?#"))) ?? requestID)
    }
}

/// What the payment asks of the people at the till: the application to use, with the card's candidates (numbered from
/// 1), answered with `POST …/choice`; or, as an approved payment ends, the cardholder's signature on the receipt (the
/// card's CVM, EMV Book 3 Annex C3), which the cashier compares with the card's: nothing to post, the receipt carries
/// the signature line.
package struct ServedPrompt: Sendable, Encodable {
    package let kind: String
    package let candidates: [CandidateApplication]
    package let message: String?

    package static func application(_ candidates: [CandidateApplication]) -> ServedPrompt {
        ServedPrompt(kind: "application", candidates: candidates, message: nil)
    }

    package static let signature = ServedPrompt(
        kind: "signature", candidates: [],
        message: "have the cardholder sign the receipt, and compare the signature with the card's")

    private enum CodingKeys: String, CodingKey { case kind, candidates, message }
    private struct Candidate: Encodable {
        package let number: Int
        package let aid: String
        package let label: String
        package let priority: Int
        package let blocked: Bool
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(message, forKey: .message)
        guard kind == "application" else { return }
        try c.encode(
            candidates.enumerated().map { i, candidate in
                Candidate(
                    number: i + 1, aid: Hex.encode(candidate.aid), label: candidate.label,
                    priority: Int(candidate.priority), blocked: candidate.blocked)
            }, forKey: .candidates)
    }
}

/// A finished payment: what `pay --json` prints (with its receipt), and the receipt's lines.
package struct ServedOutcome: Sendable, Encodable {
    package let status: String?
    package let result: PaymentContextJSON
    package let receiptLines: [String]

    /// Approved, with the signature as the cardholder's verification: the receipt is to be signed.
    package var needsSignature: Bool { status == "APPROVED" && result.context.signatureRequired }

    package func encode(to encoder: any Encoder) throws { try result.encode(to: encoder) }
}

extension ServedPayment: Encodable {
    private enum CodingKeys: String, CodingKey {
        case requestId, device, amount, currency, type, phase, version, state, prompt, status, cancel, error, outcome
        case receipt, journal, links
    }

    package func encode(to encoder: any Encoder) throws { try encode(to: encoder, full: true) }

    /// `full`: with the outcome, the receipt and the journal entry (a state event leaves them out).
    package func encode(to encoder: any Encoder, full: Bool) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(requestID, forKey: .requestId)
        try c.encode(device, forKey: .device)
        try c.encode(amount, forKey: .amount)
        try c.encode(currency, forKey: .currency)
        try c.encode(type, forKey: .type)
        try c.encode(phase, forKey: .phase)
        try c.encode(version, forKey: .version)
        try c.encode(state, forKey: .state)
        try c.encode(prompt, forKey: .prompt)
        try c.encode(status, forKey: .status)
        try c.encode(cancel, forKey: .cancel)
        try c.encode(error.map(ServedErrorBody.init), forKey: .error)
        if full {
            try c.encode(outcome, forKey: .outcome)
            try c.encode(outcome?.receiptLines ?? receiptFromJournal, forKey: .receipt)
            try c.encodeIfPresent(journalled, forKey: .journal)
        }
        try c.encode(["self": location], forKey: .links)
    }
}

/// The `error` member of an answer: `{"code":…,"message":…,"hint":…}`.
package struct ServedErrorBody: Encodable {
    package let code: String
    package let message: String
    package let hint: String?

    package init(_ error: ServeError) {
        code = error.code
        message = error.message
        hint = error.hint
    }

    private enum CodingKeys: String, CodingKey { case code, message, hint }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(message, forKey: .message)
        try c.encode(hint, forKey: .hint)
    }
}

/// An error answer: `{"error":{…}}`.
package struct ServedErrorDocument: Encodable {
    package let error: ServedErrorBody
    package init(_ error: ServeError) { self.error = ServedErrorBody(error) }
}

/// One event's document: `{"type":"state","requestId":…,"device":…,"state":…,"payment":{…}}`.
package struct ServedEventDocument: Encodable {
    package let type: String
    package let payment: ServedPayment
    package var state: String? = nil
    package var task: String? = nil
    package var reason: String? = nil
    package var choice: Int? = nil
    /// With the payment's outcome and receipt (`finished`, `failed`, `prompt`); a state's event leaves them out.
    package var full = false

    private enum CodingKeys: String, CodingKey { case type, requestId, device, state, task, reason, choice, payment }

    private struct PaymentView: Encodable {
        package let payment: ServedPayment
        package let full: Bool
        package func encode(to encoder: any Encoder) throws { try payment.encode(to: encoder, full: full) }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(payment.requestID, forKey: .requestId)
        try c.encode(payment.device, forKey: .device)
        try c.encodeIfPresent(state, forKey: .state)
        try c.encodeIfPresent(task, forKey: .task)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encodeIfPresent(choice, forKey: .choice)
        try c.encode(PaymentView(payment: payment, full: full), forKey: .payment)
    }

    package var json: String { ServeJSON.encode(self) }

    /// The first event of a stream that missed some: read the payments' states again.
    package static func reset(lastID: String?) -> String {
        struct Reset: Encodable {
            let type = "reset"
            let lastEventId: String?
            let message = "some events since this id are no longer kept: read the payments' states again"
        }
        return ServeJSON.encode(Reset(lastEventId: lastID))
    }
}

/// Served JSON: one line, encoded as `--json` encodes (masking is the door's, `Console.served`).
package enum ServeJSON {
    package static func encode<T: Encodable>(_ value: T) -> String {
        (try? JSONOutput.encode(value, pretty: false))
            ?? #"{"error":{"code":"encoding","message":"cannot encode the answer","hint":null}}"#
    }
}
