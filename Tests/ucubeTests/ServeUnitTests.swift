import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// The pure parts of `ucube serve`: routing, who may use it, the event log's replay.
@Suite struct ServeUnitTests {
    @Test func routesAreReadFromMethodAndPath() throws {
        #expect(try ServeRoute.match(method: "GET", path: "/").get() == .page)
        #expect(try ServeRoute.match(method: "POST", path: "/v1/payments").get() == .startPayment)
        #expect(try ServeRoute.match(method: "GET", path: "/v1/payments/a%2Fb").get() == .payment("a/b"))
        #expect(try ServeRoute.match(method: "POST", path: "/v1/payments/x/cancel").get() == .cancel("x"))
        #expect(try ServeRoute.match(method: "POST", path: "/v1/payments/x/choice").get() == .choice("x"))
        #expect(
            try ServeRoute.match(method: "GET", path: "/v1/terminals/tcp%3A%2F%2Fh%3A1").get() == .terminal("tcp://h:1")
        )
        #expect(try ServeRoute.match(method: "GET", path: "/v1/history/totals").get() == .totals)
        #expect(
            ServeRoute.match(method: "GET", path: "/v1/payments/x/refund")
                == .failure(.notFound("/v1/payments/x/refund")))
        guard case .failure(let wrong) = ServeRoute.match(method: "GET", path: "/v1/payments") else {
            Issue.record("GET /v1/payments matched")
            return
        }
        #expect(wrong.status == 405)
    }

    @Test func queriesAreDecoded() {
        let query = ServeRoute.query("status=approved,declined&device=tcp%3A%2F%2Fh%3A1&since=2026-01-01+10%3A00")
        #expect(query.map(\.0) == ["status", "device", "since"])
        #expect(query.map(\.1) == ["approved,declined", "tcp://h:1", "2026-01-01 10:00"])
    }

    static func request(
        _ route: ServeRoute = .startPayment, loopback: Bool = true, host: String? = "127.0.0.1:8686",
        origin: String? = nil, authorization: String? = nil
    ) -> ServeAccess.Request {
        ServeAccess.Request(
            route: route, peerIsLoopback: loopback, host: host, origin: origin, authorization: authorization,
            port: 8686)
    }

    @Test func theLoopbackListenerChecksHostAndOrigin() {
        let access = ServeAccess(loopbackListener: true)
        #expect(access.refusal(Self.request(), tokenValid: { _ in false }) == nil)
        #expect(access.refusal(Self.request(host: "localhost:8686"), tokenValid: { _ in false }) == nil)
        #expect(access.refusal(Self.request(host: "rebound.example:8686"), tokenValid: { _ in true })?.status == 421)
        #expect(access.refusal(Self.request(host: "127.0.0.1:9999"), tokenValid: { _ in true })?.status == 421)
        #expect(access.refusal(Self.request(host: nil), tokenValid: { _ in true })?.status == 421)
        #expect(
            access.refusal(Self.request(origin: "http://127.0.0.1:8686"), tokenValid: { _ in false }) == nil)
        #expect(
            access.refusal(Self.request(origin: "https://evil.example"), tokenValid: { _ in true })?.code
                == "origin-refused")
        #expect(access.refusal(Self.request(origin: "null"), tokenValid: { _ in true })?.status == 403)
        let allowing = ServeAccess(loopbackListener: true, allowedOrigins: ["https://pos.example"])
        #expect(allowing.refusal(Self.request(origin: "https://pos.example"), tokenValid: { _ in false }) == nil)
    }

    @Test func outsideTheLoopbackATokenIsNeeded() {
        let access = ServeAccess(loopbackListener: false)
        let outside = Self.request(loopback: false, host: "192.0.2.2:8686")
        #expect(access.refusal(outside, tokenValid: { _ in true })?.code == "token-required")
        var bearer = outside
        bearer.authorization = "Bearer good"
        #expect(access.refusal(bearer, tokenValid: { $0 == "good" }) == nil)
        bearer.authorization = "Bearer bad"
        #expect(access.refusal(bearer, tokenValid: { $0 == "good" })?.code == "token-invalid")
        bearer.authorization = "Basic good"
        #expect(access.refusal(bearer, tokenValid: { $0 == "good" })?.code == "token-invalid")
        // Pairing itself needs the code, not a token, and the demo page (static, it asks for the code) none; every
        // route with data does; the loopback needs neither.
        #expect(
            access.refusal(Self.request(.pair, loopback: false, host: "192.0.2.2:8686"), tokenValid: { _ in false })
                == nil)
        #expect(
            access.refusal(Self.request(.page, loopback: false, host: "192.0.2.2:8686"), tokenValid: { _ in false })
                == nil)
        for route in [ServeRoute.events, .terminals, .history, .totals, .payment("a"), .cancel("a"), .choice("a")] {
            #expect(
                access.refusal(Self.request(route, loopback: false, host: "192.0.2.2:8686"), tokenValid: { _ in true })?
                    .code == "token-required", "\(route)")
        }
        #expect(access.refusal(Self.request(loopback: true, host: "192.0.2.2:8686"), tokenValid: { _ in false }) == nil)
    }

    @Test func theEventLogReplaysWhatWasMissedAndSaysWhenItCannot() {
        var log = EventLog(epoch: "e", capacity: 3)
        #expect(log.since(nil).events.isEmpty && !log.since(nil).gap)
        let first = log.append("{\"n\":1}")
        #expect(first.id == "e-1")
        for n in 2...5 { _ = log.append("{\"n\":\(n)}") }
        // Kept: 3, 4, 5.
        #expect(log.since("e-4").events.map(\.sequence) == [5] && !log.since("e-4").gap)
        #expect(log.since("e-2").events.map(\.sequence) == [3, 4, 5] && !log.since("e-2").gap)
        #expect(log.since("e-1").gap, "event 2 is gone")
        #expect(log.since("e-5").events.isEmpty && !log.since("e-5").gap)
        #expect(log.since("other-4").gap && log.since("other-4").events.count == 3)
        #expect(log.since("e-99").gap, "an id from the future is another run's")
        #expect(log.since("garbage").gap)
    }

    @Test func eventFramesAreServerSentEvents() {
        #expect(ServedEvent(id: "e-1", sequence: 1, json: "{}").frame == "id: e-1\ndata: {}\n\n")
        #expect(ServedEvent(id: "", sequence: 0, json: "{}").frame == "data: {}\n\n")
        #expect(ServedEvent(id: "", sequence: 0, json: "").frame == ": keep-alive\n\n")
    }

    @Test func servedBytesAreMasked() {
        let text = Console.served(#"{"note":"card 4761739001010010"}"#, json: true)
        #expect(!String(decoding: text.bytes, as: UTF8.self).contains("4761739001010010"))
        let frame = Console.served("id: e-1\ndata: {\"pan\":\"4761739001010010\"}\n\n", json: false)
        #expect(!String(decoding: frame.bytes, as: UTF8.self).contains("4761739001010010"))
    }

    /// The systemd unit `make install` and the package install: it runs `ucube serve`, stops it with SIGTERM (as
    /// Ctrl-C), and leaves it longer than the server waits for its running payments.
    @Test func theSystemdUnitStopsServeAsCtrlCDoes() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let unit = try String(contentsOf: root.appendingPathComponent("Scripts/ucube.service"), encoding: .utf8)
        let settings = Dictionary(
            unit.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }, uniquingKeysWith: { first, _ in first })
        #expect(settings["ExecStart"] == "@BINDIR@/ucube serve")
        #expect(settings["KillSignal"] == "SIGTERM")
        #expect(Interrupts.signals.contains(SIGTERM))
        let stop = try #require(settings["TimeoutStopSec"].flatMap(Int64.init))
        #expect(stop > ServeChoices.stopBudget.components.seconds)
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        #expect(makefile.contains("Scripts/ucube.service"), "make install does not install the unit")
    }
}
