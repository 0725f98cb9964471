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
    ///
    /// A plain Unix socket watched by a Dispatch source, not NIO: every command that holds a terminal listens, and
    /// starting NIO's event loops and a server channel for it was a measurable part of a short command's start-up.
    static func serve(at path: String, handle: @escaping @Sendable (String) async -> String) async throws -> Server {
        try Environment.ensureDirectory((path as NSString).deletingLastPathComponent)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        guard name.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: name)
            raw[name.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        unlink(path)  // a socket file left by a process that died
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 8) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            close(fd)
            throw POSIXError(code)
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .global())
        source.setEventHandler {
            while case let connection = accept(fd, nil, nil), connection >= 0 {
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                DispatchQueue.global().async { answer(connection, handle: handle) }
            }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
        return Server(source: source, path: path)
    }

    /// Reads one request line on an accepted connection (a request split over several reads is put back together),
    /// answers it through `handle`, closes. More than `RequestLineBuffer.maxRequest` bytes without a newline is
    /// refused; a peer that sends nothing for `ControlSocket.readTimeout` is dropped.
    private static func answer(_ fd: Int32, handle: @escaping @Sendable (String) async -> String) {
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = RequestLineBuffer()
        var chunk = [UInt8](repeating: 0, count: 512)
        var outcome = RequestLineBuffer.Outcome.needMore
        while outcome == .needMore {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(fd)  // closed, timed out or failed before a whole request
                return
            }
            outcome = request.append(Array(chunk[..<count]))
        }
        @Sendable func reply(_ text: String) {
            let bytes = Array((text + "\n").utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                sent += count
            }
            close(fd)
        }
        switch outcome {
        case .line(let line): Task { reply(await handle(line)) }
        case .tooLong, .needMore: reply("error: request too long")
        }
    }

    /// Seconds an accepted connection may stay silent before its request is complete.
    static let readTimeout = 5

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

    /// A listening control socket; `close` stops it and removes the socket file.
    struct Server: @unchecked Sendable {
        // @unchecked: a Dispatch source is safe to cancel from any thread.
        let source: any DispatchSourceRead
        let path: String

        func close() async {
            source.cancel()
            unlink(path)
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
