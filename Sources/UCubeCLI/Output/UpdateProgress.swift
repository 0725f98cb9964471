import Foundation
import UCubeRuntime
import UCubeSupport

/// How an update shows its progress: a redrawn bar on a TTY (stderr, the `StatusLine`, fitted to the terminal's
/// width: a Ctrl-C notice or an error ends the bar's line before it prints), JSON lines with `--json` (stdout), and
/// elsewhere (a CI log, a file, a pipe) a plain line on stderr at most every 10 s and at each 10 %
/// (docs/architecture.md: a non-TTY never gets a progress bar, and never goes silent for long).
struct UpdateProgressDisplay {
    enum Mode: Equatable { case bar, jsonLines, lines }

    let mode: Mode
    private var lastDraw: ContinuousClock.Instant?
    private let columns: Int
    /// The plain lines (`.lines`): one log for the whole run, kept across items, that a heartbeat keeps from going
    /// silent.
    private let log: ProgressHeartbeat

    init(
        json: Bool, stderrIsTTY: Bool = isatty(2) == 1, columns: Int = ProgressFormat.terminalColumns(),
        log: ProgressHeartbeat
    ) {
        mode = json ? .jsonLines : (stderrIsTTY ? .bar : .lines)
        self.columns = columns
        self.log = log
    }

    /// One progress sample for `label`: `sent` of `total` bytes, `blocks` sent of the item's, `elapsed` since the item
    /// started.
    mutating func update(label: String, sent: Int64, total: Int64, blocks: ProgressCount?, elapsed: Duration) {
        switch mode {
        case .lines:
            log.sample(label: label, sent: sent, total: total, count: blocks, elapsed: elapsed)
        case .jsonLines:
            let line = ProgressFormat.jsonLine(label: label, sent: sent, total: total, elapsed: elapsed)
            RawOutput.stdout(line + "\n")
        case .bar:
            // Redraw at most ten times a second, and always for the last block.
            let now = ContinuousClock.now
            if sent < total, let lastDraw, now - lastDraw < .milliseconds(100) { return }
            lastDraw = now
            StatusLine.draw(
                ProgressFormat.fitted(label: label, sent: sent, total: total, elapsed: elapsed, columns: columns))
            if sent >= total { StatusLine.end() }
        }
    }
}

/// When a plain progress line is due (a log, not a terminal): the first sample, each new tenth of the total, the end,
/// and otherwise at most every `interval`. A value: the display keeps one per item.
struct ProgressPace: Equatable {
    /// The longest a log goes without a line while the work goes on.
    static let interval: Duration = .seconds(10)

    private var lastTenth: Int64 = -1
    private var lastLine: Duration?

    /// Whether a line is due for this sample; if so, it is counted as written.
    mutating func due(sent: Int64, total: Int64, elapsed: Duration) -> Bool {
        let tenth = total > 0 ? min(10, sent * 10 / total) : 10
        let due =
            lastLine == nil || tenth > lastTenth || (lastLine.map { elapsed - $0 >= Self.interval } ?? true)
        guard due else { return false }
        lastTenth = max(lastTenth, tenth)
        lastLine = elapsed
        return true
    }
}

/// The pure text of the progress output.
enum ProgressFormat {
    /// `SVPP firmware 6.0.1.0  [#########---------------]  37%  409.6 kB / 1.1 MB  5.2 kB/s  ETA 2:01`
    static func bar(label: String, sent: Int64, total: Int64, elapsed: Duration, width: Int) -> String {
        let fraction = total > 0 ? min(1, Double(sent) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        var line = "\(label)  [\(bar)] \(String(percent).leftPadded(to: 3))%  \(bytes(sent)) / \(bytes(total))"
        if let rate = rate(sent: sent, elapsed: elapsed) {
            line += "  \(bytes(Int64(rate)))/s"
            if sent < total { line += "  ETA \(duration(seconds: Double(total - sent) / rate))" }
        }
        return line
    }

    /// The bar, fitted to `columns`: the bar shrinks first (to 8 cells), then the ETA goes, then the rate, so that
    /// the line never wraps (a wrapped status line cannot be redrawn in place).
    static func fitted(label: String, sent: Int64, total: Int64, elapsed: Duration, columns: Int) -> String {
        let room = max(20, columns - 1)
        var width = 24
        var line = bar(label: label, sent: sent, total: total, elapsed: elapsed, width: width)
        while line.count > room && width > 8 {
            width -= 1
            line = bar(label: label, sent: sent, total: total, elapsed: elapsed, width: width)
        }
        for cut in ["  ETA ", "  "] where line.count > room {
            if let range = line.range(of: cut, options: .backwards),
                line.distance(from: line.startIndex, to: range.lowerBound) > 0
            {
                line = String(line[..<range.lowerBound])
            }
        }
        return line.count > room ? String(line.prefix(room)) : line
    }

    /// A plain line for a log: `SVPP firmware 6.0.1.0: 37%, block 12 of 32, 409.6 kB of 1.1 MB, 5.2 kB/s, ETA 2:01`;
    /// for work without bytes (`total` 0), the count gives the share and the ETA: `fleet test: 30%, 3 of 10
    /// terminals, ETA 4:40`.
    static func line(
        label: String, sent: Int64, total: Int64, count: ProgressCount? = nil, elapsed: Duration
    ) -> String {
        let counted = total <= 0 ? count.map { (done: Int64($0.done), total: Int64($0.total)) } : nil
        let (done, of) = counted ?? (sent, total)
        let fraction = of > 0 ? min(1, Double(done) / Double(of)) : 1
        var line = "\(label): \(Int((fraction * 100).rounded(.down)))%"
        if let count { line += ", " + count.text }
        if counted == nil {
            line += ", \(bytes(sent)) of \(bytes(total))"
            if let rate = rate(sent: sent, elapsed: elapsed) {
                line += ", \(bytes(Int64(rate)))/s"
                if sent < total { line += ", ETA \(duration(seconds: Double(total - sent) / rate))" }
            }
        } else if done > 0, done < of, elapsed.seconds >= 0.05 {
            line += ", ETA \(duration(seconds: elapsed.seconds * Double(of - done) / Double(done)))"
        }
        return line
    }

    /// The width of the terminal on stderr (where the bar goes), else `$COLUMNS`, else 80.
    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), columns > 0 { return columns }
        return 80
    }

    /// One JSON object per sample:
    /// `{"event":"progress","item":…,"bytes":…,"total":…,"percent":…,"rate":…,"eta":…,"version":1}`.
    static func jsonLine(label: String, sent: Int64, total: Int64, elapsed: Duration) -> String {
        let percent = total > 0 ? Double(sent) * 100 / Double(total) : 100
        let rate = rate(sent: sent, elapsed: elapsed)
        let eta = rate.map { Double(max(0, total - sent)) / $0 }
        var fields = [
            "\"event\":\"progress\"", "\"item\":\(JSONOutput.quote(label))", "\"bytes\":\(sent)", "\"total\":\(total)",
            "\"percent\":\(String(format: "%.1f", percent))",
        ]
        fields.append("\"rate\":" + (rate.map { String(format: "%.0f", $0) } ?? "null"))
        fields.append("\"eta\":" + (eta.map { String(format: "%.1f", $0) } ?? "null"))
        fields.append("\"version\":\(JSONOutput.version)")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Bytes per second, once enough time has passed to mean something.
    static func rate(sent: Int64, elapsed: Duration) -> Double? {
        let seconds = elapsed.seconds
        guard seconds >= 0.05, sent > 0 else { return nil }
        return Double(sent) / seconds
    }

    /// Decimal units (kB = 1000 B), one decimal above bytes.
    static func bytes(_ n: Int64) -> String {
        if n < 1000 { return "\(n) B" }
        let units = ["kB", "MB", "GB"]
        var value = Double(n) / 1000
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func duration(seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let h = total / 3600
        let m = total % 3600 / 60
        let s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
