import Synchronization

/// An unbounded queue from any number of senders (synchronous code included) to one asynchronous reader: the in-process
/// links between the RPC client and the built-in simulator, and the simulator's answers on their way out.
///
/// It does what `AsyncStream` does for those links, as a type of this package: the standard library's stream runs
/// unspecialised generic code (its continuation list, `removeFirst` through witness tables) and instantiates metadata
/// on first use, which was a sixth of the instructions `ucube --device sim info` adds to a bare start-up
/// (Benchmarks/startup.sh). Its methods are inlinable so that each client module specialises them.
///
/// Semantics are `AsyncStream`'s with the unbounded buffering policy: values are read in the order sent; `finish()`
/// ends the queue once the values already sent are read; `send` after the end is refused. When the reading task is
/// cancelled, the wait ends with nil and the queue is finished, as `AsyncStream` terminates.
package final class AsyncQueue<Element: Sendable>: AsyncSequence, Sendable {
    @usableFromInline
    struct State: ~Copyable {
        @usableFromInline var values: [Element] = []
        /// Index of the next value to read in `values`: reading does not shift the array.
        @usableFromInline var head = 0
        @usableFromInline var finished = false
        @usableFromInline var waiter: CheckedContinuation<Element?, Never>?

        @inlinable init() {}

        /// The next value, if one is buffered.
        @inlinable mutating func take() -> Element? {
            guard head < values.count else { return nil }
            let value = values[head]
            head += 1
            if head == values.count {
                values.removeAll(keepingCapacity: true)
                head = 0
            }
            return value
        }
    }

    @usableFromInline let state = Mutex(State())

    @inlinable package init() {}

    /// Appends `value` for the reader; false when the queue has ended (`finish`, or the reader was cancelled), and the
    /// value is dropped.
    @inlinable @discardableResult
    package func send(_ value: Element) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Element?, Never>?) in
            guard !state.finished else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.values.append(value)
            return (true, nil)
        }
        waiter?.resume(returning: value)
        return accepted
    }

    /// Ends the queue: the reader gets the values already sent, then nil.
    @inlinable package func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next value; nil once the queue has ended and is drained, or when the reading task is cancelled. One reader
    /// at a time.
    @inlinable package func next() async -> Element? {
        if let ready = state.withLock({ state -> Element?? in
            if let value = state.take() { return .some(value) }
            return state.finished ? .some(nil) : nil
        }) {
            return ready
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready = state.withLock { state -> Element?? in
                    if let value = state.take() { return .some(value) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    precondition(state.waiter == nil, "AsyncQueue has one reader")
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let queue: AsyncQueue

        @inlinable init(queue: AsyncQueue) { self.queue = queue }

        @inlinable package mutating func next() async -> Element? { await queue.next() }
    }

    @inlinable package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}
