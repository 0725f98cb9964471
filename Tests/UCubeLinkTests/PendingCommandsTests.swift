import Testing
import UCubeProtocol

@testable import UCubeLink

/// What an incoming frame is, decided by the `PendingCommands` value alone: no transport, no task, no clock. Each
/// test follows a rule of docs/protocol.md, and together they cover the frames the client's fault tests
/// (`RPCClientFaultTests`) and the end-to-end tests (`StaleAnswerEndToEndTests`, `RecoveryEndToEndTests`) send.
@Suite struct PendingCommandsTests {
    /// A plain answer (spec §2.2): status ‖ data.
    static func answer(_ sequence: UInt8, _ command: CommandID, _ status: Status = .success, data: [UInt8] = [])
        -> RawFrame
    {
        ResponseFrame(sequence: sequence, command: command, status: status, data: data).raw
    }

    /// An answer in the SECURED layout (spec §2.3): crypto header ‖ status ‖ data ‖ MAC (no MAC without data).
    static func securedAnswer(_ sequence: UInt8, _ command: CommandID, _ status: Status, data: [UInt8] = [])
        -> RawFrame
    {
        ResponseFrame(
            sequence: sequence, command: command, status: status, data: data,
            envelope: SecuredEnvelope(cryptoHeader: 0x7F, mac: [1, 2, 3, 4])
        ).raw
    }

    static func answered(_ verdict: PendingCommands.Verdict) -> PendingCommands.Answer? {
        if case .answer(let answer) = verdict { return answer }
        return nil
    }

    // MARK: Matching (spec §2.4, §2.7)

    // spec §2.4: an answer belongs to the waiting command with its SEQ and its CMD ID.
    @Test func theAnswerWithTheCommandsSequenceAndIdIsItsOwn() throws {
        var pending = PendingCommands()
        let getInfo = pending.sent(.getInfo, sequence: 3, securedResponse: false)
        let verdict = pending.received(Self.answer(3, .getInfo, data: [0xC4, 0x01, 0x02]))
        let answer = try #require(Self.answered(verdict))
        #expect(answer.command == getInfo)
        #expect(
            try answer.frame.get()
                == ResponseFrame(sequence: 3, command: .getInfo, status: .success, data: [0xC4, 0x01, 0x02]))
        #expect(!answer.dueSecured && !answer.leftSecureSession)
        #expect(pending.waiting.isEmpty)
        #expect(pending.staleAnswersDropped == 0)
    }

    // spec §2.7: "command ID is 0x8000 in case of error": such an answer is the waiting command's by its SEQ alone.
    @Test func anUnrecognisedAnswerIsTheCommandsByItsSequenceAlone() throws {
        var pending = PendingCommands()
        let raw = pending.sent(CommandID(0x1234), sequence: 0, securedResponse: false)
        let answer = try #require(Self.answered(pending.received(Self.answer(0, .unrecognised, .unknownCommand))))
        #expect(answer.command == raw)
        #expect(try answer.frame.get().status == Status(-1))
        #expect(try answer.frame.get().command == .unrecognised)
    }

    // spec §2.4 (PROJECT CHOICE): an answer whose SEQ no waiting command has is dropped, counted, and the command
    // keeps waiting for its own; the timeout then says how many came while it waited.
    @Test func anAnswerWithASequenceNoCommandWaitsWithIsStale() throws {
        var pending = PendingCommands()
        let getInfo = pending.sent(.getInfo, sequence: 5, securedResponse: false)
        #expect(pending.received(Self.answer(105, .getInfo)) == .stale(sequence: 105))
        #expect(pending.received(Self.answer(6, .getInfo)) == .stale(sequence: 6))
        #expect(pending.staleAnswersDropped == 2)
        #expect(pending.lastStaleSequence == 6)
        #expect(pending.waiting == [getInfo])
        #expect(pending.staleAnswers(whileWaiting: getInfo) == 2)
        #expect(try #require(Self.answered(pending.received(Self.answer(5, .getInfo)))).command == getInfo)
    }

    // spec §2.4: a duplicate of an answer already taken, or a replay of an older one, matches no waiting command
    // (the relay of StaleAnswerEndToEndTests: `duplicate`, `replayOlder`, `unknownSequence`).
    @Test func aDuplicateOrAReplayOfAnAnswerAlreadyTakenIsStale() throws {
        var pending = PendingCommands()
        _ = pending.sent(.getInfo, sequence: 0, securedResponse: false)
        let first = Self.answer(0, .getInfo, data: [0])
        #expect(Self.answered(pending.received(first)) != nil)
        #expect(pending.received(first) == .stale(sequence: 0))  // duplicate, nothing waiting
        let second = pending.sent(.getInfo, sequence: 1, securedResponse: false)
        #expect(pending.received(first) == .stale(sequence: 0))  // replay of the older answer
        var forged = Self.answer(1, .getInfo, data: [1])
        forged.sequence ^= 0x80
        #expect(pending.received(forged) == .stale(sequence: 0x81))  // a SEQ never sent
        let answer = try #require(Self.answered(pending.received(Self.answer(1, .getInfo, data: [1]))))
        #expect(answer.command == second)
        #expect(try answer.frame.get().data == [1])
        #expect(pending.staleAnswersDropped == 3)
        #expect(pending.staleAnswers(whileWaiting: second) == 2)
    }

    // spec §2.4 (PROJECT CHOICE): the SEQ of the waiting command with another command's id breaks the protocol; the
    // command fails (it no longer waits), and the answer is not counted as stale.
    @Test func theSequenceOfTheWaitingCommandWithAnotherIdBreaksTheProtocol() {
        var pending = PendingCommands()
        let getInfo = pending.sent(.getInfo, sequence: 2, securedResponse: false)
        #expect(pending.received(Self.answer(2, .waitCard)) == .protocolBreak(waiting: getInfo, answered: .waitCard))
        #expect(pending.waiting.isEmpty)
        #expect(pending.staleAnswersDropped == 0)
    }

    // MARK: CancelAll (spec §2.8, §5.2)

    // spec §2.8, §5.2: CancelAll overlaps a long-running command; its answer comes first, then the −32 of the command
    // it ended, each taken by its own SEQ and id.
    @Test func cancelAllAndTheCommandItEndsEachTakeTheirOwnAnswer() throws {
        var pending = PendingCommands()
        let waitCard = pending.sent(.waitCard, sequence: 4, securedResponse: false)
        #expect(pending.refusal(toSend: .cancelAll) == nil)
        let cancelAll = pending.sent(.cancelAll, sequence: 5, securedResponse: false)
        #expect(try #require(Self.answered(pending.received(Self.answer(5, .cancelAll)))).command == cancelAll)
        let ended = try #require(Self.answered(pending.received(Self.answer(4, .waitCard, .cancelled))))
        #expect(ended.command == waitCard)
        #expect(try ended.frame.get().status == .cancelled)
        #expect(pending.waiting.isEmpty)
    }

    // spec §2.8, §2.4: right after a CancelAll's answer, the −32 of a long-running command this client never sent (an
    // earlier process's card wait) may carry the SEQ of the command sent next: it is dropped as stale, once. The same
    // answer again breaks the protocol (RPCClientFaultTests, RecoveryEndToEndTests).
    @Test func theLateCancelledAnswerOfAnEarlierProcessIsStaleOnce() {
        var pending = PendingCommands()
        _ = pending.sent(.cancelAll, sequence: 0, securedResponse: false)
        #expect(Self.answered(pending.received(Self.answer(0, .cancelAll))) != nil)
        let exit = pending.sent(.exitSecureSession, sequence: 1, securedResponse: false)
        let late = Self.answer(1, .nfcStartTransaction, .cancelled)
        #expect(pending.received(late) == .lateCancelled(sequence: 1))
        #expect(pending.waiting == [exit])
        #expect(pending.staleAnswersDropped == 1)
        #expect(pending.received(late) == .protocolBreak(waiting: exit, answered: .nfcStartTransaction))
    }

    // spec §2.8, §2.3: the earlier process may have left a secure session, so the late −32 may come in the SECURED
    // layout.
    @Test func theLateCancelledAnswerMayComeInTheSecuredLayout() {
        var pending = PendingCommands()
        _ = pending.sent(.cancelAll, sequence: 7, securedResponse: false)
        _ = pending.received(Self.answer(7, .cancelAll))
        _ = pending.sent(.exitSecureSession, sequence: 8, securedResponse: false)
        #expect(pending.received(Self.securedAnswer(8, .waitCard, .cancelled)) == .lateCancelled(sequence: 8))
    }

    // spec §2.8: only the −32 of a long-running command, and only right after a CancelAll's answer, is the late answer
    // of a cancelled command; anything else with the waiting SEQ breaks the protocol.
    @Test(arguments: [
        ("GetInfo is not long-running", CommandID.getInfo, Status.cancelled, true),
        ("a card wait's success is not its cancel", CommandID.waitCard, Status.success, true),
        ("no CancelAll answered just before", CommandID.waitCard, Status.cancelled, false),
    ])
    func anyOtherAnswerWithTheWaitingSequenceBreaksTheProtocol(
        _ why: String, command: CommandID, status: Status, afterCancelAll: Bool
    ) {
        var pending = PendingCommands()
        if afterCancelAll {
            _ = pending.sent(.cancelAll, sequence: 0, securedResponse: false)
            _ = pending.received(Self.answer(0, .cancelAll))
        } else {
            _ = pending.sent(.getInfo, sequence: 0, securedResponse: false)
            _ = pending.received(Self.answer(0, .getInfo))
        }
        let exit = pending.sent(.exitSecureSession, sequence: 1, securedResponse: false)
        #expect(
            pending.received(Self.answer(1, command, status)) == .protocolBreak(waiting: exit, answered: command),
            "\(why)")
    }

    // MARK: Layout (spec §2.3)

    // spec §2.3: an answer due in the SECURED layout is read as crypto header ‖ status ‖ data ‖ MAC.
    @Test func aSecuredAnswerIsReadInTheSecuredLayout() throws {
        var pending = PendingCommands()
        _ = pending.sent(.getPlainTag, sequence: 1, securedResponse: true)
        let answer = try #require(
            Self.answered(
                pending.received(Self.securedAnswer(1, .getPlainTag, .success, data: [0xDF, 0x60, 0x01, 0x00]))))
        #expect(answer.dueSecured && !answer.leftSecureSession)
        let frame = try answer.frame.get()
        #expect(frame.envelope?.cryptoHeader == 0x7F)
        #expect(frame.data == [0xDF, 0x60, 0x01, 0x00])
    }

    // spec §2.3: an answer too short for the SECURED layout (crypto header + status) is a READY one: read plain, and
    // the terminal is said to have left the secure session.
    @Test func aReadyAnswerWhereASecuredOneWasDueSaysTheSessionWasLeft() throws {
        var pending = PendingCommands()
        _ = pending.sent(.getInfo, sequence: 1, securedResponse: true)
        let answer = try #require(Self.answered(pending.received(Self.answer(1, .getInfo))))
        #expect(answer.dueSecured && answer.leftSecureSession)
        let frame = try answer.frame.get()
        #expect(frame.status == .success && frame.envelope == nil)
    }

    // spec §2.7, §2.3: the 0x8000 answer is always plain, even where the SECURED layout was due.
    @Test func anUnrecognisedAnswerIsPlainInASecureSession() throws {
        var pending = PendingCommands()
        _ = pending.sent(.getPlainTag, sequence: 2, securedResponse: true)
        let answer = try #require(Self.answered(pending.received(Self.answer(2, .unrecognised, .unknownCommand))))
        #expect(!answer.dueSecured && !answer.leftSecureSession)
        #expect(try answer.frame.get().status == .unknownCommand)
    }

    // spec §2.2: a response body carries at least the 2-byte status; one without is a bad answer, not a crash, and the
    // command it answers stops waiting.
    @Test func anAnswerWithoutAStatusIsABadFrame() throws {
        var pending = PendingCommands()
        _ = pending.sent(.getInfo, sequence: 0, securedResponse: false)
        let answer = try #require(
            Self.answered(pending.received(RawFrame(sequence: 0, command: .getInfo, body: [0x00]))))
        #expect(throws: FrameError(.missingStatus, "")) { try answer.frame.get() }
        #expect(pending.waiting.isEmpty)
    }

    // MARK: Sending (spec §2.8, §9)

    // spec §9, §2.8: one command in flight; meanwhile the host sends nothing but CancelAll, and never two of them.
    @Test func oneCommandInFlightAndOnlyCancelAllBesideIt() {
        var pending = PendingCommands()
        #expect(pending.refusal(toSend: .getInfo) == nil)
        _ = pending.sent(.waitCard, sequence: 0, securedResponse: false)
        #expect(pending.hasCommandWaiting)
        #expect(pending.refusal(toSend: .getInfo)?.code == .busy)
        #expect(pending.refusal(toSend: .waitCard)?.code == .busy)
        #expect(pending.refusal(toSend: .cancelAll) == nil)
        _ = pending.sent(.cancelAll, sequence: 1, securedResponse: false)
        #expect(pending.refusal(toSend: .cancelAll)?.code == .busy)
    }

    // A CancelAll alone is not a command in flight: another may follow it (a payment's first step, spec §2.8).
    @Test func aCancelAllAloneLeavesRoomForTheNextCommand() {
        var pending = PendingCommands()
        _ = pending.sent(.cancelAll, sequence: 0, securedResponse: false)
        #expect(!pending.hasCommandWaiting)
        #expect(pending.refusal(toSend: .getInfo) == nil)
    }

    // spec §2.2: bytes that are not a frame answer nothing; the command they most likely belong to is the one other
    // than CancelAll, which then fails (and CancelAll when it waits alone).
    @Test func aBadFrameIsTheAnswerOfTheCommandOtherThanCancelAll() {
        var pending = PendingCommands()
        #expect(pending.awaitedAnswer == nil)
        let waitCard = pending.sent(.waitCard, sequence: 0, securedResponse: false)
        let cancelAll = pending.sent(.cancelAll, sequence: 1, securedResponse: false)
        #expect(pending.awaitedAnswer == waitCard)
        #expect(pending.remove(token: waitCard.token) == waitCard)
        #expect(pending.remove(token: waitCard.token) == nil)
        #expect(pending.awaitedAnswer == cancelAll)
    }

    // spec §2.4: the link dropping ends every wait, in the order the commands were sent; the stale count stays.
    @Test func aDroppedLinkEndsEveryWait() {
        var pending = PendingCommands()
        let waitCard = pending.sent(.waitCard, sequence: 0, securedResponse: false)
        #expect(pending.received(Self.answer(9, .waitCard)) == .stale(sequence: 9))
        let cancelAll = pending.sent(.cancelAll, sequence: 1, securedResponse: false)
        #expect(pending.staleAnswers(whileWaiting: cancelAll) == 0)
        #expect(pending.removeAll() == [waitCard, cancelAll])
        #expect(pending.waiting.isEmpty && !pending.hasCommandWaiting)
        #expect(pending.staleAnswersDropped == 1)
    }
}
