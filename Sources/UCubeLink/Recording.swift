import UCubeProtocol

/// A recorded session (`--record FILE`; the format is docs/recording.md): the command line, then for each link the
/// process opened, the device, the link session it started from, and every frame both ways with its time. A recording
/// is replayed as a terminal (`--device replay:FILE`, `ReplayTransport`) and decoded by `ucube decode`.
///
/// Frames are kept with their card data masked (`Masking.maskingCardData`, CRC recomputed), plain and secured alike:
/// a secured frame's ciphertext has no card-data shape and stays as the terminal sent it. Version 1, one record a
/// line:
///
///     ucube-recording 1
///     command ucube --device sim pay 12.50 --currency EUR
///     link sim session=clean secured=0 next=4
///     > 0.000112 plain 020005000000010...
///     < 0.000870 plain 0200070000...
///     x 1.250000 the terminal closed the link
///     end 1.300000
package struct Recording: Sendable, Equatable {
    package static let magic = "ucube-recording"
    package static let version = 1
    /// A recording larger than this is refused (a firmware update of 2,068-byte frames is a few MB of hex): a replay
    /// checks it before reading the file, `decode` while reading standard input.
    package static let maximumSize = 64 << 20

    /// The command line, masked as the log masks it.
    package var command: String
    package var links: [Link]

    package init(command: String, links: [Link] = []) {
        self.command = command
        self.links = links
    }

    /// One link: opened once by a command (the shell opens one per command line).
    package struct Link: Sendable, Equatable {
        /// The device as given (`sim`, `tcp://…`, `ble://…`).
        package var device: String
        /// The link session the process found when it opened the link.
        package var session: Session
        package var events: [Event]

        package init(device: String, session: Session, events: [Event] = []) {
            self.device = device
            self.session = session
            self.events = events
        }

        /// The frames both ways, in order.
        package var frames: [Event] { events.filter(\.isFrame) }
    }

    /// What the link session file said (`SessionRecord.Loaded`): the replay starts from the same state, so the
    /// command sends the same first frames.
    package enum Session: Sendable, Equatable {
        case missing
        /// `terminal`: the terminal the recorded process's last payment met (spec §8.6), so a replayed payment skips
        /// GetInfo as the recorded one did.
        case clean(secured: Bool, next: UInt8, terminal: KnownTerminal? = nil)
        case stale
    }

    package struct Event: Sendable, Equatable {
        /// Seconds since the link opened.
        package var time: Double
        package var kind: Kind

        package init(time: Double, kind: Kind) {
            self.time = time
            self.kind = kind
        }

        package enum Kind: Sendable, Equatable {
            /// A frame the host wrote; `secured`: in the SECURED layout.
            case sent([UInt8], secured: Bool)
            /// A frame the terminal sent.
            case received([UInt8], secured: Bool)
            /// The link dropped, and why.
            case dropped(String)
            /// The host closed the link.
            case closed
        }

        var isFrame: Bool {
            switch kind {
            case .sent, .received: true
            case .dropped, .closed: false
            }
        }
    }

    // MARK: Writing

    /// The first lines of a recording.
    package static func header(command: String) -> String {
        "\(magic) \(version)\ncommand \(oneLine(command))\n"
    }

    /// The line that opens a link's records.
    package static func line(device: String, session: Session) -> String {
        let state =
            switch session {
            case .missing: "session=missing"
            case .stale: "session=stale"
            case .clean(let secured, let next, let terminal):
                "session=clean secured=\(secured ? 1 : 0) next=\(next)" + (terminal.map { " terminal=\($0.hex)" } ?? "")
            }
        return "link \(oneLine(device).replacingSpaces) \(state)\n"
    }

    /// The line for one event. A frame's card data is masked here, whoever writes the line: a plain frame's, and a
    /// secured frame's too, whose data is in clear when its output mode is SIGNED (GetPlainTag, TransactionProcess
    /// and TransactionFinalisation in a secure session, spec §2.3). Its MAC is kept as it is; the host never checks
    /// it (it has no terminal key), so a replay is not affected.
    package static func line(for event: Event) -> String {
        let time = seconds(event.time)
        switch event.kind {
        case .sent(let bytes, let secured):
            return "> \(time) \(secured ? "secured" : "plain") \(Hex.encode(masked(frame: bytes)))\n"
        case .received(let bytes, let secured):
            return "< \(time) \(secured ? "secured" : "plain") \(Hex.encode(masked(frame: bytes)))\n"
        case .dropped(let reason): return "x \(time) \(oneLine(reason))\n"
        case .closed: return "end \(time)\n"
        }
    }

    /// A frame with the card data of its body masked and its CRC computed again; the bytes as they are when nothing
    /// in the body looks like card data, or when they are not a whole frame. In a secured frame the crypto header,
    /// STATUS and MAC are left as they are (none of them has the shape of card data in a TLV).
    package static func masked(frame bytes: [UInt8]) -> [UInt8] {
        let header = 1 + FrameLimits.headerSize
        guard bytes.count >= FrameLimits.overhead, bytes.first == FrameLimits.stx else {
            return Masking.maskingCardData(in: bytes)
        }
        let body = Array(bytes[header..<(bytes.count - 3)])
        let hidden = Masking.maskingCardData(in: body)
        guard hidden != body else { return bytes }
        let command = CommandID(rawValue: UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
        return (try? RawFrame(sequence: bytes[3], command: command, body: hidden).encoded())
            ?? Masking.maskingCardData(in: bytes)
    }

    private static func seconds(_ value: Double) -> String {
        let micros = Int((max(0, value) * 1_000_000).rounded())
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    // MARK: Reading

    /// Parses a whole recording; every line is checked, and the first bad one is named.
    package init(parsing text: String) throws(RecordingError) {
        guard text.utf8.count <= Self.maximumSize else {
            throw RecordingError(line: 0, "the recording is larger than \(Self.maximumSize >> 20) MiB")
        }
        var parser = Parser()
        var command: String? = nil
        var links: [Link] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            switch try parser.read(line) {
            case nil: break
            case .command(let text)?: command = text
            case .link(let link)?: links.append(link)
            case .event(let event)?: links[links.count - 1].events.append(event)
            }
        }
        try parser.finish()
        self.command = command ?? ""
        self.links = links
    }

    /// Reads a recording one line at a time, so that `decode` can show each frame as it comes without holding the
    /// file (`init(parsing:)` is built on it: one reader of the format). Each line is checked as it comes; the first
    /// bad one is named.
    package struct Parser: Sendable {
        /// What one line of a recording holds.
        package enum Record: Sendable, Equatable {
            case command(String)
            /// A link opened: the events that follow are its own, up to the next `link`.
            case link(Link)
            case event(Event)
        }

        private var number = 0
        private var sawMagic = false
        private var sawLink = false

        package init() {}

        /// The record of the next line (without its "\n"; a "\r" before it is dropped), or nil for a blank line,
        /// a comment or the magic line.
        package mutating func read(_ raw: Substring) throws(RecordingError) -> Record? {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
            // A blank line (spaces only: found by the state-files fuzz target, which trapped on `words[0]`), a comment.
            guard let kind = words.first, !kind.hasPrefix("#") else { return nil }
            guard sawMagic else {
                guard words.count == 2, words[0] == Recording.magic else {
                    throw RecordingError(line: number, "not a ucube recording (it starts with '\(Recording.magic) 1')")
                }
                guard words[1] == "\(Recording.version)" else {
                    throw RecordingError(
                        line: number,
                        "recording version \(words[1]) is not supported (this ucube reads \(Recording.version))")
                }
                sawMagic = true
                return nil
            }
            switch kind {
            case "command":
                return .command(String(line.dropFirst("command".count).drop { $0 == " " }))
            case "link":
                let link = try Recording.parseLink(words, line: number)
                sawLink = true
                return .link(link)
            case ">", "<", "x", "end":
                guard sawLink else { throw RecordingError(line: number, "a record before any 'link' line") }
                return .event(try Recording.parseEvent(line, line: number))
            default:
                throw RecordingError(line: number, "unknown record '\(kind)'")
            }
        }

        /// After the last line: a text without the magic line is no recording.
        package func finish() throws(RecordingError) {
            guard sawMagic else { throw RecordingError(line: 0, "not a ucube recording: it is empty") }
        }
    }

    private static func parseLink(_ words: [Substring], line: Int) throws(RecordingError) -> Link {
        guard words.count >= 3 else { throw RecordingError(line: line, "a link needs a device and its session") }
        let fields = words.dropFirst(2).joined(separator: " ").split(separator: " ")
        var values: [Substring: Substring] = [:]
        for field in fields {
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, values[pair[0]] == nil else {
                throw RecordingError(line: line, "bad link field '\(field)'")
            }
            values[pair[0]] = pair[1]
        }
        let session: Session
        switch values["session"] {
        case "missing": session = .missing
        case "stale": session = .stale
        case "clean":
            guard let secured = values["secured"].flatMap({ ["0": false, "1": true][$0] }),
                let next = values["next"].flatMap({ UInt8($0) })
            else { throw RecordingError(line: line, "a clean session needs secured=0|1 and next=0…255") }
            var terminal: KnownTerminal? = nil
            if let text = values["terminal"] {
                guard let known = KnownTerminal(hex: text) else {
                    throw RecordingError(line: line, "terminal= is a 10-byte KSN identity and a GetInfo answer, in hex")
                }
                terminal = known
            }
            session = .clean(secured: secured, next: next, terminal: terminal)
        default:
            throw RecordingError(line: line, "a link's session is missing, stale or clean")
        }
        return Link(device: String(words[1]), session: session)
    }

    private static func parseEvent(_ line: Substring, line number: Int) throws(RecordingError) -> Event {
        let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard words.count >= 2, let time = Double(words[1]), time.isFinite, time >= 0, time < 1e9 else {
            throw RecordingError(line: number, "a record needs its time in seconds")
        }
        switch words[0] {
        case "end":
            guard words.count == 2 else { throw RecordingError(line: number, "'end' takes only a time") }
            return Event(time: time, kind: .closed)
        case "x":
            return Event(time: time, kind: .dropped(words.count > 2 ? words[2...].joined(separator: " ") : ""))
        default:
            guard words.count == 4, words[2] == "plain" || words[2] == "secured" else {
                throw RecordingError(line: number, "a frame record is '\(words[0]) SECONDS plain|secured HEX'")
            }
            guard words[3].utf8.count <= 2 * FrameLimits.maxFrameSize, let bytes = try? Hex.decode(String(words[3])),
                !bytes.isEmpty
            else {
                throw RecordingError(
                    line: number, "a frame record's bytes are hex, at most \(FrameLimits.maxFrameSize) of them")
            }
            let secured = words[2] == "secured"
            return Event(
                time: time, kind: words[0] == ">" ? .sent(bytes, secured: secured) : .received(bytes, secured: secured))
        }
    }
}

/// A recording that cannot be read: which line, and why.
package struct RecordingError: Error, Equatable, CustomStringConvertible {
    package let line: Int
    package let reason: String

    package init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    package var description: String { line > 0 ? "line \(line): \(reason)" : reason }
}

extension String {
    /// A device name as one word of a `link` line.
    fileprivate var replacingSpaces: String { String(map { $0 == " " ? "_" : $0 }) }
}
