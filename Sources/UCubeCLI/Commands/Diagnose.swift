import ArgumentParser
import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeTMS

/// The thresholds and bounds of `ucube diagnose`, in one place. No source says when a battery is low or a clock too
/// far off for a payment: these are this project's (README "Diagnosing" lists them).
enum DiagnoseChoices {
    /// A battery at or below this percentage, not charging, is a warning.
    static let lowBatteryPercent = 20
    /// A terminal clock further than this from the host's (UTC) is a warning: the payment's 9A/9F21 carry it.
    static let clockDriftSeconds = 60
    /// A TMS client certificate that expires within this many days is a warning.
    static let certificateWarningDays = 30
    /// Free space in the state directory's file system below this is a warning (the journal and the log grow there).
    static let lowDiskBytes: UInt64 = 10_000_000
    /// One TMS request at most this long (connect and read), one attempt, unless --tms-timeout says otherwise.
    static let tmsTimeout: Duration = .seconds(10)
    /// How long a BLE connection may take, one attempt.
    static let bluetoothTimeout: Duration = .seconds(10)
}

/// One thing `ucube diagnose` checked.
struct DiagnoseFinding: Encodable {
    enum Area: String, Encodable, CaseIterable {
        case link, terminal, tms, journal, disk
    }

    enum Severity: String, Encodable {
        /// Nothing to do.
        case ok
        /// Worth fixing; a payment can still be taken.
        case warning
        /// A payment cannot be taken until this is fixed.
        case blocking
        /// Not checked: an earlier check failed, or there is nothing to check (no TMS configured).
        case skipped
    }

    let area: Area
    let check: String
    let code: String
    let severity: Severity
    let message: String
    let hint: String?
    var details: [String: DiagnoseValue] = [:]

    enum CodingKeys: String, CodingKey { case area, check, code, severity, message, hint, details }

    func encode(to encoder: any Encoder) throws {
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
indirect enum DiagnoseValue: Encodable {
    case string(String), int(Int), bool(Bool), array([DiagnoseValue]), object([String: DiagnoseValue])

    func encode(to encoder: any Encoder) throws {
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
enum DiagnoseCode: String, CaseIterable {
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

    var name: String { rawValue }

    /// The Bluetooth codes (`BluetoothDiagnosis.Step.Problem`).
    static var bluetooth: [String] {
        [
            BluetoothDiagnosis.Step.Problem.busUnavailable, .bluezNotRunning, .permissionDenied, .noAdapter, .adapterOff,
            .connectionPending,
        ].map(\.rawValue)
    }
}

/// The findings of one run, in the order they were made; shown grouped by area.
struct DiagnoseReport: Encodable {
    let device: String
    var findings: [DiagnoseFinding] = []

    var blocking: Bool { findings.contains { $0.severity == .blocking } }

    enum CodingKeys: String, CodingKey { case blocking, device, findings }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(blocking, forKey: .blocking)
        try c.encode(device, forKey: .device)
        try c.encode(grouped, forKey: .findings)
    }

    /// Findings by area (link, terminal, tms, journal, disk), each area's in the order made.
    var grouped: [DiagnoseFinding] {
        DiagnoseFinding.Area.allCases.flatMap { area in findings.filter { $0.area == area } }
    }

    mutating func add(
        _ area: DiagnoseFinding.Area, _ check: String, _ severity: DiagnoseFinding.Severity, _ code: String, _ message: String,
        hint: String? = nil, details: [String: DiagnoseValue] = [:]
    ) {
        findings.append(
            DiagnoseFinding(area: area, check: check, code: code, severity: severity, message: message, hint: hint, details: details))
    }

    mutating func ok(_ area: DiagnoseFinding.Area, _ check: String, _ message: String, details: [String: DiagnoseValue] = [:]) {
        add(area, check, .ok, DiagnoseCode.ok.name, message, details: details)
    }

    mutating func add(_ area: DiagnoseFinding.Area, _ check: String, _ severity: DiagnoseFinding.Severity, _ failure: CLIFailure) {
        add(area, check, severity, failure.code, failure.message, hint: failure.hint)
    }

    /// The text form: a heading per area, one line per check, a hint line under each finding that has one.
    var lines: [String] {
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
        let count = { (s: DiagnoseFinding.Severity) in self.findings.filter { $0.severity == s }.count }
        let blockingCount = count(.blocking)
        let warnings = count(.warning)
        let summary =
            blockingCount > 0
            ? "\(blockingCount) finding\(blockingCount == 1 ? "" : "s") block\(blockingCount == 1 ? "s" : "") a payment"
            : "nothing blocks a payment"
        out.append("\(summary); \(warnings) warning\(warnings == 1 ? "" : "s")")
        return out
    }
}

extension UCube {
    /// `ucube diagnose`: checks everything a payment depends on, one finding per check.
    struct Diagnose: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "diagnose",
                abstract: "Check everything a payment depends on: the link, the terminal, the TMS, the journal, the disk.",
                discussion: discussion)
        }

        static var discussion: String {
            """
            Each check gives one finding: ok, warning (worth fixing; a payment can still be taken), blocking (no \
            payment until it is fixed) or skipped (an earlier check failed, or nothing to check); each finding that \
            is not ok has a hint. Exit status: 0 when nothing blocks a payment (warnings included), \
            \(ExitCodes.diagnoseBlocking.code) (\(ExitCodes.diagnoseBlocking.name)) when a finding does, 64 for a bad \
            command line. Every wait is bounded: the terminal by --rpc-timeout, the TMS by --tms-timeout (default \
            \(DiagnoseChoices.tmsTimeout.components.seconds) s, one attempt), a BLE connection by \
            \(DiagnoseChoices.bluetoothTimeout.components.seconds) s.

            link: the device and its transport; another ucube process holding it (busy, blocking); a link session \
            left open by a process that died (stale-session, warning); for ble:// the D-Bus system bus \
            (dbus-unavailable), BlueZ (bluez-not-running), the adapter (bluetooth-no-adapter, bluetooth-adapter-off), \
            this user's permission (bluetooth-permission-denied) and a connection BlueZ holds that no ucube process \
            does (bluetooth-connection-pending; blocking when the link then does not open); whether the link opens \
            (the link error's code, e.g. connection-refused: blocking).

            terminal: GetInfo answers (else blocking; not-checked when the link is not open), the state (READY, else \
            terminal-not-ready: blocking; terminal-state-unknown), the battery (battery-low at \
            \(DiagnoseChoices.lowBatteryPercent) % or less, not charging; battery-unknown), the versions \
            (versions-unknown), the clock against the host's in UTC (clock-drift beyond \
            \(DiagnoseChoices.clockDriftSeconds) s, `ucube rpc rtc-set` sets it; clock-unreadable).

            tms: configured (else tms-not-configured, skipped), reachable (the TMS client's code, e.g. tms-network), \
            registered (tms-not-registered, tms-identity-unreadable), the client certificate's expiry (tms-certificate-expired, \
            tms-certificate-expiring within \(DiagnoseChoices.certificateWarningDays) days). TMS findings are \
            warnings: a payment does not use the TMS.

            journal: payments whose outcome was never recorded (unresolved-payments, warning, each listed; \
            journal-unreadable).

            disk: the state directory is writable (state-directory-unusable: blocking, a payment journals there \
            first), free space (disk-space-low), the runtime directory (runtime-directory-unusable, warning).

            With --json, one object: {"blocking":false,"device":"sim","findings":[{"area":"link","check":"open",\
            "code":"ok","severity":"ok","message":"...","hint":null,"details":{}}, ...]}. blocking is true when a \
            finding is; findings are grouped by area in the order link, terminal, tms, journal, disk; area, check, \
            code, severity, message, hint and details are always there (hint null for ok, details an object, maybe \
            empty). code is "ok" for a passing check, else a stable name from the lists above or an error code of \
            `ucube --help`. Never any card data.

            With several terminals (--device repeated, --devices FILE), a fleet run: each terminal's report is its \
            `result` event, and a terminal with a blocking finding fails (exit 16 in its `end`); the run exits 18 \
            when one does. See docs/fleet.md.
            """
        }

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var tms: TMSOptions
        @OptionGroup var fleet: FleetOptions

        func run() async throws {
            // Several terminals (docs/fleet.md): each one's report is its `result` event; one with a blocking
            // finding fails (exit 16 in its `end`), naming the blocking codes. Read-only: no run file.
            if let run = try FleetRun(command: "diagnose", globals: globals, options: fleet, resumes: false) {
                try await run.run { [globals, tms] device in
                    let report = await Self.diagnose(globals: globals.single(device, json: true), tms: tms)
                    try JSONOutput.print(report, pretty: false)
                    let blocking = report.grouped.filter { $0.severity == .blocking }
                    if !blocking.isEmpty {
                        throw CLIFailure(
                            ExitCodes.diagnoseBlocking, "blocking: \(blocking.map { "\($0.code) (\($0.message))" }.joined(separator: "; "))")
                    }
                }
                return
            }
            let report = await Self.diagnose(globals: globals, tms: tms)
            if globals.json {
                try JSONOutput.print(report)
            } else {
                for line in report.lines { print(line) }
            }
            if report.blocking { throw ExitCode(ExitCodes.diagnoseBlocking.code) }
        }

        static func diagnose(globals: GlobalOptions, tms: TMSOptions) async -> DiagnoseReport {
            var report = DiagnoseReport(device: globals.deviceAddress)
            let facts = await checkLinkAndTerminal(globals, into: &report)
            await checkTMS(tms, facts: facts, into: &report)
            checkJournal(into: &report)
            checkDisk(into: &report)
            return report
        }

        // MARK: - Link and terminal

        private static func checkLinkAndTerminal(_ globals: GlobalOptions, into report: inout DiagnoseReport) async -> DeviceInfo? {
            let address: DeviceAddress
            do {
                address = try Connection.resolve(nil, globals)
            } catch {
                report.add(.link, "device", .blocking, CLIFailure(reporting: error))
                skipTerminal(&report, because: "the device is unknown")
                return nil
            }
            let transport = RememberedDevices.transportName(address)
            report.ok(
                .link, "device", "\(address.description) (\(Self.transportDescription(address)))",
                details: ["device": .string(address.description), "transport": .string(transport)])

            let shellLink = ShellSession.current != nil
            if !shellLink {
                do {
                    try DeviceLock.acquire(key: Connection.fileKey(address), device: address.description)
                    report.ok(.link, "lock", "no other ucube process holds \(address.description)")
                } catch {
                    report.add(.link, "lock", .blocking, error)
                    skipTerminal(&report, because: "another process holds the terminal")
                    return nil
                }
                if let path = Connection.sessionPath(for: address), case .stale(let owner) = SessionRecord.load(path) {
                    report.add(
                        .link, "session", .warning, DiagnoseCode.staleSession.name,
                        "the last ucube process on \(address.description)\(owner.map { " (pid \($0))" } ?? "") did not close the link",
                        hint: "nothing to do: the next command resets the terminal (CancelAll, ExitSecureSession) first",
                        details: owner.map { ["pid": .int(Int($0))] } ?? [:])
                }
            }

            var pendingBluetooth = false
            if case .ble(let target) = address, !shellLink {
                let diagnosis = await BluetoothDiagnosis.run(target: target, timeout: globals.timeout)
                for step in diagnosis.steps {
                    let details = step.details.mapValues { DiagnoseValue.string($0) }
                    guard let problem = step.problem else {
                        report.ok(.link, step.name.rawValue, step.message, details: details)
                        continue
                    }
                    if problem == .connectionPending {
                        pendingBluetooth = true
                        continue  // its severity depends on whether the link opens
                    }
                    report.add(.link, step.name.rawValue, .blocking, problem.rawValue, step.message, hint: step.hint, details: details)
                    report.add(.link, "open", .skipped, DiagnoseCode.notChecked.name, "not tried: Bluetooth is not usable")
                    skipTerminal(&report, because: "the link is not open")
                    return nil
                }
            }

            let connection: Connection
            do {
                if let session = ShellSession.current {
                    connection = try await session.connection(globals, card: nil)
                } else {
                    let seconds = Int64(DiagnoseChoices.bluetoothTimeout.components.seconds)
                    connection = try await Connection.open(
                        globals, address: address,
                        bluetooth: BLEConnectOptions(timeout: .seconds(seconds), attempts: 1), prepare: .ready)
                }
            } catch {
                let failure = CLIFailure(reporting: error)
                if pendingBluetooth {
                    addPendingBluetooth(address, .blocking, into: &report)
                }
                if case .ble = address, let problem = BluetoothDiagnosis.problem(inLinkFailure: failure.message + " " + (failure.detail ?? "")) {
                    let hint: String =
                        switch problem {
                        case .permissionDenied: "add the user to the bluetooth group (sudo usermod -aG bluetooth $USER, then log in again)"
                        case .connectionPending: "bluetoothctl disconnect \(address.description.dropFirst("ble://".count)), or switch the terminal off and on"
                        case .adapterOff: "bluetoothctl power on"
                        default: failure.hint ?? "check the terminal is on and in range"
                        }
                    report.add(.link, "open", .blocking, problem.rawValue, failure.message, hint: hint)
                } else {
                    report.add(
                        .link, "open", .blocking, failure.code, failure.message,
                        hint: failure.hint ?? Self.openHint(address))
                }
                skipTerminal(&report, because: "the link is not open")
                return nil
            }
            if pendingBluetooth { addPendingBluetooth(address, .warning, into: &report) }
            report.ok(.link, "open", "the link to \(address.description) is open")

            let info = await checkTerminal(connection, into: &report)
            if ShellSession.current == nil { await connection.close() }
            return info
        }

        private static func addPendingBluetooth(_ address: DeviceAddress, _ severity: DiagnoseFinding.Severity, into report: inout DiagnoseReport) {
            let target: String = if case .ble(let t) = address { t } else { address.description }
            report.add(
                .link, "connection", severity, BluetoothDiagnosis.Step.Problem.connectionPending.rawValue,
                severity == .blocking
                    ? "BlueZ holds a connection to \(target) that no ucube process does, and it is in the way"
                    : "BlueZ held a connection to \(target) that no ucube process did; the link opened over it",
                hint: "bluetoothctl disconnect \(target), or switch the terminal off and on")
        }

        private static func openHint(_ address: DeviceAddress) -> String {
            switch address {
            case .tcp: "is the terminal (or `ucube simulate --listen`) running and listening there?"
            case .serial: "check the device file exists and this user may open it (the dialout group)"
            case .ble: "check the terminal is on and in range (`ucube scan`)"
            case .rfcomm: "check the terminal is on, paired and in range"
            default: "check the device (--device)"
            }
        }

        private static func transportDescription(_ address: DeviceAddress) -> String {
            switch address {
            case .simulator: "the built-in simulator"
            case .tcp: "TCP"
            case .serial: "a serial device"
            case .ble: "Bluetooth LE through BlueZ"
            case .rfcomm: "Bluetooth RFCOMM"
            case .remembered: "a remembered terminal"
            case .replay: "a recording"
            }
        }

        private static func skipTerminal(_ report: inout DiagnoseReport, because reason: String) {
            report.add(.terminal, "answer", .skipped, DiagnoseCode.notChecked.name, "not checked: \(reason)")
        }

        private static func checkTerminal(_ connection: Connection, into report: inout DiagnoseReport) async -> DeviceInfo? {
            let info: DeviceInfo
            do {
                info = try await connection.client.deviceInfo(tags: GetInfo.standardTags)
            } catch {
                let failure = CLIFailure(reporting: error)
                report.add(.terminal, "answer", .blocking, failure.code, "GetInfo failed: \(failure.message)",
                    hint: failure.hint ?? "switch the terminal off and on, then run `ucube diagnose` again")
                return nil
            }
            var who: [String: DiagnoseValue] = [:]
            if let serial = info.serialNumber { who["serialNumber"] = .string(serial) }
            if let pn = info.partNumber { who["partNumber"] = .string(pn) }
            report.ok(
                .terminal, "answer",
                "the terminal answers: serial \(info.serialNumber ?? "?"), part number \(info.partNumber ?? "?")", details: who)

            switch info.state {
            case .ready?:
                report.ok(.terminal, "state", "READY", details: ["state": .string("READY")])
            case let state?:
                if state == .secured {
                    report.add(
                        .terminal, "state", .warning, DiagnoseCode.terminalNotReady.name,
                        "the terminal stayed in a secure session after ExitSecureSession",
                        hint: "switch the terminal off and on", details: ["state": .string(state.description)])
                } else {
                    report.add(
                        .terminal, "state", .blocking, DiagnoseCode.terminalNotReady.name,
                        "the terminal is \(state.description): not personalised, it cannot take payments",
                        hint: "have the terminal's keys and configuration loaded by its provider",
                        details: ["state": .string(state.description)])
                }
            case nil:
                report.add(
                    .terminal, "state", .warning, DiagnoseCode.terminalStateUnknown.name, "GetInfo gave no terminal state (C4)",
                    hint: "`ucube info` shows what the terminal answers")
            }

            if let battery = info.batteryPercent {
                let charging = info.charging.map { "\($0)" }
                var details: [String: DiagnoseValue] = ["percent": .int(battery)]
                if let charging { details["charging"] = .string(charging) }
                let isCharging = info.charging.map { $0 != .notCharging } ?? false
                if battery <= DiagnoseChoices.lowBatteryPercent && !isCharging {
                    report.add(
                        .terminal, "battery", .warning, DiagnoseCode.batteryLow.name, "battery at \(battery) %",
                        hint: "charge the terminal: it switches off when the battery runs out, even mid-payment", details: details)
                } else {
                    report.ok(.terminal, "battery", "battery at \(battery) %\(charging.map { ", \($0)" } ?? "")", details: details)
                }
            } else {
                report.add(
                    .terminal, "battery", .warning, DiagnoseCode.batteryUnknown.name, "GetInfo gave no battery level (C5)",
                    hint: "`ucube info` shows what the terminal answers")
            }

            // (JSON key, label, version)
            let versions: [(String, String, FirmwareVersion?)] = [
                ("firmware", "firmware", info.firmwareVersion), ("emvL1", "EMV L1", info.emvL1Version),
                ("emvL2", "EMV L2", info.emvL2Version), ("emvICCConfig", "ICC configuration", info.emvICCConfigVersion),
                ("emvNFCConfig", "NFC configuration", info.emvNFCConfigVersion), ("nfcFirmware", "NFC firmware", info.nfcFirmwareVersion),
            ]
            var versionDetails: [String: DiagnoseValue] = [:]
            for case (let key, _, let version?) in versions { versionDetails[key] = .string(version.description) }
            if let firmware = info.firmwareVersion {
                let text = versions.compactMap { _, label, v in v.map { "\(label) \($0)" } }.joined(separator: ", ")
                report.ok(.terminal, "versions", text.isEmpty ? "firmware \(firmware)" : text, details: versionDetails)
            } else {
                report.add(
                    .terminal, "versions", .warning, DiagnoseCode.versionsUnknown.name, "GetInfo gave no firmware version (D1)",
                    hint: "`ucube info` shows what the terminal answers", details: versionDetails)
            }

            await checkClock(connection, into: &report)
            return info
        }

        private static func checkClock(_ connection: Connection, into report: inout DiagnoseReport) async {
            let reply: Reply<RTCGet.Response>
            do {
                reply = try await connection.client.send(RTCGet())
            } catch {
                let failure = CLIFailure(reporting: error)
                report.add(
                    .terminal, "clock", .warning, DiagnoseCode.clockUnreadable.name, "RTCGet failed: \(failure.message)",
                    hint: failure.hint)
                return
            }
            guard let time = reply.response?.dateTime else {
                report.add(
                    .terminal, "clock", .warning, DiagnoseCode.clockUnreadable.name,
                    RPCOutput.statusMessage(reply.status, command: "RTCGet"), hint: "`ucube rpc rtc-get` shows the answer")
                return
            }
            let host = Int(Date().timeIntervalSince1970)
            let terminal = Self.epochSeconds(time)
            let drift = terminal - host
            let details: [String: DiagnoseValue] = [
                "terminal": .string(time.description), "driftSeconds": .int(drift),
            ]
            if abs(drift) > DiagnoseChoices.clockDriftSeconds {
                report.add(
                    .terminal, "clock", .warning, DiagnoseCode.clockDrift.name,
                    "the terminal clock (\(time.description)) is \(Self.duration(abs(drift))) \(drift > 0 ? "ahead of" : "behind") the host's (UTC)",
                    hint: "`ucube rpc rtc-set` sets it to the host's time (UTC)", details: details)
            } else {
                report.ok(.terminal, "clock", "the terminal clock is within \(abs(drift)) s of the host's (UTC)", details: details)
            }
        }

        /// Seconds since 1970 of a terminal date and time read as UTC (the clock has no time zone; ucube sets UTC).
        static func epochSeconds(_ t: RTCDateTime) -> Int {
            // Days from civil (Howard Hinnant's algorithm).
            let y = t.month <= 2 ? t.year - 1 : t.year
            let era = (y >= 0 ? y : y - 399) / 400
            let yoe = y - era * 400
            let mp = (t.month + 9) % 12
            let doy = (153 * mp + 2) / 5 + t.day - 1
            let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
            let days = era * 146097 + doe - 719468
            return days * 86400 + t.hour * 3600 + t.minute * 60 + t.second
        }

        static func duration(_ seconds: Int) -> String {
            if seconds < 120 { return "\(seconds) s" }
            if seconds < 7200 { return "\(seconds / 60) min" }
            if seconds < 172_800 { return "\(seconds / 3600) h" }
            return "\(seconds / 86400) days"
        }

        // MARK: - TMS

        private static func checkTMS(_ options: TMSOptions, facts info: DeviceInfo?, into report: inout DiagnoseReport) async {
            var settings: TMSSettings
            do {
                settings = try options.settings()
            } catch {
                let failure = CLIFailure(reporting: error)
                if failure.code == CLIErrorCode.name(of: TMSError.Code.notConfigured) {
                    report.add(
                        .tms, "configured", .skipped, DiagnoseCode.tmsNotConfigured.name,
                        "no TMS configured: nothing to check (a payment does not use it)",
                        hint: "to manage the terminal, give --tms, set $UCUBE_TMS_URL or tms_url in $XDG_CONFIG_HOME/ucube/config.json")
                } else {
                    report.add(.tms, "configured", .warning, failure)
                }
                return
            }
            report.ok(.tms, "configured", settings.baseURL, details: ["url": .string(settings.baseURL)])
            if options.timeout == nil {
                settings.connectTimeout = min(settings.connectTimeout, DiagnoseChoices.tmsTimeout)
                settings.readTimeout = min(settings.readTimeout, DiagnoseChoices.tmsTimeout)
            }
            settings.attemptDeadline = min(settings.attemptDeadline, settings.connectTimeout + settings.readTimeout)
            settings.retry.attempts = 1

            var terminal: TerminalIdentity? = nil
            var identity: TMSIdentity? = nil
            if let info {
                terminal = try? TerminalIdentity(info)
            }
            if let terminal {
                let store = TMSContext.identities
                let serial = terminal.serial
                do {
                    identity = try store.load(serial: serial)
                } catch {
                    report.add(
                        .tms, "registered", .warning, DiagnoseCode.tmsIdentityUnreadable.name,
                        "the client identity of \(serial) cannot be used: \(error.reason)",
                        hint: "register again: `ucube mdm-register` replaces it")
                }
                if let identity {
                    let path = (try? store.path(serial: serial)) ?? ""
                    report.ok(.tms, "registered", "terminal \(serial) is registered: \(path)", details: ["identity": .string(path)])
                    checkCertificate(identity, into: &report)
                } else if report.findings.last?.check != "registered" {
                    report.add(
                        .tms, "registered", .warning, DiagnoseCode.tmsNotRegistered.name,
                        "terminal \(serial) is not registered with the TMS (no client identity)",
                        hint: "`ucube mdm-register` registers it")
                }
            } else {
                report.add(.tms, "registered", .skipped, DiagnoseCode.notChecked.name, "not checked: the terminal's serial is unknown")
            }
            await checkReachable(settings, terminal: terminal, identity: identity, into: &report)
        }

        private static func checkCertificate(_ identity: TMSIdentity, into report: inout DiagnoseReport) {
            guard let notAfter = identity.certificateNotValidAfter else {
                report.add(
                    .tms, "certificate", .warning, DiagnoseCode.tmsIdentityUnreadable.name,
                    "the client certificate cannot be read", hint: "register again: `ucube mdm-register` replaces it")
                return
            }
            let date = Date(timeIntervalSince1970: TimeInterval(notAfter))
            let text = ISO8601DateFormatter().string(from: date)
            let days = Int((date.timeIntervalSinceNow / 86400).rounded(.down))
            let details: [String: DiagnoseValue] = ["notAfter": .string(text), "daysLeft": .int(days)]
            if date.timeIntervalSinceNow <= 0 {
                report.add(
                    .tms, "certificate", .warning, DiagnoseCode.tmsCertificateExpired.name,
                    "the client certificate expired on \(text)", hint: "register again: `ucube mdm-register` replaces it",
                    details: details)
            } else if days < DiagnoseChoices.certificateWarningDays {
                report.add(
                    .tms, "certificate", .warning, DiagnoseCode.tmsCertificateExpiring.name,
                    "the client certificate expires on \(text), in \(days) day\(days == 1 ? "" : "s")",
                    hint: "register again before then: `ucube mdm-register` replaces it", details: details)
            } else {
                report.ok(.tms, "certificate", "the client certificate is valid until \(text) (\(days) days)", details: details)
            }
        }

        private static func checkReachable(
            _ settings: TMSSettings, terminal: TerminalIdentity?, identity: TMSIdentity?, into report: inout DiagnoseReport
        ) async {
            // The config request (spec §10.4) reads nothing and changes nothing. Without an identity, any answer from
            // the server (a refusal included) shows it is reachable; with one, it must accept the certificate.
            guard let probe = terminal ?? (try? TerminalIdentity(serial: "0", partNumber: "0")) else { return }
            let client: TMSClient
            do {
                client = try TMSClient(settings: settings, identity: identity)
            } catch {
                report.add(.tms, "reachable", .warning, CLIFailure(error))
                return
            }
            do {
                _ = try await client.config(terminal: probe)
                report.ok(
                    .tms, "reachable",
                    identity != nil ? "the TMS answers and accepts this terminal's certificate" : "the TMS answers")
            } catch {
                let answered: Bool =
                    switch error.code {
                    case .httpStatus, .refused, .notRegistered, .tlsCertificateRejected, .tlsCertificateExpired, .malformedReply: true
                    default: false
                    }
                if answered && identity == nil {
                    report.ok(.tms, "reachable", "the TMS answers (without a client certificate: \(error.reason))")
                } else {
                    report.add(.tms, "reachable", .warning, CLIFailure(error))
                }
            }
            await client.shutdown()
        }

        // MARK: - Journal and disk

        static var journalPath: String { Environment.stateDirectory + "/journal.jsonl" }

        private static func checkJournal(into report: inout DiagnoseReport) {
            let entries: [JournalEntry]
            do {
                entries = RunningPayments.marked(try PaymentJournal.history(journalPath))
            } catch {
                report.add(
                    .journal, "unresolved", .warning, DiagnoseCode.journalUnreadable.name,
                    "the journal cannot be read: \(error.reason)", hint: "check \(journalPath) and its permissions")
                return
            }
            let running = entries.compactMap { e in e.runningPID.map { "\(e.requestID) (pid \($0))" } }
            if !running.isEmpty {
                report.ok(
                    .journal, "running",
                    "\(running.count) payment\(running.count == 1 ? "" : "s") running now: \(running.joined(separator: ", "))",
                    details: ["running": .array(entries.compactMap { e in e.runningPID.map { pid in
                        .object(["requestID": .string(e.requestID), "pid": .int(Int(pid))]) } })])
            }
            let unresolved = entries.filter(\.isUnresolved)
            guard !unresolved.isEmpty else {
                report.ok(
                    .journal, "unresolved", "\(entries.count) payment\(entries.count == 1 ? "" : "s") journalled, none unresolved",
                    details: ["payments": .int(entries.count)])
                return
            }
            let listed: [DiagnoseValue] = unresolved.map { e in
                var fields: [String: DiagnoseValue] = ["requestID": .string(e.requestID)]
                if let t = e.startedAt { fields["startedAt"] = .string(t) }
                if let a = e.amount { fields["amount"] = .int(Int(clamping: a)) }
                if let c = e.currency { fields["currency"] = .string(c) }
                if let d = e.device { fields["device"] = .string(d) }
                if let c = e.lastCommand { fields["lastCommand"] = .string(c) }
                return .object(fields)
            }
            let names = unresolved.map { e in
                "\(e.requestID)\(e.startedAt.map { " (started \($0))" } ?? "")"
            }
            report.add(
                .journal, "unresolved", .warning, DiagnoseCode.unresolvedPayments.name,
                "\(unresolved.count) payment\(unresolved.count == 1 ? "" : "s") never recorded an outcome (the process ended): \(names.joined(separator: ", "))",
                hint: "check each with the acquirer before taking it again, then record it: `ucube history --unresolved` lists them, `ucube history resolve ID --status …` records the outcome",
                details: ["payments": .array(listed)])
        }

        private static func checkDisk(into report: inout DiagnoseReport) {
            let state = Environment.stateDirectory
            if let problem = Environment.stateDirectoryProblem(state) {
                report.add(
                    .disk, "state-directory", .blocking, DiagnoseCode.stateDirectoryUnusable.name,
                    "the state directory \(state) cannot be used: \(problem)",
                    hint: "set XDG_STATE_HOME to a writable directory or fix its permissions: a payment journals its start there before it begins",
                    details: ["path": .string(state)])
            } else {
                report.ok(.disk, "state-directory", "\(state) is writable", details: ["path": .string(state)])
                var fs = statvfs()
                if statvfs(state, &fs) == 0 {
                    let free = UInt64(fs.f_bavail) * UInt64(fs.f_frsize)
                    let details: [String: DiagnoseValue] = ["freeBytes": .int(Int(clamping: free))]
                    if free < DiagnoseChoices.lowDiskBytes {
                        report.add(
                            .disk, "free-space", .warning, DiagnoseCode.diskSpaceLow.name,
                            "\(free / 1000) kB free for the state directory", hint: "free some space on that file system",
                            details: details)
                    } else {
                        report.ok(.disk, "free-space", "\(free / 1_000_000) MB free", details: details)
                    }
                }
            }
            let runtime = Environment.runtimeDirectory
            if let problem = Environment.stateDirectoryProblem(runtime) {
                report.add(
                    .disk, "runtime-directory", .warning, DiagnoseCode.runtimeDirectoryUnusable.name,
                    "the runtime directory \(runtime) cannot be used: \(problem); link sessions and the device lock are not kept",
                    hint: "set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a writable directory", details: ["path": .string(runtime)])
            } else {
                report.ok(.disk, "runtime-directory", "\(runtime) is writable", details: ["path": .string(runtime)])
            }
        }
    }
}
