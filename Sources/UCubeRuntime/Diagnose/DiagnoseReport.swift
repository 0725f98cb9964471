import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeTMS

/// The thresholds and bounds of `ucube diagnose`, in one place. No source says when a battery is low or a clock too
/// far off for a payment: these are this project's (README "Diagnosing" lists them).
package enum DiagnoseChoices {
    /// A battery at or below this percentage, not charging, is a warning.
    package static let lowBatteryPercent = 20
    /// A terminal clock further than this from the host's (UTC) is a warning: the payment's 9A/9F21 carry it.
    package static let clockDriftSeconds = 60
    /// A TMS client certificate that expires within this many days is a warning.
    package static let certificateWarningDays = 30
    /// Free space in the state directory's file system below this is a warning (the journal and the log grow there).
    package static let lowDiskBytes: UInt64 = 10_000_000
    /// One TMS request at most this long (connect and read), one attempt, unless --tms-timeout says otherwise.
    package static let tmsTimeout: Duration = .seconds(10)
    /// How long a BLE connection may take, one attempt.
    package static let bluetoothTimeout: Duration = .seconds(10)
}

/// One thing `ucube diagnose` checked.
package struct DiagnoseFinding: Encodable {
    package enum Area: String, Encodable, CaseIterable {
        case link, terminal, tms, journal, disk
    }

    package enum Severity: String, Encodable {
        /// Nothing to do.
        case ok
        /// Worth fixing; a payment can still be taken.
        case warning
        /// A payment cannot be taken until this is fixed.
        case blocking
        /// Not checked: an earlier check failed, or there is nothing to check (no TMS configured).
        case skipped
    }

    package let area: Area
    package let check: String
    package let code: String
    package let severity: Severity
    package let message: String
    package let hint: String?
    package var details: [String: DiagnoseValue] = [:]

    package enum CodingKeys: String, CodingKey { case area, check, code, severity, message, hint, details }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(area, forKey: .area)
        try c.encode(check, forKey: .check)
        try c.encode(code, forKey: .code)
        try c.encode(severity, forKey: .severity)
        try c.encode(message, forKey: .message)
        if let hint { try c.encode(hint, forKey: .hint) } else { try c.encodeNil(forKey: .hint) }
        try c.encode(details, forKey: .details)
    }
}

/// A detail's value in `--json`: a string, a number, a flag, a list or an object.
package indirect enum DiagnoseValue: Encodable {
    case string(String), int(Int), bool(Bool), array([DiagnoseValue]), object([String: DiagnoseValue])

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .int(let n):
            var c = encoder.singleValueContainer()
            try c.encode(n)
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let fields):
            try fields.encode(to: encoder)
        }
    }
}

/// Every finding code `ucube diagnose` gives besides the error codes of a link or terminal command that failed
/// (`connection-refused`, `timeout`, `busy`, …, the catalogue of `ucube --help`) and the TMS client's (`tms-…`).
/// The README lists them; a test checks the list is complete.
package enum DiagnoseCode: String, CaseIterable {
    case ok
    case staleSession = "stale-session"
    case notChecked = "not-checked"
    case terminalNotReady = "terminal-not-ready"
    case terminalStateUnknown = "terminal-state-unknown"
    case batteryLow = "battery-low"
    case batteryUnknown = "battery-unknown"
    case versionsUnknown = "versions-unknown"
    case clockDrift = "clock-drift"
    case clockUnreadable = "clock-unreadable"
    case tmsNotConfigured = "tms-not-configured"
    case tmsNotRegistered = "tms-not-registered"
    case tmsCertificateExpired = "tms-certificate-expired"
    case tmsCertificateExpiring = "tms-certificate-expiring"
    case tmsIdentityUnreadable = "tms-identity-unreadable"
    case unresolvedPayments = "unresolved-payments"
    case journalUnreadable = "journal-unreadable"
    case stateDirectoryUnusable = "state-directory-unusable"
    case runtimeDirectoryUnusable = "runtime-directory-unusable"
    case diskSpaceLow = "disk-space-low"

    package var name: String { rawValue }

    /// The Bluetooth codes (`BluetoothDiagnosis.Step.Problem`).
    package static var bluetooth: [String] {
        [
            BluetoothDiagnosis.Step.Problem.busUnavailable, .bluezNotRunning, .permissionDenied, .noAdapter,
            .adapterOff,
            .connectionPending,
        ].map(\.rawValue)
    }
}

/// The findings of one run, in the order they were made; shown grouped by area.
package struct DiagnoseReport: Report {
    package let device: String
    package var findings: [DiagnoseFinding] = []

    package init(device: String, findings: [DiagnoseFinding] = []) {
        self.device = device
        self.findings = findings
    }

    package var blocking: Bool { findings.contains { $0.severity == .blocking } }

    package enum CodingKeys: String, CodingKey { case blocking, device, findings }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(blocking, forKey: .blocking)
        try c.encode(device, forKey: .device)
        try c.encode(grouped, forKey: .findings)
    }

    /// Findings by area (link, terminal, tms, journal, disk), each area's in the order made.
    package var grouped: [DiagnoseFinding] {
        DiagnoseFinding.Area.allCases.flatMap { area in findings.filter { $0.area == area } }
    }

    package mutating func add(
        _ area: DiagnoseFinding.Area, _ check: String, _ severity: DiagnoseFinding.Severity, _ code: String,
        _ message: String,
        hint: String? = nil, details: [String: DiagnoseValue] = [:]
    ) {
        findings.append(
            DiagnoseFinding(
                area: area, check: check, code: code, severity: severity, message: message, hint: hint, details: details
            ))
    }

    package mutating func ok(
        _ area: DiagnoseFinding.Area, _ check: String, _ message: String, details: [String: DiagnoseValue] = [:]
    ) {
        add(area, check, .ok, DiagnoseCode.ok.name, message, details: details)
    }

    package mutating func add(
        _ area: DiagnoseFinding.Area, _ check: String, _ severity: DiagnoseFinding.Severity, _ failure: CLIFailure
    ) {
        add(area, check, severity, failure.code, failure.message, hint: failure.hint)
    }

    /// How many findings have `severity`: the text's last line and a fleet run's summary each word the counts.
    package func count(_ severity: DiagnoseFinding.Severity) -> Int {
        findings.filter { $0.severity == severity }.count
    }

    /// The text form: a heading per area, one line per check, a hint line under each finding that has one.
    package var lines: [String] {
        var out: [String] = []
        let width = (findings.map(\.check.count).max() ?? 0)
        for area in DiagnoseFinding.Area.allCases {
            let items = findings.filter { $0.area == area }
            guard !items.isEmpty else { continue }
            out.append(area.rawValue)
            for f in items {
                let severity = f.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                let check = f.check.padding(toLength: width, withPad: " ", startingAt: 0)
                let code = f.severity == .ok ? "" : " [\(f.code)]"
                out.append("  \(severity)  \(check)  \(f.message)\(code)")
                if let hint = f.hint, f.severity != .ok {
                    out.append("  " + String(repeating: " ", count: 8 + 2 + width + 2) + "hint: \(hint)")
                }
            }
        }
        let (blockingCount, warnings) = (count(.blocking), count(.warning))
        let summary =
            blockingCount > 0
            ? "\(blockingCount) finding\(blockingCount == 1 ? "" : "s") block\(blockingCount == 1 ? "s" : "") a payment"
            : "nothing blocks a payment"
        out.append("\(summary); \(warnings) warning\(warnings == 1 ? "" : "s")")
        return out
    }
}

extension DiagnoseReport: FleetSummarised {
    /// diagnose in a fleet run: the findings that are not ok, by severity, and their hints, each once, in the
    /// report's order (as its `hint:` lines).
    package var fleetSummary: FleetSummary {
        let (blockingCount, warnings) = (count(.blocking), count(.warning))
        let detail =
            blockingCount > 0
            ? "\(blockingCount) blocking, \(warnings) warning\(warnings == 1 ? "" : "s")"
            : "nothing blocks a payment; \(warnings) warning\(warnings == 1 ? "" : "s")"
        var hints: [String] = []
        for finding in grouped where finding.severity != .ok {
            if let hint = finding.hint, !hints.contains(hint) { hints.append(hint) }
        }
        return FleetSummary(detail: detail, hint: hints.isEmpty ? nil : hints.joined(separator: "; "))
    }
}
