import Synchronization

/// An unbounded queue of byte chunks from any number of senders (synchronous code included) to one asynchronous
/// reader: every transport's bytes from the terminal (`Transport.incoming`), the in-process link's bytes to the
/// built-in simulator, and a TCP connection's bytes on their way to the simulator.
///
/// It does what `AsyncStream<[UInt8]>` does for those links, as a type of this package: the standard library's stream
/// runs unspecialised generic code (its continuation list, `removeFirst` through witness tables) and instantiates its
/// metadata on first use, which was a sixth of the instructions `ucube --device sim info` adds to a bare start-up
/// (Benchmarks/startup.sh). Not generic for the same reason: a generic class's metadata is built at run time.
///
/// Semantics are `AsyncThrowingStream`'s with the unbounded buffering policy: chunks are read in the order sent;
/// `finish(throwing:)` ends the queue once the chunks already sent are read, and `failure` then says why (the first
/// finish's error); `send` after the end is refused. When the reading task is cancelled, the wait ends with nil and
/// the queue is finished, as a stream terminates.
package final class ByteQueue: AsyncSequence, Sendable {
    private struct State: ~Copyable {
        var chunks: [[UInt8]] = []
        /// Index of the next chunk to read in `chunks`: reading does not shift the array.
        var head = 0
        var finished = false
        var failure: (any Error & Sendable)?
        var waiter: CheckedContinuation<[UInt8]?, Never>?

        /// The next chunk, if one is buffered.
        mutating func take() -> [UInt8]? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            head += 1
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            return chunk
        }
    }

    /// What a read finds without waiting.
    private enum Ready {
        case chunk([UInt8])
        case end
        case wait
    }

    private let state = Mutex(State())

    package init() {}

    /// Appends `chunk` for the reader; false when the queue has ended (`finish`, or the reader was cancelled), and the
    /// chunk is dropped.
    @discardableResult
    package func send(_ chunk: [UInt8]) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[UInt8]?, Never>?) in
            guard !state.finished else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.chunks.append(chunk)
            return (true, nil)
        }
        waiter?.resume(returning: chunk)
        return accepted
    }

    /// Ends the queue: the reader gets the chunks already sent, then nil; `error` is the `failure` (the link dropped).
    /// Only the first finish counts.
    package func finish(throwing error: (any Error & Sendable)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
            if !state.finished { state.failure = error }
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Why the queue ended, when it was finished with an error.
    package var failure: (any Error & Sendable)? { state.withLock { $0.failure } }

    /// The next chunk; nil once the queue has ended and is drained (`failure` says why), or when the reading task is
    /// cancelled. One reader at a time.
    package func next() async -> [UInt8]? {
        switch state.withLock({ Self.ready(&$0) }) {
        case .chunk(let chunk): return chunk
        case .end: return nil
        case .wait: break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
                let ready = state.withLock { state -> Ready in
                    let ready = Self.ready(&state)
                    if case .wait = ready {
                        precondition(state.waiter == nil, "ByteQueue has one reader")
                        state.waiter = continuation
                    }
                    return ready
                }
                switch ready {
                case .chunk(let chunk): continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            finish()
        }
    }

    private static func ready(_ state: inout State) -> Ready {
        if let chunk = state.take() { return .chunk(chunk) }
        return state.finished || Task.isCancelled ? .end : .wait
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let queue: ByteQueue

        package mutating func next() async -> [UInt8]? { await queue.next() }

        /// Implemented so that `for await` calls the queue directly, not through the standard library's generic
        /// default (which reaches `next()` through the protocol's witness table).
        package mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? { await queue.next() }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}
