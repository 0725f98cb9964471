import ArgumentParser
import Foundation
import UCubeLink
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

extension UCube {
    /// `ucube cancel`: cancels the payment running on a device, or resets the terminal when none runs.
    struct Cancel: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Cancel the running payment (only before the card is read), or reset an idle terminal.",
            discussion: """
                Reaches the ucube process that holds the same --device, through its control socket \
                ($XDG_RUNTIME_DIR/ucube/control-<device>.sock). A payment: exit 0 when it will end CANCELLED (this \
                cancel, or one before it, was accepted), 14 when it is too late (the card was read; the payment runs \
                to its end). read-card, display and choose end with CancelAll (they exit 11). Any other command \
                (mdm-update, the shell, rpc…) is interrupted as Ctrl-C would: mdm-update stops after the current \
                block and the terminal keeps its installed version. When no process holds the terminal, sends \
                CancelAll and ExitSecureSession so the terminal is back in READY. A socket of another user's payment \
                exits \(ExitCodes.notYours.code) and leaves the terminal alone; a holder that cannot take the request within \
                \(ControlSocket.reachBudget.components.seconds) s (a full queue, a process starting or ending) exits \
                \(ExitCodes.tryAgain.code): try again.
                """ + HelpExamples.section("cancel"))

        @OptionGroup var globals: GlobalOptions

        func run(in context: CommandContext) async throws {
            let device = try Connection.resolve(nil, context).description
            let path = ControlSocket.path(forDevice: device)
            let deadline = ContinuousClock.now + ControlSocket.reachBudget
            var lastBusy = ""
            while true {
                switch await ControlSocket.request("cancel", at: path) {
                case .answered(let line):
                    let answer = CancelAnswer(line: line)
                    if answer.kind == .busy {
                        lastBusy = answer.message
                    } else {
                        return try report(answer, device: device, json: context.json)
                    }
                case .notYours(let code):
                    throw CLIFailure(
                        ExitCodes.notYours,
                        "\(device)'s control socket belongs to another user (\(ErrorNumber.text(code))): "
                            + "a payment may be running there, and the terminal was left alone",
                        hint: "run `ucube cancel` as the user whose payment it is", detail: path)
                case .busy(let reason):
                    lastBusy = reason
                case .nobodyListens:
                    do {
                        return try await reset(device: device, context: context)
                    } catch let failure as CLIFailure where failure.exit.code == ExitCodes.busy.code {
                        // Another process holds the terminal but does not listen (yet, or any more): it is starting
                        // or ending. Its socket appears, or its lock goes, within moments.
                        lastBusy = failure.message
                    }
                }
                guard ContinuousClock.now < deadline else {
                    throw CLIFailure(
                        ExitCodes.tryAgain, "the process holding \(device) did not take the cancel: \(lastBusy)",
                        hint: "try again")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        private func report(_ answer: CancelAnswer, device: String, json: Bool) throws {
            let result: String
            switch answer.kind {
            case .accepted: result = "cancelled"
            case .already: result = "already-cancelled"
            case .refused: result = "refused"
            case .none: result = "no-payment"
            case .denied:
                throw CLIFailure(ExitCodes.notYours, "\(device) is held by another user's process: \(answer.message)")
            case .busy, .error:
                throw CLIFailure(
                    ExitCodes.failure, "the process holding \(device) did not understand the cancel: \(answer.message)")
            }
            let message = answer.kind == .none ? "no payment is running: \(answer.message)" : answer.message
            try CancelReport(result: result, message: message).print(json: json)
            if answer.kind == .refused { throw CLIFailure(ExitCodes.tooLate, answer.message) }
        }

        /// No process holds the terminal: bring it back to READY. While this runs, another `ucube cancel` that
        /// reaches this process is told that no payment runs (not interrupted: there is nothing to stop).
        private func reset(device: String, context: CommandContext) async throws {
            let pid = getpid()
            ControlSocket.route { CancelAnswer(.none, "another `ucube cancel` (pid \(pid)) is resetting the terminal") }
            defer { ControlSocket.route(nil) }
            try await withConnection(context, prepare: .asRecorded) { connection in
                let (cancel, exit) = try await connection.client.resynchronise()
                let message = "no payment was running; terminal reset (CancelAll \(cancel), ExitSecureSession \(exit))"
                try CancelReport(result: "reset", message: message).print(json: context.json)
            }
        }
    }
}
