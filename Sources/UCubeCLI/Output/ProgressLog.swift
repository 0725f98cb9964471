import Foundation
import Synchronization
import UCubeRuntime
import UCubeSupport

/// The plain progress lines of a log (stderr not a terminal: a CI log, a file, a pipe) for any long work: an update's
/// blocks, a fleet run's terminals, a log bundle on its way to the TMS. A line at an item's first sample, at each new
/// tenth, at each new step (`status`), and otherwise at most every `ProgressPace.interval`; and while nothing moves, a
/// line at least every `ProgressPace.interval` (`tick`), so that a CI system's no-output timeout never takes a slow
/// block, a reboot or an upload for a hang. A value over a clock its caller reads (`now`: time since the log began):
/// a test drives it with a clock of its own.
struct ProgressLog: Equatable {
    /// The last line's text, when it was written, and whether it is a step (`status`) rather than a sample.
    private struct Current: Equatable {
        let text: String
        let since: Duration
        let isStatus: Bool
    }

    private var pace = ProgressPace()
    /// The item the tenths count in: a new one starts them again.
    private var item: String?
    private var current: Current?
    private var lastLine: Duration?

    /// A sample of `item`: `done` of `total` (bytes, or terminals), its line `text`; the line when one is due.
    mutating func sample(_ text: String, item: String, done: Int64, total: Int64, now: Duration) -> String? {
        if item != self.item {
            self.item = item
            pace = ProgressPace()
        }
        // The heartbeat repeats the latest sample, and counts "no progress" from it.
        current = Current(text: text, since: now, isStatus: false)
        guard pace.due(sent: done, total: total, elapsed: now) else { return nil }
        lastLine = now
        return text
    }

    /// A new step (downloading, waiting for a reboot, sending): always a line, and the next sample starts the tenths
    /// again.
    mutating func status(_ text: String, now: Duration) -> String {
        current = Current(text: text, since: now, isStatus: true)
        item = nil
        lastLine = now
        return text
    }

    /// Called every second or so: when no line has been written for `ProgressPace.interval`, the current one again
    /// with how long it has stood (`… (0:20)`, a sample's `… (no progress for 0:20)`).
    mutating func tick(now: Duration) -> String? {
        guard let current, let last = lastLine, now - last >= ProgressPace.interval else { return nil }
        lastLine = now
        let stood = now - current.since
        let waited = ProgressFormat.duration(seconds: stood.seconds)
        if current.isStatus { return "\(current.text) (\(waited))" }
        return stood < .seconds(1) ? current.text : "\(current.text) (no progress for \(waited))"
    }
}

/// Blocks or terminals in a progress line: `block 12 of 32`, `3 of 10 terminals`.
struct ProgressCount: Equatable, Sendable {
    let done: Int
    let total: Int
    private let noun: String
    private let nounFirst: Bool

    static func blocks(_ done: Int, of total: Int) -> ProgressCount {
        ProgressCount(done: done, total: total, noun: "block", nounFirst: true)
    }

    static func terminals(_ done: Int, of total: Int) -> ProgressCount {
        ProgressCount(done: done, total: total, noun: total == 1 ? "terminal" : "terminals", nounFirst: false)
    }

    var text: String { nounFirst ? "\(noun) \(done) of \(total)" : "\(done) of \(total) \(noun)" }
}

/// A `ProgressLog` written to stderr, with its heartbeat: a task that ticks every second until `stop`. It writes only
/// when stderr is not a terminal (a terminal has its bar or status line); elsewhere every call does nothing.
final class ProgressHeartbeat: Sendable {
    private let log = Mutex(ProgressLog())
    private let start = ContinuousClock.now
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    /// Lines are written (stderr is not a terminal, and no `-q`).
    let writes: Bool

    init(writes: Bool = isatty(2) != 1) {
        self.writes = writes && !Console.isQuiet
    }

    private var now: Duration { ContinuousClock.now - start }

    /// A sample: `sent` of `total` bytes (0 of 0 for work without bytes), `count` the blocks or terminals, `elapsed`
    /// since the item started (for the rate and the ETA), `more` said after them.
    func sample(
        label: String, sent: Int64, total: Int64, count: ProgressCount? = nil, elapsed: Duration, more: String = ""
    ) {
        guard writes else { return }
        startTicking()
        let now = now
        let (done, of) = total > 0 ? (sent, total) : (Int64(count?.done ?? 0), Int64(count?.total ?? 0))
        let line = log.withLock {
            $0.sample(
                ProgressFormat.line(label: label, sent: sent, total: total, count: count, elapsed: elapsed) + more,
                item: label, done: done, total: of, now: now)
        }
        if let line { StandardError.write(line) }
    }

    /// A new step, always written (on a terminal too: `status` is what the command would say anyway), unless `-q`.
    func status(_ text: String) {
        guard !Console.isQuiet else { return }
        guard writes else { return StandardError.write(text) }
        startTicking()
        let now = now
        StandardError.write(log.withLock { $0.status(text, now: now) })
    }

    /// No more lines: the work ended.
    func stop() {
        ticker.withLock {
            $0?.cancel()
            $0 = Task {}
        }
    }

    private func startTicking() {
        ticker.withLock { ticker in
            guard ticker == nil else { return }
            ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard !Task.isCancelled, let self else { return }
                    let now = self.now
                    if let line = self.log.withLock({ $0.tick(now: now) }) { StandardError.write(line) }
                }
            }
        }
    }
}
