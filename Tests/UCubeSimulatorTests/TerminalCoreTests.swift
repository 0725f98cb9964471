import Testing
import UCubeProtocol

@testable import UCubeSimulator

/// What a command frame gets from the simulated terminal, decided by the `TerminalCore` value alone: no connection,
/// no clock, no task. Each test follows a rule of docs/protocol.md; together they cover the frame-level cases that
/// `TerminalSimulatorTests` and `CurrentSDKDialectTests` drive through a connection.
@Suite struct TerminalCoreTests {
    static let ready = TerminalCore.Context(state: .ready)
    static let secured = TerminalCore.Context(state: .secured)

    /// A plain command frame (spec §2.1).
    static func frame(_ sequence: UInt8, _ command: CommandID, _ payload: [UInt8] = []) -> RawFrame {
        RawFrame(sequence: sequence, command: command, body: payload)
    }

    /// A command in the SECURED layout (spec §2.3): crypto header ‖ payload ‖ MAC.
    static func wrapped(_ sequence: UInt8, _ command: CommandID, _ payload: [UInt8], mac: [UInt8] = [9, 9, 9, 9])
        -> RawFrame
    {
        RawFrame(sequence: sequence, command: command, body: [0x7F] + payload + mac)
    }

    static func verdict(
        _ core: TerminalCore, _ raw: RawFrame, _ context: TerminalCore.Context = ready, mac: Bool = true
    ) -> TerminalCore.Verdict {
        core.received(raw, in: context) { _ in mac }
    }

    /// "status −287 plain seq 3 GetInfo" for an answer; nil for any other verdict.
    static func answered(_ verdict: TerminalCore.Verdict) -> String? {
        guard case .answer(let reply, let format) = verdict else { return nil }
        return describe(reply, format)
    }

    static func describe(_ reply: Reply, _ format: AnswerFormat) -> String {
        let layout = format.ciphered ? "ciphered" : format.secured ? "secured" : "plain"
        let data = reply.data.isEmpty ? "" : " data \(Hex.encode(reply.data))"
        return "status \(reply.status.rawValue)\(data) \(layout) seq \(format.sequence) \(format.command.rawValue)"
    }

    static func describe(_ steps: [TerminalCore.Step]) -> [String] {
        steps.map { step in
            switch step {
            case .unknownCommand: return "unknown"
            case .send(let reply, let format): return "send " + describe(reply, format)
            case .apply(let effects): return "apply \(effects.count)"
            case .startTimer(let id, let delay): return "start timer \(id) \(delay)"
            case .stopTimer: return "stop timer"
            }
        }
    }

    /// The request and its answer's format, when the verdict runs the command.
    static func run(_ verdict: TerminalCore.Verdict) -> (Request, AnswerFormat)? {
        guard case .run(let request, let format) = verdict else { return nil }
        return (request, format)
    }

    /// A core whose WaitCard (SEQ 4) waits for its card.
    static func waitingForACard() throws -> TerminalCore {
        var core = TerminalCore()
        let (request, format) = try #require(run(verdict(core, frame(4, .waitCard, [0x01, 0x1E]))))
        let steps = core.ran(request, answer: format, outcome: .after(.seconds(30), Reply(.timeout)))
        #expect(describe(steps) == ["start timer 1 30.0 seconds"])
        return core
    }

    // MARK: Which command, which layout (spec §2.3, §2.7)

    // spec §2.7 PROJECT CHOICE: a command this terminal does not know is answered under its own CMD ID, −1.
    @Test func anUnknownCommandIsAnsweredAsUnknown() {
        let core = TerminalCore()
        guard case .unknownCommand = Self.verdict(core, Self.frame(1, CommandID(0x1234))) else {
            Issue.record("0x1234 was taken for a command")
            return
        }
        // SimulatorChoices.hasMagstripeReader: the simulated uCube Touch has no magstripe reader.
        guard case .unknownCommand = Self.verdict(core, Self.frame(2, .magstripeRead)) else {
            Issue.record("MagstripeRead was taken for a command of a terminal without the reader")
            return
        }
    }

    // spec §2.2, §2.3: in READY the command runs with its body as payload, and its answer is plain.
    @Test func aCommandInReadyRunsAndIsAnsweredPlain() throws {
        let (request, format) = try #require(
            Self.run(Self.verdict(TerminalCore(), Self.frame(3, .getInfo, [0xC4]))))
        #expect(request.id == .getInfo && request.payload == [0xC4])
        #expect(format.sequence == 3 && format.command == .getInfo && !format.secured && !format.ciphered)
    }

    // spec §2.3: in SECURED, a SIGNED_NOT_CHECKED input is unwrapped, and GetInfo's SIGNED_CIPHERED output is ciphered.
    @Test func aCommandInSecuredIsUnwrappedAndAnsweredInItsOutputMode() throws {
        let (request, format) = try #require(
            Self.run(Self.verdict(TerminalCore(), Self.wrapped(1, .getInfo, [0xC4]), Self.secured)))
        #expect(request.payload == [0xC4])
        #expect(format.secured && format.ciphered)
        // An empty payload is never wrapped (spec §2.3): the body is the payload.
        let (empty, _) = try #require(Self.run(Self.verdict(TerminalCore(), Self.frame(2, .getInfo), Self.secured)))
        #expect(empty.payload.isEmpty)
    }

    // spec §2.3 PROJECT CHOICE: ExitSecureSession is always plain, in and out.
    @Test func exitSecureSessionIsPlainInASecureSession() throws {
        let (request, format) = try #require(
            Self.run(Self.verdict(TerminalCore(), Self.frame(5, .exitSecureSession), Self.secured)))
        #expect(request.id == .exitSecureSession && !format.secured)
    }

    // spec §2.7: a command valid only in another terminal state is answered −287 (BAD_TERMINAL_STATE).
    @Test func aCommandOfAnotherStateIsRefused() {
        let verdict = Self.verdict(TerminalCore(), Self.frame(1, .transactionInit, [0x00]))
        #expect(Self.answered(verdict) == "status -287 plain seq 1 21777")
    }

    // spec §2.3, §12.3: a SIGNED input whose MAC does not verify is refused (SimulatorChoices.macMismatchStatus); one
    // that verifies runs.
    @Test func aSignedInputRunsOnlyWithAMACThatVerifies() throws {
        let raw = Self.wrapped(1, .bankParametersDownload, [0x84, 0x00])
        #expect(
            Self.answered(Self.verdict(TerminalCore(), raw, Self.secured, mac: false))
                == "status -900 secured seq 1 21761")
        let (request, _) = try #require(Self.run(Self.verdict(TerminalCore(), raw, Self.secured, mac: true)))
        #expect(request.payload == [0x84, 0x00])
    }

    // spec §2.3: a wrapped body too short for crypto header and MAC is malformed (SimulatorChoices, −901).
    @Test func aWrappedBodyTooShortIsMalformed() {
        let raw = RawFrame(sequence: 1, command: .getInfo, body: [0x7F, 0xC4])
        #expect(Self.answered(Self.verdict(TerminalCore(), raw, Self.secured)) == "status -901 ciphered seq 1 20481")
    }

    // spec §2.3 legacy switch: with `legacySecuredCommands`, a NONE-mode body that ends with the old SDK's zero MAC is
    // unwrapped in a secure session; without it, the body is the payload as it came.
    @Test func aLegacyWrappedCommandIsUnwrappedOnlyWhenAsked() throws {
        let raw = Self.wrapped(1, .waitCardRemoval, [0x1E], mac: SimulatorChoices.legacyWrappedMAC)
        var legacy = Self.secured
        legacy.legacySecuredCommands = true
        #expect(try #require(Self.run(Self.verdict(TerminalCore(), raw, legacy))).0.payload == [0x1E])
        #expect(try #require(Self.run(Self.verdict(TerminalCore(), raw, Self.secured))).0.payload == raw.body)
    }

    // A suite's card image may answer a command with a status of its own (CardProfile.commandStatuses), in the
    // command's layout.
    @Test func theCardImagesStatusAnswersTheCommand() {
        var context = Self.ready
        context.commandStatuses = [.waitCard: Status(-19)]
        #expect(
            Self.answered(Self.verdict(TerminalCore(), Self.frame(2, .waitCard, [0x01, 0x1E]), context))
                == "status -19 plain seq 2 20512")
    }

    // MARK: While a command waits (spec §2.8, §2.9, §9)

    // spec §9: while a long-running command waits, the host sends nothing but CancelAll; anything else is refused at
    // once (SimulatorChoices.busyStatus), and the wait goes on.
    @Test func anotherCommandWhileOneWaitsIsRefused() throws {
        let core = try Self.waitingForACard()
        #expect(Self.answered(Self.verdict(core, Self.frame(5, .getInfo))) == "status -287 plain seq 5 20481")
        #expect(core.waiting?.answer.sequence == 4)
    }

    // spec §2.9 PROJECT CHOICE: GetStatus answers 0 and 00 when idle, 01 (secure firmware busy) while a command waits.
    @Test func getStatusSaysWhetherACommandWaits() throws {
        #expect(
            Self.answered(Self.verdict(TerminalCore(), Self.frame(5, .getStatus)))
                == "status 0 data 00 plain seq 5 817")
        #expect(
            Self.answered(Self.verdict(try Self.waitingForACard(), Self.frame(5, .getStatus)))
                == "status 0 data 01 plain seq 5 817")
    }

    // spec §2.9 PROJECT CHOICE: RepeatLastMessage with no answer yet is answered 0 under its own id; then it sends the
    // last answer again, byte for byte; while a command waits it sends nothing (that command's answer is to come).
    // Answers to CancelAll, GetStatus and RepeatLastMessage are never the one repeated.
    @Test func repeatLastMessageSendsTheLastAnswerAgain() throws {
        var core = TerminalCore()
        #expect(Self.answered(Self.verdict(core, Self.frame(6, .repeatLastMessage))) == "status 0 plain seq 6 816")
        let getInfoAnswer = try ResponseFrame(sequence: 1, command: .getInfo, status: .success, data: [0xC4]).encoded()
        core.answerWritten(getInfoAnswer)
        core.answerWritten(try ResponseFrame(sequence: 2, command: .getStatus, status: .success, data: [0]).encoded())
        core.answerWritten(try ResponseFrame(sequence: 3, command: .cancelAll, status: .success).encoded())
        guard case .repeatAnswer(let bytes) = Self.verdict(core, Self.frame(7, .repeatLastMessage)) else {
            Issue.record("the last answer was not repeated")
            return
        }
        #expect(bytes == getInfoAnswer)

        var waiting = try Self.waitingForACard()
        waiting.answerWritten(getInfoAnswer)
        guard case .nothing = Self.verdict(waiting, Self.frame(8, .repeatLastMessage)) else {
            Issue.record("RepeatLastMessage answered while a command waits")
            return
        }
        // A new connection has nothing to repeat.
        core.connectionEnded()
        #expect(core.lastAnswer == nil)
    }

    // spec §2.8, §5.2: CancelAll is answered first, then the command it ends answers −32 with its own SEQ and id; the
    // wait's timer stops, and a timer that fires late finds nothing to answer.
    @Test func cancelAllIsAnsweredFirstThenTheWaitEndsWithMinus32() throws {
        var core = try Self.waitingForACard()
        let (request, format) = try #require(Self.run(Self.verdict(core, Self.frame(5, .cancelAll))))
        #expect(
            Self.describe(core.ran(request, answer: format, outcome: .now(.ok())))
                == ["send status 0 plain seq 5 514", "stop timer", "send status -32 plain seq 4 20512"])
        #expect(core.waiting == nil)
        #expect(core.waitEnded(1).isEmpty)
    }

    // spec §2.8: a CancelAll with nothing waiting is answered alone; one that fails ends nothing.
    @Test func aCancelAllThatEndsNothingIsAnsweredAlone() throws {
        var idle = TerminalCore()
        let (request, format) = try #require(Self.run(Self.verdict(idle, Self.frame(1, .cancelAll))))
        #expect(
            Self.describe(idle.ran(request, answer: format, outcome: .now(.ok()))) == ["send status 0 plain seq 1 514"])
        var waiting = try Self.waitingForACard()
        #expect(
            Self.describe(waiting.ran(request, answer: format, outcome: .now(Reply(Status(-901)))))
                == ["send status -901 plain seq 1 514"])
        #expect(waiting.waiting != nil)
    }

    // spec §9: a long-running command is answered when its wait ends, and only then do its effects happen (the card
    // presented); a timer of an earlier wait is ignored.
    @Test func aWaitEndsWithItsPreparedReply() throws {
        var core = TerminalCore()
        let (request, format) = try #require(Self.run(Self.verdict(core, Self.frame(4, .waitCard, [0x01, 0x1E]))))
        let reply = Reply(.success, [0x01], effects: [.cardPresented(.contact)])
        #expect(
            Self.describe(core.ran(request, answer: format, outcome: .after(.seconds(1), reply))) == [
                "start timer 1 1.0 seconds"
            ])
        #expect(core.waitEnded(0).isEmpty)
        #expect(Self.describe(core.waitEnded(1)) == ["apply 1", "send status 0 data 01 plain seq 4 20512"])
        #expect(core.waiting == nil && core.waitEnded(1).isEmpty)
    }

    // spec §9: a command whose wait is already over (no delay) is answered at once, its effects first; a command
    // without a handler is answered as unknown (spec §2.7).
    @Test func aCommandWithoutAWaitIsAnsweredAtOnce() throws {
        var core = TerminalCore()
        let (request, format) = try #require(Self.run(Self.verdict(core, Self.frame(4, .waitCard, [0x01, 0x1E]))))
        let reply = Reply(.success, [0x01], effects: [.cardPresented(.contactless)])
        #expect(
            Self.describe(core.ran(request, answer: format, outcome: .after(.zero, reply))) == [
                "apply 1", "send status 0 data 01 plain seq 4 20512",
            ])
        #expect(core.waiting == nil)
        #expect(Self.describe(core.ran(request, answer: format, outcome: nil)) == ["unknown"])
    }

    // The link dropped, or the terminal was reset: the waiting command is forgotten without an answer.
    @Test func aDroppedWaitIsNeverAnswered() throws {
        var core = try Self.waitingForACard()
        core.dropWait()
        #expect(core.waiting == nil)
        #expect(core.waitEnded(1).isEmpty)
    }
}
