import ArgumentParser
import Foundation
import UCubeLink
import UCubeProtocol

extension UCube {
    /// `ucube cancel`: cancels the payment running on a device, or resets the terminal when none runs.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Cancel the running payment (only before the card is read), or reset an idle terminal.",
            discussion: """
                Reaches the ucube process that holds the same --device, through its control socket \
                ($XDG_RUNTIME_DIR/ucube/control-<device>.sock). A payment: exit 0 when it will end CANCELLED, 14 when \
                it is too late (the card was read; the payment runs to its end). read-card, display and choose \
                end with CancelAll (they exit 11). Any other command (mdm-update, \
                the shell, rpc…) is interrupted as Ctrl-C would: mdm-update stops after the current block and the \
                terminal keeps its installed version. When no process holds the terminal, sends CancelAll and \
                ExitSecureSession so the terminal is back in READY.
                """)

        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            let device = try Connection.resolve(nil, globals).description
            if let line = try await ControlSocket.request("cancel", at: ControlSocket.path(forDevice: device)) {
                let answer = CancelAnswer(line: line)
                if globals.json {
                    try JSONOutput.print(["result": answer.accepted ? "cancelled" : "refused", "message": answer.message])
                } else {
                    print(answer.message)
                }
                if !answer.accepted { throw CLIFailure(ExitCodes.tooLate, answer.message) }
                return
            }
            // No payment runs: reset the terminal.
            try await withConnection(globals, prepare: .asRecorded) { connection in
                let (cancel, exit) = try await Connection.resynchronise(connection.client)
                let message = "no payment was running; terminal reset (CancelAll \(cancel), ExitSecureSession \(exit))"
                if globals.json {
                    try JSONOutput.print(["result": "reset", "message": message])
                } else {
                    print(message)
                }
            }
        }
    }
}
