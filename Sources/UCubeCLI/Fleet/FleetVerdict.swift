import Foundation
import UCubeLink

/// One terminal's outcome in a fleet run: its `end` event, its line in the run file and the summary, its JUnit test
/// cases. `items` are mdm-update's per-item verdicts, as its `item` events gave them.
struct FleetVerdict: Codable, Sendable, Equatable {
    enum Result: String, Codable, Sendable {
        case ok
        case failed
        /// Never started: `--max-failures` was reached, or the run was interrupted first.
        case notStarted = "not-started"
    }

    struct Item: Codable, Sendable, Equatable {
        let item: String
        /// mdm-update's verdict word: installed, loaded, failed, skipped; a test case's: passed, failed, not-run.
        let result: String
        var error: String? = nil
        var seconds: Double? = nil

        /// Whether the item is on the terminal now.
        var succeeded: Bool { result == "installed" || result == "loaded" || result == "passed" }
        /// A test case that never ran (the run was stopped): skipped, not failed.
        var notRun: Bool { result == "not-run" }
    }

    let device: String
    var result: Result
    /// The command's exit code for this terminal (0 when ok).
    var exit: Int32
    var exitName: String
    /// The failure's stable code (`connection-refused`, `update-failed`…), as in `--json` error objects.
    var code: String? = nil
    var message: String? = nil
    /// What to do about the failure, as the one-terminal command's `hint:` line says it.
    var hint: String? = nil
    /// One line on what the command found or did: `serial 202401001, firmware 6.0.2.0`, `2 installed`.
    var detail: String? = nil
    var seconds: Double = 0
    var items: [Item] = []
    /// When the terminal finished (ISO 8601), in the run file.
    var at: String? = nil
    /// Done in an earlier run of the same command (read from the run file, not run this time). Not stored.
    var earlier = false

    private enum CodingKeys: String, CodingKey {
        case device, result, exit, exitName, code, message, hint, detail, seconds, items, at
    }

    init(
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
    init(from decoder: any Decoder) throws {
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
    static func reportOrder(_ verdicts: [FleetVerdict]) -> [FleetVerdict] {
        verdicts.sorted { $0.device.utf8.lexicographicallyPrecedes($1.device.utf8) }
    }

    static func ok(_ device: String, seconds: Double) -> FleetVerdict {
        FleetVerdict(device: device, result: .ok, exit: 0, exitName: ExitCodes.ok.name, seconds: seconds)
    }

    static func failed(_ device: String, _ failure: CLIFailure, seconds: Double) -> FleetVerdict {
        FleetVerdict(
            device: device, result: .failed, exit: failure.exit.code, exitName: failure.exit.name, code: failure.code,
            message: failure.message, hint: failure.hint, seconds: seconds)
    }

    static func notStarted(_ device: String, because reason: String) -> FleetVerdict {
        FleetVerdict(device: device, result: .notStarted, exit: -1, exitName: "not-started", message: reason)
    }
}
