import UCubeCrypto
import UCubeProtocol
import UCubeSupport

/// One simulated uCube Touch: a peer that answers the RPC protocol over bytes, with terminal states, a DUKPT secure
/// session, a scripted cardholder and persisted device state.
///
/// It serves one connection at a time (`serve(input:output:)`); the device state outlives connections, as a real
/// terminal outlives its BLE links. Every "random" value comes from the configuration's seed, so the same seed, state
/// and input give byte-identical output.
package actor TerminalSimulator {
    /// The configuration the simulator was made with (its script is the initial one; queues are consumed in `script`).
    package nonisolated let configuration: SimulatorConfiguration

    /// The persisted device state.
    package internal(set) var device: DeviceState
    /// The last failure writing `device.json`; the terminal keeps working from memory meanwhile.
    package private(set) var persistenceError: SimulatorError?
    /// The header of the last image installed by InstallForLoad + Load (signature verified, version newer).
    package internal(set) var lastInstalled: FirmwareImageHeader?
    /// Reboots since the simulator started (one per SVPP firmware installed).
    package private(set) var rebootCount = 0
    /// `elapsed()` until which the terminal is rebooting: `serve` waits for it before reading a new connection.
    private var awakeAt: Duration?

    let store: DeviceStore?
    /// The cardholder's script; key and choice queues are consumed as displays and list boxes are answered.
    var script: SimulatorScript
    var random: SeededGenerator
    /// What the terminal holds in RAM: the card at a reader, the current transaction, a download in progress.
    var runtime = RuntimeState()
    /// The data DUKPT IPEK (derived once from the test BDK; a real terminal receives it by RKI, spec §12.1). Derived
    /// on first use: commands that need no key (`ucube info`) never load OpenSSL's cipher provider, which costs more
    /// than the rest of the simulator's start.
    lazy var ipek: [UInt8] = Self.crypto { try DUKPT.ipek(bdk: CryptoChoices.testBDK, ksn: CryptoChoices.initialKSN) }
    /// Time since the simulator started, on the configured clock (drives the terminal's RTC).
    let elapsed: @Sendable () -> Duration

    private var connection: Connection?
    /// The name of the card the script presents, as `ucube sim status` shows it (`nameCard`, `steer`).
    package internal(set) var cardLabel: String
    private var connectionWaiters: [CheckedContinuation<Void, Never>] = []
    /// What a frame gets, the long-running command waiting and the answer to repeat (`TerminalCore`).
    private var core = TerminalCore()
    /// The timer of the long-running command waiting (`core.waiting`).
    private var waitTimer: Task<Void, Never>?
    /// `elapsed()` when the last command frame of this connection was read (`minimumAnswerDelay` counts from it); with
    /// a link model, when it was due to have crossed the link.
    private var lastArrival: Duration = .zero
    /// The link model's schedule on this connection (`LinkTimeline`).
    private var timeline = LinkTimeline()
    private var sessionKeyCache: SessionKeys?
    /// Told each time an injected fault fires (`ucube simulate` prints it, so a test or a person sees when).
    private var faultObserver: (@Sendable (String) -> Void)?

    /// Loads `device.json` from the state directory (or starts from the defaults). Throws
    /// `SimulatorError(.stateUnreadable)` when the file exists but cannot be read.
    package init(configuration: SimulatorConfiguration) throws(SimulatorError) {
        self.configuration = configuration
        self.store = configuration.stateDirectory.map(DeviceStore.init(directory:))
        self.device = try store?.load() ?? DeviceState(serialNumber: configuration.serialNumber)
        self.script = configuration.script
        self.random = SeededGenerator(seed: configuration.seed)
        self.elapsed = Self.stopwatch(configuration.clock)
        self.runtime.clockSetAt = .zero
        self.runtime.atc = configuration.script.card?.initialATC ?? 0
        self.cardLabel = configuration.script.card?.name ?? "no card"
    }

    /// Names the card of the configured script (`simulate --card NAME`), for `ucube sim status`.
    package func nameCard(_ name: String) { cardLabel = name }

    /// A connection is being served now.
    package var isServing: Bool { connection != nil }
    /// Connections served since the simulator started (the one being served included).
    package private(set) var connectionsServed = 0

    /// Back to a new terminal: default device state (written to `device.json` when persisting), an empty RAM state,
    /// the configured script and the seed's first value. A pending long-running command is dropped without an answer.
    package func resetState() throws(SimulatorError) {
        dropPending()
        device = DeviceState(serialNumber: configuration.serialNumber)
        runtime = RuntimeState()
        runtime.clockSetAt = elapsed()
        runtime.atc = configuration.script.card?.initialATC ?? 0
        script = configuration.script
        random = SeededGenerator(seed: configuration.seed)
        sessionKeyCache = nil
        lastInstalled = nil
        awakeAt = nil
        try store?.save(device)
        persistenceError = nil
    }

    /// Replaces the cardholder's script (card, keys, choices, PIN, faults) from now on; fault occurrences count again
    /// from zero.
    package func setScript(_ script: SimulatorScript) {
        self.script = script
        runtime.atc = script.card?.initialATC ?? runtime.atc
        runtime.arrivals = [:]
        runtime.framesReceived = 0
    }

    /// `observer` is told, in a sentence, each time an injected fault fires.
    package func observeFaults(_ observer: @escaping @Sendable (String) -> Void) { faultObserver = observer }

    /// How a connection served by `serve(input:output:)` ended.
    package enum ConnectionEnd: Sendable, Hashable {
        /// The host finished `input` (it closed the link).
        case inputFinished
        /// The terminal dropped the link on its own: `SimulatorFaults.disconnectAt` fired on this command, which was
        /// not answered.
        case disconnected(CommandID)
        /// The terminal rebooted after installing an SVPP firmware (spec §9): the last Load was answered 0, then the
        /// link dropped; the terminal is unavailable for `SimulatorChoices.rebootDuration` × `timeScale`.
        case rebooted
        /// The terminal dropped a host that is not talking the protocol: `reason` says how (more than
        /// `SimulatorChoices.maxNoiseBytes` without a frame).
        case refused(String)
    }

    // MARK: - Serving a connection

    /// Serves one connection until `input` finishes or the terminal drops the link: decodes frames from `input`,
    /// answers each through `output`.
    ///
    /// Bad frames (CRC, ETX, oversize LEN) are dropped silently and decoding goes on (SimulatorChoices). Long-running
    /// commands do not block reading: CancelAll can end them. If another connection is being served, this one waits
    /// for it to end first. When `input` finishes, a pending command is dropped without an answer.
    ///
    /// Disconnect faults (`SimulatorScript.faults.disconnectAt`): when the chosen command arrives, the terminal does
    /// not answer it; it stops reading `input` (bytes after that command are never read), drops a pending command,
    /// lets `output` deliver every answer written before the fault, and returns `.disconnected(command)` — `serve`
    /// returns while `input` is still open. That return *is* the disconnect: the host that wired the link must then
    /// end the client's side, exactly as after `.inputFinished` — the in-process wiring finishes the stream the
    /// client reads from (the CLI's `peer.disconnect()` after `serve` returns), so the driver sees the link close
    /// (ERROR_DISCONNECT) instead of waiting for an answer; `SimulatorServer` closes the TCP connection. The device
    /// state stays as it was (SECURED included) for the next connection.
    @discardableResult
    package func serve(
        input: ByteQueue,
        output: @escaping @Sendable ([UInt8]) async -> Void
    ) async -> ConnectionEnd {
        while connection != nil || isRebooting {
            if connection != nil {
                await withCheckedContinuation { connectionWaiters.append($0) }
            } else {
                await waitForReboot()
            }
        }
        connection = Connection()
        connectionsServed += 1

        let link = configuration.linkModel
        let clock = configuration.clock
        let elapsed = elapsed
        timeline = LinkTimeline()
        let writer = Task {
            while let outgoing = await self.nextAnswer() {
                // SimulatorConfiguration.minimumAnswerDelay: the current SDK drops an answer that comes before its
                // writer thread has queued the command (spec §2.8).
                if let link {
                    let due = self.timeline.delivery(
                        readyAt: outgoing.readyAt, notBefore: outgoing.notBefore,
                        transfer: link.transferTime(forFrame: outgoing.frame))
                    try? await Self.sleep(on: clock, until: due, elapsed: elapsed)
                    self.timeline.answerDelivered(due: due, woke: elapsed())
                } else {
                    let early = outgoing.notBefore - elapsed()
                    if early > .zero { try? await Self.sleep(on: clock, for: early) }
                }
                await output(outgoing.frame)
            }
        }

        // spec §2.2: the current SDK may send frames up to 2560 bytes.
        var decoder = FrameDecoder(maxFrameSize: SimulatorChoices.maxCommandFrameSize)
        var end = ConnectionEnd.inputFinished
        var silent = false
        reading: for await chunk in input {
            decoder.append(chunk)
            while true {
                let frame: RawFrame?
                do {
                    frame = try decoder.next()
                } catch {
                    continue  // a bad frame: the terminal stays silent (spec §2.2; SimulatorChoices)
                }
                guard let frame else { break }
                if let link {
                    let due = timeline.arrival(seenAt: elapsed(), transfer: link.transferTime(for: frame))
                    try? await Self.sleep(on: clock, until: due, elapsed: elapsed)
                    timeline.commandArrived(due: due, woke: elapsed())
                    lastArrival = due
                } else {
                    lastArrival = elapsed()
                }
                let fired = faultsAtArrival(of: frame.command)
                if let drop = fired.drop {
                    faultObserver?(drop)
                    end = .disconnected(frame.command)
                    break reading
                }
                if fired.cardRemoved { runtime.cardPresent = nil }
                if let reboot = fired.reboot {
                    faultObserver?(reboot)
                    end = .rebooted
                    break reading
                }
                if silent || script.faults.mute || silenceFires() {
                    silent = true
                    continue  // a hung terminal: read, never answered (SimulatorFaults.silentFromFrame)
                }
                receive(frame)
                if runtime.rebootRequested {
                    end = .rebooted
                    break reading
                }
                // A host that sends commands faster than their answers leave waits for the writer: what is not read
                // stays in the socket, not here (SimulatorChoices.maxQueuedAnswers).
                if (connection?.answers.count ?? 0) >= SimulatorChoices.maxQueuedAnswers { await answersTaken() }
            }
            let noise = decoder.noiseSinceLastFrame
            if noise > SimulatorChoices.maxNoiseBytes {
                end = .refused(
                    "\(noise) bytes without one valid frame (more than \(SimulatorChoices.maxNoiseBytes), the bound on noise)"
                )
                break reading
            }
        }

        // The link is gone: a partial download is discarded (the next one starts with InstallForLoad), and there is
        // no last answer to repeat on the next connection.
        runtime.download = nil
        if case .rebooted = end { startReboot() }
        dropPending()
        core.connectionEnded()
        closeAnswers()
        await writer.value
        connection = nil
        if !connectionWaiters.isEmpty { connectionWaiters.removeFirst().resume() }
        return end
    }

    // MARK: - Answers on their way out

    /// Hands `outgoing` to the connection's writer task (dropped when no connection is served, or once its answers are
    /// closed). Actor state, not a stream: a generic stream's metadata and unspecialised code were a measurable share
    /// of a short command.
    private func queueAnswer(_ outgoing: Outgoing) {
        guard let current = connection, !current.closed else { return }
        if let writer = current.writer {
            connection?.writer = nil
            writer.resume(returning: outgoing)
        } else {
            connection?.answers.append(outgoing)
        }
    }

    /// The connection's next answer to write; nil once it is closed and every queued answer is taken.
    private func nextAnswer() async -> Outgoing? {
        // Rarely more than one answer waits: taking from the front costs nothing worth an index.
        if connection?.answers.isEmpty == false {
            let next = connection?.answers.removeFirst()
            if let reader = connection?.reader,
                (connection?.answers.count ?? 0) <= SimulatorChoices.maxQueuedAnswers / 2
            {
                connection?.reader = nil
                reader.resume()
            }
            return next
        }
        guard let connection, !connection.closed else { return nil }
        return await withCheckedContinuation { self.connection?.writer = $0 }
    }

    /// Waits until the writer has taken the queued answers down to half of `SimulatorChoices.maxQueuedAnswers`.
    private func answersTaken() async {
        guard connection?.writer == nil else { return }  // the writer waits: it takes the next answer at once
        await withCheckedContinuation { self.connection?.reader = $0 }
    }

    /// No answer follows on this connection: the writer ends once the queued answers are written.
    private func closeAnswers() {
        connection?.closed = true
        if let writer = connection?.writer {
            connection?.writer = nil
            writer.resume(returning: nil)
        }
    }

    // MARK: - Reboot

    /// spec §9: RAM is lost (secure session, card, transaction, staging); the terminal answers nothing until
    /// `rebootDuration` × `timeScale` has passed.
    private func startReboot() {
        rebootCount += 1
        let clockSetAt = runtime.clockSetAt
        let arrivals = runtime.arrivals  // fault occurrences count over every connection (SimulatorFaults)
        let frames = runtime.framesReceived
        runtime = RuntimeState()
        runtime.clockSetAt = clockSetAt
        runtime.arrivals = arrivals
        runtime.framesReceived = frames
        runtime.atc = script.card?.initialATC ?? 0
        sessionKeyCache = nil
        if device.terminalState == .secured {
            device.terminalState = .ready
            persist()
        }
        awakeAt = elapsed() + scaled(SimulatorChoices.rebootDuration)
    }

    /// True while the terminal reboots (no connection is served).
    package var isRebooting: Bool {
        guard let awakeAt else { return false }
        return awakeAt > elapsed()
    }

    /// Sleeps until a reboot in progress has finished.
    private func waitForReboot() async {
        guard let awakeAt else { return }
        let remaining = awakeAt - elapsed()
        if remaining > .zero { try? await Self.sleep(on: configuration.clock, for: remaining) }
    }

    // MARK: - Faults

    /// Counts the arrival of `command` and asks the script's faults what fires (`SimulatorFaults.arrival`).
    private func faultsAtArrival(of command: CommandID) -> SimulatorFaults.Arrival {
        let count = runtime.arrivals[command, default: 0] + 1
        runtime.arrivals[command] = count
        runtime.framesReceived += 1
        return script.faults.arrival(of: command, occurrence: count, frame: runtime.framesReceived)
    }

    /// The frame just counted is the one `silentFromFrame` names: the terminal hangs from here to the end of this
    /// connection.
    private func silenceFires() -> Bool {
        guard let sentence = script.faults.silence(atFrame: runtime.framesReceived) else { return false }
        faultObserver?(sentence)
        return true
    }

    /// Queues an answer, no sooner than `minimumAnswerDelay` after the last command frame arrived; it becomes the
    /// answer RepeatLastMessage sends again, unless it answers a recovery command itself (spec §2.9).
    private func send(_ bytes: [UInt8]) {
        core.answerWritten(bytes)
        queueAnswer(
            Outgoing(frame: bytes, notBefore: lastArrival + configuration.minimumAnswerDelay, readyAt: elapsed()))
    }

    // MARK: - One command

    /// Reads one frame and answers it, now or when its wait ends: `TerminalCore` decides, this does what it says.
    private func receive(_ raw: RawFrame) {
        let context = TerminalCore.Context(
            state: device.terminalState, legacySecuredCommands: configuration.legacySecuredCommands,
            commandStatuses: script.card?.commandStatuses ?? [:])
        switch core.received(raw, in: context, macVerifies: macVerifies) {
        case .unknownCommand:
            send(unknownCommandResponse(to: raw))
        case .answer(let reply, let answer):
            send(encode(reply, answer))
        case .repeatAnswer(let bytes):
            // Sent again as it was: not a new answer for RepeatLastMessage to repeat.
            queueAnswer(
                Outgoing(frame: bytes, notBefore: lastArrival + configuration.minimumAnswerDelay, readyAt: elapsed()))
        case .nothing:
            break
        case .run(let request, let answer):
            let outcome = dispatch(request)
            perform(core.ran(request, answer: answer, outcome: outcome), for: raw)
        }
    }

    /// spec §12.3: SIGNED inputs carry the MAC-request-variant retail MAC over SEQ ‖ CMD ‖ crypto header ‖ payload.
    private func macVerifies(_ frame: CommandFrame) -> Bool {
        guard let mac = frame.envelope?.mac else { return false }
        return Self.crypto { try RetailMAC.verify(mac: mac, key: sessionKeys.macRequest, data: frame.macInput) }
    }

    /// Does what `TerminalCore` said, in order. `raw`: the frame a `.unknownCommand` step answers.
    private func perform(_ steps: [TerminalCore.Step], for raw: RawFrame?) {
        for step in steps {
            switch step {
            case .unknownCommand:
                if let raw { send(unknownCommandResponse(to: raw)) }
            case .send(let reply, let answer):
                send(encode(reply, answer))
            case .apply(let effects):
                apply(effects)
            case .startTimer(let id, let delay):
                let clock = configuration.clock
                waitTimer = Task {
                    do {
                        try await Self.sleep(on: clock, for: delay)
                    } catch {
                        return  // cancelled: CancelAll or the end of the connection answered instead
                    }
                    self.waitEnded(id)
                }
            case .stopTimer:
                waitTimer?.cancel()
                waitTimer = nil
            }
        }
    }

    // MARK: - Long-running commands

    /// The wait ended: the waiting command is answered with its prepared reply.
    private func waitEnded(_ id: UInt64) {
        perform(core.waitEnded(id), for: nil)
    }

    /// The connection ended (or a reset): forget the waiting command without answering.
    private func dropPending() {
        waitTimer?.cancel()
        waitTimer = nil
        core.dropWait()
    }

    private func apply(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .cardPresented(let interface):
                runtime.cardPresent = interface
            case .transaction(let transaction): runtime.transaction = transaction
            }
        }
    }

    // MARK: - Encoding answers

    /// spec §2.7 PROJECT CHOICE: the command's own CMD (§2.8: the current SDK matches SEQ and CMD), status −1, no
    /// data, plain.
    private func unknownCommandResponse(to raw: RawFrame) -> [UInt8] {
        let frame = ResponseFrame(
            sequence: raw.sequence, command: raw.command, status: SimulatorChoices.unknownCommandStatus)
        return Self.encoded(frame)
    }

    /// A response in the layout `answer` asks for (spec §2.2 plain; §2.3 secured with a seeded crypto header and, when
    /// there is data, the MAC-response-variant MAC of spec §12.3; SIGNED_CIPHERED data TDES-CBC encrypted).
    func encode(_ reply: Reply, _ answer: AnswerFormat) -> [UInt8] {
        guard answer.secured else {
            return Self.encoded(
                ResponseFrame(
                    sequence: answer.sequence,
                    command: answer.command,
                    status: reply.status,
                    data: reply.data
                )
            )
        }
        let keys = sessionKeys
        let data =
            answer.ciphered && !reply.isCiphertext
            ? Self.crypto { try SRED.encrypt(plaintext: reply.data, key: keys.dataResponse) } : reply.data
        let header = random.byte()
        var frame = ResponseFrame(
            sequence: answer.sequence,
            command: answer.command,
            status: reply.status,
            data: data,
            envelope: SecuredEnvelope(cryptoHeader: header, mac: [])
        )
        // "no MAC if the data is null" (spec §2.3).
        if !data.isEmpty {
            let mac = Self.crypto { try RetailMAC.mac4(key: keys.macResponse, data: frame.macInput) }
            frame.envelope = SecuredEnvelope(cryptoHeader: header, mac: mac)
        }
        return Self.encoded(frame)
    }

    /// The session keys of the current SRED KSN (spec §12.3), cached per counter.
    var sessionKeys: SessionKeys {
        let ksn = device.dataKSN
        if let cached = sessionKeyCache, cached.ksn == ksn { return cached }
        let keys = Self.crypto {
            SessionKeys(
                ksn: ksn,
                macRequest: try DUKPT.sessionKey(ipek: ipek, ksn: ksn, variant: CryptoChoices.requestMACVariant),
                macResponse: try DUKPT.sessionKey(ipek: ipek, ksn: ksn, variant: CryptoChoices.responseMACVariant),
                dataResponse: try DUKPT.sessionKey(ipek: ipek, ksn: ksn, variant: CryptoChoices.sredKeyVariant)
            )
        }
        sessionKeyCache = keys
        return keys
    }

    /// A response that cannot be encoded (data over the 2068-byte limit: our own bug) becomes a bare −901.
    private static func encoded(_ frame: ResponseFrame) -> [UInt8] {
        if let bytes = try? frame.encoded() { return bytes }
        let fallback = ResponseFrame(
            sequence: frame.sequence,
            command: frame.command,
            status: SimulatorChoices.malformedRequestStatus
        )
        guard let bytes = try? fallback.encoded() else { preconditionFailure("an empty response always fits a frame") }
        return bytes
    }

    /// Crypto with constant, well-formed keys and lengths cannot fail; a failure is our own bug.
    static func crypto<T>(_ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            preconditionFailure("simulator crypto on well-formed keys failed: \(error)")
        }
    }

    // MARK: - Persistence and time

    /// Writes `device.json` after a state change (atomically; a failure is kept in `persistenceError`).
    func persist() {
        guard let store else { return }
        do {
            try store.save(device)
            persistenceError = nil
        } catch {
            persistenceError = error
        }
    }

    /// A terminal-side duration (timeouts, cardholder delays) scaled by `timeScale`.
    func scaled(_ duration: Duration) -> Duration { configuration.scaled(duration) }

    private static func sleep(on clock: any Clock<Duration>, for duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }

    /// Sleeps until `deadline` on the `elapsed()` scale: a deadline already passed costs no sleep, and one missed by
    /// a late wake-up is not missed again by the next (`LinkTimeline`).
    private static func sleep(
        on clock: any Clock<Duration>, until deadline: Duration, elapsed: @Sendable () -> Duration
    ) async throws {
        let remaining = deadline - elapsed()
        if remaining > .zero { try await clock.sleep(for: remaining, tolerance: .zero) }
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}

// MARK: - Supporting values

/// The connection being served: its answers on their way out, in order, to the connection's writer task.
private struct Connection {
    var answers: [Outgoing] = []
    /// The writer, waiting for the next answer.
    var writer: CheckedContinuation<Outgoing?, Never>?
    /// No answer follows (the link is gone): the writer ends once the queued ones are written.
    var closed = false
    /// The reading loop, waiting for the writer to take queued answers (`SimulatorChoices.maxQueuedAnswers`).
    var reader: CheckedContinuation<Void, Never>?
}

/// An answer on its way out: written no sooner than `notBefore` (on the `elapsed()` scale).
private struct Outgoing: Sendable {
    let frame: [UInt8]
    let notBefore: Duration
    /// `elapsed()` when it was produced: where its transfer over a link model starts (`LinkTimeline`).
    let readyAt: Duration
}

/// How to answer one command: its SEQ and id, and whether the answer is secured and ciphered (spec §2.3 rule).
struct AnswerFormat: Sendable {
    let sequence: UInt8
    let command: CommandID
    let secured: Bool
    let ciphered: Bool
}

/// A command the terminal accepted: its payload, unwrapped.
struct Request: Sendable {
    let id: CommandID
    let payload: [UInt8]
    let descriptor: CommandDescriptor
}

/// What the terminal answers: status and data, and what happens to the terminal when a deferred answer is sent.
struct Reply: Sendable {
    var status: Status
    var data: [UInt8]
    /// DATA is already ciphertext: GetSecuredTag's SRED blob is itself the output ciphering (spec §12.3).
    var isCiphertext: Bool
    /// Applied when the reply is sent (never when CancelAll ends the wait first).
    var effects: [Effect]

    init(_ status: Status, _ data: [UInt8] = [], isCiphertext: Bool = false, effects: [Effect] = []) {
        self.status = status
        self.data = data
        self.isCiphertext = isCiphertext
        self.effects = effects
    }

    static func ok(_ data: [UInt8] = []) -> Reply { Reply(.success, data) }
}

/// A change to the terminal that happens only if a deferred reply is actually sent.
enum Effect: Sendable {
    /// The cardholder presented the card at this interface.
    case cardPresented(CardProfile.Interface)
    /// The transaction moves on (a contactless read done inside NFCStartTransaction).
    case transaction(CardTransaction)
}

/// When a command is answered.
enum Outcome: Sendable {
    /// At once.
    case now(Reply)
    /// After the (already scaled) delay, unless CancelAll comes first (spec §9).
    case after(Duration, Reply)
}

/// The working keys of one secure session (spec §12.3): MAC request/response variants and the data-response key.
struct SessionKeys: Sendable {
    let ksn: KSN
    let macRequest: [UInt8]
    let macResponse: [UInt8]
    let dataResponse: [UInt8]
}
