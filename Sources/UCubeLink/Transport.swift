import UCubeProtocol
import UCubeSupport

/// A byte link to a terminal: TCP, a serial/RFCOMM device file, BLE, or an in-process peer.
///
/// Transports move bytes only; framing is the RPC client's job. A transport whose peer goes away ends its
/// `incoming` stream (with an error when it knows why), so nothing above it believes it is still connected.
package protocol Transport: Sendable {
    /// "tcp://127.0.0.1:5000", "serial:///dev/rfcomm0", "sim".
    var name: String { get }
    /// Bytes from the terminal, in arrival order. There is one consumer; it ends when the link drops, and its `failure`
    /// says why.
    var incoming: ByteQueue { get }
    /// Writes bytes to the terminal.
    func write(_ bytes: [UInt8]) async throws
    /// Closes the link; `incoming` then finishes.
    func close() async
}

/// Two connected in-memory byte pipes: the client end is a `Transport`, the other end is handed to an in-process peer
/// (the built-in simulator) as a byte stream and a writer.
package struct InMemoryTransport: Transport {
    package let name: String
    package let incoming: ByteQueue
    private let toPeer: ByteQueue

    /// The peer's side: what the client wrote, and a function to answer.
    package struct PeerEnd: Sendable {
        package let input: ByteQueue
        private let output: ByteQueue

        fileprivate init(input: ByteQueue, output: ByteQueue) {
            self.input = input
            self.output = output
        }

        /// Sends bytes to the client.
        package func write(_ bytes: [UInt8]) { output.send(bytes) }

        /// Drops the link from the peer's side (a terminal switched off, an out-of-range radio): the client reads the
        /// end of the link (`reason` its failure), and what it writes from then on fails.
        package func disconnect(reason: (any Error & Sendable)? = nil) {
            input.finish()
            output.finish(throwing: reason)
        }
    }

    /// A connected pair.
    package static func pair(name: String = "sim") -> (transport: InMemoryTransport, peer: PeerEnd) {
        let toPeer = ByteQueue()
        let fromPeer = ByteQueue()
        return (
            InMemoryTransport(name: name, incoming: fromPeer, toPeer: toPeer), PeerEnd(input: toPeer, output: fromPeer)
        )
    }

    private init(name: String, incoming: ByteQueue, toPeer: ByteQueue) {
        self.name = name
        self.incoming = incoming
        self.toPeer = toPeer
    }

    package func write(_ bytes: [UInt8]) async throws {
        guard toPeer.send(bytes) else {
            throw LinkError(.disconnected, "the in-process terminal has gone away")
        }
    }

    package func close() async {
        toPeer.finish()
        incoming.finish()
    }
}
