import Foundation
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubePayment

/// The engine's pause hook (`pay --step` in `ucube shell`): called before every command and task, never changes
/// the payment, and may cancel it while paused.
@Suite struct PaymentStepperTests {
    final class Steps: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [PaymentStep] = []
        func append(_ step: PaymentStep) { lock.withLock { items.append(step) } }
        var all: [PaymentStep] { lock.withLock { items } }
    }

    @Test func pausesBeforeEachCommandAndTask() async throws {
        let h = try PaymentEngineTests.harness()
        let steps = Steps()
        let engine = PaymentEngine(
            client: h.client, authorization: FixedAuthorization(.approve), stepper: { steps.append($0) })
        let context = await engine.run(PaymentRequest(amount: 1250, currency: .eur, requestID: "stepped"))
        #expect(context.status == .approved, "\(context.statusReason ?? "")")
        let paused = steps.all
        // One pause per command or task, each naming the state it is about to run, in the order the states came.
        #expect(
            paused.count == context.roundTrips
                + paused.filter { if case .runTask = $0.action { true } else { false } }.count)
        #expect(paused.compactMap(\.state) == context.states.filter { state in paused.contains { $0.state == state } })
        #expect(paused.first?.state == .startCancelAll)
        #expect(paused.first?.action == .send(.cancelAll(CancelAll())))
        #expect(
            paused.contains {
                $0.state == .authorization && { if case .runTask(.authorize) = $0.action { true } else { false } }($0)
            })
        // The context grows as the payment goes: the KSN is known at some pause after ENTER_SECURE_SESSION.
        #expect(paused.first?.context.sredKSN == nil)
        #expect(paused.last?.context.sredKSN?.count == 10)
        await h.client.close()
    }

    @Test func cancelWhilePausedBeforeTheCardWait() async throws {
        var script = SimulatorScript.default
        script.card = nil
        let h = try PaymentEngineTests.harness(script: script)
        let box = PaymentEngineTests.EngineBox()
        let engine = PaymentEngine(
            client: h.client, authorization: FixedAuthorization(.approve),
            stepper: { step in
                if step.state == .startTransaction || step.state == .waitingCard {
                    await box.record(await box.engine?.cancel())
                }
            })
        await box.set(engine)
        let context = await engine.run(PaymentRequest(amount: 100, cardWaitTimeout: 255, requestID: "step-cancel"))
        #expect(context.status == .cancelled)
        #expect(await box.decision == .accepted(.cancelPendingCommand))
        // The card wait that follows the pause is ended by a CancelAll once sent, not left to time out: one round trip
        // more than the states' own commands.
        let commands = context.states.filter { PaymentStateMachine.command(of: $0) != nil }.count
        #expect(context.roundTrips == commands + 1, "\(context.states) \(context.roundTrips)")
        await h.client.close()
    }
}
