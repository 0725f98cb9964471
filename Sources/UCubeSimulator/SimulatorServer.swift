import NIOCore
import NIOPosix
import Synchronization
import UCubeProtocol
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the simulator's TCP stream carries frames.
package enum SimulatorStreamCodec: String, Sendable, CaseIterable {
    /// Raw RPC frames (spec §3.4).
    case raw
    /// The BLE byte-stuffed stream with end-of-message markers (spec §3.1), as written to and notified on TxRx: for a
    /// BlueZ mock that only relays bytes between D-Bus and this socket.
    case ble
}

/// Serves a `TerminalSimulator` over TCP: raw RPC frames, no BLE stuffing (spec §3.4 PROJECT CHOICE, default port
/// 5000), one connection at a time.
package enum SimulatorServer {
    /// Binds `host:port` and serves connections until the calling task is cancelled.
    ///
    /// `port` 0 binds an ephemeral port; `ready` receives the bound port once the socket listens. Connections are
    /// served one after the other: a second client is accepted by the kernel and waits, unread, until the first one
    /// disconnects (SimulatorChoices). The device state lives in `simulator`, so it
    /// survives between connections. What a connection queues is bounded (SimulatorChoices §3.4): a host that sends
    /// noise or never reads its answers is dropped, and `dropped` receives the reason in a sentence. `answerBuffer`:
    /// the bytes of answers a connection may hold unwritten (the socket's SO_SNDBUF and NIO's write buffer), so that a
    /// host that never reads is dropped after that many; nil keeps the kernel's and NIO's defaults (a few MB, which a
    /// test that needs the drop pays for in tens of thousands of answers). Throws `SimulatorError(.addressInUse)` when
    /// another socket holds the address, `.bindFailed` when it cannot be bound otherwise.
    package static func listen(
        host: String,
        port: Int = SimulatorChoices.defaultTCPPort,
        simulator: TerminalSimulator,
        codec: SimulatorStreamCodec = .raw,
        dropped: @escaping @Sendable (String) -> Void = { _ in },
        answerBuffer: Int? = nil,
        ready: @Sendable (Int) -> Void
    ) async throws {
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 8)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            if let answerBuffer {
                bootstrap = bootstrap.childChannelOption(
                    .socketOption(.so_sndbuf), value: SocketOptionValue(answerBuffer)
                )
                .childChannelOption(
                    .writeBufferWaterMark, value: .init(low: max(1, answerBuffer / 2), high: max(2, answerBuffer)))
            }
            server =
                try await bootstrap
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SimulatorError(bindFailure: error, host: host, port: port)
        }
        ready(server.channel.localAddress?.port ?? port)
        try await server.executeThenClose { connections in
            for try await connection in connections {
                await serve(connection, simulator, codec, dropped)
            }
        }
    }

    /// Bridges one TCP connection to `TerminalSimulator.serve(input:output:)`; returns when the client disconnects,
    /// or when the terminal drops the link (`SimulatorFaults.disconnectAt`, or a reboot after an SVPP firmware): then
    /// the TCP connection is closed after the answers already written, and the client reads end-of-stream.
    private static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        _ simulator: TerminalSimulator,
        _ codec: SimulatorStreamCodec,
        _ dropped: @escaping @Sendable (String) -> Void
    ) async {
        let channel = connection.channel
        let peer =
            channel.remoteAddress.map { address in
                guard let ip = address.ipAddress else { return "\(address)" }
                return (ip.contains(":") ? "[\(ip)]" : ip) + ":\(address.port ?? 0)"
            } ?? "a client"
        try? await connection.executeThenClose { inbound, _ in
            let input = ByteQueue(highWater: SimulatorChoices.receiveHighWater)
            async let reading: Void = {
                var reassembler = BLEReassembler()
                do {
                    for try await buffer in inbound {
                        let bytes = Array(buffer.readableBytesView)
                        switch codec {
                        case .raw: input.send(bytes)
                        case .ble:
                            // Malformed stuffing: the bytes are dropped, as a terminal ignores a bad frame.
                            let frames = (try? reassembler.append(bytes)) ?? []
                            for frame in frames { input.send(frame) }
                        }
                        // Backpressure: nothing more is taken from the socket until the terminal has read the queue
                        // down; NIOAsyncChannel's own bound then stops reading it.
                        await input.waitForRoom()
                    }
                } catch {
                    // A reset connection ends like a closed one.
                }
                input.finish()
            }()
            let unread = UnreadAnswers()
            let end = await simulator.serve(input: input) { bytes in
                let wire = codec == .ble ? BLECodec.stuff(bytes) : bytes
                // A host that leaves its answers unread fills the kernel's buffers, then NIO's write buffer (the
                // channel is no longer writable): it is dropped rather than let answers pile up here. The check and
                // the write are one step on the channel's event loop, and only that step is awaited (never the write
                // itself, which waits on the host), so nothing more than NIO's write buffer and one answer is held.
                let written = try? await channel.eventLoop.submit {
                    guard channel.isWritable else { return false }
                    channel.writeAndFlush(ByteBuffer(bytes: wire), promise: nil)
                    return true
                }.get()
                if written == false && unread.firstTime() {
                    dropped("dropped \(peer): it leaves its answers unread (the socket's buffers are full)")
                    channel.close(promise: nil)
                }
            }
            switch end {
            case .disconnected, .rebooted:
                // The terminal dropped the link (a fault, or its reboot after a firmware install): close the socket so
                // the client sees it, and the reader ends. The next connection is served once the reboot is over.
                try? await channel.close()
            case .refused(let reason):
                dropped("dropped \(peer): \(reason)")
                try? await channel.close()
            case .inputFinished:
                break
            }
            // The reader may wait for room the terminal will no longer make.
            input.finish()
            await reading
        }
    }
}

/// Whether a connection's drop for unread answers has been reported: once, whatever answers follow.
private final class UnreadAnswers: Sendable {
    private let reported = Mutex(false)

    func firstTime() -> Bool {
        reported.withLock { reported in
            defer { reported = true }
            return !reported
        }
    }
}

extension SimulatorError {
    /// The error for a failed bind, by errno (NIO's `IOError`), in a sentence without NIO's function names.
    init(bindFailure error: any Error, host: String, port: Int) {
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard let code = (error as? IOError)?.errnoCode else {
            self.init(.bindFailed, "cannot listen on \(shown): \(error)")
            return
        }
        if code == EADDRINUSE {
            self.init(.addressInUse, "\(shown) is already in use")
        } else {
            self.init(.bindFailed, "cannot listen on \(shown): \(ErrorNumber.text(code))")
        }
    }
}
