import Foundation
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubePayment

/// The engine against the in-process simulator (as swift-nio-ssh runs its client against its server).
@Suite struct PaymentEngineTests {
    struct Harness {
        let client: RPCClient
        let serving: Task<Void, Never>
    }

    static func harness(script: SimulatorScript = .default) throws -> Harness {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(script: script, timeScale: 0.01))
        let (transport, peer) = InMemoryTransport.pair()
        let serving = Task { _ = await simulator.serve(input: peer.input, output: { peer.write($0) }) }
        return Harness(client: RPCClient(transport: transport, defaultTimeout: .seconds(30)), serving: serving)
    }

    /// Collects events from the engine's callback.
    final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [PaymentEvent] = []

        func append(_ event: PaymentEvent) { lock.withLock { items.append(event) } }
        var events: [PaymentEvent] { lock.withLock { items } }
        var states: [PaymentState] {
            events.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } }
        }
        var finishedCount: Int {
            events.filter { if case .finished = $0 { true } else { false } }.count
        }
    }

    /// Waits until StartNFC is pending on the terminal.
    static func waitForCardWait(_ engine: PaymentEngine, _ client: RPCClient) async throws {
        while true {
            let state = await engine.context?.states.last
            let pending = await client.hasPendingCommand
            if state == .startTransaction, pending { return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func terminalState(_ client: RPCClient) async throws -> TerminalState? {
        try await client.send(GetInfo(tags: [0xC4])).response?.state
    }

    @Test func contactPaymentApproved() async throws {
        let h = try Self.harness()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-pay-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PaymentJournal(path: directory + "/journal.jsonl")
        let engine = PaymentEngine(
            client: h.client,
            authorization: FixedAuthorization(.approve),
            journal: journal,
            deviceName: "sim"
        )
        let log = EventLog()
        // An SRED blob asked for, as for an acquirer (no default list asks for one, spec §8.6).
        let context = await engine.run(
            PaymentRequest(
                amount: 1250, currency: .eur, authorizationSecuredTags: [Tag(0x57)], requestID: "engine-approve"),
            events: { log.append($0) }
        )
        #expect(context.status == .approved, "\(context.statusReason ?? "") \(context.errors)")
        #expect(context.entryMode == .icc)
        #expect(
            context.startedAt?.hasSuffix("Z") == true && context.finishedAt?.count == 24, "\(context.startedAt ?? "")")
        #expect(context.sredKSN?.count == 10)
        #expect(context.selectedAID != nil)
        #expect(context.cryptogramType != nil)
        #expect(context.authorizationSecuredData?.isEmpty == false)
        #expect(context.finalisationApproved == true)
        #expect(context.roundTrips == context.states.filter { PaymentStateMachine.command(of: $0) != nil }.count)
        // The simulator answers GetPlainTag 5A truncated (47 61 73 FF FF FF 00 10).
        #expect(context.maskedPAN == Fixture.maskedPAN)
        // One event per state, in order, then exactly one finish.
        #expect(log.states == context.states)
        #expect(log.finishedCount == 1)
        if case .finished(let last) = log.events.last {
            #expect(last.status == .approved)
        } else {
            Issue.record("the last event is not .finished")
        }
        #expect(context.states.last == .endExitSecureSession)
        // The terminal is back in READY.
        #expect(try await Self.terminalState(h.client) == .ready)

        // Journal: start and outcome, nothing in clear.
        let history = try PaymentJournal.history(journal.path)
        #expect(history.count == 1)
        #expect(history.first?.status == "APPROVED")
        #expect(history.first?.sredKSN == context.sredKSN?.hex)
        let text = try String(contentsOfFile: journal.path, encoding: .utf8)
        #expect(!Masking.containsUnmaskedPAN(text))
        #expect(!Masking.containsUnmaskedPAN(try json(context)))
        await h.client.close()
    }

    @Test func contactPaymentDeclined() async throws {
        let h = try Self.harness()
        let engine = PaymentEngine(client: h.client, authorization: FixedAuthorization(.decline))
        let context = await engine.run(PaymentRequest(amount: 990, currency: .eur, requestID: "engine-decline"))
        #expect(context.status == .declined)
        #expect(context.finalisationApproved == false)
        #expect(try await Self.terminalState(h.client) == .ready)
        await h.client.close()
    }

    @Test func contactlessApprovedOffline() async throws {
        let h = try Self.harness()
        let engine = PaymentEngine(client: h.client, authorization: FixedAuthorization(.approve))
        let context = await engine.run(PaymentRequest(amount: 500, readers: [.nfc], requestID: "engine-nfc"))
        #expect(context.status == .approved, "\(context.statusReason ?? "")")
        #expect(context.entryMode == .nfc)
        #expect(context.nfcOutcome == NFCOutcome(cvm: .receipt, result: .approved))
        #expect(!context.states.contains(.authorization))
        #expect(try await Self.terminalState(h.client) == .ready)
        await h.client.close()
    }

    @Test func cancelWhileWaitingForTheCard() async throws {
        var script = SimulatorScript.default
        script.card = nil
        let h = try Self.harness(script: script)
        let engine = PaymentEngine(client: h.client, authorization: FixedAuthorization(.approve))
        let request = PaymentRequest(amount: 1250, cardWaitTimeout: 255, requestID: "engine-cancel")
        let running = Task { await engine.run(request) }
        // Wait until StartNFC is pending on the terminal.
        try await Self.waitForCardWait(engine, h.client)
        let decision = await engine.cancel()
        #expect(decision == .accepted(.cancelPendingCommand))
        let context = await running.value
        #expect(context.status == .cancelled)
        #expect(context.states.last == .endExitSecureSession)
        #expect(try await Self.terminalState(h.client) == .ready)
        await h.client.close()
    }

    @Test func taskCancellationOfRunMapsToCancel() async throws {
        var script = SimulatorScript.default
        script.card = nil
        let h = try Self.harness(script: script)
        let engine = PaymentEngine(client: h.client, authorization: FixedAuthorization(.approve))
        let running = Task { await engine.run(PaymentRequest(amount: 100, cardWaitTimeout: 255, requestID: "ctrl-c")) }
        try await Self.waitForCardWait(engine, h.client)
        running.cancel()
        let context = await running.value
        #expect(context.status == .cancelled)
        #expect(try await Self.terminalState(h.client) == .ready)
        await h.client.close()
    }

    /// A Ctrl-C in the moment between setting up the engine and its run: accepted, and the payment ends CANCELLED
    /// without sending a command (it used to be refused, "no payment is running", and the payment went on).
    @Test func aCancelBeforeTheRunEndsThePaymentBeforeItsFirstCommand() async throws {
        let h = try Self.harness()
        let engine = PaymentEngine(client: h.client, authorization: FixedAuthorization(.approve))
        #expect(await engine.cancel() == .accepted(.none))
        let context = await engine.run(PaymentRequest(amount: 100, requestID: "early"))
        #expect(context.status == .cancelled)
        #expect(context.roundTrips == 0)
        await h.client.close()
    }

    /// An authorization hook that tries to cancel the payment it is authorizing: too late, the card was read.
    struct CancellingAuthorization: AuthorizationTask {
        let engine: EngineBox

        func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws -> AuthorizationResponse {
            let decision = await engine.engine?.cancel()
            await engine.record(decision)
            return .approved
        }
    }

    actor EngineBox {
        var engine: PaymentEngine?
        var decision: CancelDecision?
        func set(_ engine: PaymentEngine) { self.engine = engine }
        func record(_ decision: CancelDecision?) { self.decision = decision }
    }

    @Test func cancelRefusedAfterTheCardIsRead() async throws {
        let h = try Self.harness()
        let box = EngineBox()
        let engine = PaymentEngine(client: h.client, authorization: CancellingAuthorization(engine: box))
        await box.set(engine)
        let context = await engine.run(PaymentRequest(amount: 1250, requestID: "too-late"))
        #expect(await box.decision == .refused(CancelDecision.tooLate))
        #expect(context.status == .approved)
        await h.client.close()
    }

    /// An authorization hook that cancels the task running the payment, as a fleet's stop or a shell's Ctrl-C would.
    struct TaskCancellingAuthorization: AuthorizationTask {
        let running: RunningBox

        func authorize(_ request: AuthorizationRequest, context: PaymentContext) async throws -> AuthorizationResponse {
            await running.cancel()
            return .approved
        }
    }

    actor RunningBox {
        var task: Task<PaymentContext, Never>?
        func set(_ task: Task<PaymentContext, Never>) { self.task = task }
        func cancel() { task?.cancel() }
    }

    /// The engine alone judges a cancelled task: after the card is read it is too late, and the commands that follow
    /// go out in the cancelled task without a CancelAll of the client's own (every command the client sent is one
    /// of the engine's round trips), so the payment completes.
    @Test func cancellingTheRunsTaskAfterTheCardIsReadSendsNoCancelAll() async throws {
        let h = try Self.harness()
        let box = RunningBox()
        let engine = PaymentEngine(client: h.client, authorization: TaskCancellingAuthorization(running: box))
        let (gate, open) = AsyncStream<Void>.makeStream()
        let running = Task {
            for await _ in gate { break }
            return await engine.run(PaymentRequest(amount: 1250, requestID: "task-too-late"))
        }
        await box.set(running)
        open.yield()
        let context = await running.value
        #expect(running.isCancelled)
        #expect(context.status == .approved)
        #expect(context.states.contains(.authorization))
        #expect(await h.client.commandsSent == context.roundTrips)
        await h.client.close()
    }

    @Test func disconnectEndsWithErrorDisconnect() async throws {
        let simulator = try TerminalSimulator(
            configuration: SimulatorConfiguration(
                script: {
                    var s = SimulatorScript.default; s.card = nil; return s
                }(), timeScale: 0.01)
        )
        let (transport, peer) = InMemoryTransport.pair()
        let serving = Task { _ = await simulator.serve(input: peer.input, output: { peer.write($0) }) }
        defer { serving.cancel() }
        let client = RPCClient(transport: transport, defaultTimeout: .seconds(30))
        let engine = PaymentEngine(client: client, authorization: FixedAuthorization(.approve))
        let running = Task { await engine.run(PaymentRequest(amount: 100, cardWaitTimeout: 255, requestID: "drop")) }
        try await Self.waitForCardWait(engine, client)
        peer.disconnect()
        let context = await running.value
        #expect(context.status == .errorDisconnect)
        #expect(context.states.last == .startTransaction)
    }
}
