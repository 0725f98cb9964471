/// A misbehaviour the simulator plays on the next requests to an endpoint, so that a client can be tested against a
/// failing TMS (`TMSSimulator.setFault(_:for:times:)`).
package enum TMSFault: Sendable, Hashable {
    /// Answer this HTTP status (e.g. 500) with a small JSON error body, before any other check.
    case status(Int)
    /// Wait this long, then answer normally (a client read timeout shorter than it fires).
    case delay(Duration)
    /// Answer 200 `application/json` with a body that is not valid JSON (a config cut mid-array).
    case malformedJSON
    /// Answer the normal status and headers, announce the full `Content-Length`, send half the body and close (a
    /// binary: its first `TMSSimulatorChoices.blocksBeforeDrop` blocks).
    case truncatedBody
    /// Binary: close the connection after the signature and `TMSSimulatorChoices.blocksBeforeDrop` blocks.
    /// Other endpoints: close without answering.
    case dropConnection
    /// Binary: one byte of the image (in its second block) sent inverted; the terminal's signature check refuses it.
    case corruptedBinary
    /// Binary: the image intact under a signature of the right length that signs nothing.
    case wrongSignature

    /// How long `silent` waits before answering: longer than any client read timeout.
    package static let silence: Duration = .seconds(3600)

    /// Whether this fault changes the answer of `endpoint`: an image and its signature come from the binary endpoint
    /// only, so `corrupt` and `bad-signature` elsewhere would do nothing and are refused.
    package func acts(on endpoint: TMSEndpoint) -> Bool {
        switch self {
        case .status, .delay, .malformedJSON, .truncatedBody, .dropConnection: true
        case .corruptedBinary, .wrongSignature: endpoint == .binary
        }
    }

    /// The `--tms-fault` words that act on `endpoint`.
    static func words(for endpoint: TMSEndpoint) -> String {
        let binaryOnly = endpoint == .binary ? ", corrupt, bad-signature" : ""
        return "an HTTP status, slow=SECONDS, silent, malformed-json, truncated, drop" + binaryOnly
    }

    /// One `--tms-fault` item: the fault, the endpoint, the terminal it is for (its serial; nil: any) and how many
    /// requests it affects.
    package struct Rule: Sendable, Hashable {
        package let endpoint: TMSEndpoint
        package let serial: String?
        package let fault: TMSFault
        package let times: Int
    }

    /// Parses the command line's `ENDPOINT[@SERIAL]:FAULT[xN],…` (`ucube simulate --tms-fault`): ENDPOINT is register,
    /// infos, config, binary or logs; SERIAL limits the fault to that terminal's requests (a fleet); FAULT is an HTTP
    /// status (500, 503…), `slow=SECONDS`, `silent`, `malformed-json`, `truncated`, `drop`, and for binary only
    /// `corrupt` or `bad-signature`; N how many requests it affects (default 1). A fault that would not change the
    /// endpoint's answer is refused.
    package static func parse(_ text: String) throws(TMSSimulatorError) -> [Rule] {
        try text.split(separator: ",").map { item throws(TMSSimulatorError) -> Rule in
            let bad = { (why: String) in
                TMSSimulatorError(
                    .invalidArgument,
                    "bad TMS fault '\(item)': \(why) (ENDPOINT[@SERIAL]:FAULT[xN], ENDPOINT one of \(TMSEndpoint.allCases.map(\.rawValue).joined(separator: ", ")); FAULT an HTTP status, slow=SECONDS, silent, malformed-json, truncated, drop, or for binary corrupt or bad-signature)"
                )
            }
            let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
            let target = parts[0].split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, let endpoint = TMSEndpoint(rawValue: target[0]) else {
                throw bad("unknown endpoint")
            }
            let serial = target.count == 2 ? target[1] : nil
            if let serial,
                serial.isEmpty || serial.count > 20 || !serial.utf8.allSatisfy({ (0x30...0x39).contains($0) })
            {
                throw bad("the serial is a decimal number")
            }
            var name = parts[1]
            var times = 1
            if let x = name.lastIndex(of: "x"), let n = Int(name[name.index(after: x)...]) {
                guard (1...1000).contains(n) else { throw bad("the count must be 1 to 1000") }
                times = n
                name = String(name[..<x])
            }
            let fault: TMSFault
            switch name {
            case "silent": fault = .delay(silence)
            case "malformed-json": fault = .malformedJSON
            case "truncated": fault = .truncatedBody
            case "drop": fault = .dropConnection
            case "corrupt": fault = .corruptedBinary
            case "bad-signature": fault = .wrongSignature
            default:
                if name.hasPrefix("slow="), let seconds = Double(name.dropFirst(5)), seconds > 0, seconds <= 3600 {
                    fault = .delay(.milliseconds(Int64(seconds * 1000)))
                } else if let code = Int(name), (400...599).contains(code) {
                    fault = .status(code)
                } else {
                    throw bad("unknown fault")
                }
            }
            guard fault.acts(on: endpoint) else {
                throw bad("\(name) acts on binary only; \(endpoint.rawValue) takes \(words(for: endpoint))")
            }
            return Rule(endpoint: endpoint, serial: serial, fault: fault, times: times)
        }
    }
}

/// The HTTPS certificate the TMS simulator presents (`ucube simulate --tms-certificate`): a TLS fault is per server,
/// since the handshake comes before any request.
package enum TMSServerCertificate: String, Sendable, CaseIterable {
    /// Issued by the simulator's CA, valid now.
    case valid
    /// Issued by the simulator's CA, expired yesterday.
    case expired
    /// Valid, but issued by a CA nobody trusts.
    case foreign
}
