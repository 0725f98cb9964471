import Foundation
import UCubeLink

/// One terminal's outcome in a fleet run: its `end` event, its line in the run file and the summary, its JUnit test
/// cases. `items` are mdm-update's per-item verdicts, as its `item` events gave them.
package struct FleetVerdict: Codable, Sendable, Equatable {
    package enum Result: String, Codable, Sendable {
        case ok
        case failed
        /// Never started: `--max-failures` was reached, or the run was interrupted first.
        case notStarted = "not-started"
    }

    package struct Item: Codable, Sendable, Equatable {
        package let item: String
        /// mdm-update's verdict word: installed, loaded, failed, skipped; a test case's: passed, failed, not-run.
        package let result: String
        package var error: String? = nil
        package var seconds: Double? = nil

        package init(item: String, result: String, error: String? = nil, seconds: Double? = nil) {
            self.item = item
            self.result = result
            self.error = error
            self.seconds = seconds
        }

        /// Whether the item is on the terminal now.
        package var succeeded: Bool { result == "installed" || result == "loaded" || result == "passed" }
        /// A test case that never ran (the run was stopped): skipped, not failed.
        package var notRun: Bool { result == "not-run" }
    }

    package let device: String
    package var result: Result
    /// The command's exit code for this terminal (0 when ok).
    package var exit: Int32
    package var exitName: String
    /// The failure's stable code (`connection-refused`, `update-failed`…), as in `--json` error objects.
    package var code: String? = nil
    package var message: String? = nil
    /// What to do about the failure, as the one-terminal command's `hint:` line says it.
    package var hint: String? = nil
    /// One line on what the command found or did: `serial 202401001, firmware 6.0.2.0`, `2 installed`.
    package var detail: String? = nil
    package var seconds: Double = 0
    package var items: [Item] = []
    /// When the terminal finished (ISO 8601), in the run file.
    package var at: String? = nil
    /// Done in an earlier run of the same command (read from the run file, not run this time). Not stored.
    package var earlier = false

    private enum CodingKeys: String, CodingKey {
        case device, result, exit, exitName, code, message, hint, detail, seconds, items, at
    }

    package init(
        device: String, result: Result, exit: Int32, exitName: String, code: String? = nil, message: String? = nil,
        hint: String? = nil, detail: String? = nil,
        seconds: Double = 0, items: [Item] = [], at: String? = nil, earlier: Bool = false
    ) {
        self.device = device
        self.result = result
        self.exit = exit
        self.exitName = exitName
        self.code = code
        self.message = message
        self.hint = hint
        self.detail = detail
        self.seconds = seconds
        self.items = items
        self.at = at
        self.earlier = earlier
    }

    /// From a run file's line or an `end` event (`ucube fleet-merge`), which has `items` only when there are some.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try c.decode(String.self, forKey: .device), result: try c.decode(Result.self, forKey: .result),
            exit: try c.decode(Int32.self, forKey: .exit), exitName: try c.decode(String.self, forKey: .exitName),
            code: try c.decodeIfPresent(String.self, forKey: .code),
            message: try c.decodeIfPresent(String.self, forKey: .message),
            hint: try c.decodeIfPresent(String.self, forKey: .hint),
            detail: try c.decodeIfPresent(String.self, forKey: .detail),
            seconds: try c.decodeIfPresent(Double.self, forKey: .seconds) ?? 0,
            items: try c.decodeIfPresent([Item].self, forKey: .items) ?? [],
            at: try c.decodeIfPresent(String.self, forKey: .at))
    }

    /// The order of the summary table and the JUnit report: by device, byte by byte. Not the devices file's order,
    /// which `ucube fleet-merge` cannot know: a merged report and a one-process run's are then the same.
    package static func reportOrder(_ verdicts: [FleetVerdict]) -> [FleetVerdict] {
        verdicts.sorted { $0.device.utf8.lexicographicallyPrecedes($1.device.utf8) }
    }

    package static func ok(_ device: String, seconds: Double) -> FleetVerdict {
        FleetVerdict(device: device, result: .ok, exit: 0, exitName: ExitCodes.ok.name, seconds: seconds)
    }

    package static func failed(_ device: String, _ failure: CLIFailure, seconds: Double) -> FleetVerdict {
        FleetVerdict(
            device: device, result: .failed, exit: failure.exit.code, exitName: failure.exit.name, code: failure.code,
            message: failure.message, hint: failure.hint, seconds: seconds)
    }

    package static func notStarted(_ device: String, because reason: String) -> FleetVerdict {
        FleetVerdict(device: device, result: .notStarted, exit: -1, exitName: "not-started", message: reason)
    }
}
