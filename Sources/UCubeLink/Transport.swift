import UCubeProtocol
import UCubeSupport

/// A byte link to a terminal: TCP, a serial/RFCOMM device file, BLE, or an in-process peer.
///
/// Transports move bytes only; framing is the RPC client's job. A transport whose peer goes away ends its
/// `incoming` stream (with an error when it knows why), so nothing above it believes it is still connected.
package protocol Transport: Sendable {
    /// "tcp://127.0.0.1:5000", "serial:///dev/rfcomm0", "sim".
    var name: String { get }
    /// Bytes from the terminal, in arrival order. There is one consumer; it ends when the link drops.
    var incoming: AsyncThrowingStream<[UInt8], any Error> { get }
    /// Writes bytes to the terminal.
    func write(_ bytes: [UInt8]) async throws
    /// Closes the link; `incoming` then finishes.
    func close() async
}

/// Two connected in-memory byte pipes: the client end is a `Transport`, the other end is handed to an in-process peer
/// (the built-in simulator) as a byte stream and a writer.
package struct InMemoryTransport: Transport {
    package let name: String
    package let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let toPeer: AsyncQueue<[UInt8]>
    private let fromPeer: AsyncThrowingStream<[UInt8], any Error>.Continuation

    /// The peer's side: what the client wrote, and a function to answer.
    package struct PeerEnd: Sendable {
        package let input: AsyncQueue<[UInt8]>
        private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

        fileprivate init(input: AsyncQueue<[UInt8]>, continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation)
        {
            self.input = input
            self.continuation = continuation
        }

        /// Sends bytes to the client.
        package func write(_ bytes: [UInt8]) { continuation.yield(bytes) }

        /// Drops the link from the peer's side (a terminal switched off, an out-of-range radio): the client reads the
        /// end of the link, and what it writes from then on fails.
        package func disconnect(reason: (any Error)? = nil) {
            input.finish()
            continuation.finish(throwing: reason)
        }
    }

    /// A connected pair.
    package static func pair(name: String = "sim") -> (transport: InMemoryTransport, peer: PeerEnd) {
        let toPeer = AsyncQueue<[UInt8]>()
        let (fromPeerStream, fromPeer) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let transport = InMemoryTransport(name: name, incoming: fromPeerStream, toPeer: toPeer, fromPeer: fromPeer)
        return (transport, PeerEnd(input: toPeer, continuation: fromPeer))
    }

    private init(
        name: String, incoming: AsyncThrowingStream<[UInt8], any Error>, toPeer: AsyncQueue<[UInt8]>,
        fromPeer: AsyncThrowingStream<[UInt8], any Error>.Continuation
    ) {
        self.name = name
        self.incoming = incoming
        self.toPeer = toPeer
        self.fromPeer = fromPeer
    }

    package func write(_ bytes: [UInt8]) async throws {
        guard toPeer.send(bytes) else {
            throw LinkError(.disconnected, "the in-process terminal has gone away")
        }
    }

    package func close() async {
        toPeer.finish()
        fromPeer.finish()
    }
}
