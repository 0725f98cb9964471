import UCubeProtocol

// MARK: - Hooks

/// Chooses the application when the card offers several (spec §8.1 SMC_SELECT_APPLICATION). Returns `nil` to cancel
/// the payment; throwing ends it with ERROR (`TaskCancelled` / `CancellationError`: CANCELLED).
package protocol ApplicationSelectionTask: Sendable {
    func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws -> CandidateApplication?
}

/// Computes the terminal verification results for the selected application (spec §8.1 SMC_RISK_MANAGEMENT).
package protocol RiskManagementTask: Sendable {
    /// The TVR, tag 95: 5 bytes.
    func riskManagement(aid: [UInt8], context: PaymentContext) async throws -> [UInt8]
}

/// Asks the issuer (spec §8.1 AUTHORIZATION): returns 8A and optional issuer data and scripts (spec §7.7).
package protocol AuthorizationTask: Sendable {
    func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws -> AuthorizationResponse
}

/// Thrown by a task to cancel the payment (the payment ends CANCELLED, not ERROR).
package struct TaskCancelled: Error, Hashable, Sendable {
    package init() {}
}

// MARK: - Authorization response

/// The issuer's answer (spec §7.7): 8A, optional 91 issuer authentication data, 71/72 issuer scripts.
package struct AuthorizationResponse: Hashable, Sendable, Encodable {
    /// 8A: two ASCII characters ("00" = 30 30).
    package var arc: [UInt8]
    /// 91: 8…16 bytes.
    package var issuerAuthenticationData: [UInt8]?
    /// Value of the 71 template.
    package var script71: [UInt8]?
    /// Value of the 72 template.
    package var script72: [UInt8]?

    package init(
        arc: [UInt8],
        issuerAuthenticationData: [UInt8]? = nil,
        script71: [UInt8]? = nil,
        script72: [UInt8]? = nil
    ) {
        self.arc = arc
        self.issuerAuthenticationData = issuerAuthenticationData
        self.script71 = script71
        self.script72 = script72
    }

    /// "00": approved (the only value the old SDK treats as approved, spec §7.7).
    package static let approved = AuthorizationResponse(arc: Array("00".utf8))
    /// "05": declined.
    package static let declined = AuthorizationResponse(arc: Array("05".utf8))
    /// "98": unable to go online (first character '9' → DF16 = 0x00).
    package static let unableToGoOnline = AuthorizationResponse(arc: Array("98".utf8))

    /// 8A is "00".
    package var isApproved: Bool { arc == Array("00".utf8) }

    /// "3030" or "3030:0102030405060708" — 8A as 4 hex digits, then optionally ':' and 91 as hex (8…16 bytes).
    package init(parsing text: String) throws(AuthorizationParseError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let arc: [UInt8]
        do {
            arc = try Hex.decode(parts[0])
        } catch {
            throw AuthorizationParseError(.badHex, "8A: \(error)")
        }
        guard arc.count == 2 else {
            throw AuthorizationParseError(.badLength, "8A is 2 bytes (4 hex digits), got \(arc.count)")
        }
        var issuerData: [UInt8]? = nil
        if parts.count == 2 {
            do {
                issuerData = try Hex.decode(parts[1])
            } catch {
                throw AuthorizationParseError(.badHex, "issuer authentication data: \(error)")
            }
            guard let data = issuerData, (8...16).contains(data.count) else {
                throw AuthorizationParseError(
                    .badLength,
                    "issuer authentication data (91) is 8…16 bytes, got \(issuerData?.count ?? 0)"
                )
            }
        }
        self.init(arc: arc, issuerAuthenticationData: issuerData)
    }

    private enum CodingKeys: String, CodingKey { case arc, arcText, issuerAuthenticationData, script71, script72 }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(arc.hex, forKey: .arc)
        try c.encodeIfPresent(printableASCII(arc), forKey: .arcText)
        try c.encodeIfPresent(issuerAuthenticationData?.hex, forKey: .issuerAuthenticationData)
        try c.encodeIfPresent(script71?.hex, forKey: .script71)
        try c.encodeIfPresent(script72?.hex, forKey: .script72)
    }
}

/// Authorization text that could not be read (`--authorize 8A-hex[:issuer-data]`).
package struct AuthorizationParseError: CodedError {
    package enum Code: String, Sendable, Hashable {
        case badHex
        case badLength
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The bytes as text when every byte is printable ASCII.
func printableASCII(_ bytes: [UInt8]) -> String? {
    guard !bytes.isEmpty, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

// MARK: - Shipped tasks

/// Automatic selection by EMV rules (EMV Book 1 §12.4): blocked applications are skipped; the lowest application
/// priority indicator (87, low nibble, 1 = highest) wins; 0 means "no priority" and ranks after every numbered one;
/// ties keep the card's order.
package struct EMVPrioritySelection: ApplicationSelectionTask {
    package init() {}

    package func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws
        -> CandidateApplication?
    {
        Self.choose(candidates)
    }

    /// The pure rule, for tests and other tasks.
    package static func choose(_ candidates: [CandidateApplication]) -> CandidateApplication? {
        func rank(_ app: CandidateApplication) -> Int {
            let priority = Int(app.priority & 0x0F)
            return priority == 0 ? 16 : priority
        }
        return candidates.enumerated()
            .filter { !$0.element.blocked }
            .min { lhs, rhs in
                rank(lhs.element) != rank(rhs.element) ? rank(lhs.element) < rank(rhs.element) : lhs.offset < rhs.offset
            }?
            .element
    }
}

/// The first application that is not blocked, in the card's order.
package struct FirstApplicationSelection: ApplicationSelectionTask {
    package init() {}

    package func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws
        -> CandidateApplication?
    {
        candidates.first { !$0.blocked }
    }
}

/// The application with this AID; fails (ERROR) when the card does not offer it.
package struct FixedAIDSelection: ApplicationSelectionTask {
    package let aid: [UInt8]

    package init(aid: [UInt8]) { self.aid = aid }

    package func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws
        -> CandidateApplication?
    {
        guard let match = candidates.first(where: { $0.aid == aid }) else {
            throw SelectionError(reason: "the card offers no application with AID \(aid.hex)")
        }
        return match
    }

    struct SelectionError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}

/// The default risk management: a TVR of all zeros (nothing the terminal itself flags).
package struct ZeroTVRRiskManagement: RiskManagementTask {
    package init() {}

    package func riskManagement(aid: [UInt8], context: PaymentContext) async throws -> [UInt8] {
        [UInt8](repeating: 0, count: 5)
    }
}

/// Always answers the same thing (`ucube pay --authorize approve|decline|unable|8A-hex[:issuer-data]`).
package struct FixedAuthorization: AuthorizationTask {
    package enum Decision: Hashable, Sendable {
        /// 8A "00".
        case approve
        /// 8A "05".
        case decline
        /// 8A "98".
        case unable
        /// As given.
        case raw(AuthorizationResponse)
    }

    package let decision: Decision

    package init(_ decision: Decision) { self.decision = decision }

    package var response: AuthorizationResponse {
        switch decision {
        case .approve: .approved
        case .decline: .declined
        case .unable: .unableToGoOnline
        case .raw(let response): response
        }
    }

    package func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws
        -> AuthorizationResponse
    {
        response
    }
}
