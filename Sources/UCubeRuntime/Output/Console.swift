import Foundation
import Logging
import Synchronization
import UCubeLog

/// The executable's one door out: the only code that writes to fd 1 and fd 2 (readline's own terminal handling
/// aside). Every byte passes the card-data scrubber here, at the exit (`LogScrubber.scrub`: PANs plain, spaced or as
/// BCD in hex, track data, card-data tags inside hex dumps), so a command that forgets to mask still cannot leak
/// (docs/architecture.md, "Nothing sensitive leaks"). The unit of scrubbing is one call: callers write whole lines.
///
/// Every `print` in this module, `JSONOutput.print` and `RawOutput.stdout` write through `out`; `StandardError`,
/// `RawOutput`, `StatusLine`, `FleetReporter` and the log's stderr mirror through `err`. One `write(2)` per call, so
/// lines from concurrent tasks never interleave and nothing waits in a stdio buffer. On a colour terminal
/// (`TerminalColour`), text (never JSON) gets its statuses and severities coloured here, after the mask.
///
/// A write that fails (`> /dev/full`, a closed pipe: SIGPIPE is ignored, see `UCube.main`) is remembered, and the
/// rest of the output is dropped while the work goes on — a firmware update is never aborted because its reader went
/// away. Only the exit code says so: `UCube.main` turns it into 74 (`io-error`) at the end — unless the command's outcome
/// (its report: `Console.outcome`) was written whole before: a reader that goes away after it (`| grep -q`, `| head -1`)
/// had what it asked for, and the exit code is the outcome's.
package enum Console {
    private struct State {
        /// errno of the first failed stdout write.
        var stdoutError: Int32?
        /// The running command printed its result as one JSON document (`JSONOutput.print`).
        var wroteResult = false
        /// The running command's outcome reached stdout whole, in one write (`outcome`).
        var outcomeWritten = false
        /// The running command prints JSON on stdout (`--json`): no colour there.
        var json = false
        /// `-q`/`--quiet`: no progress and no notices, only the result, warnings and errors.
        var quiet = false
    }

    /// Whether stdout and stderr are colour terminals (`TerminalColour.enabled`), asked once.
    private static let colours: (stdout: Bool, stderr: Bool) = {
        var environment: [String: String] = [:]
        for name in ["NO_COLOR", "TERM"] { environment[name] = getenv(name).map { String(cString: $0) } }
        return (
            TerminalColour.enabled(isTerminal: isatty(STDOUT_FILENO) == 1, environment: environment),
            TerminalColour.enabled(isTerminal: isatty(STDERR_FILENO) == 1, environment: environment)
        )
    }()

    private static let state = Mutex(State())

    /// The two streams the door opens onto.
    package enum Stream { case stdout, stderr }

    /// Writes `text` to stdout as is (the caller ends lines), card data masked. Inside one terminal's part of a fleet
    /// run, the text goes to that terminal's `DeviceOutput` instead, which tags it with the device (and comes back
    /// here to leave the process).
    package static func out(_ text: String) {
        if let device = DeviceOutput.current {
            device.stdout(text)
            return
        }
        let (open, json) = state.withLock { ($0.stdoutError == nil, $0.json) }
        guard open else { return }
        // Coloured after the mask, never before: no escape code may stand between a PAN and the masker.
        let colour = colours.stdout && !json
        if let error = StandardStream.write(coloured(LogScrubber.scrub(text), colour), to: STDOUT_FILENO) {
            state.withLock { $0.stdoutError = $0.stdoutError ?? error }
        }
    }

    /// Writes `text`, JSON or a piece of a JSON document written a part at a time (an array's elements), to stdout
    /// as `out` does, its card data masked string by string (`LogScrubber.scrubJSON`): a number stays a number.
    package static func outJSON(_ text: String) {
        if let device = DeviceOutput.current {
            device.stdout(text)
            return
        }
        guard state.withLock({ $0.stdoutError == nil }) else { return }
        if let error = StandardStream.write(Array(LogScrubber.scrubJSON(text).utf8), to: STDOUT_FILENO) {
            state.withLock { $0.stdoutError = $0.stdoutError ?? error }
        }
    }

    /// Writes `text` to stderr as is (no newline added, no status-line or fleet handling: that is `StandardError`'s
    /// and `RawOutput`'s), card data masked. A failed write to stderr has nowhere to be reported and is dropped.
    package static func err(_ text: String) {
        StandardStream.write(coloured(LogScrubber.scrub(text), colours.stderr), to: STDERR_FILENO)
    }

    /// The bytes of `masked` (text `LogScrubber.scrub` gave), coloured when `colour` (`TerminalColour`).
    private static func coloured(_ masked: String, _ colour: Bool) -> [UInt8] {
        Array(TerminalColour.apply(masked, when: colour).utf8)
    }

    /// `err` for bytes that are already UTF-8 lines (the log's stderr mirror).
    @Sendable package static func err(_ bytes: [UInt8]) {
        StandardStream.write(LogScrubber.scrub(bytes), to: STDERR_FILENO)
    }

    /// The door's network side: every byte `ucube serve` answers (a JSON document, an event, its page) is made here,
    /// card data masked as on stdout (`json`: one JSON document, masked value by value; otherwise text, line by line,
    /// a line that is a JSON document by itself as one).
    package static func served(_ text: String, json: Bool) -> ServedBytes {
        ServedBytes(bytes: Array((json ? LogScrubber.scrubJSON(text) : LogScrubber.scrub(text)).utf8))
    }

    /// Writes one line to stdout.
    package static func line(_ text: String) { out(text + "\n") }

    /// Writes a command's outcome (its report, text or JSON) to stdout in one write, and remembers that it arrived
    /// whole: a later failed write no longer changes the exit code.
    /// `json`: `text` is one JSON document, masked value by value (`outJSON`).
    package static func outcome(_ text: String, json: Bool = false) {
        let before = stdoutError
        if json { outJSON(text) } else { out(text) }
        if DeviceOutput.current == nil, before == nil, stdoutError == nil {
            state.withLock { $0.outcomeWritten = true }
        }
    }

    /// Whether stdout is JSON lines: a stream of results (the shell's commands, a script's lines) is one JSON document a
    /// line, never indented documents one after the other (docs/json.md, "One style a stream").
    package static var jsonLines: Bool {
        get { jsonLinesMode.load(ordering: .relaxed) }
        set { jsonLinesMode.store(newValue, ordering: .relaxed) }
    }

    /// stdout carries many results (the shell): each JSON document on one line.
    private static let jsonLinesMode = Atomic<Bool>(false)

    /// Whether this command's outcome reached stdout whole (`outcome`).
    package static var outcomeWritten: Bool { state.withLock { $0.outcomeWritten } }

    /// The errno of the first stdout write that failed in this process, if one did.
    package static var stdoutError: Int32? { state.withLock { $0.stdoutError } }

    /// Called by `JSONOutput.print`: the command's result is on stdout as a JSON document, so a failure after it
    /// (a declined payment, a terminal status) adds no second document.
    /// A fleet run's terminal prints its result into the run's events: the run's own failure still gets its object.
    package static func noteResult() {
        guard DeviceOutput.current == nil else { return }
        state.withLock { $0.wroteResult = true }
    }

    /// How the command being dispatched wants its output (`CommandContext`): JSON on stdout (never coloured), and
    /// `quiet` (`-q`: progress and notices are not written, `isQuiet`).
    package static func setMode(json: Bool, quiet: Bool) {
        guard DeviceOutput.current == nil else { return }
        state.withLock {
            $0.json = json
            $0.quiet = quiet
        }
    }

    /// `-q`/`--quiet`: whoever writes progress (`StatusLine`, `ProgressHeartbeat`) or a notice asks here first.
    package static var isQuiet: Bool { state.withLock { $0.quiet } }

    /// Starts a command's output afresh (the shell runs many in one process; a fleet run's shells leave the run's
    /// own state alone).
    package static func beginCommand() {
        guard DeviceOutput.current == nil else { return }
        state.withLock {
            $0.wroteResult = false
            $0.outcomeWritten = false
            $0.json = false
            $0.quiet = false
        }
        StandardError.setEventLines(false)
    }

    /// Prints `failure`: `ucube: error: MESSAGE`, `hint: HINT` (and `detail: …` when `showDetail`) on stderr (unless
    /// the caller printed ArgumentParser's own text with the usage); with `json`, also the error object on stdout
    /// unless the command already printed its result there. Every string passes through the log's PAN scrubber.
    package static func report(_ failure: CLIFailure, json: Bool, showDetail: Bool, textAlreadyShown: Bool = false) {
        if !textAlreadyShown {
            // A message may quote what came from outside (a devices file's line, a terminal's name): no control
            // character of it reaches the screen (`VisibleText`).
            var lines = ["ucube: error: \(VisibleText.escaped(failure.message, keepingNewlines: true))"]
            if let hint = failure.hint { lines.append("hint: \(VisibleText.escaped(hint, keepingNewlines: true))") }
            if showDetail, let detail = failure.detail {
                lines.append("detail: \(VisibleText.escaped(detail, keepingNewlines: true))")
            }
            StandardError.write(lines.joined(separator: "\n"))
        }
        if json && !state.withLock({ $0.wroteResult }) {
            let object = ErrorObject(failure, showDetail: showDetail)
            if let device = DeviceOutput.current {
                device.report(.failure(object.error))
            } else {
                out(object.line + "\n")
            }
        }
    }
}

/// Where a command's output goes while it runs for one terminal of a fleet run (`FleetRun`): its stdout and stderr
/// text belong to the run, which tags each line with the device, not to the process's streams. Bound for the
/// device's task (and a fleet shell's prompt-loop thread); `Console.out` and `StandardError.write` look here first.
package struct DeviceOutput: Sendable {
    @TaskLocal package static var current: DeviceOutput?

    /// The terminal, as the run names it.
    package let device: String
    /// Text the command writes on stdout (`Console.out`): whole lines.
    package let stdout: @Sendable (String) -> Void
    package let stderr: @Sendable (String) -> Void
    /// What the command says as values: its result (`JSONOutput.print`), its failure (`Console.report`), its event
    /// lines (mdm-update's items, test's cases). The run never reads back what a command printed.
    package let report: @Sendable (FleetEvent) -> Void

    package init(
        device: String, stdout: @escaping @Sendable (String) -> Void, stderr: @escaping @Sendable (String) -> Void,
        report: @escaping @Sendable (FleetEvent) -> Void
    ) {
        self.device = device
        self.stdout = stdout
        self.stderr = stderr
        self.report = report
    }

    /// `device=…` on every log line written for a fleet run's terminal, so the log of twenty terminals at once can be
    /// told apart.
    package static let logMetadata = Logger.MetadataProvider {
        current.map { ["device": .string($0.device)] } ?? [:]
    }
}

/// Bytes `ucube serve` may write to a connection: only `Console.served` makes them (its initialiser is this file's).
package struct ServedBytes: Sendable {
    package let bytes: [UInt8]
    fileprivate init(bytes: [UInt8]) { self.bytes = bytes }
}

/// `--json`'s error object, one line on stdout:
/// `{"error":{"code":"usage","detail":null,"exit":64,"exitName":"usage","hint":null,"message":"…"}}`.
/// Every key is always present (`hint` and `detail` may be null; `detail` only with `--log-level debug`).
package struct ErrorObject: Encodable {
    package struct Body: Encodable {
        package let code: String
        package let exit: Int32
        package let exitName: String
        package let message: String
        package let hint: String?
        package let detail: String?

        package enum CodingKeys: String, CodingKey { case code, exit, exitName, message, hint, detail }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(exit, forKey: .exit)
            try container.encode(exitName, forKey: .exitName)
            try container.encode(LogScrubber.scrub(message), forKey: .message)
            if let hint {
                try container.encode(LogScrubber.scrub(hint), forKey: .hint)
            } else {
                try container.encodeNil(forKey: .hint)
            }
            if let detail {
                try container.encode(LogScrubber.scrub(detail), forKey: .detail)
            } else {
                try container.encodeNil(forKey: .detail)
            }
        }
    }

    package let error: Body

    package init(_ failure: CLIFailure, showDetail: Bool) {
        error = Body(
            code: failure.code, exit: failure.exit.code, exitName: failure.exit.name, message: failure.message,
            hint: failure.hint, detail: showDetail ? failure.detail : nil)
    }

    package var line: String {
        // Only strings and numbers: encoding cannot fail.
        (try? JSONOutput.encode(self, pretty: false, versioned: true)) ?? #"{"error":{"code":"failure"}}"#
    }
}
