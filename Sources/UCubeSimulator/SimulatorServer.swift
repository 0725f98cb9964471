import NIOCore
import NIOPosix
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
    /// survives between connections. Throws `SimulatorError(.addressInUse)` when another socket holds the address, `.bindFailed` when it cannot be
    /// bound otherwise.
    package static func listen(
        host: String,
        port: Int = SimulatorChoices.defaultTCPPort,
        simulator: TerminalSimulator,
        codec: SimulatorStreamCodec = .raw,
        ready: @Sendable (Int) -> Void
    ) async throws {
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 8)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
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
                await serve(connection, simulator, codec)
            }
        }
    }

    /// Bridges one TCP connection to `TerminalSimulator.serve(input:output:)`; returns when the client disconnects,
    /// or when the terminal drops the link (`SimulatorFaults.disconnectAt`, or a reboot after an SVPP firmware): then
    /// the TCP connection is closed after the answers already written, and the client reads end-of-stream.
    private static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        _ simulator: TerminalSimulator,
        _ codec: SimulatorStreamCodec
    ) async {
        let channel = connection.channel
        try? await connection.executeThenClose { inbound, outbound in
            let input = ByteQueue()
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
                    }
                } catch {
                    // A reset connection ends like a closed one.
                }
                input.finish()
            }()
            let end = await simulator.serve(input: input) { bytes in
                let wire = codec == .ble ? BLECodec.stuff(bytes) : bytes
                try? await outbound.write(ByteBuffer(bytes: wire))
            }
            switch end {
            case .disconnected, .rebooted:
                // The terminal dropped the link (a fault, or its reboot after a firmware install): close the socket so
                // the client sees it, and the reader ends. The next connection is served once the reboot is over.
                try? await channel.close()
            case .inputFinished:
                break
            }
            await reading
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
