/// How a link starts, decided from the session record and what the command needs (pure): the rules the client starts
/// with, what is sent before the command's first frame, and what is then known of the terminal. One rule for the CLI,
/// the fuzz driver and the benchmarks.
package struct LinkOpening: Equatable, Sendable {
    /// What is sent before the command's own first frame.
    package enum Step: Equatable, Sendable {
        /// Nothing: the record is trusted as it is, or a payment's starting steps take over.
        case none
        /// CancelAll and ExitSecureSession, then numbering from 0 (`RPCClient.resynchronise`).
        case resynchronise
        /// The secure session the clean record kept is checked (`RPCClient.verifySecureSession`).
        case verifySecureSession
    }

    /// The record's rules when the last process closed the link cleanly; nil when nothing about it can be trusted.
    package let trusted: LinkRules?
    package let step: Step
    /// Nothing is pending on the terminal once `step` ran, and its secure-session state is known.
    package let idle: Bool
    /// The terminal the last payment met, when it still holds (only on an idle link).
    package let terminal: KnownTerminal?
    /// The terminal is taken as READY with nothing pending on the record's word alone (`.query`): the command's first
    /// answer must confirm it.
    package let unverified: Bool

    package init(_ record: SessionRecord.Loaded, preparation: LinkPreparation) {
        var trusted: LinkRules? = nil
        var known: KnownTerminal? = nil
        if case .clean(let rules, let terminal) = record {
            trusted = rules
            known = terminal
        }
        self.trusted = trusted
        switch preparation {
        case .payment: step = .none
        case .ready: step = .resynchronise
        case .query: step = trusted?.secured == false ? .none : .resynchronise
        case .asRecorded:
            step = trusted == nil ? .resynchronise : (trusted?.secured == true ? .verifySecureSession : .none)
        }
        idle = trusted != nil || preparation != .payment
        terminal = idle ? known : nil
        unverified = preparation == .query && step == .none
    }

    /// The rules the client starts with: the record's when trusted, a fresh session's otherwise.
    package var rules: LinkRules { trusted ?? LinkRules() }

    /// The record a process writes when it opens the link: ours from now on, so a process that dies before closing
    /// leaves this mark and the next one resets the terminal.
    package func openRecord(owner: Int32) -> SessionRecord { SessionRecord(rules: rules, owner: owner) }

    /// Sends `step` on `client`.
    package func perform(on client: RPCClient) async throws(LinkError) {
        switch step {
        case .none: break
        case .resynchronise: try await client.resynchronise()
        case .verifySecureSession: try await client.verifySecureSession()
        }
    }
}
