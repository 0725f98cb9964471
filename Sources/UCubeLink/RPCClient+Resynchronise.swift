import UCubeProtocol

extension RPCClient {
    /// Brings the terminal back to READY with nothing pending, from any state: CancelAll ends a pending long command
    /// (WaitCard, StartNFC, DisplayMessage…; its late −32 answer is dropped by the client), and ExitSecureSession
    /// closes a secure session (0) or finds none (−287). Both travel plain in every state (spec §2.3), so neither the
    /// secured flag nor the sequence number need to be known; numbering then starts again at 0, as after the SDK's
    /// start (spec §2.4). Returns the two statuses.
    @discardableResult
    package func resynchronise() async throws(LinkError) -> (cancel: Status, exit: Status) {
        let cancel = try await cancelAll()
        let exit = try await send(ExitSecureSession()).status
        restartNumbering()
        return (cancel, exit)
    }
}

extension RPCClient {
    /// Sends the first command of a link that took the terminal as READY with nothing pending on the session record's
    /// word alone (`LinkOpening.unverified`), a read whose answer shows whether it was. An answer that says otherwise —
    /// ciphered (a secure session is open), a failure status (a command is pending, the terminal is in another state),
    /// or none in time — is followed by the resynchronisation and the command again, once (spec §8.7). `reset`: the
    /// resynchronisation was needed.
    package func sendConfirmingIdle<C: RPCCommand>(_ command: C) async throws(LinkError) -> (
        reply: Reply<C.Response>, reset: Bool
    ) {
        do {
            let reply = try await send(command)
            if reply.response != nil && !reply.isCiphered { return (reply, false) }
        } catch let error where error.code == .timeout {
            // No answer: the terminal may be busy with a command it does not interrupt for this one.
        }
        try await resynchronise()
        return (try await send(command), true)
    }
}
