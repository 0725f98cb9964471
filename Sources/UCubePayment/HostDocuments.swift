import Foundation
import UCubeProtocol

/// The documents ucube exchanges with an authorisation host through `--authorize exec:PROGRAM` or
/// `--authorize https://…` (docs/authorization.md; the request's JSON Schema is docs/authorization-request.schema.json):
/// the authorisation request, the host's answer, the reversal and its acknowledgement. Pure values and functions: the
/// transports (a child process, HTTPS) only carry bytes.
package enum HostDocuments {
    /// The version every document carries (`"version"`); a host may refuse one it does not know.
    package static let version = 1
    /// The largest answer read from a host: an answer is a few hundred bytes (scripts included).
    package static let maximumAnswerSize = 64 << 10

    /// The tags of the request's `"emv"` object: what an acquirer's field 55 carries for an online authorisation
    /// (EMV Book 3 Annex A, EMV 4.4 Book 4 §6.5.6), in plain. Cardholder data (5A, 57, 5F24) is never among them: it
    /// reaches the host enciphered, in `"sred"`.
    package static let fieldFiftyFive: [Tag] = [
        0x9F26, 0x9F27, 0x9F10, 0x9F37, 0x9F36, 0x95, 0x9A, 0x9C, 0x9F02, 0x9F03, 0x5F2A, 0x82, 0x9F1A, 0x9F33, 0x9F34,
        0x9F35, 0x84, 0x5F34, 0x9F09, 0x9F1E, 0x9F41, 0x9F53, 0x50, 0x9B, 0xDF3E,
    ].map { Tag($0) }

    /// What the terminal says of itself in a request.
    package struct Terminal: Hashable, Sendable {
        package var device: String?
        package var serial: String?
        package var firmware: String?

        package init(device: String?, serial: String?, firmware: String?) {
            self.device = device
            self.serial = serial
            self.firmware = firmware
        }
    }

    /// The authorisation request (docs/authorization.md, "The request"): one JSON object, keys sorted.
    package static func request(
        _ authorization: AuthorizationRequest, context: PaymentContext, terminal: Terminal
    ) -> [UInt8] {
        var emv: [String: String] = [:]
        let wanted = Set(fieldFiftyFive)
        // The last value of each tag the terminal gave: the authorisation's plain tags, which the payment fetched.
        for tlv in context.authorizationPlainTags where wanted.contains(tlv.tag) {
            emv[Hex.encode(tlv.tag.bytes)] = Hex.encode(tlv.value)
        }
        if let cryptogram = context.cryptogram { emv["9F26"] = emv["9F26"] ?? Hex.encode(cryptogram) }
        if let atc = context.atc { emv["9F36"] = emv["9F36"] ?? Hex.encode(atc) }
        if let tvr = context.tvr { emv["95"] = emv["95"] ?? Hex.encode(tvr) }
        let document = RequestDocument(
            type: "authorization", version: version, requestId: context.request.requestID,
            amount: authorization.amount, amountOther: context.request.cashback,
            currency: authorization.currency, transactionType: context.request.transactionType.name,
            entryMode: authorization.entryMode.rawValue,
            cryptogramType: authorization.cryptogram?.name, onlinePIN: authorization.onlinePIN,
            aid: context.selectedAID.map { Hex.encode($0) }, applicationLabel: context.applicationLabel,
            maskedPan: context.maskedPAN,
            terminal: TerminalDocument(
                device: terminal.device, serial: terminal.serial, firmware: terminal.firmware,
                simulated: context.simulated),
            emv: emv,
            sred: context.authorizationSecuredData.map {
                SecuredDocument(ksn: context.sredKSN.map { Hex.encode($0) } ?? "", data: Hex.encode($0))
            },
            pin: context.onlinePINBlock.map {
                SecuredDocument(ksn: context.pinKSN.map { Hex.encode($0) } ?? "", block: Hex.encode($0))
            })
        return encode(document)
    }

    /// The reversal of an approval the payment did not keep (docs/authorization.md, "Reversals").
    package static func reversal(_ owed: OwedReversal) -> [UInt8] {
        encode(
            ReversalDocument(
                type: "reversal", version: version, requestId: owed.requestID, hostReference: owed.hostReference,
                reason: owed.reason, amount: owed.amount, currency: owed.currency))
    }

    /// The host's answer to a request, checked whole: a decision, and a response code of two characters that agrees
    /// with it. Anything else is `HostFailure.malformed`, which the payment takes as "unable to go online".
    package static func answer(_ bytes: [UInt8]) throws(HostFailure) -> HostAnswer {
        guard bytes.count <= maximumAnswerSize else {
            throw .malformed("the answer is over \(maximumAnswerSize) bytes")
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw HostFailure.malformed("the answer is not a JSON object")
            }
            object = parsed
        } catch let failure as HostFailure {
            throw failure
        } catch {
            throw .malformed("the answer is not JSON")
        }
        guard let word = object["decision"] as? String else { throw .malformed("the answer has no \"decision\"") }
        guard let decision = HostAnswer.Decision(rawValue: word) else {
            throw .malformed("\"decision\" is \"\(Printable.text(word))\": approve, decline or unable")
        }
        var code = decision.defaultResponseCode
        if let given = object["responseCode"] {
            guard let text = given as? String, text.utf8.count == 2,
                text.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
            else { throw .malformed("\"responseCode\" is not two printable characters (8A)") }
            code = text
        }
        if decision == .approve && code != "00" {
            throw .malformed("\"decision\" approve with response code \"\(code)\": an approval is 00")
        }
        if decision == .decline && code == "00" {
            throw .malformed("\"decision\" decline with response code \"00\", which approves")
        }
        let issuerData = try hexField(object, "issuerAuthenticationData", lengths: 8...16)
        let scripts = try hexField(object, "issuerScripts", lengths: 1...1024)
        var script71: [UInt8]? = nil
        var script72: [UInt8]? = nil
        if let scripts {
            guard let parsed = try? TLVParser.parse(scripts), !parsed.isEmpty,
                parsed.allSatisfy({ $0.tag.rawValue == 0x71 || $0.tag.rawValue == 0x72 })
            else { throw .malformed("\"issuerScripts\" is not a list of 71/72 templates") }
            script71 = parsed.first { $0.tag.rawValue == 0x71 }?.value
            script72 = parsed.first { $0.tag.rawValue == 0x72 }?.value
        }
        var reference: String? = nil
        if let given = object["hostReference"] {
            guard let text = given as? String, !text.isEmpty, text.utf8.count <= 128,
                text.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
            else { throw .malformed("\"hostReference\" is not 1 to 128 printable characters") }
            reference = text
        }
        return HostAnswer(
            decision: decision, responseCode: code,
            response: AuthorizationResponse(
                arc: Array(code.utf8), issuerAuthenticationData: issuerData, script71: script71, script72: script72),
            hostReference: reference)
    }

    /// Whether the host acknowledged a reversal: `{"acknowledged": true}`, nothing else.
    package static func acknowledged(_ bytes: [UInt8]) -> Bool {
        guard bytes.count <= maximumAnswerSize,
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return false }
        return (object["acknowledged"] as? Bool) == true
    }

    private static func hexField(
        _ object: [String: Any], _ key: String, lengths: ClosedRange<Int>
    ) throws(HostFailure) -> [UInt8]? {
        guard let given = object[key] else { return nil }
        guard let text = given as? String, let bytes = try? Hex.decode(text), lengths.contains(bytes.count) else {
            throw .malformed("\"\(key)\" is not hex of \(lengths.lowerBound) to \(lengths.upperBound) bytes")
        }
        return bytes
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every field is a string, a number or a Boolean: encoding cannot fail.
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    private struct RequestDocument: Encodable {
        let type: String
        let version: Int
        let requestId: String
        let amount: UInt64
        let amountOther: UInt64?
        let currency: String
        let transactionType: String
        let entryMode: String
        let cryptogramType: String?
        let onlinePIN: Bool
        let aid: String?
        let applicationLabel: String?
        let maskedPan: String?
        let terminal: TerminalDocument
        let emv: [String: String]
        let sred: SecuredDocument?
        let pin: SecuredDocument?
    }

    private struct TerminalDocument: Encodable {
        let device: String?
        let serial: String?
        let firmware: String?
        let simulated: Bool
    }

    private struct SecuredDocument: Encodable {
        let ksn: String
        var data: String? = nil
        var block: String? = nil
    }

    private struct ReversalDocument: Encodable {
        let type: String
        let version: Int
        let requestId: String
        let hostReference: String?
        let reason: String
        let amount: UInt64?
        let currency: String?
    }
}

/// A host's answer, checked.
package struct HostAnswer: Hashable, Sendable {
    package enum Decision: String, Hashable, Sendable {
        case approve, decline, unable

        /// The 8A a decision means when the host gives none: 00, 05 (do not honour), 98 (unable to go online,
        /// which the card decides on with the terminal's default action codes).
        var defaultResponseCode: String {
            switch self {
            case .approve: "00"
            case .decline: "05"
            case .unable: "98"
            }
        }
    }

    package let decision: Decision
    /// 8A, two characters.
    package let responseCode: String
    /// What the card gets.
    package let response: AuthorizationResponse
    package let hostReference: String?
}

/// Why a host gave no usable answer: each is "unable to go online" for the payment (the card decides with the
/// terminal's default action codes), and the outcome names it.
package enum HostFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// No answer within --authorize-timeout.
    case timeout(seconds: Double)
    /// The hook program exited with this code, or was killed by this signal.
    case exited(Int32)
    case killed(signal: Int32)
    /// The hook program could not be started, or the host not reached.
    case unreachable(String)
    /// The HTTPS host answered this status (not 2xx).
    case httpStatus(Int)
    /// The answer is not a valid answer.
    case malformed(String)

    package var description: String {
        switch self {
        case .timeout(let seconds): "the host did not answer within \(seconds.formatted(.number)) s"
        case .exited(let code): "the hook exited with status \(code)"
        case .killed(let signal): "the hook was killed by signal \(signal)"
        case .unreachable(let why): "the host could not be reached: \(why)"
        case .httpStatus(let status): "the host answered HTTP \(status)"
        case .malformed(let why): "the host's answer is not valid: \(why)"
        }
    }

    /// A short stable word for JSON and the journal.
    package var code: String {
        switch self {
        case .timeout: "timeout"
        case .exited: "bad-exit"
        case .killed: "killed"
        case .unreachable: "unreachable"
        case .httpStatus: "http-status"
        case .malformed: "malformed-answer"
        }
    }
}

/// A reversal that is owed to a host: the payment it undoes and where it goes.
package struct OwedReversal: Hashable, Sendable {
    package var requestID: String
    /// The payment's own key (`PaymentJournal.Record.payment`), so that its reversal records pair with it.
    package var payment: String?
    package var hostReference: String?
    package var reason: String
    package var amount: UInt64?
    package var currency: String?
    /// The hook the approval came through (`exec:…` or an https URL), never a token.
    package var hook: String
    /// The files an https hook was reached with (its CA, client certificate, token file), never their contents.
    package var hookFiles: HostTLSFiles?

    package init(
        requestID: String, payment: String? = nil, hostReference: String?, reason: String, amount: UInt64?,
        currency: String?, hook: String, hookFiles: HostTLSFiles? = nil
    ) {
        self.requestID = requestID
        self.payment = payment
        self.hostReference = hostReference
        self.reason = reason
        self.amount = amount
        self.currency = currency
        self.hook = hook
        self.hookFiles = hookFiles
    }
}

/// The files an https hook is reached with (`--authorize-ca`, `--authorize-cert`, `--authorize-key`,
/// `--authorize-token-file`, or their variables): paths only, as the journal keeps them so that a later process sends
/// an owed reversal the same way. Never a token or a key's contents.
package struct HostTLSFiles: Codable, Hashable, Sendable {
    /// PEM certificates: the only CAs the host's certificate may chain to (nil: the system's).
    package var ca: String?
    /// A PEM client certificate (chain), and its PEM private key (nil: in the certificate's file).
    package var certificate: String?
    package var key: String?
    /// A file holding the bearer token.
    package var tokenFile: String?

    package init(ca: String? = nil, certificate: String? = nil, key: String? = nil, tokenFile: String? = nil) {
        self.ca = ca
        self.certificate = certificate
        self.key = key
        self.tokenFile = tokenFile
    }

    /// No file named: nil, so that the journal writes nothing.
    package var nonEmpty: HostTLSFiles? { self == HostTLSFiles() ? nil : self }
}

/// Text from outside the process, for a message: control characters and anything past 80 characters dropped.
enum Printable {
    static func text(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(80).map(Character.init))
    }
}
