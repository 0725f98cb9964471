import Synchronization
import UCubeLink

/// The terminal a payment met, and how many commands the client had sent then: it holds while no other command is
/// sent (a command may have changed what GetInfo answers: an update, a setting).
final class TerminalMemo: Sendable {
    private let state = Mutex<(idle: Bool, terminal: KnownTerminal?, commandsSent: Int, unverified: Bool)>(
        (false, nil, 0, false))

    /// `unverified`: the idle state is the session record's word alone, and the link's first command must confirm it
    /// (`LinkOpening.unverified`); anything learned since (a payment's steps, a reset) is seen, not taken on trust.
    func set(idle: Bool, _ terminal: KnownTerminal?, commandsSent: Int, unverified: Bool = false) {
        state.withLock { $0 = (idle, terminal, commandsSent, unverified) }
    }

    /// Nothing is pending on the terminal and its secure-session state is known (unless the client lost track since).
    var idle: Bool { state.withLock { $0.idle } }

    func terminal(ifCommandsSent count: Int) -> KnownTerminal? {
        state.withLock { $0.commandsSent == count ? $0.terminal : nil }
    }

    /// Whether the first command must still confirm that the terminal is idle; true once at most.
    func takeUnverified() -> Bool {
        state.withLock { state in
            defer { state.unverified = false }
            return state.unverified
        }
    }
}
