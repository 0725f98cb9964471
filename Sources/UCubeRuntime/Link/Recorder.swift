import Foundation
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeSupport

/// `--record FILE`: the session written as a recording (docs/recording.md) — the command line, then every link the
/// process opens with every frame both ways. One file per process, opened when the command starts (the shell's
/// commands all go into it), written a line at a time with write(2), so a process killed mid-command leaves every
/// frame up to its death. `Recording.line` masks the card data of plain frames; the command line is masked as the
/// log masks it.
package final class SessionRecorder: Sendable {
    private static let current = Mutex<SessionRecorder?>(nil)

    private let path: String
    /// The command line's header, written when the first link opens.
    private let header: String
    /// The file, opened (created or truncated) when the first link opens: a command that never reaches a terminal
    /// (a failed connect) leaves an earlier recording at `path` as it was. `refused`: it could not be opened (said).
    private struct File {
        var fd: Int32?
        var refused = false
    }
    private let file = Mutex(File())
    private let failed = Mutex(false)

    private init(path: String, header: String) {
        self.path = path
        self.header = header
    }

    deinit { file.withLock { if let fd = $0.fd { close(fd) } } }

    /// Starts recording this process into `path` (0600, created or truncated once a link opens; its directory and
    /// its not being a link are checked now). A second call in the same process (a shell line with `--record`) keeps
    /// the first file.
    package static func start(path: String, arguments: [String]) throws(CLIFailure) {
        try Environment.checkOutputFile(path, option: "--record")
        current.withLock { (recorder: inout SessionRecorder?) in
            guard recorder == nil else { return }
            recorder = SessionRecorder(
                path: path,
                header: Recording.header(command: LogScrubber.scrub((["ucube"] + arguments).joined(separator: " "))))
        }
    }

    /// The links of this process are being recorded into it, when `--record` was given.
    package static var active: SessionRecorder? { current.withLock { $0 } }

    /// Starts a link's records; its events go through the returned recorder.
    package func link(device: String, session: Recording.Session) -> LinkRecorder {
        let fresh = file.withLock { (file: inout File) -> Bool in
            guard file.fd == nil, !file.refused else { return false }
            do throws(PrivateFileError) {
                file.fd = try PrivateFile.open(path, flags: O_TRUNC, kind: .output)
                return true
            } catch {
                file.refused = true
                StandardError.write("ucube: warning: the recording is not kept: \(error.description)")
                return false
            }
        }
        if fresh { append(header) }
        append(Recording.line(device: device, session: session))
        return LinkRecorder(recorder: self)
    }

    fileprivate func append(_ line: String) {
        guard let fd = file.withLock({ $0.fd }) else { return }
        guard StandardStream.write(Array(line.utf8), to: fd) != nil else { return }
        // A full disk or a vanished file loses the rest of the recording, not the command: said once.
        if failed.withLock({ (already: inout Bool) in
            defer { already = true }; return !already
        }) {
            StandardError.write(
                "ucube: warning: the recording \(path) could not be written: \(ErrorNumber.text(errno))")
        }
    }
}

/// One link's records, timed from when the link opened.
package final class LinkRecorder: Sendable {
    private let recorder: SessionRecorder
    private let opened = ContinuousClock.now

    fileprivate init(recorder: SessionRecorder) { self.recorder = recorder }

    private var elapsed: Double {
        (ContinuousClock.now - opened).seconds
    }

    /// The RPC client's view of a frame or a drop (the `--trace` events).
    package func record(_ event: TraceEvent) {
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
    package func closed() { recorder.append(Recording.line(for: Recording.Event(time: elapsed, kind: .closed))) }
}

/// `--device replay:FILE`: each link the process opens takes the recording's next link, in order (the shell opens
/// one per command line), and what each replay found is kept for `UCube.main`, which reports a divergence whatever
/// the command made of it.
package enum ReplaySource {
    private struct State {
        var recordings: [String: (recording: Recording, next: Int)] = [:]
        var outcomes: [ReplayTransport.Outcome] = []
    }
    private static let state = Mutex(State())

    /// The next recorded link of `path`, as a transport, and the recorded process's view of the link session (so the
    /// command sends the same first frames), for `TransportFactory.replay`. Not inlined into `Connection.open`: its
    /// types' metadata is then looked up only when a recording is replayed, not by every command that opens a link.
    @inline(never)
    package static func link(path: String, name: String, fast: Bool) throws(CLIFailure) -> TransportFactory.Opened {
        let (replay, link) = try transport(path: path, name: name, fast: fast)
        return TransportFactory.Opened(replay, session: SessionRecord.Loaded(link.session))
    }

    /// The next recorded link of `path`, as a transport.
    private static func transport(path: String, name: String, fast: Bool) throws(CLIFailure) -> (
        ReplayTransport, Recording.Link
    ) {
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
    package static var divergence: LinkError? {
        state.withLock { $0.outcomes.lazy.compactMap(\.divergence).first }
    }

    private static func load(_ path: String) throws(CLIFailure) -> Recording {
        let data: Data
        do {
            // The limit is checked before the file is read (a regular file) or as it is read (a FIFO, a device).
            data = try BoundedFile.read(path, limit: Recording.maximumSize)
        } catch {
            switch error {
            case .unreadable(let why):
                throw CLIFailure(
                    ExitCodes.usage, "cannot read the recording \(path): \(why)", hint: "record one with --record FILE")
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.dataError,
                    "\(path) is not a usable recording: larger than \(BoundedFile.limitText(Recording.maximumSize))")
            }
        }
        do {
            return try Recording(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw CLIFailure(ExitCodes.dataError, "\(path) is not a usable recording: \(error)")
        }
    }
}
