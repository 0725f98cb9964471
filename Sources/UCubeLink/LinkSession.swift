import Foundation
import UCubeProtocol

/// The link session kept between invocations, and which process has the link open. The file is one line of
/// `key=value` words, `secured=0 next=11`, `secured=0 next=4 terminal=HEX` or `secured=1 next=12 owner=4242`: runtime
/// state read before every command, which a JSON decoder made a measurable share of a short command's start-up. Any
/// other content is unreadable, and an unreadable record is treated as stale. `terminal` is the terminal the last
/// payment met (`KnownTerminal.hex`), written only at a clean exit (spec §8.6). Pure: the CLI reads and writes the
/// file (`SessionFile`).
package struct SessionRecord: Equatable, Sendable {
    package var secured: Bool
    package var nextSequence: UInt8
    /// The pid of the process that has the link open; nil once it closed the link cleanly.
    package var owner: Int32?
    package var terminal: KnownTerminal?

    package init(rules: LinkRules, owner: Int32?, terminal: KnownTerminal? = nil) {
        secured = rules.secured
        nextSequence = rules.nextSequence
        self.owner = owner
        self.terminal = owner == nil ? terminal : nil
    }

    package var rules: LinkRules { LinkRules(secured: secured, nextSequence: nextSequence) }

    /// What the file says about the terminal's link session.
    package enum Loaded: Equatable, Sendable {
        /// No file: no process kept a session here (first use, or the runtime directory was emptied at boot).
        case missing
        /// The last process closed the link cleanly: its secured flag and sequence number hold, and the terminal its
        /// last payment met, if it kept one.
        case clean(LinkRules, KnownTerminal? = nil)
        /// A process opened the link and never closed it (killed, crashed, power lost), or the file is unreadable:
        /// the terminal may be in any state.
        case stale(owner: Int32?)
    }

    /// The most a record file is read: `line` is under 200 bytes, so anything longer is not one.
    package static let maximumSize = 256

    /// What a file's content says; nil is no file.
    package static func decode(_ bytes: [UInt8]?) -> Loaded {
        guard let bytes else { return .missing }
        guard let record = parse(String(decoding: bytes, as: UTF8.self)) else { return .stale(owner: nil) }
        guard let owner = record.owner else { return .clean(record.rules, record.terminal) }
        return .stale(owner: owner)
    }

    /// The line as written by `line`: each key once, `secured` and `next` required, nothing else. Read word by word
    /// (every command reads it before its first frame: a dictionary of the words cost 60 k instructions).
    package static func parse(_ text: String) -> SessionRecord? {
        guard text.hasSuffix("\n") else { return nil }
        var secured: Bool?
        var next: UInt8?
        var ownerText: Substring?
        var terminalText: Substring?
        for word in text.dropLast().split(separator: " ", omittingEmptySubsequences: false) {
            guard let equals = word.firstIndex(of: "=") else { return nil }
            let value = word[word.index(after: equals)...]
            switch word[..<equals] {
            case "secured" where secured == nil:
                switch value {
                case "0": secured = false
                case "1": secured = true
                default: return nil
                }
            case "next" where next == nil:
                guard let number = UInt8(value) else { return nil }
                next = number
            case "owner" where ownerText == nil:
                ownerText = value
            case "terminal" where terminalText == nil:
                terminalText = value
            default:
                return nil
            }
        }
        guard let secured, let next else { return nil }
        var owner: Int32? = nil
        if let ownerText {
            guard let pid = Int32(ownerText), pid > 0 else { return nil }
            owner = pid
        }
        var terminal: KnownTerminal? = nil
        if let terminalText {
            guard owner == nil, let known = KnownTerminal(hex: terminalText) else { return nil }
            terminal = known
        }
        return SessionRecord(rules: LinkRules(secured: secured, nextSequence: next), owner: owner, terminal: terminal)
    }

    /// The line `parse` reads.
    package var line: String {
        "secured=\(secured ? 1 : 0) next=\(nextSequence)" + (owner.map { " owner=\($0)" } ?? "")
            + (terminal.map { " terminal=\($0.hex)" } ?? "") + "\n"
    }
}

/// What a command needs from the terminal before its first command. The terminal outlives every ucube process, and a
/// process can die anywhere (killed, power lost, link dropped), leaving a long command pending, a secure session open
/// or the link session file stale; each command starts from whatever state the last one left.
package enum LinkPreparation: Equatable, Sendable {
    /// READY with nothing pending: CancelAll, then ExitSecureSession, every time (the SDKs' START_CANCEL_ALL and
    /// START_EXIT_SECURE_SESSION, spec §8.1). For commands that read or change the terminal outside a secure session
    /// (locale, updates, registration, logs; `info` is `.query`): GetInfo's answer is ciphered in SECURED state.
    case ready
    /// Continue the link session the last process kept (`rpc …`, the shell). Trusted only when that process closed
    /// the link cleanly; otherwise (it died, its file is missing or unreadable) the terminal is reset as for `.ready`
    /// first.
    case asRecorded
    /// A payment (`pay`, `test`): as `.asRecorded`, but nothing is sent here, whatever the record says. The payment's
    /// starting steps are the resynchronisation: the full sequence (CancelAll, ExitSecureSession, GetInfo) when the
    /// record is not clean, only what the clean record leaves unknown otherwise (spec §8.6). One sequence, no command
    /// sent twice.
    case payment
    /// READY with nothing pending, for a command whose first frame only reads and whose answer shows whether the
    /// terminal was (`info`'s GetInfo: ciphered in a secure session, refused while a command is pending). After a
    /// clean exit that kept no secure session, nothing is sent first: the record says nothing is pending and no session
    /// is open. If the answer says otherwise (another host used the terminal since), the command resynchronises and
    /// sends its read again, once (`LinkOpening.unverified`; spec §8.7). Otherwise as `.ready`.
    case query
}

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

extension Recording.Session {
    /// How a recording states what the link session file said.
    package init(_ loaded: SessionRecord.Loaded) {
        switch loaded {
        case .missing: self = .missing
        case .stale: self = .stale
        case .clean(let rules, let terminal):
            self = .clean(secured: rules.secured, next: rules.nextSequence, terminal: terminal)
        }
    }
}

extension SessionRecord.Loaded {
    /// What the recorded process found, for a replay to start from.
    package init(_ session: Recording.Session) {
        switch session {
        case .missing: self = .missing
        case .stale: self = .stale(owner: nil)
        case .clean(let secured, let next, let terminal):
            self = .clean(LinkRules(secured: secured, nextSequence: next), terminal)
        }
    }
}
