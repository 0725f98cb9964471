import UCubeProtocol

/// The simulated terminal's frame-level decisions, as a value: what a command frame from the host gets (spec §2.3,
/// §2.7, §2.8, §2.9, §7.2, §9), the long-running command the terminal waits on, and the answer RepeatLastMessage sends
/// again. Tested without a connection, a clock or a task; the `TerminalSimulator` actor keeps the connection, the
/// wait's timer and the continuations, hands each frame to this value and does what it says (runs the command,
/// encodes and writes an answer, starts or stops the timer).
struct TerminalCore: Sendable {
    /// What the terminal is, beyond this value, when a frame arrives.
    struct Context: Sendable {
        /// Its state (tag C4, spec §7.2).
        var state: TerminalState
        /// `SimulatorConfiguration.legacySecuredCommands`: a NONE-mode body ending with the old SDK's zero MAC is read
        /// wrapped in a secure session (spec §2.3).
        var legacySecuredCommands = false
        /// The statuses the card image answers commands with (`CardProfile.commandStatuses`).
        var commandStatuses: [CommandID: Status] = [:]
    }

    /// A long-running command waiting for its event or its timeout (spec §9): `reply` answers it when the wait ends.
    struct Wait: Sendable {
        /// Names the wait's timer: a timer that fires for an older wait is ignored.
        let id: UInt64
        let answer: AnswerFormat
        let reply: Reply
    }

    /// What a command frame gets, decided before the command runs.
    enum Verdict: Sendable {
        /// Not a command of this terminal: answered under its own CMD ID, status −1, plain (spec §2.7 PROJECT CHOICE).
        case unknownCommand
        /// Answered at once, without running the command: a refusal (busy, wrong state, malformed, bad MAC, the card
        /// image's status) or GetStatus (spec §2.9).
        case answer(Reply, AnswerFormat)
        /// RepeatLastMessage with an answer to repeat: these bytes again, as they were (spec §2.9).
        case repeatAnswer([UInt8])
        /// Nothing is sent now: RepeatLastMessage while a command waits, whose own answer is still to come (spec §2.9).
        case nothing
        /// The command runs (`TerminalSimulator.dispatch`), its payload unwrapped; its outcome goes to `ran`.
        case run(Request, AnswerFormat)
    }

    /// What the actor does, in order, once a command ran or a wait ended.
    enum Step: Sendable {
        /// Answer under the command's own CMD ID, status −1 (spec §2.7).
        case unknownCommand
        /// Encode `Reply` in the layout of `AnswerFormat` and write it.
        case send(Reply, AnswerFormat)
        /// The reply's effects happen (a card presented, the transaction moves on): only when it is sent.
        case apply([Effect])
        /// Start the wait's timer: when `delay` has passed, `waitEnded(id)`.
        case startTimer(id: UInt64, delay: Duration)
        /// Stop the wait's timer: CancelAll ended the wait first.
        case stopTimer
    }

    /// The long-running command waiting, if any.
    private(set) var waiting: Wait?
    /// The last answer written on this connection to anything but a recovery command (RepeatLastMessage, spec §2.9).
    private(set) var lastAnswer: [UInt8]?
    private var lastWaitID: UInt64 = 0

    /// Says what `raw`, a valid command frame, gets (spec §2.3 framing, §2.7 unknown commands and states, §2.8 and §9
    /// what is served while a command waits, §2.9 recovery). `macVerifies` checks a SIGNED input's MAC with the
    /// session's keys (spec §12.3).
    func received(
        _ raw: RawFrame, in context: Context, macVerifies: (CommandFrame) -> Bool
    ) -> Verdict {
        guard let descriptor = CommandCatalogue.descriptor(for: raw.command),
            raw.command != .magstripeRead || SimulatorChoices.hasMagstripeReader
        else { return .unknownCommand }
        // spec §2.3 PROJECT CHOICE: 0x5102 is always plain; otherwise the modes decide.
        let secured = context.state == .secured && raw.command != .exitSecureSession
        let securedAnswer = secured && descriptor.outputMode != .none
        let answer = AnswerFormat(
            sequence: raw.sequence,
            command: raw.command,
            secured: securedAnswer,
            ciphered: securedAnswer && descriptor.outputMode == .signedCiphered
        )
        // spec §9: while a long-running command waits, the host sends nothing but CancelAll (and the recovery
        // commands of §2.9); anything else is refused at once.
        if waiting != nil && !SimulatorChoices.servedWhilePending.contains(raw.command) {
            return .answer(Reply(SimulatorChoices.busyStatus), answer)
        }
        switch raw.command {
        case .getStatus where raw.body.isEmpty:
            // spec §2.9: status 0 and the process-state byte; a waiting long command is the secure firmware's.
            let state = waiting == nil ? GetStatus.Response.idle : SimulatorChoices.busyProcessState
            return .answer(.ok(GetStatus.Response(processState: state).encodeData()), answer)
        case .repeatLastMessage where raw.body.isEmpty:
            // spec §2.9: while a command waits, its answer (its own SEQ and CMD ID) is still to come.
            guard waiting == nil else { return .nothing }
            guard let lastAnswer else { return .answer(.ok(), answer) }
            return .repeatAnswer(lastAnswer)
        default:
            break
        }
        guard descriptor.allowedStates.contains(context.state) else {
            return .answer(Reply(.badTerminalState), answer)
        }
        let wrapped =
            secured && !raw.body.isEmpty
            && (descriptor.inputMode != .none
                || (context.legacySecuredCommands && Self.looksLegacyWrapped(raw.body)))
        let frame: CommandFrame
        do {
            frame = try CommandFrame(raw: raw, secured: wrapped)
        } catch {
            return .answer(Reply(SimulatorChoices.malformedRequestStatus), answer)
        }
        if wrapped && descriptor.inputMode == .signed && !macVerifies(frame) {
            return .answer(Reply(SimulatorChoices.macMismatchStatus), answer)
        }
        // A suite's card image may answer a command with a status of its own (CardProfile.commandStatuses).
        if let status = context.commandStatuses[raw.command] {
            return .answer(Reply(status), answer)
        }
        return .run(Request(id: raw.command, payload: frame.payload, descriptor: descriptor), answer)
    }

    /// What follows once `request` ran: `outcome` nil when the command has no handler (spec §2.7).
    mutating func ran(_ request: Request, answer: AnswerFormat, outcome: Outcome?) -> [Step] {
        switch outcome {
        case .none:
            return [.unknownCommand]
        case .now(let reply):
            // spec §2.8: CancelAll is answered first, then the command it ends answers −32. The current SDK takes a
            // −32 that comes first for a failed cancel (libApp 3.5.13 then reports a disconnection).
            guard request.id == .cancelAll, reply.status.isSuccess, let ended = waiting else {
                return [.send(reply, answer)]
            }
            waiting = nil
            return [.send(reply, answer), .stopTimer, .send(Reply(SimulatorChoices.cancelledStatus), ended.answer)]
        case .after(let delay, let reply):
            guard delay > .zero else { return [.apply(reply.effects), .send(reply, answer)] }
            lastWaitID += 1
            waiting = Wait(id: lastWaitID, answer: answer, reply: reply)
            return [.startTimer(id: lastWaitID, delay: delay)]
        }
    }

    /// The timer of wait `id` fired: the command is answered with its prepared reply, and the reply's effects happen.
    /// Nothing when that wait is over already (CancelAll, the end of the connection).
    mutating func waitEnded(_ id: UInt64) -> [Step] {
        guard let current = waiting, current.id == id else { return [] }
        waiting = nil
        return [.apply(current.reply.effects), .send(current.reply, current.answer)]
    }

    /// The connection ended, or the terminal was reset: the waiting command is forgotten without an answer.
    mutating func dropWait() { waiting = nil }

    /// The link is gone: there is no last answer to repeat on the next connection (spec §2.9).
    mutating func connectionEnded() {
        waiting = nil
        lastAnswer = nil
    }

    /// `bytes`, an answer, were queued to be written: it becomes the answer RepeatLastMessage sends again, unless it
    /// answers a command served while another waits (CancelAll, GetStatus, RepeatLastMessage itself; spec §2.9).
    mutating func answerWritten(_ bytes: [UInt8]) {
        guard bytes.count > 5 else { return }
        let command = CommandID(UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
        if !SimulatorChoices.servedWhilePending.contains(command) { lastAnswer = bytes }
    }

    /// spec §2.3 legacy switch: a NONE-mode body that ends with the old SDK's zero MAC (SimulatorChoices).
    private static func looksLegacyWrapped(_ body: [UInt8]) -> Bool {
        body.count > FrameLimits.cryptoHeaderSize + FrameLimits.macSize
            && Array(body.suffix(FrameLimits.macSize)) == SimulatorChoices.legacyWrappedMAC
    }
}
