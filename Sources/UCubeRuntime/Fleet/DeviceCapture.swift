import Synchronization
import UCubeTMS

/// One terminal's output in a fleet run: its `DeviceOutput`. The command's text lines and its events (`FleetEvent`)
/// go to the reporter with the device; mdm-update's items, test's cases and what the result says are kept for the
/// terminal's verdict.
package final class DeviceCapture: Sendable {
    private struct State {
        var items: [FleetVerdict.Item] = []
        var detail: String?
        var hint: String?
    }

    package let device: String
    private let reporter: any FleetRunReporting
    private let state = Mutex(State())

    package init(device: String, reporter: any FleetRunReporting) {
        self.device = device
        self.reporter = reporter
    }

    package var output: DeviceOutput {
        DeviceOutput(
            device: device,
            stdout: { [self] text in
                for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                    take(.output(String(line)))
                }
            },
            stderr: { [self] in reporter.stderr(device, $0) }, report: { [self] in take($0) })
    }

    package var items: [FleetVerdict.Item] { state.withLock { $0.items } }
    package var detail: String? { state.withLock { $0.detail } }
    /// What the command's result says to do (diagnose's findings' hints), when its failure, if any, says nothing.
    package var hint: String? { state.withLock { $0.hint } }

    private func take(_ event: FleetEvent) {
        state.withLock { Self.record(event, into: &$0.items, detail: &$0.detail, hint: &$0.hint) }
        reporter.event(device, event)
    }

    /// What `event` adds to the terminal's verdict: an item, and the summary's line and hint.
    package static func record(
        _ event: FleetEvent, into items: inout [FleetVerdict.Item], detail: inout String?, hint: inout String?
    ) {
        switch event {
        case .item(let verdict):
            items.append(
                FleetVerdict.Item(
                    item: verdict.item, result: verdict.result.rawValue, error: verdict.error,
                    seconds: verdict.seconds))
        case .testCase(let item):
            items.append(item)
            let passed = items.filter(\.succeeded).count
            detail = "\(passed) of \(items.count) cases passed"
        case .updateDone(let installed, let failed, _):
            detail =
                failed == 0
                ? (installed == 0 ? "nothing to install" : "\(installed) installed")
                : "\(installed) installed, \(failed) failed"
        case .result(_, let summary):
            if let line = summary.detail { detail = line }
            if let what = summary.hint { hint = what }
        case .failure, .output:
            break
        }
    }
}
