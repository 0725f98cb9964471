import Dispatch
import Logging
import UCubeProtocol
import UCubeSupport

/// One exchange as seen on the link, for `--trace` and logs.
package enum TraceEvent: Sendable {
    /// A frame we wrote, with its exact bytes.
    case sent(bytes: [UInt8], frame: CommandFrame)
    /// A frame we received, with its exact bytes; `secured`: read in the SECURED layout (spec §2.3).
    case received(bytes: [UInt8], frame: RawFrame, secured: Bool)
    /// Bytes that were not a frame, and why.
    case rejected(FrameError)
    /// The link dropped.
    case disconnected(String)
}

/// The answer to one command: the terminal's status (a value, not an error) and, when the status is one the
/// command treats as success, its typed response.
package struct Reply<Response: RPCResponse>: Sendable {
    /// The SEQ our command carried.
    package let sequence: UInt8
    /// The response frame as interpreted (secured or plain).
    package let frame: ResponseFrame
    /// The decoded response; nil when the status is not a success status of the command, or the data is ciphered.
    package let response: Response?
    /// The data is SIGNED_CIPHERED ciphertext (a secure session): only the HSM side can read it (spec §2.3).
    package let isCiphered: Bool

    package var status: Status { frame.status }
    /// The terminal accepted the command (its status is one the command treats as success).
    package var succeeded: Bool { response != nil || (isCiphered && frame.status.isSuccess) }
}

/// The answer to a hand-built command (`ucube rpc raw`).
package struct RawReply: Sendable {
    package let sequence: UInt8
    package let frame: ResponseFrame
}

/// What cancelling the task that awaits a command does.
package enum TaskCancellation: Sendable, Hashable {
    /// CancelAll goes out: the pending command answers −32 (a command sent on its own: `display`, `choose`,
    /// `read-card`; spec §5.2).
    case cancelAll
    /// Nothing is sent: the caller owns the task's cancellation and decides what it means. A payment's engine does,
    /// by its cancel rule (spec §8.1): past the card read a cancel is refused and the command must run on.
    case caller
}

/// The RPC client: owns the transport, the deadlines and the continuations, and turns every link failure into a
/// `LinkError` — never a hang. The protocol's decisions are values it asks: `LinkRules` numbers the frames and tracks
/// the secure session; `PendingCommands` keeps one command in flight (only CancelAll may overlap it, spec §9) and says
/// what each incoming frame is, which the actor then acts on (resumes a continuation, traces, logs).
package actor RPCClient {
    private let transport: any Transport
    private var decoder = FrameDecoder()
    package private(set) var rules: LinkRules
    private var defaultTimeout: Duration
    private var trace: (@Sendable (TraceEvent) -> Void)?
    /// The rpc layer's log: each command and answer by name, SEQ, length and status; data only for the commands
    /// of `Masking.commandsWithLoggableData`. nil: no logging.
    private let logger: Logger?
    /// The connection layer's log: link up, closed, dropped. nil: no logging.
    private let connectionLogger: Logger?
    /// The commands waiting for their answers, and what an incoming frame is (`PendingCommands`).
    private var pending = PendingCommands()
    /// What the actor keeps of each waiting command, by its token: the continuation and the deadline.
    private var waiters: [Int: Waiter] = [:]
    private var readerTask: Task<Void, Never>?
    private var closedReason: String?
    /// When the deadline watchdog wakes next (`nil`: no watchdog sleeping).
    private var watchdogWake: ContinuousClock.Instant?
    /// How long the link may stay silent in the middle of a frame (`ResponseTimeouts.frameSilence`).
    private let frameSilence: Duration
    /// When the last bytes of a frame still incomplete arrived (`nil`: no partial frame buffered).
    private var partialFrameSince: ContinuousClock.Instant?
    /// A task is watching the partial frame (`partialFrameCheck`).
    private var partialWatcherSleeping = false

    private struct Waiter {
        let continuation: CheckedContinuation<ResponseFrame, any Error>
        let timeout: Duration
        let deadline: ContinuousClock.Instant
    }

    /// `rules` lets a caller resume a session kept across processes (SEQ and secured flag).
    package init(
        transport: any Transport, defaultTimeout: Duration = .seconds(10), rules: LinkRules = LinkRules(),
        trace: (@Sendable (TraceEvent) -> Void)? = nil, logger: Logger? = nil, connectionLogger: Logger? = nil,
        frameSilence: Duration = ResponseTimeouts.frameSilence
    ) {
        self.transport = transport
        self.frameSilence = frameSilence
        self.defaultTimeout = defaultTimeout
        self.rules = rules
        self.trace = trace
        self.logger = logger
        self.connectionLogger = connectionLogger
    }

    /// Changes the RPC timeout and the frame trace for the commands sent from now on (a shell keeps one client
    /// while its `set timeout` / `set trace` change).
    package func configure(defaultTimeout: Duration, trace: (@Sendable (TraceEvent) -> Void)?) {
        self.defaultTimeout = defaultTimeout
        self.trace = trace
    }

    package var transportName: String { transport.name }
    package var isConnected: Bool { closedReason == nil }
    package var isSecured: Bool { rules.secured }
    /// The terminal's state is no longer known from this side: a command went unanswered (it may still be running
    /// there), an answer stopped halfway, or the terminal dropped the link (a secure session may have survived it).
    package private(set) var lostTrack = false
    /// Answers dropped as stale: no pending command had their SEQ (duplicates, replays, unknown SEQ; spec §2.4), or
    /// the late −32 of a long-running command a CancelAll ended (spec §2.8).
    package var staleAnswersDropped: Int { pending.staleAnswersDropped }
    /// Commands this client has handed to the transport (CancelAll included): a caller that remembers the count can
    /// tell whether anything was sent since (a terminal's state it learned still holds only if nothing was).
    package private(set) var commandsSent = 0
    /// True while a command other than CancelAll awaits its answer.
    package var hasPendingCommand: Bool { pending.hasCommandWaiting }

    /// Starts reading from the transport. Called once, before the first command (send calls it too).
    package func start() {
        guard readerTask == nil else { return }
        connectionLogger?.info("link open: \(transport.name)")
        let stream = transport.incoming
        readerTask = Task { [weak self] in
            while let chunk = await stream.next() {
                await self?.received(chunk)
            }
            await self?.linkDropped(stream.failure.map { "\($0)" } ?? "the terminal closed the link")
        }
    }

    /// Closes the link; pending commands fail with `.disconnected`.
    package func close() async {
        linkDropped(nil)
        readerTask?.cancel()
        await transport.close()
    }

    // MARK: Typed commands

    /// Sends a typed command and waits for its answer, at most `timeout` (default: the command's own timeout for
    /// long-running commands, else the client's RPC timeout). A non-zero status is returned, not thrown.
    /// `onTaskCancel` says what cancelling the awaiting task does (`TaskCancellation`). `onSent` is called, on the
    /// client's actor, once the command is pending (its frame handed over to be written): from then on a `cancelAll()`
    /// reaches it. It is not called when the command is refused before that (not connected, busy, not encodable).
    package func send<C: RPCCommand>(
        _ command: C, timeout: Duration? = nil, onTaskCancel: TaskCancellation = .cancelAll,
        onSent: (@Sendable () -> Void)? = nil
    ) async throws(LinkError) -> Reply<C.Response> {
        let payload: [UInt8]
        do {
            payload = try command.encodePayload()
        } catch {
            throw LinkError(.invalidRequest, error.reason)
        }
        let modes = CommandCatalogue.modes(for: C.id)
        let (seq, frame) = try await exchange(
            id: C.id, payload: payload, inputMode: modes.input, outputMode: modes.output, rawBody: false,
            timeout: timeout ?? command.responseTimeout ?? defaultTimeout, onTaskCancel: onTaskCancel, onSent: onSent)
        var response: C.Response? = nil
        let ciphered = frame.envelope != nil && modes.output == .signedCiphered && !frame.data.isEmpty
        if C.successStatuses.contains(frame.status) && !ciphered {
            do {
                response = try C.Response(status: frame.status, data: frame.data)
            } catch {
                throw LinkError(.malformedResponse, "\(C.descriptor.name) response: \(error.reason)")
            }
        }
        return Reply(sequence: seq, frame: frame, response: response, isCiphered: ciphered)
    }

    /// Sends a hand-built command. `inputMode`/`outputMode` override the catalogue: NONE sends `payload` as the
    /// whole body; SIGNED_NOT_CHECKED wraps it with crypto header 0x7F and a zero MAC; SIGNED and SIGNED_CIPHERED
    /// mean the payload is an HSM-built body (crypto header ‖ data ‖ MAC) and is sent as it is.
    package func sendRaw(
        id: CommandID, payload: [UInt8], inputMode: SecurityMode? = nil, outputMode: SecurityMode? = nil,
        timeout: Duration? = nil
    ) async throws(LinkError) -> RawReply {
        let modes = CommandCatalogue.modes(for: id)
        let input = inputMode ?? modes.input
        let hsmBuilt = inputMode == .signed || inputMode == .signedCiphered
        let (seq, frame) = try await exchange(
            id: id, payload: payload, inputMode: input, outputMode: outputMode ?? modes.output, rawBody: hsmBuilt,
            timeout: timeout ?? defaultTimeout)
        return RawReply(sequence: seq, frame: frame)
    }

    /// Sends CancelAll (spec §5.2): a pending long-running command then ends with −32, which its caller receives
    /// as an ordinary reply. Returns CancelAll's own status.
    @discardableResult
    package func cancelAll(timeout: Duration? = nil) async throws(LinkError) -> Status {
        try await exchange(
            id: .cancelAll, payload: [], inputMode: .none, outputMode: .none, rawBody: false,
            timeout: timeout ?? defaultTimeout
        ).1.status
    }

    /// Checks that the terminal really is in the secure session this client believes open (a session kept across
    /// processes: the terminal may have rebooted since, or another process closed it). GetInfo with no tag is sent
    /// exactly alike in both states (an empty payload is never wrapped, spec §2.3) and answers no data, so its body is
    /// the 2-byte status in READY and crypto header + status (3 bytes) in SECURED. A READY answer clears the flag.
    /// Returns whether the session is open; nil when the answer does not tell (it carried data).
    @discardableResult
    package func verifySecureSession() async throws(LinkError) -> Bool? {
        guard rules.secured else { return false }
        let (_, frame) = try await exchange(
            id: .getInfo, payload: [], inputMode: .none, outputMode: .none, rawBody: false, timeout: defaultTimeout)
        switch frame.data.count {
        case 0:
            rules.secureSessionLost()
            logger?.notice("the terminal is not in the secure session this link kept: commands go plain")
            return false
        case FrameLimits.cryptoHeaderSize: return true
        default: return nil
        }
    }

    /// Numbers the next command 0 again (`LinkRules.restartNumbering`), once the terminal is known to be READY.
    package func restartNumbering() { rules.restartNumbering() }

    // MARK: Exchange

    private func exchange(
        id: CommandID, payload: [UInt8], inputMode: SecurityMode, outputMode: SecurityMode, rawBody: Bool,
        timeout: Duration, onTaskCancel: TaskCancellation = .cancelAll, onSent: (@Sendable () -> Void)? = nil
    ) async throws(LinkError) -> (UInt8, ResponseFrame) {
        start()
        if let closedReason { throw LinkError(.notConnected, "not connected to a terminal: \(closedReason)") }
        if let refusal = pending.refusal(toSend: id) { throw refusal }
        // Decide, then act: everything about this command is settled before the first suspension.
        let seq = rules.takeSequence(for: id)
        let frame: CommandFrame
        if rawBody && rules.secured {
            frame = CommandFrame(sequence: seq, command: id, payload: payload)  // HSM-built body, sent as it is
        } else if rules.wraps(id, payload: payload, inputMode: inputMode) {
            frame = CommandFrame(sequence: seq, command: id, payload: payload, envelope: SecuredEnvelope())
        } else {
            frame = CommandFrame(sequence: seq, command: id, payload: payload)
        }
        let bytes: [UInt8]
        do {
            bytes = try frame.encoded()
        } catch {
            throw LinkError(.invalidRequest, "\(id): \(error.reason)")
        }
        let securedResponse = rules.expectsSecuredResponse(id, outputMode: outputMode)
        commandsSent += 1

        let result: Result<ResponseFrame, LinkError> = await withTaskCancellationHandler {
            do {
                let response = try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<ResponseFrame, any Error>) in
                    let token = pending.sent(id, sequence: seq, securedResponse: securedResponse).token
                    waiters[token] = Waiter(continuation: continuation, timeout: timeout, deadline: .now + timeout)
                    armWatchdog()
                    trace?(.sent(bytes: bytes, frame: frame))
                    logger?.debug(
                        "sent message: \(Self.name(id)) seq \(seq) \(bytes.count) bytes\(Self.loggableData(id, payload))"
                    )
                    Task { await self.write(bytes, token: token) }
                    onSent?()
                }
                return .success(response)
            } catch let error as LinkError {
                return .failure(error)
            } catch {
                return .failure(LinkError(.disconnected, "\(error)"))
            }
        } onCancel: {
            // Task cancellation (Ctrl-C, `ucube cancel`) maps onto the terminal's cancel: CancelAll makes the pending
            // command answer −32, and that answer comes back through the normal path. Unless the caller owns it.
            if id != .cancelAll, onTaskCancel == .cancelAll { Task { await self.cancelFromTask() } }
        }
        switch result {
        case .success(let response):
            rules.responseReceived(id, status: response.status)
            return (seq, response)
        case .failure(let error):
            throw error
        }
    }

    private func cancelFromTask() async {
        guard hasPendingCommand, closedReason == nil else { return }
        _ = try? await cancelAll()
    }

    private func write(_ bytes: [UInt8], token: Int) async {
        do {
            try await transport.write(bytes)
        } catch let error as LinkError where error.code == .replayDiverged {
            fail(token: token, error)
        } catch {
            fail(token: token, LinkError(.disconnected, "write failed: \(error)"))
        }
    }

    /// One watchdog sleep covers every pending deadline: it is started only when a command's deadline is earlier
    /// than the current wake-up. (A per-command sleep, even cancelled, keeps its timer and task allocated until its
    /// deadline on Linux, so thousands of quick commands — a firmware load — grew memory for the whole timeout.)
    private func armWatchdog() {
        guard let earliest = waiters.values.map(\.deadline).min() else { return }
        if let wake = watchdogWake, wake <= earliest { return }
        watchdogWake = earliest
        // A Dispatch timer, not `Task.sleep`: the first sleep of a process asks whether the executor schedules
        // (a conformance lookup that scans all of the binary's), a tenth of a millisecond of `ucube info`.
        let delay = max(0, (earliest - ContinuousClock.now).seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            Task { await self.watchdogFired(earliest) }
        }
    }

    private func watchdogFired(_ wake: ContinuousClock.Instant) {
        if watchdogWake == wake { watchdogWake = nil }
        let now = ContinuousClock.now
        for p in pending.waiting {
            if let waiter = waiters[p.token], waiter.deadline <= now { expire(token: p.token, after: waiter.timeout) }
        }
        armWatchdog()
    }

    private func expire(token: Int, after timeout: Duration) {
        guard let p = pending.waiting.first(where: { $0.token == token }) else { return }
        lostTrack = true
        // Whatever is buffered may be a stray STX waiting for bytes that never come: start clean.
        decoder.reset()
        // A terminal that did answer, each time with a SEQ no command waiting had (spec §2.4), is not a silent one: say
        // how many answers were dropped, and why.
        let dropped = pending.staleAnswers(whileWaiting: p)
        let why =
            dropped == 0
            ? ""
            : ": \(dropped) answer\(dropped == 1 ? "" : "s") came in that time with a SEQ no waiting command had (\(pending.lastStaleSequence.map { "the last seq \($0), " } ?? "")\(p.command) went with seq \(p.sequence)) and \(dropped == 1 ? "was" : "were") dropped (spec §2.4: an answer carries its command's SEQ)"
        logger?.warning("no answer to \(Self.name(p.command)) seq \(p.sequence) within \(timeout)\(why)")
        fail(token: token, LinkError(.timeout, "no answer to \(p.command) within \(timeout)\(why)"))
    }

    private func fail(token: Int, _ error: LinkError) {
        guard pending.remove(token: token) != nil else { return }
        waiters.removeValue(forKey: token)?.continuation.resume(throwing: error)
    }

    /// Hands a command that no longer waits (`PendingCommands` said so) its answer or its failure.
    private func finish(_ p: PendingCommands.Command, _ result: Result<ResponseFrame, LinkError>) {
        waiters.removeValue(forKey: p.token)?.continuation.resume(with: result.mapError { $0 })
    }

    private func resolve(_ answer: PendingCommands.Answer, raw: RawFrame) {
        let p = answer.command
        if answer.leftSecureSession {
            // The terminal left the secure session this process believed open (a reboot, another process): the
            // answer was read plain; say so.
            rules.secureSessionLost()
            logger?.warning(
                "\(Self.name(raw.command)) answered in the READY layout: the terminal is not in a secure session")
        }
        switch answer.frame {
        case .success(let frame):
            logger?.debug(
                "received message: \(Self.name(raw.command)) seq \(raw.sequence) \(raw.body.count) bytes status \(frame.status)\(Self.loggableData(p.command, frame.data))"
            )
            finish(p, .success(frame))
        case .failure(let error):
            finish(p, .failure(LinkError(.badFrame, "\(p.command) response: \(error.reason)")))
        }
    }

    // MARK: Receiving

    private func received(_ chunk: [UInt8]) {
        guard closedReason == nil else { return }
        decoder.append(chunk)
        defer { watchPartialFrame() }
        while true {
            let raw: RawFrame
            do {
                guard let next = try decoder.next() else { break }
                raw = next
            } catch {
                trace?(.rejected(error))
                logger?.warning("rejected bytes from the terminal: \(error.reason)")
                // A bad frame answers nothing we can trust: fail the command waiting for it (not CancelAll).
                if let p = pending.awaitedAnswer {
                    fail(token: p.token, LinkError(.badFrame, "bad frame from the terminal: \(error.reason)"))
                }
                continue
            }
            let verdict = pending.received(raw)
            if let bytes = try? raw.encoded() {
                let secured: Bool
                if case .answer(let answer) = verdict { secured = answer.dueSecured } else { secured = false }
                trace?(.received(bytes: bytes, frame: raw, secured: secured))
            }
            switch verdict {
            case .answer(let answer):
                resolve(answer, raw: raw)
            case .protocolBreak(let p, let answered):
                finish(
                    p,
                    .failure(
                        LinkError(
                            .unexpectedResponse, "the terminal answered \(answered) while \(p.command) was pending")
                    ))
            case .stale, .lateCancelled:
                // Dropped, logged and counted; the waiting command waits for its own answer.
                logger?.warning(
                    "dropped an answer that belongs to no pending command: \(Self.name(raw.command)) seq \(raw.sequence)\(pending.waiting.isEmpty ? "" : " (waiting for \(pending.waiting.map { "\(Self.name($0.command)) seq \($0.sequence)" }.joined(separator: ", ")))")"
                )
            }
        }
        dropIfNoise()
    }

    /// A peer that sends more than `LinkRules.maxNoiseBytes` without one valid frame is not a terminal (or no longer
    /// talks the protocol): the link is dropped, and the command waiting fails with the reason.
    private func dropIfNoise() {
        let noise = decoder.noiseSinceLastFrame
        guard noise > LinkRules.maxNoiseBytes else { return }
        decoder.reset()
        logger?.warning("\(noise) bytes from the terminal without one valid frame: dropping the link")
        linkDropped(
            "the terminal sent \(noise) bytes without one valid frame (more than \(LinkRules.maxNoiseBytes), the bound on noise): the link was dropped"
        )
        let transport = transport
        Task { await transport.close() }
    }

    /// After bytes arrived: when they leave a frame incomplete and a command waits, the rest must follow within
    /// `frameSilence` of the last byte, or the command fails now (a terminal that began an answer and went silent).
    /// One watcher sleeps at a time, however many chunks a frame arrives in.
    private func watchPartialFrame() {
        guard decoder.bufferedCount > 0, !pending.waiting.isEmpty else {
            partialFrameSince = nil
            return
        }
        partialFrameSince = .now
        guard !partialWatcherSleeping else { return }
        partialWatcherSleeping = true
        let silence = frameSilence
        Task { [weak self] in
            var wait = silence
            while let self, let next = await self.partialFrameCheck(after: wait) { wait = next }
        }
    }

    /// Sleeps `wait`, then fails the waiting command if the partial frame has been silent for `frameSilence`.
    /// Returns how long to sleep again, or nil when the watch is over.
    private func partialFrameCheck(after wait: Duration) async -> Duration? {
        try? await Task.sleep(for: wait)
        guard let since = partialFrameSince else {
            partialWatcherSleeping = false
            return nil
        }
        let silent = ContinuousClock.now - since
        if silent < frameSilence { return frameSilence - silent }
        // Bytes that arrived and wait for this actor (a loaded machine runs the reader late) are not silence: the
        // reader takes them next and moves `partialFrameSince` on.
        if transport.incoming.bufferedBytes > 0 { return frameSilence }
        partialWatcherSleeping = false
        partialFrameSince = nil
        guard let p = pending.awaitedAnswer else { return nil }
        let buffered = decoder.bufferedCount
        decoder.reset()
        lostTrack = true
        logger?.warning("\(Self.name(p.command)): the answer stopped after \(buffered) bytes for \(frameSilence)")
        fail(
            token: p.token,
            LinkError(
                .timeout,
                "the terminal began answering \(p.command) and went silent after \(buffered) bytes (no byte for \(frameSilence))"
            ))
        return nil
    }

    /// `reason` nil: we closed the link ourselves (not reported to the trace).
    private func linkDropped(_ reason: String?) {
        guard closedReason == nil else { return }
        closedReason = reason ?? "closed by the host"
        if let reason {
            lostTrack = true
            trace?(.disconnected(reason))
            connectionLogger?.warning("link down: \(reason)")
        } else {
            connectionLogger?.info("link closed by the host")
        }
        let reason = closedReason!
        rules.reset()
        for p in pending.removeAll() {
            finish(p, .failure(LinkError(.disconnected, "link lost while waiting for \(p.command): \(reason)")))
        }
    }

    // MARK: Logging

    /// "GetInfo (0x5001)", or the hex id of an unknown command.
    private static func name(_ id: CommandID) -> String {
        CommandCatalogue.descriptor(for: id).map { $0.name } ?? id.description
    }

    /// " data <hex>" for a command whose data can carry nothing sensitive; "" for every other.
    private static func loggableData(_ id: CommandID, _ data: [UInt8]) -> String {
        guard Masking.commandDataIsLoggable(id), !data.isEmpty else { return "" }
        return " data " + Hex.encode(data)
    }
}
