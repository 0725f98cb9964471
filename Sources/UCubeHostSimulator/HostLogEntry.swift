import Foundation
import UCubeProtocol
import UCubeSupport

/// One document the host simulator got, as its log keeps it (in memory, and with `--host-log FILE` one JSON object a
/// line): what came, what the host decided, which fault it played. Masked by construction: the PAN only as first 6 /
/// last 4, never track data, a PIN block, SRED data or field 55; and each line passes through the masking of
/// `Masking` before it is written.
package struct HostLogEntry: Sendable, Hashable, Encodable {
    /// `authorization`, `reversal`, or `invalid` (a body answered 400 or 413).
    package enum Kind: String, Sendable, Hashable, Encodable {
        case authorization, reversal, invalid
    }

    /// 1 for the first document since start.
    package let sequence: Int
    /// ISO 8601, UTC.
    package let time: String
    package let type: Kind
    package var requestId: String?
    package var amount: UInt64?
    package var currency: String?
    package var entryMode: String?
    /// The PAN the SRED data deciphered to, masked; else the request's `maskedPan` when it is masked.
    package var maskedPan: String?
    /// `valid`, `invalid`, or nil when no ARQC was checked.
    package var arqc: String?
    package var decision: String?
    package var responseCode: String?
    package var hostReference: String?
    /// Why the host decided so (the answer's `"message"`), or why a body was refused.
    package var message: String?
    /// A reversal's reason, as the client gave it.
    package var reason: String?
    /// A reversal: how many reversals of this request id the host has now had (2 and more: a repeat).
    package var reversalCount: Int?
    package var acknowledged: Bool?
    /// The fault played (`HostFault.word`), if any.
    package var fault: String?
    /// The HTTP status answered; nil when no answer was sent.
    package var status: Int?

    init(sequence: Int, now: Date, type: Kind) {
        self.sequence = sequence
        self.time = UTCTime(secondsSinceEpoch: Int64(now.timeIntervalSince1970.rounded(.down))).iso8601
        self.type = type
    }

    /// The JSON Lines line: one object, keys sorted, a newline; masked.
    package var line: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and Booleans only: encoding cannot fail.
        let text = String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
        return Array((Masking.redactCardData(in: text) + "\n").utf8)
    }

    /// A masked PAN from a client's `maskedPan`: kept only when it hides digits (`*`), and then masked again.
    static func shown(maskedPAN: String?) -> String? {
        guard let maskedPAN, maskedPAN.contains(Masking.maskCharacter), maskedPAN.count <= 19 else { return nil }
        let chars = Array(maskedPAN)
        return String(
            chars.indices.map { $0 < 6 || $0 >= chars.count - 4 ? chars[$0] : Masking.maskCharacter })
    }
}
