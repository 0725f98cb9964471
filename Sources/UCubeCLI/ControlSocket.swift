import Foundation
import NIOCore
import NIOPosix

/// A per-device Unix socket under the runtime directory through which `ucube cancel` reaches the process that holds
/// the terminal (one line in, one line out). Only the owner can connect: the directory is 0700.
enum ControlSocket {
    /// `$XDG_RUNTIME_DIR/ucube/control-<device>.sock`.
    static func path(forDevice device: String) -> String {
        Environment.runtimeDirectory + "/control-" + Connection.fileKey(device) + ".sock"
    }

    /// Serves requests until the returned server is closed. `handle` gets the request line and returns the answer.
    static func serve(at path: String, handle: @escaping @Sendable (String) async -> String) async throws -> Server {
        try Environment.ensureDirectory((path as NSString).deletingLastPathComponent)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(LineHandler(handle: handle))
                }
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
            .get()
        return Server(channel: channel, path: path)
    }

    // MARK: The holder's side

    /// Every process that holds a terminal listens on its device's control socket, so that `ucube cancel` reaches it,
    /// whatever the command (`Connection.open` calls this). A `cancel` request is answered by the route `ucube pay`
    /// sets (its cancel rule: only before the card is read); without one, by interrupting this process as Ctrl-C would
    /// (mdm-update stops after the current block, the shell stops its running command, others end).
    static func listen(forDevice device: String) async {
        let path = path(forDevice: device)
        guard holder.claim(path) else { return }
        if let server = try? await serve(at: path, handle: { line in await answer(line) }) {
            holder.store(server, for: path)
        } else {
            holder.release(path)
        }
    }

    /// Stops listening for `device` (the link is closed); `mdm-update` listens again when it reconnects.
    static func stopListening(forDevice device: String) async {
        await holder.take(path(forDevice: device))?.close()
    }

    /// Sets (or with nil, clears) what answers a `cancel` in this process.
    static func route(_ handler: (@Sendable () async -> CancelAnswer)?) { holder.setRoute(handler) }

    private static let holder = Holder()

    private static func answer(_ line: String) async -> String {
        guard ControlRequest(line: line) == .cancel else { return "error: unknown request '\(line)'" }
        if let route = holder.route() { return await route().line }
        Task {
            // After the answer has gone out.
            try? await Task.sleep(for: .milliseconds(100))
            kill(getpid(), SIGINT)
        }
        let command = CommandLine.arguments.dropFirst().joined(separator: " ")
        return CancelAnswer(accepted: true, message: "interrupting `ucube \(command)` (pid \(getpid())), as Ctrl-C would").line
    }

    /// The servers this process runs and its cancel route, behind one lock (used from any thread).
    private final class Holder: @unchecked Sendable {
        private let lock = NSLock()
        private var servers: [String: Server?] = [:]
        private var cancelRoute: (@Sendable () async -> CancelAnswer)?

        func claim(_ path: String) -> Bool {
            lock.withLock {
                guard servers[path] == nil else { return false }
                servers[path] = .some(nil)
                return true
            }
        }
        func store(_ server: Server, for path: String) { lock.withLock { servers[path] = server } }
        func release(_ path: String) { lock.withLock { _ = servers.removeValue(forKey: path) } }
        func take(_ path: String) -> Server? { lock.withLock { servers.removeValue(forKey: path) ?? nil } }
        func setRoute(_ route: (@Sendable () async -> CancelAnswer)?) { lock.withLock { cancelRoute = route } }
        func route() -> (@Sendable () async -> CancelAnswer)? { lock.withLock { cancelRoute } }
    }

    struct Server: Sendable {
        let channel: any Channel
        let path: String

        func close() async {
            try? await channel.close()
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Sends one request line and returns the answer, or nil when nobody listens at `path`.
    static func request(_ line: String, at path: String, timeout: Duration = .seconds(30)) async throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(AnswerHandler(continuation: continuation))
                    }
                }
                .connect(unixDomainSocketPath: path)
                .get()
        } catch {
            // A socket file left by a process that died: nobody listens.
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        try await channel.writeAndFlush(channel.allocator.buffer(string: line + "\n"))
        let answer = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                for try await answer in stream { return answer }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        try? await channel.close()
        return answer
    }
}

/// The requests the control socket understands.
enum ControlRequest: Equatable {
    case cancel

    init?(line: String) {
        guard line == "cancel" else { return nil }
        self = .cancel
    }
}

/// One request line put back together from the reads it arrives in (pure: `LineHandler` feeds it).
struct RequestLineBuffer {
    static let maxRequest = 256

    enum Outcome: Equatable {
        /// No newline yet.
        case needMore
        /// The bytes before the first newline, trimmed.
        case line(String)
        /// More than `maxRequest` bytes and no newline.
        case tooLong
    }

    private var pending: [UInt8] = []

    mutating func append(_ bytes: [UInt8]) -> Outcome {
        pending += bytes
        guard let newline = pending.firstIndex(of: 0x0A) else {
            return pending.count > Self.maxRequest ? .tooLong : .needMore
        }
        return .line(String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Reads one request line (however the bytes arrive: a request split over several reads is put back together),
/// answers it through `handle`, closes. A request longer than `RequestLineBuffer.maxRequest` bytes is refused.
private final class LineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let handle: @Sendable (String) async -> String
    private var request = RequestLineBuffer()
    private var answered = false

    init(handle: @escaping @Sendable (String) async -> String) { self.handle = handle }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        var buffer = unwrapInboundIn(data)
        let channel = context.channel
        let line: String
        switch request.append(buffer.readBytes(length: buffer.readableBytes) ?? []) {
        case .needMore: return
        case .tooLong:
            reply("error: request too long", on: channel)
            return
        case .line(let text): line = text
        }
        let handle = self.handle
        answered = true
        Task {
            let answer = await handle(line)
            try? await channel.writeAndFlush(channel.allocator.buffer(string: answer + "\n"))
            try? await channel.close()
        }
    }

    private func reply(_ answer: String, on channel: any Channel) {
        answered = true
        Task {
            try? await channel.writeAndFlush(channel.allocator.buffer(string: answer + "\n"))
            try? await channel.close()
        }
    }
}

/// Collects the answer line, however its bytes arrive.
private final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private var pending: [UInt8] = []

    init(continuation: AsyncThrowingStream<String, any Error>.Continuation) { self.continuation = continuation }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let newline = pending.firstIndex(of: 0x0A) else { return }
        continuation.yield(String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        pending.removeAll()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !pending.isEmpty {
            continuation.yield(String(decoding: pending, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        continuation.finish()
        context.fireChannelInactive()
    }
}
