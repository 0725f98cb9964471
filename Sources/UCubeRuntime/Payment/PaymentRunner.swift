import Foundation
import Logging
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol

/// Runs one payment on an open connection as `pay` does, for `pay`, `test` and `serve`: the engine, `ucube cancel`
/// through the control socket, Ctrl-C (the shell's handler inside `ucube shell`, SIGINT otherwise) through the cancel
/// rule, `--events`. `shell`: the shell the command runs in (its context's), whose handler gets Ctrl-C. `progress`:
/// what the command line shows while the payment runs (nil: nothing). `attach`: stepping's hold on the engine
/// (`pay --step` in the shell; nil: no stepping). `observe`: each of the engine's events, in order (`ucube serve`'s
/// event stream).
package enum PaymentRunner {
    package static func run(
        on connection: Connection, shell session: (any CommandShell)?, request: PaymentRequest,
        selection: any ApplicationSelectionTask,
        authorization: any AuthorizationTask, journal: PaymentJournal, progress: (any PaymentProgressDisplay)?,
        attach: (@Sendable (PaymentEngine) -> Void)?,
        stepper: PaymentStepper? = nil, events: Bool = false, cancelAfter: Duration? = nil,
        onStop: (@Sendable () -> Void)? = nil, early: StopRequest? = nil,
        observe: (@Sendable (PaymentEvent) -> Void)? = nil
    ) async -> PaymentContext {
        let engine = PaymentEngine(
            client: connection.client, selection: selection, authorization: authorization,
            journal: journal, deviceName: connection.address.description, simulated: connection.address.isSimulated,
            stepper: stepper,
            logger: Logger(layer: .payment))
        attach?(engine)
        // `onStop`: the caller (a suite run) stops too, whatever the payment's cancel rule answers.
        ControlSocket.route {
            onStop?()
            return CancelAnswer(await engine.cancel())
        }
        let cancelOnInterrupt: @Sendable () -> Void = {
            onStop?()
            Task {
                let answer = CancelAnswer(await engine.cancel())
                StandardError.write("ucube: \(answer.message)")
            }
        }
        // A scripted cancel (a suite case's cancelAfter) asks the engine as Ctrl-C would, once, after the delay.
        let scheduledCancel = cancelAfter.map { delay in
            Task {
                try? await Task.sleep(for: delay)
                if !Task.isCancelled { _ = await engine.cancel() }
            }
        }
        // What the link knows of the terminal decides the starting steps (spec §8.6); asked here, right before the
        // payment, so that a shell's earlier commands count.
        let link = await connection.linkStart()
        let runPayment: @Sendable () async -> PaymentContext = {
            let context = await engine.run(request, link: link) { event in
                progress?.show(event)
                if case .journalFailed(let reason) = event {
                    StandardError.write(
                        "ucube: the journal cannot be written (\(reason)): the payment is cancelled if it still can be, completed otherwise; its outcome follows"
                    )
                }
                if events { StandardError.writeEvent(event) }
                observe?(event)
            }
            progress?.finish()
            return context
        }
        let context: PaymentContext
        if let session {
            // In the shell, Ctrl-C reaches the shell's own handler; it asks the engine, as below.
            session.setStepping(attach != nil)
            context = await session.onInterrupt(cancelOnInterrupt, runPayment)
            session.setStepping(false)
        } else {
            let interrupts = Interrupts.onInterrupt(cancelOnInterrupt)
            // An interrupt before this handler took over was noted: the engine cancels before its first command.
            if early?.isRequested == true { _ = await engine.cancel() }
            context = await runPayment()
            interrupts.cancel()
        }
        scheduledCancel?.cancel()
        await connection.remember(context.knownTerminal)
        // A process that ends with this payment keeps answering from it until it exits: a cancel then learns that the
        // payment is already cancelled or over, rather than being taken as a Ctrl-C that would kill the process before
        // it prints the outcome. The shell goes on to other commands, which `ucube cancel` interrupts as Ctrl-C would.
        if session != nil { ControlSocket.route(nil) }
        return context
    }
}
