import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol

/// One HTTP request as the API reads it: what the HTTP layer (`ServeHTTP`) took off the connection, bounded.
package struct ServeRequest: Sendable {
    package var method: String
    /// The path without its query.
    package var path: String
    package var query: [(String, String)]
    package var host: String?
    package var origin: String?
    package var authorization: String?
    package var lastEventID: String?
    package var body: [UInt8]
    package var peerIsLoopback: Bool
    /// The port the connection reached.
    package var localPort: Int
}

/// What the API answers: a whole document, or an event stream.
package enum ServeResponse: Sendable {
    case document(status: Int, type: String, body: String, headers: [(String, String)])
    case events(replay: [ServedEvent], stream: AsyncStream<ServedEvent>, subscriber: Int, headers: [(String, String)])

    package static func json<T: Encodable>(_ status: Int, _ value: T, headers: [(String, String)] = []) -> ServeResponse
    {
        .document(status: status, type: "application/json", body: ServeJSON.encode(value), headers: headers)
    }

    package static func error(_ error: ServeError) -> ServeResponse {
        var headers: [(String, String)] = []
        if error.status == 401 { headers.append(("WWW-Authenticate", "Bearer realm=\"ucube\"")) }
        return json(error.status, ServedErrorDocument(error), headers: headers)
    }

    package var status: Int {
        switch self {
        case .document(let status, _, _, _): return status
        case .events: return 200
        }
    }
}

/// The routes of `ucube serve` (docs/openapi.yaml): each request checked (`ServeAccess`), routed (`ServeRoute`) and
/// answered from the desk, the payments runner, the journal or the terminal.
package struct ServeAPI: Sendable {
    package let desk: PaymentDesk
    package let payments: ServePayments
    package let access: ServeAccess
    package let tokens: ServeTokens
    /// `GET /v1/history` and `/v1/history/totals` answered from the journal as `ucube history` reads it: the command
    /// line hands in its own period and status words (`since`, `until`, `status`).
    package let historyAnswer: @Sendable (ServeHistoryQuery) async -> ServeResponse

    package init(
        desk: PaymentDesk,
        payments: ServePayments,
        access: ServeAccess,
        tokens: ServeTokens,
        historyAnswer: @escaping @Sendable (ServeHistoryQuery) async -> ServeResponse
    ) {
        self.desk = desk
        self.payments = payments
        self.access = access
        self.tokens = tokens
        self.historyAnswer = historyAnswer
    }

    package func handle(_ request: ServeRequest) async -> ServeResponse {
        // A page of an origin --allow-origin names reads the answers (CORS); its browser asks first (OPTIONS).
        let cors: [(String, String)] =
            request.origin.map { access.allowedOrigins.contains($0) } == true
            ? [("Access-Control-Allow-Origin", request.origin ?? ""), ("Vary", "Origin")] : []
        if request.method == "OPTIONS" {
            guard !cors.isEmpty else {
                return .error(
                    ServeError(
                        403, "origin-refused", "only an origin --allow-origin names may ask (OPTIONS)",
                        hint: "serve the page from ucube serve itself, or name its origin with --allow-origin"))
            }
            return .document(
                status: 204, type: "text/plain", body: "",
                headers: cors + [
                    ("Access-Control-Allow-Methods", "GET, POST"),
                    ("Access-Control-Allow-Headers", "Content-Type, Authorization, Last-Event-ID"),
                    ("Access-Control-Max-Age", "600"),
                ])
        }
        switch await answer(request) {
        case .document(let status, let type, let body, let headers):
            return .document(status: status, type: type, body: body, headers: headers + cors)
        case .events(let replay, let stream, let subscriber, let headers):
            return .events(replay: replay, stream: stream, subscriber: subscriber, headers: headers + cors)
        }
    }

    private func answer(_ request: ServeRequest) async -> ServeResponse {
        let route: ServeRoute
        switch ServeRoute.match(method: request.method, path: request.path) {
        case .success(let matched): route = matched
        case .failure(let error): return .error(error)
        }
        let asked = ServeAccess.Request(
            route: route, peerIsLoopback: request.peerIsLoopback, host: request.host, origin: request.origin,
            authorization: request.authorization, port: request.localPort)
        if let refusal = access.refusal(asked, tokenValid: tokens.isValid) { return .error(refusal) }
        switch route {
        case .page:
            return .document(
                status: 200, type: "text/html; charset=utf-8", body: DemoPage.html,
                headers: [("Content-Security-Policy", DemoPage.contentSecurityPolicy)])
        case .startPayment:
            let order: PaymentOrder
            switch decode(PaymentOrder.self, request.body) {
            case .success(let value): order = value
            case .failure(let error): return .error(error)
            }
            switch await payments.start(order) {
            case .success(let (status, payment)):
                return .json(status, payment, headers: [("Location", payment.location)])
            case .failure(let error):
                return .error(error)
            }
        case .payment(let id):
            guard let payment = desk.payment(id) ?? ServePayments.fromJournal(id) else {
                return .error(ServeError(404, "no-payment", "no payment \(id) is known"))
            }
            return .json(200, payment)
        case .cancel(let id):
            let (status, report) = await payments.cancel(id)
            return .json(status, report)
        case .choice(let id):
            return choose(id, request.body)
        case .terminals:
            return .json(200, TerminalList(terminals: desk.devices.map { terminal($0, info: nil) }))
        case .terminal(let device):
            guard desk.devices.contains(device) else { return .error(payments.unknownTerminal(device)) }
            return await terminalInfo(device)
        case .events:
            // The header (a browser's reconnection), else `?lastEventId=` (a page that kept the id across a reload:
            // EventSource cannot set the header itself).
            let lastID = request.lastEventID ?? request.query.last { $0.0 == "lastEventId" }?.1
            guard let (replay, stream, key) = desk.subscribe(lastID: lastID) else {
                return .error(
                    ServeError(
                        503, "too-many-streams",
                        "\(ServeChoices.maxSubscribers) event streams are open (or the server is stopping)"))
            }
            return .events(replay: replay, stream: stream, subscriber: key, headers: [])
        case .history, .totals:
            return await history(request.query, totals: route == .totals)
        case .pair:
            struct Pair: Decodable {
                var code: String
                var name: String?
            }
            let pair: Pair
            switch decode(Pair.self, request.body) {
            case .success(let value): pair = value
            case .failure(let error): return .error(error)
            }
            switch tokens.pair(code: pair.code, name: pair.name ?? "pos") {
            case .success(let token):
                StandardError.write(
                    "serve: a POS paired (\(pair.name ?? "pos")); its token's hash is in \(tokens.path)")
                return .json(201, ["token": token])
            case .failure(let error):
                return .error(error)
            }
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) -> Result<T, ServeError> {
        do {
            return .success(try JSONDecoder().decode(T.self, from: Data(body)))
        } catch DecodingError.keyNotFound(let key, _) {
            return .failure(ServeError(400, "invalid-json", "the body lacks \"\(key.stringValue)\""))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(ServeError(400, "invalid-json", "\"\(field)\" has the wrong type"))
        } catch {
            return .failure(ServeError(400, "invalid-json", "the body is not the JSON object this route takes"))
        }
    }

    /// `POST /v1/payments/{id}/choice`: `{"application": N}` (1…, as the shell's prompt numbers them) or
    /// `{"cancel": true}`.
    private func choose(_ id: String, _ body: [UInt8]) -> ServeResponse {
        struct Choice: Decodable {
            var application: Int?
            var cancel: Bool?
        }
        let choice: Choice
        switch decode(Choice.self, body) {
        case .success(let value): choice = value
        case .failure(let error): return .error(error)
        }
        guard let payment = desk.payment(id) else {
            return .error(ServeError(404, "no-payment", "no payment \(id) is known"))
        }
        guard let prompt = payment.prompt else {
            return .error(ServeError(409, "no-prompt", "payment \(id) is not waiting for a choice"))
        }
        var index: Int? = nil
        if choice.cancel != true {
            guard let number = choice.application, (1...prompt.candidates.count).contains(number) else {
                return .error(
                    ServeError(
                        400, "invalid-choice",
                        "give \"application\": 1…\(prompt.candidates.count), or \"cancel\": true"))
            }
            index = number - 1
        }
        guard desk.answer(id, index) else {
            return .error(ServeError(409, "no-prompt", "payment \(id) is not waiting for a choice"))
        }
        return .json(200, desk.payment(id) ?? payment)
    }

    private struct TerminalList: Encodable { let terminals: [TerminalView] }

    private struct TerminalView: Encodable {
        package let device: String
        package let busy: Bool
        package let requestId: String?
        package let simulated: Bool
        package let info: DeviceInfo?
        package let error: ServedErrorBody?

        private enum CodingKeys: String, CodingKey { case device, busy, requestId, simulated, info, error }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(device, forKey: .device)
            try c.encode(busy, forKey: .busy)
            try c.encode(requestId, forKey: .requestId)
            try c.encode(simulated, forKey: .simulated)
            try c.encodeIfPresent(info, forKey: .info)
            try c.encodeIfPresent(error, forKey: .error)
        }
    }

    private func terminal(_ device: String, info: DeviceInfo?, error: ServeError? = nil) -> TerminalView {
        let running = desk.running(on: device)
        let simulated = (try? DeviceAddress(parsing: device))?.isSimulated ?? false
        return TerminalView(
            device: device, busy: running != nil, requestId: running, simulated: simulated, info: info,
            error: error.map(ServedErrorBody.init))
    }

    /// `GET /v1/terminals/{device}`: what `info` says (GetInfo), when no payment holds the terminal.
    private func terminalInfo(_ device: String) async -> ServeResponse {
        if desk.running(on: device) != nil { return .json(200, terminal(device, info: nil)) }
        let context = payments.context.single(device, json: true)
        do {
            let info = try await ControlSocket.inUnit(
                device, stop: { CancelAnswer(.none, "ucube serve is reading the terminal's info: no payment runs") }
            ) {
                try await withConnection(context, prepare: .query) { connection in
                    let reply = try await connection.query(GetInfo())
                    if reply.isCiphered { throw CLIFailure.cipheredInfo }
                    return reply.response
                }
            }
            return .json(200, terminal(device, info: info))
        } catch let failure as CLIFailure {
            let busy = failure.exit.code == ExitCodes.busy.code
            return .json(
                busy ? 200 : 502,
                TerminalView(
                    device: device, busy: busy, requestId: nil,
                    simulated: (try? DeviceAddress(parsing: device))?.isSimulated ?? false, info: nil,
                    error: ServedErrorBody(ServeError(busy ? 409 : 502, failure.code, failure.message))))
        } catch {
            return .error(ServeError(502, "terminal", "\(device): \(error)"))
        }
    }

    /// `GET /v1/history` and `/v1/history/totals`: `history`'s filters (`since`, `until`, `status`, `device`,
    /// `last`) from the query.
    private func history(_ query: [(String, String)], totals: Bool) async -> ServeResponse {
        var since: String?, until: String?, last: Int?
        var statuses: [String] = [], devices: [String] = []
        for (name, value) in query {
            switch name {
            case "since": since = value
            case "until": until = value
            case "status": statuses.append(value)
            case "device": devices.append(value)
            case "last" where !totals:
                guard let n = Int(value), n >= 0 else {
                    return .error(ServeError(400, "invalid-query", "last: a count, 0 or more"))
                }
                last = n
            default:
                return .error(ServeError(400, "invalid-query", "unknown query parameter \(name)"))
            }
        }
        return await historyAnswer(
            ServeHistoryQuery(
                since: since, until: until, statuses: statuses, devices: devices, last: last, totals: totals))
    }
}
