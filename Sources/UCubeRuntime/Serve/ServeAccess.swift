import Foundation

/// Who may use `ucube serve` (docs/serve.md, "Who may use it"), decided for each request from what it carries: a pure
/// function of the listener, the peer and the request's headers.
///
/// - **Host**: on a loopback listener the `Host` header must name the loopback (`127.0.0.1`, `localhost`, `[::1]`)
///   and the port listened on, so that a page whose DNS name was rebound to 127.0.0.1 cannot reach the API.
/// - **Origin**: a browser's `Origin`, when there is one, must be the server's own (`http://` + `Host`) or one that
///   `--allow-origin` names: a page of another origin can neither start nor watch a payment. No `Origin` (curl, a
///   POS program, a same-origin GET) passes.
/// - **Token**: a peer that is not the loopback must show a paired token (`Authorization: Bearer …`); only the pairing
///   request itself (`POST /v1/pair`, which needs the code the terminal shows) and the demo page (`GET /`: static, no
///   data; it asks for the code, then sends the token) go without one.
package struct ServeAccess: Sendable {
    /// The listener is on a loopback address.
    package let loopbackListener: Bool
    /// `--allow-origin`, each as the browser sends it (`https://pos.example.com`).
    package var allowedOrigins: Set<String> = []

    package init(loopbackListener: Bool, allowedOrigins: Set<String> = []) {
        self.loopbackListener = loopbackListener
        self.allowedOrigins = allowedOrigins
    }

    package struct Request: Sendable {
        package var route: ServeRoute
        package var peerIsLoopback: Bool
        package var host: String?
        package var origin: String?
        package var authorization: String?
        /// The port the connection reached (the listener's).
        package var port: Int

        package init(
            route: ServeRoute,
            peerIsLoopback: Bool,
            host: String? = nil,
            origin: String? = nil,
            authorization: String? = nil,
            port: Int
        ) {
            self.route = route
            self.peerIsLoopback = peerIsLoopback
            self.host = host
            self.origin = origin
            self.authorization = authorization
            self.port = port
        }
    }

    /// nil: allowed. `tokenValid` is asked only when a token is needed and given.
    package func refusal(_ request: Request, tokenValid: (String) -> Bool) -> ServeError? {
        if loopbackListener, !Self.isLoopbackHost(request.host, port: request.port) {
            return ServeError(
                421, "host-refused",
                "the Host header \(request.host.map { "'\($0)'" } ?? "(none)") is not this loopback listener (127.0.0.1:\(request.port), localhost:\(request.port))",
                hint: "reach ucube serve by its loopback address")
        }
        if let origin = request.origin {
            let own = request.host.map { "http://" + $0.lowercased() }
            if origin.lowercased() != own && !allowedOrigins.contains(origin) {
                return ServeError(
                    403, "origin-refused",
                    "a page of \(origin) may not use this API",
                    hint: "serve the page from ucube serve itself, or name its origin with --allow-origin")
            }
        }
        if !request.peerIsLoopback && request.route != .pair && request.route != .page {
            guard let header = request.authorization else {
                return ServeError(
                    401, "token-required", "a request from outside this computer needs a paired token",
                    hint: "pair once: `ucube serve --pair` shows a code on the terminal; POST it to /v1/pair")
            }
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", tokenValid(String(parts[1])) else {
                return ServeError(401, "token-invalid", "the token is not one this server paired")
            }
        }
        return nil
    }

    /// `host` is `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT` (the port may be left out only when it is 80).
    package static func isLoopbackHost(_ host: String?, port: Int) -> Bool {
        guard let host = host?.lowercased() else { return false }
        let names = ["127.0.0.1", "localhost", "[::1]"]
        return names.contains { host == "\($0):\(port)" || (port == 80 && host == $0) }
    }

    /// An address given to `--listen` that is loopback: 127.0.0.0/8, ::1, localhost.
    package static func isLoopbackAddress(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
