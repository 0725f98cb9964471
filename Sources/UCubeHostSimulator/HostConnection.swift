import NIOCore
import NIOHTTP1
import UCubeTMSSimulator

/// One HTTPS connection to the host simulator: reads each request (its body capped at
/// `HostSimulatorChoices.maximumBody`), asks the simulator for the answer and writes it, or holds the connection
/// without answering. Every failure (a refused handshake, malformed HTTP, a client that goes away) ends only this
/// connection.
struct HostConnection: Sendable {
    let simulator: HostSimulator
    let holdLimit: Duration

    func serve(_ connection: HTTPSListener.Connection) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { return }
                    let body = try await HTTPExchange.readBody(
                        head: head, limit: HostSimulatorChoices.maximumBody, from: &parts)
                    guard head.method == .POST else {
                        try await HTTPExchange.writeFull(
                            .methodNotAllowed, contentType: "application/json",
                            Array(#"{"message":"use POST","status":"error"}"#.utf8), version: head.version,
                            keepAlive: false, outbound)
                        return
                    }
                    switch await simulator.answer(body) {
                    case .full(let status, let bytes):
                        // A body over the cap was left unread: the connection cannot carry another request.
                        let keepAlive = head.isKeepAlive && body != nil
                        try await HTTPExchange.writeFull(
                            status, contentType: "application/json", bytes, version: head.version,
                            keepAlive: keepAlive, outbound)
                        guard keepAlive else { return }
                    case .hold:
                        // Until the client gives up (and closes), or the hold limit: then close, unanswered.
                        try await HTTPExchange.wait(holdLimit, whileOpen: connection.channel)
                        return
                    }
                }
            }
        } catch {
            // Handshake refused, malformed HTTP (NIO answered 400), reset, cancelled by stop(): close this one only.
        }
    }
}
