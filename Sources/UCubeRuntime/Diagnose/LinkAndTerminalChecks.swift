import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeTMS

/// `ucube diagnose`: the link and terminal checks.
extension Diagnosis {

    static func checkLinkAndTerminal(_ context: CommandContext, into report: inout DiagnoseReport) async -> DeviceInfo?
    {
        let address: DeviceAddress
        do {
            address = try Connection.resolve(nil, context)
        } catch {
            report.add(.link, "device", .blocking, CLIFailure(reporting: error))
            skipTerminal(&report, because: "the device is unknown")
            return nil
        }
        let transport = RememberedDevices.transportName(address)
        report.ok(
            .link, "device", "\(address.description) (\(Self.transportDescription(address)))",
            details: ["device": .string(address.description), "transport": .string(transport)])

        let shellLink = context.shell != nil
        if !shellLink {
            do {
                try DeviceLock.acquire(key: Environment.fileKey(address), device: address.description)
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
            let diagnosis = await BluetoothDiagnosis.run(target: target, timeout: context.timeout)
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
                report.add(
                    .link, step.name.rawValue, .blocking, problem.rawValue, step.message, hint: step.hint,
                    details: details)
                report.add(.link, "open", .skipped, DiagnoseCode.notChecked.name, "not tried: Bluetooth is not usable")
                skipTerminal(&report, because: "the link is not open")
                return nil
            }
        }

        let connection: Connection
        do {
            if let session = context.shell {
                connection = try await session.connection(context, card: nil)
            } else {
                let seconds = Int64(DiagnoseChoices.bluetoothTimeout.components.seconds)
                connection = try await Connection.open(
                    context, address: address,
                    bluetooth: BLEConnectOptions(timeout: .seconds(seconds), attempts: 1), prepare: .ready)
            }
        } catch {
            let failure = CLIFailure(reporting: error)
            if pendingBluetooth {
                addPendingBluetooth(address, .blocking, into: &report)
            }
            if case .ble = address,
                let problem = BluetoothDiagnosis.problem(inLinkFailure: failure.message + " " + (failure.detail ?? ""))
            {
                let hint: String =
                    switch problem {
                    case .permissionDenied:
                        "add the user to the bluetooth group (sudo usermod -aG bluetooth $USER, then log in again)"
                    case .connectionPending:
                        "bluetoothctl disconnect \(address.description.dropFirst("ble://".count)), or switch the terminal off and on"
                    case .adapterOff: "bluetoothctl power on"
                    default: failure.hint ?? "check the terminal is on and in range"
                    }
                report.add(.link, "open", .blocking, problem.rawValue, failure.message, hint: hint)
            } else {
                report.add(
                    .link, "open", .blocking, failure.code, Self.openMessage(address, failure),
                    hint: failure.hint ?? Self.openHint(address, code: failure.code))
            }
            skipTerminal(&report, because: "the link is not open")
            return nil
        }
        if pendingBluetooth { addPendingBluetooth(address, .warning, into: &report) }
        report.ok(.link, "open", "the link to \(address.description) is open")

        let info = await checkTerminal(connection, into: &report)
        if !shellLink { await connection.close() }
        return info
    }

    static func addPendingBluetooth(
        _ address: DeviceAddress, _ severity: DiagnoseFinding.Severity, into report: inout DiagnoseReport
    ) {
        let target: String = if case .ble(let t) = address { t } else { address.description }
        report.add(
            .link, "connection", severity, BluetoothDiagnosis.Step.Problem.connectionPending.rawValue,
            severity == .blocking
                ? "BlueZ holds a connection to \(target) that no ucube process does, and it is in the way"
                : "BlueZ held a connection to \(target) that no ucube process did; the link opened over it",
            hint: "bluetoothctl disconnect \(target), or switch the terminal off and on")
    }

    /// A TCP peer that took the connection and never answered is not one that refused it: say which.
    static func openMessage(_ address: DeviceAddress, _ failure: CLIFailure) -> String {
        guard case .tcp = address, failure.code == LinkError.Code.timeout.rawValue else { return failure.message }
        return "the TCP connection was accepted, but nothing answered: \(failure.message)"
    }

    static func openHint(_ address: DeviceAddress, code: String? = nil) -> String {
        switch address {
        case .tcp where code == LinkError.Code.timeout.rawValue:
            "something listens there but does not speak the terminal's protocol: check that it is a uCube bridge or `ucube simulate --listen`, not another service, and that no other program is talking to the terminal"
        case .tcp: "is the terminal (or `ucube simulate --listen`) running and listening there?"
        case .serial: "check the device file exists and this user may open it (the dialout group)"
        case .ble: "check the terminal is on and in range (`ucube scan`)"
        case .rfcomm: "check the terminal is on, paired and in range"
        default: "check the device (--device)"
        }
    }

    static func transportDescription(_ address: DeviceAddress) -> String {
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

    static func skipTerminal(_ report: inout DiagnoseReport, because reason: String) {
        report.add(.terminal, "answer", .skipped, DiagnoseCode.notChecked.name, "not checked: \(reason)")
    }

    static func checkTerminal(_ connection: Connection, into report: inout DiagnoseReport) async -> DeviceInfo? {
        let info: DeviceInfo
        do {
            info = try await connection.client.deviceInfo(tags: GetInfo.standardTags)
        } catch {
            let failure = CLIFailure(reporting: error)
            report.add(
                .terminal, "answer", .blocking, failure.code, "GetInfo failed: \(failure.message)",
                hint: failure.hint ?? "switch the terminal off and on, then run `ucube diagnose` again")
            return nil
        }
        var who: [String: DiagnoseValue] = [:]
        if let serial = info.serialNumber { who["serialNumber"] = .string(serial) }
        if let pn = info.partNumber { who["partNumber"] = .string(pn) }
        report.ok(
            .terminal, "answer",
            "the terminal answers: serial \(info.serialNumber ?? "?"), part number \(info.partNumber ?? "?")",
            details: who)

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
                .terminal, "state", .warning, DiagnoseCode.terminalStateUnknown.name,
                "GetInfo gave no terminal state (C4)",
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
                    hint: "charge the terminal: it switches off when the battery runs out, even mid-payment",
                    details: details)
            } else {
                report.ok(
                    .terminal, "battery", "battery at \(battery) %\(charging.map { ", \($0)" } ?? "")", details: details
                )
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
            ("emvNFCConfig", "NFC configuration", info.emvNFCConfigVersion),
            ("nfcFirmware", "NFC firmware", info.nfcFirmwareVersion),
        ]
        var versionDetails: [String: DiagnoseValue] = [:]
        for case (let key, _, let version?) in versions { versionDetails[key] = .string(version.description) }
        if let firmware = info.firmwareVersion {
            let text = versions.compactMap { _, label, v in v.map { "\(label) \($0)" } }.joined(separator: ", ")
            report.ok(.terminal, "versions", text.isEmpty ? "firmware \(firmware)" : text, details: versionDetails)
        } else {
            report.add(
                .terminal, "versions", .warning, DiagnoseCode.versionsUnknown.name,
                "GetInfo gave no firmware version (D1)",
                hint: "`ucube info` shows what the terminal answers", details: versionDetails)
        }

        await checkClock(connection, into: &report)
        return info
    }

    static func checkClock(_ connection: Connection, into report: inout DiagnoseReport) async {
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
                reply.status.failureMessage(command: "RTCGet"), hint: "`ucube rpc rtc-get` shows the answer")
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
            report.ok(
                .terminal, "clock", "the terminal clock is within \(abs(drift)) s of the host's (UTC)", details: details
            )
        }
    }

    /// Seconds since 1970 of a terminal date and time read as UTC (the clock has no time zone; ucube sets UTC).
    package static func epochSeconds(_ t: RTCDateTime) -> Int {
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
}
