import UCubeTMSSimulator

/// A misbehaviour the host simulator plays on the next requests, so that a client can be tested against a failing
/// host (`HostSimulator.addFault(_:times:)`, `ucube simulate --host-fault`).
package enum HostFault: Sendable, Hashable {
    /// Answer this HTTP status (e.g. 500) with a small JSON error body, to an authorisation or a reversal.
    case status(Int)
    /// Answer 200 with a body that is not a valid answer (JSON cut mid-document), to an authorisation or a reversal.
    case malformed
    /// No answer: hold the connection as amount rule `.12` does, for an authorisation or a reversal.
    case timeout
    /// An authorisation's 91 with one bit of its ARPC flipped, so that the card's check of it fails. Acts only on an
    /// answer that carries 91.
    case wrongARPC
    /// A reversal answered `{"acknowledged": false}`. Acts on reversals only.
    case noAcknowledgement

    /// The request kinds a fault can act on.
    package enum Target: Sendable, Hashable {
        /// An authorisation whose answer carries 91 (`hasIssuerData`), or not.
        case authorization(hasIssuerData: Bool)
        case reversal
    }

    /// Whether this fault changes the answer to `target`; a fault counts down only when it does.
    package func acts(on target: Target) -> Bool {
        switch (self, target) {
        case (.status, _), (.malformed, _), (.timeout, _): true
        case (.wrongARPC, .authorization(let hasIssuerData)): hasIssuerData
        case (.wrongARPC, .reversal): false
        case (.noAcknowledgement, .reversal): true
        case (.noAcknowledgement, .authorization): false
        }
    }

    /// The words `--host-fault` takes.
    package static let words = "status:CODE (an HTTP status 400…599), malformed, timeout, wrong-arpc, no-ack"

    /// One `--host-fault` item: the fault and how many requests it acts on.
    package struct Rule: Sendable, Hashable {
        package let fault: HostFault
        package let times: Int
    }

    /// Parses the command line's `FAULT[:TIMES],…`: FAULT is `status:CODE` (CODE an HTTP status from 400 to 599),
    /// `malformed`, `timeout`, `wrong-arpc` or `no-ack`; TIMES how many requests it acts on (1…1000, default 1).
    package static func parse(_ text: String) throws(TMSSimulatorError) -> [Rule] {
        try text.split(separator: ",").map { item throws(TMSSimulatorError) -> Rule in
            let bad = { (why: String) in
                TMSSimulatorError(
                    .invalidArgument, "bad host fault '\(item)': \(why) (FAULT[:TIMES], FAULT one of \(words))")
            }
            var parts = item.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let fault: HostFault
            switch parts.removeFirst() {
            case "malformed": fault = .malformed
            case "timeout": fault = .timeout
            case "wrong-arpc": fault = .wrongARPC
            case "no-ack": fault = .noAcknowledgement
            case "status":
                guard !parts.isEmpty, let code = Int(parts.removeFirst()), (400...599).contains(code) else {
                    throw bad("status takes an HTTP status from 400 to 599, e.g. status:500")
                }
                fault = .status(code)
            default: throw bad("unknown fault")
            }
            guard parts.count <= 1 else { throw bad("too many ':'") }
            var times = 1
            if let count = parts.first {
                guard let n = Int(count), (1...1000).contains(n) else { throw bad("TIMES must be 1 to 1000") }
                times = n
            }
            return Rule(fault: fault, times: times)
        }
    }

    /// The word `parse` reads for this fault, as the log shows it.
    package var word: String {
        switch self {
        case .status(let code): "status:\(code)"
        case .malformed: "malformed"
        case .timeout: "timeout"
        case .wrongARPC: "wrong-arpc"
        case .noAcknowledgement: "no-ack"
        }
    }
}
