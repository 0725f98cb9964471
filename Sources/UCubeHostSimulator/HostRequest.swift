import Foundation
import UCubeProtocol

/// A document the host simulator was sent (docs/authorization.md): an authorisation request or a reversal. Read from
/// the documented JSON, not from the client's own types, so that the host checks what the page promises.
package enum HostRequest: Sendable, Hashable {
    case authorization(Authorization)
    case reversal(Reversal)

    /// The fields of an authorisation request the host reads; the others are ignored.
    package struct Authorization: Sendable, Hashable {
        package let requestID: String
        /// Minor units.
        package let amount: UInt64
        package let currency: String?
        /// `icc`, `nfc` or `msr`.
        package let entryMode: String?
        package let maskedPAN: String?
        /// Field 55: tag → value.
        package let emv: [UInt32: [UInt8]]
        /// The enciphered card data and its KSN, as hex.
        package let sred: Secured?

        package struct Secured: Sendable, Hashable {
            package let ksn: String
            package let data: String
        }
    }

    /// A reversal of an approval the payment did not keep.
    package struct Reversal: Sendable, Hashable {
        package let requestID: String
        package let hostReference: String?
        package let reason: String?
    }

    /// Why a body is not a document the host serves (answered 400 with `reason`).
    package struct Invalid: Error, Sendable, Hashable {
        package let reason: String
    }

    /// Parses one request body: JSON, an object whose `"type"` is `authorization` or `reversal`, with the fields
    /// each needs of the right types (`emv`: tag → hex, both hex).
    package static func parse(_ body: [UInt8]) throws(Invalid) -> HostRequest {
        let decoder = JSONDecoder()
        let type: String
        do {
            type = try decoder.decode(Envelope.self, from: Data(body)).type
        } catch {
            throw Invalid(reason: "the body is not a JSON object with a \"type\"")
        }
        switch type {
        case "authorization":
            let document: AuthorizationDocument
            do {
                document = try decoder.decode(AuthorizationDocument.self, from: Data(body))
            } catch {
                throw Invalid(reason: "not an authorization request: \(Self.describe(error))")
            }
            var emv: [UInt32: [UInt8]] = [:]
            for (key, value) in document.emv ?? [:] {
                guard (2...6).contains(key.count), let tag = UInt32(key, radix: 16), let bytes = try? Hex.decode(value)
                else { throw Invalid(reason: "\"emv\" holds a key that is not a tag or a value that is not hex") }
                emv[tag] = bytes
            }
            return .authorization(
                Authorization(
                    requestID: document.requestId, amount: document.amount, currency: document.currency,
                    entryMode: document.entryMode, maskedPAN: document.maskedPan, emv: emv,
                    sred: document.sred.map { Authorization.Secured(ksn: $0.ksn, data: $0.data) }))
        case "reversal":
            do {
                let document = try decoder.decode(ReversalDocument.self, from: Data(body))
                return .reversal(
                    Reversal(
                        requestID: document.requestId, hostReference: document.hostReference, reason: document.reason)
                )
            } catch {
                throw Invalid(reason: "not a reversal: \(Self.describe(error))")
            }
        default:
            throw Invalid(reason: "\"type\" is neither authorization nor reversal")
        }
    }

    /// Which field was missing or of the wrong type, without the value.
    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "\"\(key.stringValue)\" is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: "it does not decode"
        }
    }

    private struct Envelope: Decodable {
        let type: String
    }

    private struct AuthorizationDocument: Decodable {
        let requestId: String
        let amount: UInt64
        let currency: String?
        let entryMode: String?
        let maskedPan: String?
        let emv: [String: String]?
        let sred: SecuredDocument?
    }

    private struct SecuredDocument: Decodable {
        let ksn: String
        let data: String
    }

    private struct ReversalDocument: Decodable {
        let requestId: String
        let hostReference: String?
        let reason: String?
    }
}
