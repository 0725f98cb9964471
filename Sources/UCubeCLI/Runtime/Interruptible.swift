import UCubeLink
import UCubeProtocol
import UCubeRuntime

/// A long terminal command that Ctrl-C and `ucube cancel` can stop: `body` runs in a task of its own, and either
/// cancels that task, which makes the RPC client send CancelAll (the pending command then answers −32, spec §5.2
/// 0x0202). In the shell, Ctrl-C reaches the same cancel through the session.
enum Interruptible {
    static func run<T: Sendable>(
        _ what: String, shell: (any CommandShell)?, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        // Every way to stop it is in place before the work starts, so none can come too early to count.
        let stop = CancelSlot()
        ControlSocket.route {
            stop.cancel()
                ? CancelAnswer(.accepted, "cancelling `ucube \(what)`")
                : CancelAnswer(.already, "`ucube \(what)` is already being cancelled")
        }
        defer { ControlSocket.route(nil) }
        do {
            if let session = shell {
                let task = Task { try await body() }
                stop.hold { task.cancel() }
                return try await session.onInterrupt({ stop.cancel() }) { try await task.value }
            }
            return try await Interrupts.cancelling(body, stop: stop)
        } catch is CancellationError {
            throw CLIFailure.cancelled(what)
        }
    }

    /// Opens the link, sends one prompt command that Ctrl-C and `ucube cancel` can stop, and returns its reply.
    static func send<C: RPCCommand>(_ request: C, _ what: String, context: CommandContext) async throws -> Reply<
        C.Response
    > {
        try await withConnection(context, prepare: .asRecorded) { connection in
            let client = connection.client
            return try await run(what, shell: context.shell) {
                try Task.checkCancellation()
                return try await client.send(request)
            }
        }
    }
}

extension CLIFailure {
    /// Ctrl-C or `ucube cancel` stopped a prompt or a card wait (the terminal answered −32).
    static func cancelled(_ what: String) -> CLIFailure {
        CLIFailure(ExitCodes.cancelled, "\(what) cancelled; the terminal is back in READY")
    }

    /// A prompt's own timeout expired with no answer.
    static func noAnswer(_ message: String, option: String = "--timeout") -> CLIFailure {
        CLIFailure(ExitCodes.timeout, message, hint: "a longer \(option) gives the person at the terminal more time")
    }
}
