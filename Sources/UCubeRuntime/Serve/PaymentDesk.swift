import Foundation
import Synchronization
import UCubePayment
import UCubeProtocol

/// What `ucube serve` knows of the payments it took (and of the ones the journal answers for), of its terminals, and
/// of the events it sent: one lock, no I/O. The engine's events arrive here in the order it emits them (`note` is
/// synchronous), each becomes a served event (`EventLog`) and is handed to every open event stream.
package final class PaymentDesk: Sendable {
    /// The answer to a `POST /v1/payments`, decided under the lock, so that two requests with one request id (also at
    /// once) start one payment.
    package enum Reservation: Sendable {
        /// This request may start the payment: the terminal and the id are reserved for it.
        case reserved
        /// The id is known: its payment's state (started by an earlier request).
        case existing(ServedPayment)
        case refused(ServeError)
    }

    private struct State {
        package var payments: [String: ServedPayment] = [:]
        /// Request ids in the order they came (to forget the oldest finished one).
        package var order: [String] = []
        /// The payment each terminal runs.
        package var busy: [String: String] = [:]
        package var log: EventLog
        package var subscribers: [Int: AsyncStream<ServedEvent>.Continuation] = [:]
        package var nextSubscriber = 0
        /// An application choice waiting for its answer, by request id.
        package var choices: [String: CheckedContinuation<Int?, Never>] = [:]
        package var stopping = false
    }

    private let state: Mutex<State>
    /// The terminals served, as `--device` (or devices.json) names them.
    package let devices: [String]

    package init(devices: [String], epoch: String) {
        self.devices = devices
        state = Mutex(State(log: EventLog(epoch: epoch, capacity: ServeChoices.eventBuffer)))
    }

    // MARK: Payments

    /// Reserves `order`'s request id and terminal, or says why not (the journal's claim, across processes, comes next:
    /// `ServePayments.start`).
    package func reserve(_ order: ServedPayment) -> Reservation {
        state.withLock { state in
            if let existing = state.payments[order.requestID], existing.phase != .failed {
                if existing.device != order.device || existing.amount != order.amount
                    || existing.currency != order.currency
                {
                    return .refused(
                        ServeError(
                            409, "request-id-reused",
                            "request id \(order.requestID) was given to another payment (\(existing.currency) \(existing.amount) minor units on \(existing.device))",
                            hint: "one payment per request id: give a new one"))
                }
                return .existing(existing)
            }
            if state.stopping {
                return .refused(ServeError(503, "stopping", "ucube serve is stopping: no new payment"))
            }
            if let running = state.busy[order.device] {
                return .refused(
                    ServeError(
                        409, "terminal-busy", "\(order.device) is taking payment \(running)",
                        hint: "one payment per terminal at a time: wait for its `finished` event"))
            }
            state.busy[order.device] = order.requestID
            if state.payments[order.requestID] == nil { state.order.append(order.requestID) }
            state.payments[order.requestID] = order
            forgetOldest(&state)
            return .reserved
        }
    }

    /// Forgets a reservation that started nothing (refused before its request id was claimed, or found journalled).
    package func release(_ id: String) {
        state.withLock { state in
            guard let payment = state.payments.removeValue(forKey: id) else { return }
            state.order.removeAll { $0 == id }
            if state.busy[payment.device] == id { state.busy[payment.device] = nil }
        }
    }

    /// The payment's state as the journal knows it, kept so that the next asks are answered the same (the id was
    /// claimed by another process or earlier).
    package func remember(_ payment: ServedPayment) {
        state.withLock { state in
            if state.payments[payment.requestID] == nil { state.order.append(payment.requestID) }
            state.payments[payment.requestID] = payment
            forgetOldest(&state)
        }
    }

    private func forgetOldest(_ state: inout State) {
        while state.order.count > ServeChoices.rememberedPayments,
            let index = state.order.firstIndex(where: { state.payments[$0]?.phase.isFinal ?? true })
        {
            state.payments.removeValue(forKey: state.order.remove(at: index))
        }
    }

    /// The link is open and the payment runs.
    package func started(_ id: String) {
        update(id) { payment in
            payment.phase = .running
            return ServedEventDocument(type: "started", payment: payment)
        }
    }

    /// One of the engine's events, in order.
    package func note(_ id: String, _ event: PaymentEvent) {
        switch event {
        case .stateChanged(let paymentState):
            update(id) { payment in
                payment.state = paymentState.name
                return ServedEventDocument(type: "state", payment: payment, state: paymentState.name)
            }
        case .taskRequested(let task):
            let name: String
            switch task {
            case .selectApplication: name = "select-application"
            case .riskManagement: name = "risk-management"
            case .authorize: name = "authorize"
            }
            update(id) { payment in ServedEventDocument(type: "task", payment: payment, task: name) }
        case .journalFailed(let reason):
            update(id) { payment in ServedEventDocument(type: "journal-failed", payment: payment, reason: reason) }
        case .finished:
            // `finish` reports it, with the outcome and the host's part.
            break
        }
    }

    /// The payment ended: its outcome (what `pay --json` prints) and its receipt. An approval that needs the
    /// cardholder's signature is told first, as a `signature` prompt, so that a POS asks for it.
    package func finish(_ id: String, outcome: ServedOutcome) {
        if outcome.needsSignature {
            update(id) { payment in
                payment.prompt = .signature
                return ServedEventDocument(type: "prompt", payment: payment, full: true)
            }
        }
        update(id) { payment in
            payment.phase = .finished
            payment.status = outcome.status
            payment.prompt = nil
            payment.outcome = outcome
            return ServedEventDocument(type: "finished", payment: payment, full: true)
        }
        freeTerminal(of: id)
    }

    /// The payment could not start (the link, the journal): no command reached the terminal for it.
    package func failed(_ id: String, _ error: ServeError) {
        update(id) { payment in
            payment.phase = .failed
            payment.error = error
            payment.prompt = nil
            return ServedEventDocument(type: "failed", payment: payment, full: true)
        }
        freeTerminal(of: id)
    }

    /// The terminal `id` ran on takes the next payment.
    private func freeTerminal(of id: String) {
        state.withLock { state in
            if let device = state.payments[id]?.device, state.busy[device] == id { state.busy[device] = nil }
        }
    }

    /// A cancel was asked for `id`: its answer, kept and reported.
    package func cancelAnswered(_ id: String, _ answer: CancelAnswer) {
        update(id) { payment in
            if answer.kind == .accepted || answer.kind == .already { payment.cancel = "accepted" }
            return ServedEventDocument(type: "cancel", payment: payment, reason: answer.kind.rawValue)
        }
    }

    package func payment(_ id: String) -> ServedPayment? { state.withLock { $0.payments[id] } }

    /// The payment running on `device`, if any.
    package func running(on device: String) -> String? { state.withLock { $0.busy[device] } }

    /// Whether nothing runs; once `stopping`, no payment starts.
    package func stop() -> [String] {
        state.withLock { state in
            state.stopping = true
            return Array(state.busy.values)
        }
    }

    package var isIdle: Bool { state.withLock { $0.busy.isEmpty } }

    /// Changes the payment `id` and sends the event `change` returns.
    private func update(_ id: String, _ change: (inout ServedPayment) -> ServedEventDocument) {
        state.withLock { state in
            guard var payment = state.payments[id] else { return }
            payment.version += 1
            let document = change(&payment)
            state.payments[id] = payment
            publish(document.json, &state)
        }
    }

    private func publish(_ json: String, _ state: inout State) {
        let event = state.log.append(json)
        for (key, subscriber) in state.subscribers {
            if case .dropped = subscriber.yield(event) {
                // Too slow: closed; its client reconnects with Last-Event-ID and replays from the log.
                subscriber.finish()
                state.subscribers.removeValue(forKey: key)
            }
        }
    }

    // MARK: Prompts

    /// Asks the client for the application (`POST /v1/payments/{id}/choice`); nil: cancelled, or no answer within
    /// `timeout`.
    package func chooseApplication(_ id: String, _ candidates: [CandidateApplication], timeout: Duration) async -> Int?
    {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { _ = answer(id, nil) }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let stale = state.withLock { state -> CheckedContinuation<Int?, Never>? in
                let stale = state.choices.removeValue(forKey: id)
                state.choices[id] = continuation
                return stale
            }
            stale?.resume(returning: nil)
            update(id) { payment in
                payment.prompt = .application(candidates)
                return ServedEventDocument(type: "prompt", payment: payment, full: true)
            }
        }
    }

    /// Answers the waiting choice of `id` (a candidate's index, nil to cancel); false when none waits.
    package func answer(_ id: String, _ index: Int?) -> Bool {
        let waiting = state.withLock { $0.choices.removeValue(forKey: id) }
        guard let waiting else { return false }
        update(id) { payment in
            payment.prompt = nil
            return ServedEventDocument(type: "choice", payment: payment, choice: index.map { $0 + 1 })
        }
        waiting.resume(returning: index)
        return true
    }

    // MARK: Event streams

    /// A new event stream: the events after `lastID` (with a `reset` event first when some are gone), then every new
    /// one. nil: too many streams are open.
    package func subscribe(lastID: String?) -> (replay: [ServedEvent], stream: AsyncStream<ServedEvent>, id: Int)? {
        state.withLock { state in
            guard state.subscribers.count < ServeChoices.maxSubscribers, !state.stopping else { return nil }
            var (replay, gap) = state.log.since(lastID)
            if gap {
                let reset = ServedEventDocument.reset(lastID: lastID)
                replay.insert(ServedEvent(id: "", sequence: 0, json: reset), at: 0)
            }
            let (stream, continuation) = AsyncStream.makeStream(
                of: ServedEvent.self, bufferingPolicy: .bufferingOldest(ServeChoices.subscriberBacklog))
            let key = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[key] = continuation
            return (replay, stream, key)
        }
    }

    package func unsubscribe(_ key: Int) {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: key) }
        continuation?.finish()
    }

    /// Every open stream gets a comment line (`heartbeat`), or is ended (`stop`).
    package func heartbeat() {
        state.withLock { state in
            for subscriber in state.subscribers.values {
                _ = subscriber.yield(ServedEvent(id: "", sequence: 0, json: ""))
            }
        }
    }

    package func endStreams() {
        let all = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }
}
