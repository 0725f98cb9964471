import Foundation
import UCubeSupport

/// How an update shows its progress: a redrawn bar on a TTY (stderr, the `StatusLine`: a Ctrl-C notice or an error
/// ends the bar's line before it prints), JSON lines with `--json` (stdout), nothing otherwise
/// (docs/architecture.md: a non-TTY never gets a progress bar).
struct UpdateProgressDisplay {
    enum Mode: Equatable { case bar, jsonLines, none }

    let mode: Mode
    private let start: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant?

    init(json: Bool, stderrIsTTY: Bool = isatty(2) == 1) {
        mode = json ? .jsonLines : (stderrIsTTY ? .bar : .none)
        start = .now
    }

    /// One progress sample for `label`: `sent` of `total` bytes, `elapsed` since the item started.
    mutating func update(label: String, sent: Int64, total: Int64, elapsed: Duration) {
        switch mode {
        case .none: return
        case .jsonLines:
            let line = ProgressFormat.jsonLine(label: label, sent: sent, total: total, elapsed: elapsed)
            RawOutput.stdout(line + "\n")
        case .bar:
            // Redraw at most ten times a second, and always for the last block.
            let now = ContinuousClock.now
            if sent < total, let lastDraw, now - lastDraw < .milliseconds(100) { return }
            lastDraw = now
            StatusLine.draw(ProgressFormat.bar(label: label, sent: sent, total: total, elapsed: elapsed, width: 24))
            if sent >= total { StatusLine.end() }
        }
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

    /// One JSON object per sample: `{"event":"progress","item":…,"bytes":…,"total":…,"percent":…,"rate":…,"eta":…}`.
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
