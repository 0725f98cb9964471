import Foundation

/// A refusal `ucube serve` answers with: an HTTP status, a stable code (docs/openapi.yaml lists them) and a message
/// for people. `{"error":{"code":"terminal-busy","message":"…","hint":null}}`.
package struct ServeError: Error, Equatable, Sendable {
    package let status: Int
    package let code: String
    package let message: String
    package var hint: String? = nil

    package init(_ status: Int, _ code: String, _ message: String, hint: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
    }

    package static func notFound(_ path: String) -> ServeError {
        ServeError(404, "not-found", "no such resource: \(path)", hint: "docs/openapi.yaml lists the routes")
    }
}

/// One route of the API, read from the method and the path (pure: tests call `match` directly).
package enum ServeRoute: Equatable, Sendable {
    case page
    case startPayment
    case payment(String)
    case cancel(String)
    case choice(String)
    case terminals
    case terminal(String)
    case events
    case history
    case totals
    case pair

    /// The route `method` and `path` (without its query) name; 404 for no route, 405 for a route with another method.
    package static func match(method: String, path: String) -> Result<ServeRoute, ServeError> {
        guard path.hasPrefix("/") else { return .failure(.notFound(path)) }
        let raw = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var segments: [String] = []
        for part in raw {
            guard let decoded = part.removingPercentEncoding else {
                return .failure(ServeError(400, "bad-path", "the path is not valid percent-encoding"))
            }
            segments.append(decoded)
        }
        if segments.last == "" && segments.count > 1 { segments.removeLast() }
        guard let (route, allowed) = route(segments) else { return .failure(.notFound(path)) }
        let asked = method == "HEAD" ? "GET" : method
        guard asked == allowed else {
            return .failure(
                ServeError(405, "method-not-allowed", "\(path) answers \(allowed), not \(method)"))
        }
        return .success(route)
    }

    /// The route the path's segments name, and the method it answers.
    private static func route(_ segments: [String]) -> (ServeRoute, String)? {
        if segments == [""] { return (.page, "GET") }
        guard segments.count >= 2, segments[0] == "v1" else { return nil }
        let rest = Array(segments.dropFirst())
        switch (rest.count, rest[0]) {
        case (1, "payments"): return (.startPayment, "POST")
        case (2, "payments"): return (.payment(rest[1]), "GET")
        case (3, "payments") where rest[2] == "cancel": return (.cancel(rest[1]), "POST")
        case (3, "payments") where rest[2] == "choice": return (.choice(rest[1]), "POST")
        case (1, "terminals"): return (.terminals, "GET")
        case (2, "terminals"): return (.terminal(rest[1]), "GET")
        case (1, "events"): return (.events, "GET")
        case (1, "history"): return (.history, "GET")
        case (2, "history") where rest[1] == "totals": return (.totals, "GET")
        case (1, "pair"): return (.pair, "POST")
        default: return nil
        }
    }

    /// The query's parameters, percent-decoded (`+` is a space); a name given twice keeps every value, in order.
    package static func query(_ text: Substring?) -> [(String, String)] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}
