import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A request the test server received.
struct RecordedRequest: Sendable {
    var method: String
    var uri: String
    var contentType: String?
    var body: [UInt8]
    /// The `x-device-id` and `x-id-type` headers (spec §10.1, current SDK).
    var deviceID: String? = nil
    var idType: String? = nil
}

/// What the test server does with a request.
enum TestReply: Sendable {
    /// A status with a body (Content-Length set).
    case status(Int, [UInt8])
    /// A status with a Content-Type and a body.
    case typed(Int, String, [UInt8])
    /// 200 `application/octet-stream` with `count` bytes of `TestHTTPServer.patternByte(i)`, with or without
    /// Content-Length (else chunked).
    case pattern(Int, declareLength: Bool)
    /// Never answers (the connection stays open).
    case silent
    /// Like `pattern` (no Content-Length), but sends the second half only once `proceed()` is true (polled every
    /// 10 ms on the server's event loop).
    case gatedPattern(Int, proceed: @Sendable () -> Bool)

    static func ok(_ text: String) -> TestReply { .status(200, Array(text.utf8)) }
}

/// A small HTTP/1 server on 127.0.0.1:0 (optionally TLS) whose replies a closure scripts. Records every request.
final class TestHTTPServer: Sendable {
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let recorded = NIOLockedValueBox<[RecordedRequest]>([])
    let respond: @Sendable (RecordedRequest, Int) -> TestReply
    let port: Int

    var requests: [RecordedRequest] { recorded.withLockedValue { $0 } }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static func patternByte(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: (i % 251) &* 7 &+ i >> 16) }
    /// 64 KiB-aligned chunks of the pattern are equal except for the `i >> 16` term; built per chunk from this table.
    static let patternBase: [UInt8] = (0..<(65536 + 251)).map { UInt8(truncatingIfNeeded: ($0 % 251) &* 7) }

    private init(
        channel: any Channel, group: MultiThreadedEventLoopGroup, port: Int,
        respond: @escaping @Sendable (RecordedRequest, Int) -> TestReply
    ) {
        self.channel = channel
        self.group = group
        self.port = port
        self.respond = respond
    }

    static func start(tls: NIOSSLContext? = nil, respond: @escaping @Sendable (RecordedRequest, Int) -> TestReply)
        async throws -> TestHTTPServer
    {
        let box = NIOLockedValueBox<TestHTTPServer?>(nil)
        // Its own event loop, so the server never competes with the client's.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    if let tls { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(Handler(server: box.withLockedValue { $0! }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = TestHTTPServer(channel: channel, group: group, port: channel.localAddress!.port!, respond: respond)
        box.withLockedValue { $0 = server }
        return server
    }

    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    fileprivate func record(_ r: RecordedRequest) -> Int {
        recorded.withLockedValue {
            $0.append(r)
            return $0.count - 1
        }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: TestHTTPServer
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(server: TestHTTPServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h):
                head = h
                body = []
            case .body(let b):
                body += b.readableBytesView
            case .end:
                guard let head else { return }
                let request = RecordedRequest(
                    method: head.method.rawValue, uri: head.uri, contentType: head.headers.first(name: "Content-Type"),
                    body: body,
                    deviceID: head.headers.first(name: "x-device-id"), idType: head.headers.first(name: "x-id-type"))
                let index = server.record(request)
                reply(server.respond(request, index), context: context)
            }
        }

        private func reply(_ reply: TestReply, context: ChannelHandlerContext) {
            switch reply {
            case .silent:
                return
            case .status(let code, let bytes):
                self.reply(.typed(code, "", bytes), context: context)
            case .typed(let code, let type, let bytes):
                var headers = HTTPHeaders()
                if !type.isEmpty { headers.add(name: "Content-Type", value: type) }
                headers.add(name: "Content-Length", value: String(bytes.count))
                context.write(
                    wrapOutboundOut(
                        .head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: code), headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            case .pattern(let count, let declareLength):
                var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
                if declareLength { headers.add(name: "Content-Length", value: String(count)) }
                // The head goes out before the body is built: a 64 MB body takes seconds to build in a debug build, and
                // under load the client's read timeout fired before a header it should refuse at once had arrived.
                context.writeAndFlush(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                    promise: nil)
                writePattern(0..<count, context: context)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            case .gatedPattern(let count, let proceed):
                let half = (count / 2) & ~0xFFFF
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(
                                version: .http1_1, status: .ok, headers: ["Content-Type": "application/octet-stream"]))),
                    promise: nil)
                writePattern(0..<half, context: context)
                context.flush()
                let loop = context.eventLoop
                let boundContext = NIOLoopBound(context, eventLoop: loop)
                let boundSelf = NIOLoopBound(self, eventLoop: loop)
                loop.scheduleRepeatedTask(initialDelay: .milliseconds(10), delay: .milliseconds(10)) { task in
                    guard proceed() else { return }
                    task.cancel()
                    let context = boundContext.value
                    boundSelf.value.writePattern(half..<count, context: context)
                    context.writeAndFlush(boundSelf.value.wrapOutboundOut(.end(nil)), promise: nil)
                }
            }
        }

        /// Writes pattern bytes `range` (its lower bound a multiple of 64 KiB) in 64 KiB chunks.
        private func writePattern(_ range: Range<Int>, context: ChannelHandlerContext) {
            let count = range.upperBound
            var offset = range.lowerBound
            while offset < count {
                let n = min(64 << 10, count - offset)  // offset is a multiple of 64 KiB
                let start = offset % 251
                let add = UInt8(truncatingIfNeeded: offset >> 16)
                var chunk = context.channel.allocator.buffer(capacity: n)
                chunk.writeBytes(TestHTTPServer.patternBase[start..<(start + n)].map { $0 &+ add })
                context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
                offset += n
            }
        }
    }
}

/// Runs `body`, giving up after `seconds` (a hang guard, not a speed bound): nil means it hung.
func withHangGuard<T: Sendable>(seconds: Int = 600, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
