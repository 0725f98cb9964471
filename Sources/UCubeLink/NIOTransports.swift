import NIOCore
import NIOPosix
import UCubeProtocol
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Forwards a channel's bytes into a `ByteQueue`; the queue finishes when the channel closes.
///
/// Backpressure reaches the socket: while the queue holds `LinkRules.receiveHighWater` bytes or more, the handler
/// holds back the channel's `read` (NIO's way of asking the kernel for more), so a peer that streams faster than the
/// client reads fills its own socket buffers, not this process's memory; the queue's reader lets it go on once it has
/// taken the queue down to half of that.
private final class StreamingHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let queue: ByteQueue
    /// A `read` held back while the queue is full.
    private var readHeld = false

    init(queue: ByteQueue) { self.queue = queue }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { queue.send(bytes) }
    }

    func read(context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let bound = NIOLoopBound(context, eventLoop: loop)
        let paused = queue.pauseIfFull {
            loop.execute { handler.value.resumeReading(bound.value) }
        }
        if paused {
            readHeld = true
        } else {
            context.read()
        }
    }

    private func resumeReading(_ context: ChannelHandlerContext) {
        guard readHeld else { return }
        readHeld = false
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        queue.finish(throwing: LinkError(.disconnected, "the terminal closed the link"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let cause = SocketFailure(error).map { ": \($0.summary)" } ?? ""
        queue.finish(throwing: LinkError(.disconnected, "the link failed\(cause)", detail: "\(error)"))
        context.close(promise: nil)
    }
}

/// A transport over a SwiftNIO channel: a TCP socket or a device file (serial port, RFCOMM tty, pseudo-terminal).
package struct ChannelTransport: Transport {
    package let name: String
    package let incoming: ByteQueue
    private let channel: any Channel

    /// Connects over TCP (spec §3.4: raw RPC frames, no BLE stuffing).
    package static func connectTCP(host: String, port: Int, timeout: Duration = .seconds(5)) async throws
        -> ChannelTransport
    {
        let stream = ByteQueue(highWater: LinkRules.receiveHighWater)
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Int64(timeout.components.seconds * 1000)))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(StreamingHandler(queue: stream))
                    }
                }
                .connect(host: host, port: port)
                .get()
            return ChannelTransport(name: "tcp://\(host):\(port)", incoming: stream, channel: channel)
        } catch {
            stream.finish()
            let shown = host.contains(":") ? "[\(host)]" : host
            throw LinkError.connecting(to: "tcp://\(shown):\(port)", host: shown, port: port, error)
        }
    }

    /// Opens a serial or RFCOMM device file (or a pseudo-terminal) in raw mode.
    package static func openDevice(path: String) async throws -> ChannelTransport {
        let fd = open(path, O_RDWR | O_NOCTTY)
        guard fd >= 0 else {
            throw LinkError(.connectFailed, "cannot open \(path): \(ErrorNumber.text(errno))")
        }
        if isatty(fd) == 1 {
            var tio = termios()
            if tcgetattr(fd, &tio) == 0 {
                cfmakeraw(&tio)
                _ = tcsetattr(fd, TCSANOW, &tio)
            }
        }
        return try await adoptDescriptor(fd, name: "serial://\(path)")
    }

    /// Takes ownership of a connected stream descriptor (a device file, an RFCOMM socket); closes it on failure.
    package static func adoptDescriptor(_ fd: Int32, name: String) async throws -> ChannelTransport {
        let stream = ByteQueue(highWater: LinkRules.receiveHighWater)
        do {
            let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(StreamingHandler(queue: stream))
                    }
                }
                .takingOwnershipOfDescriptor(inputOutput: fd)
                .get()
            return ChannelTransport(name: name, incoming: stream, channel: channel)
        } catch {
            stream.finish()
            _ = Glibc.close(fd)
            throw LinkError(.connectFailed, "cannot use \(name) as a link", detail: "\(error)")
        }
    }

    package func write(_ bytes: [UInt8]) async throws {
        guard channel.isActive else { throw LinkError(.disconnected, "\(name) is closed") }
        do {
            try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        } catch {
            let cause = SocketFailure(error).map { ": \($0.summary)" } ?? ""
            throw LinkError(.disconnected, "write to \(name) failed\(cause)", detail: "\(error)")
        }
    }

    package func close() async {
        try? await channel.close()
    }
}
