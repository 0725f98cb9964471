/// What a process knows of the terminal beyond its client's rules, and the session rules that follow from it (spec
/// §8.6, §8.7; pure, `LinkSession` keeps it): whether the terminal is idle, the terminal a payment met and how many
/// commands the client had sent then (it holds while no other command is sent: a command may have changed what
/// GetInfo answers, an update, a setting), and whether the idle state is still the session record's word alone.
package struct LinkMemo: Equatable, Sendable {
    /// Nothing is pending on the terminal and its secure-session state is known (unless the client lost track since).
    package private(set) var idle: Bool
    private var terminal: KnownTerminal?
    /// The client's `commandsSent` when `terminal` was learned.
    private var commandsSent: Int
    /// The idle state is the session record's word alone (`LinkOpening.unverified`), and the link's first command
    /// must confirm it; anything learned since (a payment's steps, a reset) is seen, not taken on trust.
    private var unverified: Bool

    /// Before the link's opening step ran: nothing is known.
    package init() {
        idle = false
        terminal = nil
        commandsSent = 0
        unverified = false
    }

    /// Once `opening`'s step ran, the client having sent `commandsSent` commands: the terminal is idle, its
    /// secure-session state known, when the last process closed the link cleanly or this one resynchronised it (a
    /// payment's own starting steps resynchronise it otherwise), and the terminal the record kept still holds.
    package init(_ opening: LinkOpening, commandsSent: Int) {
        idle = opening.idle
        terminal = opening.terminal
        self.commandsSent = commandsSent
        unverified = opening.unverified
    }

    /// The terminal a payment (or the last process) met, when no command was sent since.
    package func terminal(ifCommandsSent count: Int) -> KnownTerminal? {
        commandsSent == count ? terminal : nil
    }

    /// What a payment starting now may take as known (spec §8.6): the terminal is idle when the link started so and
    /// no command since went unanswered (`lostTrack`); the known terminal holds when no command was sent since a
    /// payment (or the last process) learned it. `secured` and `commandsSent` are the client's now.
    package func linkStart(lostTrack: Bool, secured: Bool, commandsSent: Int) -> LinkStart {
        guard idle, !lostTrack else { return .unknown }
        return LinkStart(idle: true, secured: secured, terminal: terminal(ifCommandsSent: commandsSent))
    }

    /// A payment's starting steps ran: they leave the terminal's state known, whatever they started from, and
    /// `terminal` is the one it met (nil: it learned none, and what was known no longer holds).
    package mutating func remember(_ terminal: KnownTerminal?, commandsSent: Int) {
        self = LinkMemo(idle: true, terminal: terminal, commandsSent: commandsSent)
    }

    /// The terminal was reset (`RPCClient.sendConfirmingIdle`, spec §8.7): idle, and which terminal it is unknown.
    package mutating func wasReset(commandsSent: Int) {
        self = LinkMemo(idle: true, terminal: nil, commandsSent: commandsSent)
    }

    /// Whether the link's first command must confirm that the terminal is idle (`.query`, spec §8.7); true once at
    /// most.
    package mutating func takeUnverified() -> Bool {
        defer { unverified = false }
        return unverified
    }

    /// The record a clean close writes (spec §8.6), from the client's state then; nil when the session is not kept
    /// (the client lost track of the terminal: an unanswered command, a dropped link), and the next process resets
    /// the terminal first. The known terminal is kept only when no command followed the payment that learned it.
    package func closingRecord(rules: LinkRules, lostTrack: Bool, commandsSent: Int) -> SessionRecord? {
        guard !lostTrack else { return nil }
        return SessionRecord(rules: rules, owner: nil, terminal: terminal(ifCommandsSent: commandsSent))
    }

    private init(idle: Bool, terminal: KnownTerminal?, commandsSent: Int) {
        self.idle = idle
        self.terminal = terminal
        self.commandsSent = commandsSent
        unverified = false
    }
}
