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
