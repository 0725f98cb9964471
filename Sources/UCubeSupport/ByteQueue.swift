import Synchronization

/// A queue of byte chunks from any number of senders (synchronous code included) to one asynchronous
/// reader: every transport's bytes from the terminal (`Transport.incoming`), the in-process link's bytes to the
/// built-in simulator, and a TCP connection's bytes on their way to the simulator.
///
/// It does what `AsyncStream<[UInt8]>` does for those links, as a type of this package: the standard library's stream
/// runs unspecialised generic code (its continuation list, `removeFirst` through witness tables) and instantiates its
/// metadata on first use, which was a sixth of the instructions `ucube --device sim info` adds to a bare start-up
/// (Benchmarks/startup.sh). Not generic for the same reason: a generic class's metadata is built at run time.
///
/// Semantics are `AsyncThrowingStream`'s: chunks are read in the order sent; `finish(throwing:)` ends the queue once
/// the chunks already sent are read, and `failure` then says why (the first finish's error); `send` after the end is
/// refused. When the reading task is cancelled, the wait ends with nil and the queue is finished, as a stream
/// terminates.
///
/// **Backpressure.** `send` never refuses a chunk for room: the bound is kept by the producer, which asks
/// `pauseIfFull(resume:)` (or awaits `waitForRoom()`) after each chunk and stops reading its source while the queue
/// holds `highWater` bytes or more. A socket's producer stops asking the kernel for bytes, so the peer's writes block
/// in its own kernel, not in this process's memory: the TCP transport's handler (UCubeLink), the simulator's server.
/// Its reader's `next()` resumes the producer once it has taken the queue down to half of `highWater`.
package final class ByteQueue: AsyncSequence, Sendable {
    private struct State: ~Copyable {
        var chunks: [[UInt8]] = []
        /// Index of the next chunk to read in `chunks`: reading does not shift the array.
        var head = 0
        /// Bytes in the chunks not read yet.
        var bytes = 0
        var finished = false
        var failure: (any Error & Sendable)?
        var waiter: CheckedContinuation<[UInt8]?, Never>?
        /// A paused producer's way to go on (`pauseIfFull`): called once the reader has made room, or at the end.
        var resume: (@Sendable () -> Void)?

        /// The next chunk, if one is buffered, and the paused producer to resume when taking it made room.
        mutating func take(lowWater: Int) -> (chunk: [UInt8], resume: (@Sendable () -> Void)?)? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            head += 1
            bytes -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            guard let resume, bytes <= lowWater else { return (chunk, nil) }
            self.resume = nil
            return (chunk, resume)
        }
    }

    /// What a read finds without waiting.
    private enum Ready {
        case chunk([UInt8], resume: (@Sendable () -> Void)?)
        case end
        case wait
    }

    private let state = Mutex(State())
    /// The bytes at which a producer that asks pauses (`Int.max`: never).
    package let highWater: Int

    /// `highWater`: the bytes buffered at which a producer with backpressure pauses (`pauseIfFull`); the default
    /// never pauses one (an in-process link, whose producer is this process's own code).
    package init(highWater: Int = .max) {
        precondition(highWater > 0, "a ByteQueue holds at least one byte")
        self.highWater = highWater
    }

    /// Bytes sent and not read yet.
    package var bufferedBytes: Int { state.withLock { $0.bytes } }

    /// For a producer that can stop reading its source: true when the queue holds `highWater` bytes or more, and then
    /// `resume` is called once, when the reader has taken the queue down to half of `highWater` or the queue has
    /// ended; the producer reads nothing more until then. False (and `resume` is dropped): go on reading.
    package func pauseIfFull(resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.finished, state.bytes >= highWater else { return false }
            state.resume = resume
            return true
        }
    }

    /// For an asynchronous producer: returns at once while the queue holds less than `highWater` bytes, else once the
    /// reader has made room (`pauseIfFull`) or the queue has ended.
    package func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !pauseIfFull(resume: { continuation.resume() }) { continuation.resume() }
        }
    }

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
            state.bytes += chunk.count
            return (true, nil)
        }
        waiter?.resume(returning: chunk)
        return accepted
    }

    /// Ends the queue: the reader gets the chunks already sent, then nil; `error` is the `failure` (the link dropped).
    /// Only the first finish counts.
    package func finish(throwing error: (any Error & Sendable)? = nil) {
        let (waiter, resume) = state.withLock {
            state -> (CheckedContinuation<[UInt8]?, Never>?, (@Sendable () -> Void)?) in
            if !state.finished { state.failure = error }
            state.finished = true
            defer {
                state.waiter = nil
                state.resume = nil
            }
            return (state.waiter, state.resume)
        }
        waiter?.resume(returning: nil)
        resume?()
    }

    /// Why the queue ended, when it was finished with an error.
    package var failure: (any Error & Sendable)? { state.withLock { $0.failure } }

    /// The next chunk; nil once the queue has ended and is drained (`failure` says why), or when the reading task is
    /// cancelled. One reader at a time.
    package func next() async -> [UInt8]? {
        switch state.withLock({ Self.ready(&$0, lowWater: highWater / 2) }) {
        case .chunk(let chunk, let resume):
            resume?()
            return chunk
        case .end: return nil
        case .wait: break
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
                let ready = state.withLock { state -> Ready in
                    let ready = Self.ready(&state, lowWater: highWater / 2)
                    if case .wait = ready {
                        precondition(state.waiter == nil, "ByteQueue has one reader")
                        state.waiter = continuation
                    }
                    return ready
                }
                switch ready {
                case .chunk(let chunk, let resume):
                    resume?()
                    continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            finish()
        }
    }

    private static func ready(_ state: inout State, lowWater: Int) -> Ready {
        if let (chunk, resume) = state.take(lowWater: lowWater) { return .chunk(chunk, resume: resume) }
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
