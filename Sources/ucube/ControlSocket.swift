import Foundation
import NIOCore
import NIOPosix

/// A per-device Unix socket under the runtime directory through which `ucube cancel` reaches a running `ucube pay`
/// (one line in, one line out). Only the owner can connect: the directory is 0700.
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

/// Reads one line, answers it through `handle`, closes.
private final class LineHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let handle: @Sendable (String) async -> String

    init(handle: @escaping @Sendable (String) async -> String) { self.handle = handle }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let line = (buffer.readString(length: buffer.readableBytes) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let channel = context.channel
        let handle = self.handle
        Task {
            let answer = await handle(line)
            try? await channel.writeAndFlush(channel.allocator.buffer(string: answer + "\n"))
            try? await channel.close()
        }
    }
}

/// Collects the answer line.
private final class AnswerHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let continuation: AsyncThrowingStream<String, any Error>.Continuation

    init(continuation: AsyncThrowingStream<String, any Error>.Continuation) { self.continuation = continuation }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let s = buffer.readString(length: buffer.readableBytes) {
            continuation.yield(s.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }
}
