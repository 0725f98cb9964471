import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import UCubeSupport
import UCubeTMSSimulator

/// The HTTP side of `ucube serve`, on SwiftNIO (docs/serve.md, "Why SwiftNIO"): HTTP/1.1 with keep-alive, request
/// heads bounded by the decoder (`ServeChoices.maxHeaders`), bodies by `maxBody`, connections by `maxConnections`, an
/// idle connection closed. Each request is handed to `ServeAPI`; every byte of the answer comes from the door
/// (`Console.served`), and each request gets one access-log line on stderr (`StandardError`, masked).
package struct ServeHTTP: Sendable {
    package typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let server: NIOAsyncChannel<Connection, Never>
    private let task: Task<Void, Never>
    /// The address listened on (its port an ephemeral one when `--listen` gave 0).
    package let host: String
    package let port: Int

    package static func start(host: String, port: Int, api: ServeAPI) async throws -> ServeHTTP {
        let idle = TimeAmount.milliseconds(Int64(ServeChoices.idleTimeout.wholeMilliseconds))
        let limits = {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = ServeChoices.maxHeaders
            limits.maxHeaderListSize = ServeChoices.maxHeaders
            limits.maxHeaderFieldCount = 100
            return limits
        }()
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            IdleStateHandler(allTimeout: idle), ServeCloseOnIdle(),
                        ])
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withPipeliningAssistance: false, withErrorHandling: true,
                            withOutboundHeaderValidation: true, withEncoderConfiguration: .init(),
                            withDecoderLimitConfiguration: limits)
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            switch (error as? IOError)?.errnoCode {
            case EADDRINUSE?:
                throw CLIFailure(ExitCodes.unavailable, "\(shown) is already in use", hint: "give another --listen")
            case let code?:
                throw CLIFailure(ExitCodes.unavailable, "cannot listen on \(shown): \(ErrorNumber.text(code))")
            case nil:
                throw CLIFailure(ExitCodes.unavailable, "cannot listen on \(shown): \(error)")
            }
        }
        guard let boundPort = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw CLIFailure(ExitCodes.ioError, "the listening socket has no port")
        }
        let open = ConnectionCount()
        let task = Task {
            _ = try? await server.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            let admitted = open.admit()
                            group.addTask {
                                if admitted {
                                    await serve(connection, api: api)
                                    open.leave()
                                } else {
                                    await refuse(connection)
                                }
                            }
                        }
                    } catch {
                        // The listening socket closed (stop) or failed: stop accepting.
                    }
                }
            }
        }
        return ServeHTTP(server: server, task: task, host: host, port: boundPort)
    }

    /// Stops accepting, and waits until every connection has ended (the event streams end first: `endStreams`).
    package func stop() async {
        try? await server.channel.close()
        task.cancel()
        await task.value
    }

    private static func refuse(_ connection: Connection) async {
        _ = try? await connection.executeThenClose { _, outbound in
            let error = ServeError(503, "too-many-connections", "\(ServeChoices.maxConnections) connections are open")
            try await write(.error(error), version: .http1_1, keepAlive: false, head: false, outbound)
        }
    }

    /// Serves the requests of one connection, one after the other, until it closes, asks to, or becomes a stream.
    private static func serve(_ connection: Connection, api: ServeAPI) async {
        let peer = connection.channel.remoteAddress
        let peerText = peer?.ipAddress ?? "?"
        let peerIsLoopback = isLoopback(peer)
        let localPort = connection.channel.localAddress?.port ?? 0
        _ = try? await connection.executeThenClose { inbound, outbound in
            var parts = inbound.makeAsyncIterator()
            while let part = try await parts.next() {
                guard case .head(let head) = part else { continue }
                let started = ContinuousClock.now
                let (path, query) = split(head.uri)
                var keepAlive = head.isKeepAlive
                var response: ServeResponse
                if let body = try await HTTPExchange.readBody(head: head, limit: ServeChoices.maxBody, from: &parts) {
                    let request = ServeRequest(
                        method: head.method.rawValue, path: path, query: ServeRoute.query(query),
                        host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin"),
                        authorization: head.headers.first(name: "authorization"),
                        lastEventID: head.headers.first(name: "last-event-id"), body: body,
                        peerIsLoopback: peerIsLoopback, localPort: localPort)
                    response = await api.handle(request)
                } else {
                    // The rest of the body is left unread: the connection cannot carry another request.
                    keepAlive = false
                    response = .error(
                        ServeError(413, "body-too-large", "a request body is at most \(ServeChoices.maxBody) bytes"))
                }
                let ms = (ContinuousClock.now - started).wholeMilliseconds
                StandardError.write("serve: \(peerText) \(head.method.rawValue) \(path) \(response.status) \(ms) ms")
                if case .events(let replay, let stream, let key, let extra) = response {
                    defer { api.desk.unsubscribe(key) }
                    try await streamEvents(replay, stream, headers: extra, version: head.version, outbound)
                    return
                }
                try await write(
                    response, version: head.version, keepAlive: keepAlive, head: head.method == .HEAD,
                    outbound)
                if !keepAlive { return }
            }
        }
    }

    /// `text/event-stream`: the replay, then each event as it comes, until the desk ends the stream (the server
    /// stops, or the client was too slow) or the client goes.
    private static func streamEvents(
        _ replay: [ServedEvent], _ stream: AsyncStream<ServedEvent>, headers extra: [(String, String)],
        version: HTTPVersion,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        for (name, value) in extra { headers.add(name: name, value: value) }
        try await outbound.write(.head(HTTPResponseHead(version: version, status: .ok, headers: headers)))
        // The reconnection delay a browser waits before it comes back with Last-Event-ID.
        let served = Console.served("retry: 1000\n\n", json: false)
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: served.bytes))))
        for event in replay { try await send(event, outbound) }
        for await event in stream { try await send(event, outbound) }
        try await outbound.write(.end(nil))
    }

    private static func send(
        _ event: ServedEvent, _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: Console.served(event.frame, json: false).bytes))))
    }

    private static func write(
        _ response: ServeResponse, version: HTTPVersion, keepAlive: Bool, head isHead: Bool,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        guard case .document(let status, let type, let body, let extra) = response else { return }
        let served = Console.served(body, json: type == "application/json")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(served.bytes.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        for (name, value) in extra { headers.add(name: name, value: value) }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        try await outbound.write(
            .head(HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: headers)))
        if !isHead { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: served.bytes)))) }
        try await outbound.write(.end(nil))
    }

    private static func split(_ uri: String) -> (String, Substring?) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, nil) }
        return (String(uri[..<mark]), uri[uri.index(after: mark)...])
    }

    /// The peer is this computer: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6.
    package static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let ip = address?.ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }
}

/// The connections served at once (`ServeChoices.maxConnections`).
private final class ConnectionCount: Sendable {
    private let count = Mutex(0)

    package func admit() -> Bool {
        count.withLock { count in
            guard count < ServeChoices.maxConnections else { return false }
            count += 1
            return true
        }
    }

    package func leave() { count.withLock { $0 -= 1 } }
}

/// Closes a connection when `IdleStateHandler` reports it idle.
private final class ServeCloseOnIdle: ChannelInboundHandler, Sendable {
    package typealias InboundIn = NIOAny

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
