import Foundation
import Synchronization
import Testing
import UCubeProtocol
import UCubeSupport

@testable import UCubeLink

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a terminal can make the client hold (issue 39): a `tcp://` peer streaming faster than the client reads fills
/// its own socket buffers, not the client's memory, and a peer that sends only noise is dropped with the reason.
/// Every verdict counts bytes, never time.
@Suite struct BoundedLinkTests {
    /// Reads NIO makes between two looks at the queue: a stream channel's `maxMessagesPerRead`.
    static let readsPerCycle = 4

    @Test("a tcp:// peer that streams 16 MiB never has more than the high water and one read waiting in the client")
    func tcpBackpressure() async throws {
        let total = 16 * 1024 * 1024
        let peer = try StreamingPeer(bytes: total)
        let transport = try await TransportFactory().open(.tcp(host: "127.0.0.1", port: peer.port)).transport
        defer { Task { await transport.close() } }
        let queue = transport.incoming

        // Nothing is read until the peer has written everything (no backpressure: it all waits in the queue) or the
        // queue has reached its high water (backpressure: the peer now waits on its socket).
        let net = SafetyNet(seconds: 600)
        while peer.written < total && queue.bufferedBytes < LinkRules.receiveHighWater && !net.expired {
            try await Task.sleep(for: .milliseconds(5))
        }
        var largest = queue.bufferedBytes
        var read = 0
        var largestChunk = 0
        while read < total, let chunk = await queue.next() {
            read += chunk.count
            largestChunk = max(largestChunk, chunk.count)
            largest = max(largest, queue.bufferedBytes)
        }
        #expect(read == total, "every byte arrives, in spite of the pauses")
        // Past the high water, at most one read cycle more: NIO's reads of at most the largest chunk it delivered.
        let bound = LinkRules.receiveHighWater + Self.readsPerCycle * largestChunk
        #expect(largest <= bound, "\(largest) bytes waited in the client, more than \(bound)")
        #expect(largest < total / 4, "the client held a quarter of the stream: no backpressure")
    }

    @Test("a terminal that answers with noise only is dropped once the noise passes the bound, with the reason")
    func noiseDropsTheLink() async throws {
        let (transport, peer) = InMemoryTransport.pair()
        let noise = [UInt8](repeating: 0x55, count: 64 * 1024)
        let task = Task {
            var sent = 0
            for await _ in peer.input {
                // Twice the bound, then silence: the command's own timeout is far beyond the test.
                while sent <= 2 * LinkRules.maxNoiseBytes {
                    peer.write(noise)
                    sent += noise.count
                }
            }
        }
        let client = RPCClient(transport: transport, defaultTimeout: .seconds(3600))
        do {
            _ = try await client.send(GetInfo(tags: [0xC4]))
            Issue.record("noise was taken for an answer")
        } catch {
            #expect(error.code == .disconnected)
            #expect(error.reason.contains("without one valid frame"), "\(error.reason)")
        }
        #expect(await !client.isConnected)
        await client.close()
        task.cancel()
    }

    @Test("noise below the bound, then an answer: the answer is taken, and the count starts again after it")
    func noiseBelowTheBoundIsForgivenByAFrame() async throws {
        let (transport, peer) = InMemoryTransport.pair()
        let task = Task {
            var decoder = FrameDecoder()
            for await chunk in peer.input {
                decoder.append(chunk)
                while let frame = try? decoder.next() {
                    // Three quarters of the bound before each answer: two answers carry one and a half bounds.
                    peer.write([UInt8](repeating: 0x55, count: LinkRules.maxNoiseBytes * 3 / 4))
                    peer.write(
                        try! ResponseFrame(
                            sequence: frame.sequence, command: frame.command, status: .success, data: [0xC4, 1, 2]
                        ).encoded())
                }
            }
        }
        let client = RPCClient(transport: transport, defaultTimeout: .seconds(3600))
        for _ in 0..<2 {
            let reply = try await client.send(GetInfo(tags: [0xC4]))
            #expect(reply.response?.state == .ready)
        }
        await client.close()
        task.cancel()
    }
}

/// A deadline that only ends a wait gone wrong, never decides a verdict.
struct SafetyNet {
    let end: ContinuousClock.Instant
    init(seconds: Int) { end = .now + .seconds(seconds) }
    var expired: Bool { ContinuousClock.now >= end }
}

/// A TCP server on 127.0.0.1 that accepts one connection and writes `bytes` of noise to it as fast as the socket
/// takes them, from a thread of its own (blocking writes), counting what it has written; it keeps the connection open
/// until the client closes it.
final class StreamingPeer: Sendable {
    let port: Int
    private let progress = Mutex(0)
    var written: Int { progress.withLock { $0 } }

    init(bytes: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw LinkError(.connectFailed, "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw LinkError(.connectFailed, "cannot listen on 127.0.0.1")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            defer { close(listener) }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let chunk = [UInt8](repeating: 0x55, count: 65536)
            var sent = 0
            while sent < bytes {
                let n = chunk.withUnsafeBytes {
                    send(fd, $0.baseAddress, min($0.count, bytes - sent), Int32(MSG_NOSIGNAL))
                }
                guard n > 0 else { return }
                sent += n
                self.progress.withLock { $0 = sent }
            }
            // Open until the client closes: a peer's end of stream makes NIO read what the socket holds, whatever
            // the backpressure (the kernel's buffer, bounded; a streaming peer never ends it).
            var byte: UInt8 = 0
            _ = recv(fd, &byte, 1, 0)
        }.start()
    }
}
