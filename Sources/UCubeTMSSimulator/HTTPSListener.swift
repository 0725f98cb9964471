import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UCubeSupport

/// The listening half the HTTPS simulators share (the TMS simulator, and the host simulator of `UCubeHostSimulator`):
/// TLS with a server identity from a `TMSCertificateAuthority`, an HTTP/1.1 pipeline, a connection closed when idle,
/// and one task that accepts connections and hands each to `serve`. What a connection answers is the caller's.
package struct HTTPSListener: Sendable {
    /// One accepted connection, after TLS: HTTP request parts in, response parts out.
    package typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let server: NIOAsyncChannel<Connection, Never>
    private let task: Task<Void, Never>
    /// The bound port (an ephemeral one when `start` was given 0).
    package let port: Int

    /// Builds the TLS context, binds `host:port` and starts accepting.
    /// - Parameters:
    ///   - identity: the server certificate and key.
    ///   - clientTrust: a CA to ask client certificates from (TLS accepts a connection without one, refuses one from
    ///     another CA); nil: no client certificate is asked for.
    ///   - idleTimeout: a connection with neither a read nor a write for this long is closed.
    ///   - serve: runs once for each connection, concurrently; the connection is closed when it returns.
    package static func start(
        host: String, port: Int, identity: TMSCertificateAuthority.Identity, clientTrust: TMSCertificateAuthority?,
        idleTimeout: TimeInterval, serve: @escaping @Sendable (Connection) async -> Void
    ) async throws(TMSSimulatorError) -> HTTPSListener {
        guard (0...65535).contains(port) else { throw TMSSimulatorError(.invalidArgument, "port \(port) out of range") }
        let tlsContext: NIOSSLContext
        do {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: [
                    .certificate(try NIOSSLCertificate(bytes: Array(identity.certificatePEM.utf8), format: .pem))
                ],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)))
            if let clientTrust {
                tls.certificateVerification = .optionalVerification
                tls.trustRoots = .certificates([
                    try NIOSSLCertificate(bytes: Array(try clientTrust.certificatePEM.utf8), format: .pem)
                ])
            }
            tls.minimumTLSVersion = .tlsv12
            tlsContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw TMSSimulatorError(.pki, "cannot build the server TLS context: \(error)")
        }
        let idle = TimeAmount.milliseconds(Int64(idleTimeout * 1000))
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            IdleStateHandler(allTimeout: idle), CloseOnIdleHandler(),
                            NIOSSLServerHandler(context: tlsContext),
                        ])
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withPipeliningAssistance: false, withErrorHandling: true)
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            switch (error as? IOError)?.errnoCode {
            case EADDRINUSE?:
                throw TMSSimulatorError(.addressInUse, "\(shown) is already in use")
            case let code?:
                throw TMSSimulatorError(.bind, "cannot listen on \(shown): \(ErrorNumber.text(code))")
            case nil:
                throw TMSSimulatorError(.bind, "cannot listen on \(shown): \(error)")
            }
        }
        guard let boundPort = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw TMSSimulatorError(.bind, "the listening socket has no port")
        }
        let task = Task {
            _ = try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            group.addTask { await serve(connection) }
                        }
                    } catch {
                        // The listening socket closed (stop) or failed: stop accepting.
                    }
                }
            }
        }
        return HTTPSListener(server: server, task: task, port: boundPort)
    }

    /// Closes the listening socket and every connection, and waits for them to end.
    package func stop() async {
        try? await server.channel.close()
        task.cancel()
        await task.value
    }
}

/// What the simulators' connections share: reading one request's body within a cap, and writing a whole answer.
package enum HTTPExchange {
    /// The body of the request whose `head` was just read: nil when it is (or announces itself) longer than `limit`
    /// bytes, the rest of it then left unread. Throws when the connection ends or a second head comes first.
    package static func readBody(
        head: HTTPRequestHead, limit: Int,
        from parts: inout NIOAsyncChannelInboundStream<HTTPServerRequestPart>.AsyncIterator
    ) async throws -> [UInt8]? {
        if let announced = head.headers.first(name: "content-length").flatMap(Int.init), announced > limit {
            return nil
        }
        var body: [UInt8] = []
        while true {
            switch try await parts.next() {
            case .body(let buffer):
                guard body.count + buffer.readableBytes <= limit else { return nil }
                body += buffer.readableBytesView
            case .end: return body
            case .head, nil: throw ConnectionEnded()
            }
        }
    }

    /// The request ended before its body did, or a new one began inside it.
    package struct ConnectionEnded: Error {}

    /// Writes one whole answer: head (with Content-Length, and `Connection: close` unless `keepAlive`), body, end.
    package static func writeFull(
        _ status: HTTPResponseStatus, contentType: String, _ bytes: [UInt8], version: HTTPVersion, keepAlive: Bool,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        try await outbound.write(.head(head(status, contentType, bytes.count, version, keepAlive)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        try await outbound.write(.end(nil))
    }

    /// Waits `duration`, or less when `channel` closes first (a client that gave up): in steps, so that the close is
    /// seen at once. Throws when cancelled.
    package static func wait(_ duration: Duration, whileOpen channel: any Channel) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while clock.now < deadline, channel.isActive {
            try await Task.sleep(for: min(.milliseconds(100), deadline - clock.now))
        }
    }

    /// A response head with the content type and length, and `Connection: close` unless `keepAlive`.
    package static func head(
        _ status: HTTPResponseStatus, _ type: String, _ length: Int, _ version: HTTPVersion, _ keepAlive: Bool
    ) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(length))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        return HTTPResponseHead(version: version, status: status, headers: headers)
    }
}

/// Closes a connection when `IdleStateHandler` reports it idle.
private final class CloseOnIdleHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
