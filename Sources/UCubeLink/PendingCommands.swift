import UCubeProtocol

/// The commands waiting for their answers, as a value, and the rule that says what an incoming frame is (spec §2.4,
/// §2.7, §2.8): the answer of which command, a protocol break, a stale answer, or the late answer of a command a
/// CancelAll ended. Tested without a transport or a task; the `RPCClient` actor keeps the continuations and the
/// deadlines, asks this value, and acts on its verdict.
package struct PendingCommands: Sendable, Hashable {
    /// One command sent and waiting for its answer.
    package struct Command: Sendable, Hashable {
        /// Names the command's waiter in the actor (its continuation, its deadline).
        package let token: Int
        package let command: CommandID
        /// The SEQ it went with: its answer carries the same (spec §2.4).
        package let sequence: UInt8
        /// Its answer is due in the SECURED layout (spec §2.3, `LinkRules.expectsSecuredResponse`).
        package let securedResponse: Bool
        /// `staleAnswersDropped` when it was sent: the answers dropped while it waited are the difference.
        package let staleBefore: Int
    }

    /// A frame that is the answer of a waiting command, as read.
    package struct Answer: Sendable, Hashable {
        /// The command answered, no longer waiting.
        package let command: Command
        /// The layout the answer was due in: SECURED when the command expected it and the answer is not 0x8000.
        package let dueSecured: Bool
        /// The answer was due in the SECURED layout and is too short for it (crypto header + status, spec §2.3): it is
        /// a READY answer, read plain. The terminal left the secure session this process believed open (a reboot,
        /// another process).
        package let leftSecureSession: Bool
        /// The answer read in its layout, or why its body is not one (no status, a truncated secured body).
        package let frame: Result<ResponseFrame, FrameError>
    }

    /// What an incoming frame is.
    package enum Verdict: Sendable, Hashable {
        /// The answer of a waiting command: its SEQ and its CMD ID, or 0x8000 with its SEQ (spec §2.4, §2.7).
        case answer(Answer)
        /// The SEQ of `waiting` with another command's id, `answered`: the terminal broke the protocol, and `waiting`
        /// fails (spec §2.4, PROJECT CHOICE). `waiting` no longer waits.
        case protocolBreak(waiting: Command, answered: CommandID)
        /// The −32 of a long-running command that the CancelAll answered just before ended (spec §2.8), with the SEQ
        /// of a waiting command (an earlier process's card wait): dropped and counted as stale, once.
        case lateCancelled(sequence: UInt8)
        /// No waiting command has this SEQ: a duplicate, a replay of an older answer, a SEQ never sent, a late answer
        /// after a timeout (spec §2.4). Dropped and counted; the waiting commands go on waiting.
        case stale(sequence: UInt8)
    }

    /// The commands waiting, in the order they were sent.
    package private(set) var waiting: [Command] = []
    /// Answers dropped as stale (`Verdict.stale`, `Verdict.lateCancelled`).
    package private(set) var staleAnswersDropped = 0
    /// The SEQ of the last answer dropped as stale.
    package private(set) var lastStaleSequence: UInt8?
    /// The last answer taken was CancelAll's: the −32 of a long-running command it ended may follow (spec §2.8).
    private var lateCancelledAnswerPossible = false
    private var nextToken = 0

    package init() {}

    /// True while a command other than CancelAll waits for its answer.
    package var hasCommandWaiting: Bool { waiting.contains { $0.command != .cancelAll } }

    /// The command whose answer bytes on the link most likely are: the last one waiting other than CancelAll, else
    /// CancelAll. A bad frame, or a frame begun and left silent, fails it.
    package var awaitedAnswer: Command? { waiting.last { $0.command != .cancelAll } ?? waiting.last }

    /// Why `id` may not be sent now, or nil: one command in flight, and only CancelAll may overlap it (spec §2.8, §9);
    /// never two of the same command.
    package func refusal(toSend id: CommandID) -> LinkError? {
        if id != .cancelAll, let busy = waiting.first(where: { $0.command != .cancelAll }) {
            return LinkError(.busy, "\(busy.command) is still waiting for its answer; only cancel-all may be sent now")
        }
        if waiting.contains(where: { $0.command == id }) {
            return LinkError(.busy, "\(id) is already in flight")
        }
        return nil
    }

    /// A command was sent (its frame handed over to be written): it waits for its answer from now on.
    package mutating func sent(_ id: CommandID, sequence: UInt8, securedResponse: Bool) -> Command {
        let command = Command(
            token: nextToken, command: id, sequence: sequence, securedResponse: securedResponse,
            staleBefore: staleAnswersDropped)
        nextToken += 1
        waiting.append(command)
        return command
    }

    /// The command `token` stops waiting (it failed, or its time ran out); nil when it no longer waits.
    @discardableResult
    package mutating func remove(token: Int) -> Command? {
        guard let i = waiting.firstIndex(where: { $0.token == token }) else { return nil }
        return waiting.remove(at: i)
    }

    /// Every command stops waiting (the link dropped); returns them in the order they were sent.
    package mutating func removeAll() -> [Command] {
        defer { waiting.removeAll() }
        return waiting
    }

    /// Answers dropped as stale while `command` waited: a timeout says how many, so that a terminal whose every
    /// answer carries the wrong SEQ is not taken for a silent one (spec §2.4).
    package func staleAnswers(whileWaiting command: Command) -> Int { staleAnswersDropped - command.staleBefore }

    /// Says what `raw`, a valid frame from the terminal, is, and applies it: an answered or broken command stops
    /// waiting, a stale answer is counted.
    package mutating func received(_ raw: RawFrame) -> Verdict {
        // spec §2.4, §2.8: an answer belongs to the waiting command with its SEQ and CMD ID ("command ID is 0x8000 in
        // case of error": its SEQ alone, spec §2.7). A command other than CancelAll first, should both have the SEQ.
        let sameSequence =
            waiting.firstIndex { $0.sequence == raw.sequence && $0.command != .cancelAll }
            ?? waiting.firstIndex { $0.sequence == raw.sequence }
        guard let i = sameSequence else { return drop(raw.sequence, late: false) }
        let command = waiting[i]
        guard command.command == raw.command || raw.command == .unrecognised else {
            if isLateCancelledAnswer(raw) { return drop(raw.sequence, late: true) }
            waiting.remove(at: i)
            return .protocolBreak(waiting: command, answered: raw.command)
        }
        waiting.remove(at: i)
        // spec §2.8: CancelAll's answer comes first, then the −32 of the command it ended.
        lateCancelledAnswerPossible = command.command == .cancelAll
        let dueSecured = command.securedResponse && raw.command != .unrecognised
        // Too short for the SECURED layout (crypto header + status, spec §2.3): a READY answer.
        let leftSecureSession =
            dueSecured && raw.body.count < FrameLimits.cryptoHeaderSize + FrameLimits.statusSize
        let frame = Result { () throws(FrameError) in
            try ResponseFrame(raw: raw, secured: dueSecured && !leftSecureSession)
        }
        return .answer(
            Answer(command: command, dueSecured: dueSecured, leftSecureSession: leftSecureSession, frame: frame))
    }

    private mutating func drop(_ sequence: UInt8, late: Bool) -> Verdict {
        staleAnswersDropped += 1
        lastStaleSequence = sequence
        return late ? .lateCancelled(sequence: sequence) : .stale(sequence: sequence)
    }

    /// Whether `raw`, an answer with the SEQ of a waiting command but another command's id, is the −32 of a
    /// long-running command that the last CancelAll ended (spec §2.8): one this client never sent, left pending by a
    /// process before it (a card wait the terminal kept through a dropped link), so its SEQ may be any. Once, right
    /// after a CancelAll's answer.
    private mutating func isLateCancelledAnswer(_ raw: RawFrame) -> Bool {
        guard lateCancelledAnswerPossible, CommandCatalogue.descriptor(for: raw.command)?.isLongRunning == true else {
            return false
        }
        // Plain, or in the SECURED layout when the process before left a secure session.
        let cancelled = [false, true].contains { secured in
            guard let frame = try? ResponseFrame(raw: raw, secured: secured) else { return false }
            return frame.status == .cancelled
        }
        if cancelled { lateCancelledAnswerPossible = false }
        return cancelled
    }
}
