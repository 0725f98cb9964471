import Foundation
import Synchronization
import UCubeRuntime
import UCubeTMS

/// What `mdm-update` says as it runs, in one place: each item's verdict and the run's end, as text lines or as the
/// `--json` event lines (`{"event":"item",…}`, then `{"event":"done",…}`; docs/fleet.md reads them), and the plan
/// as a report. The command decides what happens; this decides how it reads.
struct UpdateOutput {
    let json: Bool

    /// Nothing chosen: every item is current, or only optional ones are proposed.
    func nothingToDo(terminal serial: String, optional: Int) {
        if json {
            emit(.updateDone(installed: 0, failed: 0, optional: optional))
        } else {
            print(
                "terminal \(serial): nothing to do"
                    + (optional > 0
                        ? " (\(optional) optional item\(optional == 1 ? "" : "s"); --all installs \(optional == 1 ? "it" : "them"))"
                        : " (up to date)"))
        }
    }

    /// One item's verdict.
    func verdict(_ verdict: UpdateVerdict) {
        if json {
            emit(.item(verdict))
            return
        }
        let change = verdict.change
        switch verdict.result {
        case .installed:
            print("\(change): installed\(Self.amount(verdict))")
        case .loaded:
            print("\(change): loaded\(Self.amount(verdict)) (the terminal reports no version to check)")
        case .current:
            print("\(change): already installed, nothing loaded")
        case .failed:
            print("\(change): FAILED: \(verdict.error ?? "unknown error")")
        case .skipped:
            print("\(change): skipped (the run stopped at an earlier item)")
        }
    }

    /// The run's end: `--json`'s last line (text says it in the verdicts and the exit).
    func done(installed: Int, failed: Int) {
        if json { emit(.updateDone(installed: installed, failed: failed, optional: nil)) }
    }

    /// An event line: to the fleet run as a value for one terminal of a run (`DeviceOutput`), else on stdout.
    private func emit(_ event: FleetEvent) {
        if let device = DeviceOutput.current {
            device.report(event)
        } else {
            Console.outJSON(event.json.versionedLine + "\n")
        }
    }

    private static func amount(_ verdict: UpdateVerdict) -> String {
        guard let bytes = verdict.bytes, let seconds = verdict.seconds else { return "" }
        return " (\(ProgressFormat.bytes(Int64(bytes))) in \(String(format: "%.1f", seconds)) s)"
    }
}

/// `mdm-update --plan`: each item the TMS offers, what the terminal has and what the run would do.
struct UpdatePlanReport: Report {
    struct Row: Encodable {
        let item: String
        let type: Int
        let device: String?
        let server: String
        let minVersion: String
        let mandatory: Bool
        let install: Bool
    }

    let rows: [Row]
    /// The terminal's serial and the TMS, named when there is nothing to install.
    let terminal: String
    let server: String

    func encode(to encoder: any Encoder) throws { try rows.encode(to: encoder) }

    var lines: [String] {
        if rows.isEmpty { return ["terminal \(terminal): up to date with \(server); nothing to install"] }
        let width = max(4, rows.map(\.item.count).max() ?? 0)
        let heading =
            "ITEM".padding(toLength: width, withPad: " ", startingAt: 0)
            + "  TYPE  DEVICE       SERVER       MANDATORY  ACTION"
        return [heading]
            + rows.map { row in
                let action = row.install ? "install" : "skip (optional: --all)"
                return row.item.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + String(row.type).padding(toLength: 4, withPad: " ", startingAt: 0) + "  "
                    + (row.device ?? "—").padding(toLength: 12, withPad: " ", startingAt: 0) + " "
                    + row.server.padding(toLength: 12, withPad: " ", startingAt: 0) + " "
                    + (row.mandatory ? "yes" : "no").padding(toLength: 9, withPad: " ", startingAt: 0) + "  " + action
            }
    }
}

/// The progress display shared with the loader's `@Sendable` progress callback.
final class ProgressSink: Sendable {
    private let display: Mutex<UpdateProgressDisplay>
    private let json: Bool
    /// The plain lines of a log, across the items (stderr not a terminal, no --json).
    private let log: ProgressHeartbeat

    init(json: Bool) {
        self.json = json
        log = ProgressHeartbeat(writes: !json && isatty(2) != 1)
        display = Mutex(UpdateProgressDisplay(json: json, log: log))
    }

    /// A fresh display for the next item.
    func reset() { display.withLock { [json, log] in $0 = UpdateProgressDisplay(json: json, log: log) } }

    func update(label: String, progress: LoadProgress, elapsed: Duration) {
        display.withLock {
            $0.update(
                label: label, sent: Int64(progress.bytesSent), total: Int64(progress.totalBytes),
                blocks: .blocks(progress.blocksSent, of: progress.blockCount), elapsed: elapsed)
        }
    }

    /// A step of the update (downloading, waiting for the reboot), on stderr; in a log it is repeated while it lasts.
    func status(_ text: String) { log.status(text) }

    /// The update ended: no more lines.
    func stop() { log.stop() }
}
