import Foundation
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol

/// `--record FILE`: the session written as a recording (docs/recording.md) — the command line, then every link the
/// process opens with every frame both ways. One file per process, opened when the command starts (the shell's
/// commands all go into it), written a line at a time with write(2), so a process killed mid-command leaves every
/// frame up to its death. `Recording.line` masks the card data of plain frames; the command line is masked as the
/// log masks it.
final class SessionRecorder: Sendable {
    private static let current = Mutex<SessionRecorder?>(nil)

    private let path: String
    private let descriptor: Int32
    private let failed = Mutex(false)

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Starts recording this process into `path` (created or truncated, 0600). A second call in the same process
    /// (a shell line with `--record`) keeps the first file.
    static func start(path: String, arguments: [String]) throws(CLIFailure) {
        try current.withLock { (recorder: inout SessionRecorder?) throws(CLIFailure) in
            guard recorder == nil else { return }
            let descriptor: Int32
            do throws(PrivateFileError) {
                descriptor = try PrivateFile.open(path, flags: O_TRUNC, kind: .output)
            } catch {
                if error.isRefusal { throw CLIFailure.unsafePath(error) }
                throw CLIFailure(
                    ExitCodes.cannotCreate, "cannot write the recording \(Environment.posixCause(error))",
                    hint: "give --record a path in a directory you can write to")
            }
            let started = SessionRecorder(path: path, descriptor: descriptor)
            started.append(Recording.header(command: LogScrubber.scrub((["ucube"] + arguments).joined(separator: " "))))
            recorder = started
        }
    }

    /// The links of this process are being recorded into it, when `--record` was given.
    static var active: SessionRecorder? { current.withLock { $0 } }

    /// Starts a link's records; its events go through the returned recorder.
    func link(device: String, session: Recording.Session) -> LinkRecorder {
        append(Recording.line(device: device, session: session))
        return LinkRecorder(recorder: self)
    }

    fileprivate func append(_ line: String) {
        guard StandardStream.write(Array(line.utf8), to: descriptor) != nil else { return }
        // A full disk or a vanished file loses the rest of the recording, not the command: said once.
        if failed.withLock({ (already: inout Bool) in defer { already = true }; return !already }) {
            StandardError.write("ucube: warning: the recording \(path) could not be written: \(String(cString: strerror(errno)))")
        }
    }
}

/// One link's records, timed from when the link opened.
final class LinkRecorder: Sendable {
    private let recorder: SessionRecorder
    private let opened = ContinuousClock.now

    fileprivate init(recorder: SessionRecorder) { self.recorder = recorder }

    private var elapsed: Double {
        let duration = ContinuousClock.now - opened
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The RPC client's view of a frame or a drop (the `--trace` events).
    func record(_ event: TraceEvent) {
        let kind: Recording.Event.Kind
        switch event {
        case .sent(let bytes, let frame): kind = .sent(bytes, secured: frame.envelope != nil)
        case .received(let bytes, _, let secured): kind = .received(bytes, secured: secured)
        case .disconnected(let reason): kind = .dropped(reason)
        case .rejected: return
        }
        recorder.append(Recording.line(for: Recording.Event(time: elapsed, kind: kind)))
    }

    /// The host closed the link.
    func closed() { recorder.append(Recording.line(for: Recording.Event(time: elapsed, kind: .closed))) }
}

/// `--device replay:FILE`: each link the process opens takes the recording's next link, in order (the shell opens
/// one per command line), and what each replay found is kept for `UCube.main`, which reports a divergence whatever
/// the command made of it.
enum ReplaySource {
    private struct State {
        var recordings: [String: (recording: Recording, next: Int)] = [:]
        var outcomes: [ReplayTransport.Outcome] = []
    }
    private static let state = Mutex(State())

    /// The next recorded link of `path`, as a transport.
    static func transport(path: String, name: String, fast: Bool) throws(CLIFailure) -> (ReplayTransport, Recording.Link) {
        try state.withLock { (state: inout State) throws(CLIFailure) in
            if state.recordings[path] == nil {
                state.recordings[path] = (try load(path), 0)
            }
            let (recording, next) = state.recordings[path]!
            guard next < recording.links.count else {
                throw CLIFailure(
                    ExitCodes.replayDiverged,
                    "the command opens link \(next + 1), but the recording \(path) has \(recording.links.count)",
                    hint: "replay the same command line as the recording's: \(recording.command)")
            }
            state.recordings[path]!.next = next + 1
            let link = recording.links[next]
            let transport = ReplayTransport(link: link, name: name, fast: fast)
            state.outcomes.append(transport.outcome)
            return (transport, link)
        }
    }

    /// The first divergence of any replayed link of this process.
    static var divergence: LinkError? {
        state.withLock { $0.outcomes.lazy.compactMap(\.divergence).first }
    }

    private static func load(_ path: String) throws(CLIFailure) -> Recording {
        let data: Data
        do {
            // The limit is checked before the file is read (a regular file) or as it is read (a FIFO, a device).
            data = try BoundedFile.read(path, limit: Recording.maximumSize)
        } catch {
            switch error {
            case .unreadable:
                throw CLIFailure(
                    ExitCodes.usage, "cannot read the recording \(path)", hint: "record one with --record FILE")
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.dataError, "\(path) is not a usable recording: larger than \(Recording.maximumSize >> 20) MiB")
            }
        }
        do {
            return try Recording(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw CLIFailure(ExitCodes.dataError, "\(path) is not a usable recording: \(error)")
        }
    }
}

extension Recording.Session {
    /// How a recording states what the link session file said.
    init(_ loaded: SessionRecord.Loaded) {
        switch loaded {
        case .missing: self = .missing
        case .stale: self = .stale
        case .clean(let rules): self = .clean(secured: rules.secured, next: rules.nextSequence)
        }
    }
}

extension SessionRecord.Loaded {
    /// What the recorded process found, for a replay to start from.
    init(_ session: Recording.Session) {
        switch session {
        case .missing: self = .missing
        case .stale: self = .stale(owner: nil)
        case .clean(let secured, let next): self = .clean(LinkRules(secured: secured, nextSequence: next))
        }
    }
}
