import Foundation
import Synchronization

/// SIGINT, SIGTERM and SIGHUP as an event while a command that can stop cleanly runs: each ends it the way Ctrl-C
/// does (the default action would kill the process mid-payment or mid-update). Each unit of work that can stop
/// registers what an interrupt means for it (a fleet run, each terminal's suite, each terminal's payment); while any is
/// registered, each of these signals calls every registration, newest first, on a thread of its own: a signal is
/// addressed to the process, so it reaches every terminal of a fleet run, not only the payment that registered last.
/// Newest first, so that the innermost work hears it before the work around it reacts (a suite's case is marked
/// interrupted before the fleet run cancels the task it runs in).
/// With none registered, the signal has its default action.
///
/// The signals are caught by a `sigaction` handler that only writes the signal's number into a pipe
/// (async-signal-safe), and a thread of its own reads the pipe. Once `onInterrupt` has returned, no signal is lost or
/// ignored: the handler is installed before the registration is visible. (A Dispatch signal source set up per command
/// left a window between `SIG_IGN` and the source where a Ctrl-C was dropped: `display --wait-key` then ran to its
/// timeout.)
package final class Interrupts: Sendable {
    /// The signals that end a command as Ctrl-C does.
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let id: Int

    private init(_ id: Int) { self.id = id }

    /// Calls `handler` on each SIGINT, SIGTERM or SIGHUP until `cancel()`. `consuming`: while this registration is
    /// the newest, the signal is its alone (an operator's prompt, which a signal answers with "cancel"): the older
    /// registrations do not hear it.
    package static func onInterrupt(consuming: Bool = false, _ handler: @escaping @Sendable () -> Void) -> Interrupts {
        Interrupts(registry.withLock { $0.add(handler, consuming: consuming) })
    }

    /// Runs `body` in a task that an interrupt cancels (after `first`, which runs on each interrupt before the
    /// cancel), as does `stop` when another party (`ucube cancel`) holds it. The handler is in place before the task
    /// starts, so an interrupt at any moment reaches the work.
    package static func cancelling<T: Sendable>(
        _ body: @escaping @Sendable () async throws -> T, stop: CancelSlot = CancelSlot(),
        first: @escaping @Sendable () -> Void = {}
    ) async throws -> T {
        let interrupts = onInterrupt {
            first()
            stop.cancel()
        }
        defer { interrupts.cancel() }
        let task = Task { try await body() }
        stop.hold { task.cancel() }
        return try await task.value
    }

    package func cancel() { Self.registry.withLock { $0.remove(id) } }

    /// Called on the pipe's thread for each signal: every registration, outside the lock (a handler may register or
    /// cancel one); false when none is registered.
    fileprivate static func deliver() -> Bool {
        let handlers = registry.withLock { $0.handlers }
        for handler in handlers.reversed() {
            handler.call()
            if handler.consuming { break }
        }
        return !handlers.isEmpty
    }

    private static let registry = Mutex(Registry())

    /// The registrations, and the signals' disposition, which follows them under the same lock: caught while one is
    /// registered, the default otherwise.
    private struct Registry {
        var handlers: [(id: Int, call: @Sendable () -> Void, consuming: Bool)] = []
        var next = 0
        var pipeReady = false

        mutating func add(_ call: @escaping @Sendable () -> Void, consuming: Bool) -> Int {
            if handlers.isEmpty {
                if !pipeReady { pipeReady = SignalPipe.open() }
                if pipeReady { SignalPipe.catchSignals() }
            }
            next += 1
            handlers.append((next, call, consuming))
            return next
        }

        mutating func remove(_ id: Int) {
            handlers.removeAll { $0.id == id }
            if handlers.isEmpty { for signal in Interrupts.signals { _ = Glibc.signal(signal, SIG_DFL) } }
        }
    }
}

/// A task's cancel that may be asked for before the task exists: `hold` then cancels at once.
package final class CancelSlot: Sendable {
    private let state = Mutex<(cancel: (@Sendable () -> Void)?, cancelled: Bool)>((nil, false))

    package init() {}

    package func hold(_ cancel: @escaping @Sendable () -> Void) {
        let already = state.withLock { state in
            state.cancel = cancel
            return state.cancelled
        }
        if already { cancel() }
    }

    /// Cancels the task (now, or as soon as it is held); false when an earlier call already did.
    @discardableResult
    package func cancel() -> Bool {
        let (call, first) = state.withLock { state in
            defer { state.cancelled = true }
            return (state.cancel, !state.cancelled)
        }
        if first { call?() }
        return first
    }
}

/// The write end of the self-pipe, set before the handler that reads it is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

private func onInterruptSignal(_ signal: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}

private enum SignalPipe {
    /// Creates the pipe and the thread that reads it; false when the pipe cannot be made (the signals then keep
    /// their default action).
    static func open() -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                if !Interrupts.deliver() {
                    // No command listens any more: the signal's own default, as if it had never been caught.
                    signal(Int32(byte), SIG_DFL)
                    raise(Int32(byte))
                }
            }
        }.start()
        return true
    }

    static func catchSignals() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = onInterruptSignal
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for signal in Interrupts.signals { sigaction(signal, &action, nil) }
    }
}

/// A request to stop (a signal, `ucube cancel`) noted from any thread, for work that looks at it when it can: a suite
/// run between its cases, a payment not started yet.
package final class StopRequest: Sendable {
    private struct State {
        var requested = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var next = 0
    }
    private let state = Mutex(State())

    package init() {}

    package func request() {
        let waiting = state.withLock { state in
            state.requested = true
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for continuation in waiting { continuation.resume() }
    }

    package var isRequested: Bool { state.withLock { $0.requested } }

    /// Returns once a stop is requested (at once when it was), or when the task is cancelled: for a wait that a stop
    /// ends (the operator's Enter in a suite run).
    package func wait() async {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.requested || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }
}
