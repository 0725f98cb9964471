import ArgumentParser
import Foundation
import Synchronization
import UCubeLog
import UCubePayment
import UCubeRuntime
import UCubeTMS

/// A fleet run's output, one line at a time from any terminal's task. With `--json`: every event a JSON line on stdout
/// with the terminal's `device` (`start`, the command's own events, `end`, and a last `summary`). Otherwise: the
/// update items and each terminal's end as they come, then a summary table. A terminal's stderr goes to stderr, each
/// line prefixed with the device. On a terminal, stderr also shows how many are running, done and failed.
final class FleetReporter: FleetRunReporting {
    private struct Counts {
        var running = 0
        var succeeded = 0
        var failed = 0
        var notStarted = 0
        /// The summary is out: the status line stays gone.
        var finished = false
    }

    let command: String
    let json: Bool
    let total: Int
    /// `--shard`: named in the JSON summary, so that `ucube fleet-merge` knows which part it has and which are missing.
    let shard: FleetShard?
    /// With `shard`: what the shard read its terminals from, in the JSON summary (`input`, `pins`).
    let shardInput: FleetShardInput?
    private let showsStatus: Bool
    private let counts = Mutex(Counts())
    /// In a log (stderr not a terminal, no --json): a progress line at each tenth of the terminals, and at least every
    /// 10 s while they run.
    private let log: ProgressHeartbeat
    private let started = ContinuousClock.now

    init(
        command: String, json: Bool, total: Int, shard: FleetShard? = nil, shardInput: FleetShardInput? = nil,
        stderrIsTTY: Bool = isatty(2) == 1
    ) {
        self.command = command
        self.json = json
        self.total = total
        self.shard = shard
        self.shardInput = shardInput
        showsStatus = stderrIsTTY
        log = ProgressHeartbeat(writes: !json && !stderrIsTTY)
    }

    /// The run's progress line in a log: terminals done of all, how many run and failed.
    private func logProgress() {
        guard log.writes else { return }
        let counts = counts.withLock { $0 }
        guard !counts.finished else { return }
        let done = counts.succeeded + counts.failed + counts.notStarted
        log.sample(
            label: "fleet \(command)", sent: 0, total: 0, count: .terminals(done, of: total),
            elapsed: ContinuousClock.now - started,
            more: ", \(counts.running) running" + (counts.failed > 0 ? ", \(counts.failed) failed" : ""))
    }

    // MARK: Events

    func started(_ device: String) {
        counts.withLock { $0.running += 1 }
        if json { emit(object: [("event", .string("start"))], device: device) }
        redrawStatus()
        logProgress()
    }

    /// One event of `device`'s command: with `--json` its line with the device; in text, its line (if it has one)
    /// after the device.
    func event(_ device: String, _ event: FleetEvent) {
        if json {
            guard case .object(let fields) = event.json else { return }
            emit(object: fields, device: device)
        } else if let line = event.text {
            emit(line: "\(device): \(line)")
        }
    }

    func stderr(_ device: String, _ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard !lines.isEmpty else { return }
        write(lines.map { "\(device): \($0)\n" }.joined(), to: .stderr)
    }

    func ended(_ verdict: FleetVerdict) {
        counts.withLock {
            switch verdict.result {
            case .ok: $0.succeeded += 1
            case .failed: $0.failed += 1
            case .notStarted: $0.notStarted += 1
            }
            if verdict.result != .notStarted && !verdict.earlier { $0.running -= 1 }
        }
        if json {
            emit(object: Self.endFields(verdict), device: verdict.device)
        } else {
            emit(
                line:
                    "\(verdict.device): \(Self.resultWord(verdict))\(Self.explanation(verdict).map { ": \($0)" } ?? "")"
            )
            // What to do, as the one-terminal command's `hint:` line (an earlier run's verdict was shown then).
            if let hint = verdict.hint, !verdict.earlier {
                emit(line: "\(verdict.device): hint: \(LogScrubber.scrub(hint))")
            }
        }
        redrawStatus()
        logProgress()
    }

    /// The terminals an earlier run of the same command finished: reported as done, not run again.
    func resuming(done: [FleetVerdict], runFile: String) {
        guard !done.isEmpty else { return }
        for verdict in done { ended(verdict) }
        if !json {
            write(
                "ucube: \(done.count) of \(total) terminals done in an earlier run of this command: running the others (run file \(runFile); --restart runs them all)\n",
                to: .stderr)
        }
    }

    func warn(_ message: String) { write("ucube: warning: \(message)\n", to: .stderr) }

    func note(_ message: String) {
        guard !Console.isQuiet else { return }
        write("ucube: \(message)\n", to: .stderr)
    }

    // MARK: The summary

    /// The table and count, or the JSON `summary`, of `verdicts` (in the order given: `FleetVerdict.reportOrder`).
    func summary(_ verdicts: [FleetVerdict], seconds: Double) {
        let ok = verdicts.filter { $0.result == .ok }.count
        let failed = verdicts.filter { $0.result == .failed }.count
        let notStarted = verdicts.filter { $0.result == .notStarted }.count
        let earlier = verdicts.filter(\.earlier).count
        counts.withLock { $0.finished = true }
        log.stop()
        if showsStatus { StatusLine.clear() }
        if json {
            var fields: [(String, JSONOutput.Value)] = [
                ("event", .string("summary")), ("command", .string(command)), ("devices", .number("\(verdicts.count)")),
                ("succeeded", .number("\(ok)")), ("failed", .number("\(failed)")),
                ("notStarted", .number("\(notStarted)")),
                ("earlier", .number("\(earlier)")), ("seconds", .number(String(format: "%.3f", seconds))),
            ]
            if let shard { fields.append(("shard", .string(shard.description))) }
            if let shardInput {
                fields.append(("input", .string(shardInput.fingerprint)))
                let pins = shardInput.pins.sorted { $0.key < $1.key }.map {
                    ($0.key, JSONOutput.Value.number("\($0.value)"))
                }
                fields.append(("pins", .object(pins)))
            }
            emit(object: fields, device: nil)
            return
        }
        emit(line: "\n" + Self.table(verdicts))
        emit(
            line:
                "\(ok) ok, \(failed) failed, \(notStarted) not started of \(verdicts.count) terminal\(verdicts.count == 1 ? "" : "s")"
                + (earlier > 0 ? " (\(earlier) done in an earlier run)" : "")
                + " in \(String(format: "%.1f", seconds)) s")
    }

    /// DEVICE, RESULT, TIME, DETAIL: a row per terminal.
    static func table(_ verdicts: [FleetVerdict]) -> String {
        // Names from a devices file or a report, and messages that may quote a terminal: escaped, so that no control
        // character reaches the screen and every row stays one line.
        let rows = verdicts.map { verdict in
            [
                VisibleText.escaped(verdict.device), resultWord(verdict),
                verdict.result == .notStarted || verdict.earlier ? "—" : String(format: "%.1f s", verdict.seconds),
                VisibleText.escaped(explanation(verdict) ?? ""),
            ]
        }
        let header = ["DEVICE", "RESULT", "TIME", "DETAIL"]
        let widths = (0..<3).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                + "  " + row[3]
        }.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
    }

    static func resultWord(_ verdict: FleetVerdict) -> String {
        switch verdict.result {
        case .ok: verdict.earlier ? "ok (earlier run)" : "ok"
        case .failed: "FAILED (\(verdict.exit) \(verdict.exitName))"
        case .notStarted: "not started"
        }
    }

    /// What to say after the result: the failure's message, else the detail.
    static func explanation(_ verdict: FleetVerdict) -> String? {
        verdict.result == .ok ? verdict.detail : (verdict.message.map(LogScrubber.scrub) ?? verdict.detail)
    }

    static func endFields(_ verdict: FleetVerdict) -> [(String, JSONOutput.Value)] {
        var fields: [(String, JSONOutput.Value)] = [
            ("event", .string("end")), ("result", .string(verdict.result.rawValue)),
            ("exit", .number("\(verdict.exit)")),
            ("exitName", .string(verdict.exitName)), ("earlier", .bool(verdict.earlier)),
            ("seconds", .number(String(format: "%.3f", verdict.seconds))),
        ]
        fields.append(("code", verdict.code.map { .string($0) } ?? .null))
        fields.append(("message", verdict.message.map { .string(LogScrubber.scrub($0)) } ?? .null))
        fields.append(("hint", verdict.hint.map { .string(LogScrubber.scrub($0)) } ?? .null))
        fields.append(("detail", verdict.detail.map { .string($0) } ?? .null))
        if !verdict.items.isEmpty {
            fields.append(
                (
                    "items",
                    .array(
                        verdict.items.map { item in
                            .object(
                                [
                                    ("item", .string(item.item)), ("result", .string(item.result)),
                                    ("error", item.error.map { .string($0) } ?? .null),
                                ]
                                    + (item.seconds.map {
                                        [("seconds", JSONOutput.Value.number(String(format: "%.3f", $0)))]
                                    } ?? []))
                        })
                ))
        }
        return fields
    }

    // MARK: Writing

    private func emit(object fields: [(String, JSONOutput.Value)], device: String?) {
        var fields = fields.filter { $0.0 != "device" }
        if let device { fields.append(("device", .string(device))) }
        // When it was printed: lines of terminals running side by side (or of shards on several hosts) can be ordered.
        // A command's own event that already has a `time` keeps it.
        if !fields.contains(where: { $0.0 == "time" }) { fields.append(("time", .string(PaymentEngine.timestamp()))) }
        write(JSONOutput.Value.object(fields).versionedLine + "\n", to: .stdout, json: true)
    }

    private func emit(line: String) { write(line + "\n", to: .stdout) }

    /// Writes to the process's own stream, whatever terminal's task calls (outside its `DeviceOutput`), keeping the
    /// status line below the text.
    /// Every line is escaped (`VisibleText`): device names come from a devices file, a terminal's lines from the
    /// terminal, and neither may drive the screen. (A JSON line has no control character left to escape.)
    /// `json`: `text` is a JSON line, masked value by value (`Console.outJSON`: a number stays a number).
    private func write(_ text: String, to stream: Console.Stream, json: Bool = false) {
        let text = VisibleText.escaped(text, keepingNewlines: true)
        DeviceOutput.$current.withValue(nil) {
            if showsStatus { StatusLine.clear() }
            switch stream {
            case .stdout: json ? Console.outJSON(text) : Console.out(text)
            case .stderr: Console.err(text)
            }
        }
        redrawStatus()
    }

    private func redrawStatus() {
        guard showsStatus else { return }
        let c = counts.withLock { $0 }
        guard !c.finished else { return }
        let waiting = total - c.running - c.succeeded - c.failed - c.notStarted
        StatusLine.draw(
            "ucube \(command): \(c.running) running, \(c.succeeded) ok, \(c.failed) failed, \(max(0, waiting)) waiting")
    }
}

extension FleetRun {
    /// Runs `work` for each terminal not yet done, reported as text lines and a table, or JSON lines with `--json`
    /// (`FleetReporter`). A script's `exit N` (`ExitCode`) fails its terminal with that exit, as `UCube.report` says it.
    func run(_ work: @escaping @Sendable (String) async throws -> Void) async throws {
        let reporter = FleetReporter(
            command: command, json: json, total: devices.count, shard: shard, shardInput: shardInput)
        try await run(reporting: reporter) { device in
            do {
                try await work(device)
            } catch let code as ExitCode {
                // A script's failing line, already reported in the terminal's own events.
                let entry = ExitCodes.all.first { $0.code == code.rawValue } ?? ExitCodes.failure
                throw CLIFailure(entry, "the script stopped with exit \(code.rawValue) (\(entry.name))")
            }
        }
    }
}
