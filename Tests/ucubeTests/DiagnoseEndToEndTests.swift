import Foundation
import Testing
import UCubeProtocol
import UCubeRuntime

@testable import UCubeCLI

#if canImport(Glibc)
import Glibc
#endif

/// `ucube diagnose` (issue 16): one finding per check, the exit status says whether anything blocks a payment.
struct DiagnoseResult {
    let run: UCubeRun
    let object: [String: Any]

    init(_ run: UCubeRun) throws {
        self.run = run
        guard let data = run.stdout.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw SandboxError(message: "diagnose --json printed no JSON object: \(run.stdout)\n\(run.stderr)") }
        self.object = object
    }

    var blocking: Bool? { object["blocking"] as? Bool }
    var findings: [[String: Any]] { object["findings"] as? [[String: Any]] ?? [] }

    func finding(_ area: String, _ check: String) -> [String: Any]? {
        findings.first { $0["area"] as? String == area && $0["check"] as? String == check }
    }

    func severity(_ area: String, _ check: String) -> String? { finding(area, check)?["severity"] as? String }
    func code(_ area: String, _ check: String) -> String? { finding(area, check)?["code"] as? String }
    func details(_ area: String, _ check: String) -> [String: Any] {
        finding(area, check)?["details"] as? [String: Any] ?? [:]
    }

    /// Every finding has every key; ok findings have a null hint, others a hint unless skipped.
    func checkShape() {
        for f in findings {
            for key in ["area", "check", "code", "severity", "message", "hint", "details"] {
                #expect(f[key] != nil, "\(key) missing in \(f)")
            }
            let severity = f["severity"] as? String
            #expect(["ok", "warning", "blocking", "skipped"].contains(severity ?? ""), "\(f)")
            if severity == "ok" { #expect(f["hint"] is NSNull, "\(f)") }
            if severity == "warning" || severity == "blocking" {
                #expect(f["hint"] is String, "a finding without a hint: \(f)")
            }
        }
        let areas = findings.compactMap { $0["area"] as? String }
        let order = ["link", "terminal", "tms", "journal", "disk"]
        #expect(
            areas == areas.sorted { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }, "grouped by area: \(areas)"
        )
    }
}

extension UCubeSandbox {
    func diagnose(_ extra: [String] = [], timeout: Duration = SafetyNet.process) async throws -> DiagnoseResult {
        let result = try DiagnoseResult(try await run(["diagnose", "--json"] + extra, timeout: timeout))
        result.checkShape()
        return result
    }
}

@Suite(.serialized) struct DiagnoseEndToEndTests {
    @Test func simulatorHasNothingBlockingAndEveryArea() async throws {
        let sandbox = try UCubeSandbox()
        let result = try await sandbox.diagnose()
        #expect(result.run.status == 0, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.blocking == false)
        #expect(result.object["device"] as? String == "sim")
        let areas = Set(result.findings.compactMap { $0["area"] as? String })
        #expect(areas == ["link", "terminal", "tms", "journal", "disk"], "\(areas)")
        #expect(result.severity("link", "open") == "ok")
        #expect(result.severity("terminal", "answer") == "ok")
        #expect(result.severity("terminal", "state") == "ok")
        #expect(result.severity("terminal", "battery") != nil)
        #expect(
            result.details("terminal", "versions")["firmware"] is String, "\(result.details("terminal", "versions"))")
        #expect(result.code("tms", "configured") == "tms-not-configured")
        #expect(result.severity("tms", "configured") == "skipped")
        #expect(result.severity("journal", "unresolved") == "ok")
        #expect(result.severity("disk", "state-directory") == "ok")

        // The text form: a heading per area, one line per check, the summary last.
        let text = try await sandbox.run(["diagnose"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        for area in ["link", "terminal", "tms", "journal", "disk"] { #expect(lines.contains(area), "\(text.stdout)") }
        #expect(lines.last?.hasPrefix("nothing blocks a payment") == true, "\(text.stdout)")
        #expect(text.stdout.contains("hint: "), "the skipped TMS check has its hint: \(text.stdout)")
    }

    /// A fresh simulated terminal's clock is the host's: no drift. Set a year behind, it is a warning naming
    /// `rpc rtc-set`; after that command, within a minute again.
    @Test func clockDrift() async throws {
        let sandbox = try UCubeSandbox()
        let fresh = try await sandbox.diagnose()
        #expect(fresh.severity("terminal", "clock") == "ok", "\(fresh.finding("terminal", "clock") ?? [:])")

        #expect(try await sandbox.run(["rpc", "rtc-set", "2025-11-01T00:00:00"]).status == 0)
        let before = try await sandbox.diagnose()
        #expect(before.run.status == 0, "warnings do not block: \(before.run.stderr)")
        #expect(before.code("terminal", "clock") == "clock-drift", "\(before.finding("terminal", "clock") ?? [:])")
        #expect(before.severity("terminal", "clock") == "warning")
        #expect((before.finding("terminal", "clock")?["hint"] as? String)?.contains("rtc-set") == true)
        let drift = before.details("terminal", "clock")["driftSeconds"] as? Int ?? 0
        #expect(abs(drift) > 60, "\(drift)")

        let set = try await sandbox.run(["rpc", "rtc-set"])
        #expect(set.status == 0, "\(set.stderr)")
        let after = try await sandbox.diagnose()
        #expect(after.severity("terminal", "clock") == "ok", "\(after.finding("terminal", "clock") ?? [:])")
        #expect(abs(after.details("terminal", "clock")["driftSeconds"] as? Int ?? 999) <= 60)
    }

    @Test func unwritableStateDirectoryBlocks() async throws {
        let sandbox = try UCubeSandbox()
        let file = sandbox.directory.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        sandbox.environment["XDG_STATE_HOME"] = file.appendingPathComponent("state").path
        let result = try await sandbox.diagnose()
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.blocking == true)
        #expect(result.severity("disk", "state-directory") == "blocking")
        #expect(result.code("disk", "state-directory") == "state-directory-unusable")
        #expect(result.severity("terminal", "answer") == "ok", "the terminal itself is fine")
        let text = try await sandbox.run(["diagnose"])
        #expect(text.status == 16)
        #expect(text.stdout.contains("blocking  state-directory"), "\(text.stdout)")
        #expect(text.stdout.contains("1 finding blocks a payment"), "\(text.stdout)")
    }

    @Test func unresolvedPaymentIsAWarningListingIt() async throws {
        let sandbox = try UCubeSandbox()
        // Approved payment, then one whose process died after its start record.
        let pay = try await sandbox.run(["pay", "5", "--authorize", "approve"])
        #expect(pay.status == 0, "\(pay.stderr)")
        let journal = sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl")
        let handle = try FileHandle(forWritingTo: journal)
        handle.seekToEndOfFile()
        handle.write(
            Data(
                #"{"kind":"start","requestID":"died-1","time":"2026-11-24T10:00:00Z","amount":700,"currency":"EUR","device":"sim"}"#
                    .utf8 + [0x0A]))
        try handle.close()

        let result = try await sandbox.diagnose()
        #expect(result.run.status == 0, "an unresolved payment is a warning: \(result.run.stderr)")
        #expect(result.severity("journal", "unresolved") == "warning")
        #expect(result.code("journal", "unresolved") == "unresolved-payments")
        let payments = result.details("journal", "unresolved")["payments"] as? [[String: Any]] ?? []
        #expect(payments.count == 1, "\(payments)")
        #expect(payments.first?["requestID"] as? String == "died-1")
        #expect(payments.first?["amount"] as? Int == 700)
        #expect(!result.run.stdout.contains("4761"), "no card data")
    }

    /// A terminal that stops answering (the simulator leaves GetInfo, the third frame after CancelAll and
    /// ExitSecureSession, unanswered): a blocking finding within --rpc-timeout, not a crash or a hang.
    @Test func silentTerminalBlocksWithinTheTimeout() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_FAULT"] = "silent@3"
        let result = try await sandbox.diagnose(["--rpc-timeout", "1"])
        // The bound that ended the wait is --rpc-timeout's, by the finding's own words (not by the time it took).
        let message = result.finding("terminal", "answer")?["message"] as? String ?? ""
        #expect(message.contains("within 1.0 seconds"), "\(message)")
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.severity("link", "open") == "ok")
        #expect(result.severity("terminal", "answer") == "blocking", "\(result.findings)")
        #expect(result.code("terminal", "answer") == "timeout", "\(result.finding("terminal", "answer") ?? [:])")
        #expect(result.finding("terminal", "answer")?["hint"] is String)
        #expect(result.code("tms", "configured") == "tms-not-configured", "the other areas are still checked")
        #expect(result.severity("disk", "state-directory") == "ok")
    }

    /// A link session whose owner died (a crashed process): a warning naming its pid, not blocking.
    @Test func staleSessionOfACrashedProcess() async throws {
        let sandbox = try UCubeSandbox()
        let run = sandbox.directory.appendingPathComponent("run/ucube")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try "secured=0 next=4 owner=999999\n".write(
            to: run.appendingPathComponent("session-sim"), atomically: true, encoding: .utf8)
        let result = try await sandbox.diagnose()
        #expect(result.run.status == 0, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.code("link", "session") == "stale-session", "\(result.findings)")
        #expect(result.details("link", "session")["pid"] as? Int == 999999)
        #expect(result.severity("terminal", "answer") == "ok")
    }

    @Test func tcpWithNothingListeningBlocksWithAHint() async throws {
        let sandbox = try UCubeSandbox()
        let port = try freePort()
        let result = try await sandbox.diagnose(["--device", "tcp://127.0.0.1:\(port)"])
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.severity("link", "open") == "blocking")
        #expect(result.code("link", "open") == "connection-refused", "\(result.finding("link", "open") ?? [:])")
        #expect((result.finding("link", "open")?["hint"] as? String)?.isEmpty == false)
        #expect(result.severity("terminal", "answer") == "skipped")
        let text = try await sandbox.run(["--device", "tcp://127.0.0.1:\(port)", "diagnose"])
        #expect(text.status == 16)
        #expect(text.stdout.contains("hint: "), "\(text.stdout)")
    }

    /// A peer that takes the TCP connection and never answers is not one that refuses it: the finding says the
    /// connection was accepted, and the hint is not "is it listening?".
    @Test func tcpThatAcceptsAndNeverAnswersSaysSo() async throws {
        let sandbox = try UCubeSandbox()
        let listener = try boundSocket(backlog: 4)
        defer { close(listener.fd) }
        let result = try await sandbox.diagnose(["--device", "tcp://127.0.0.1:\(listener.port)", "--rpc-timeout", "1"])
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.code("link", "open") == "timeout", "\(result.finding("link", "open") ?? [:])")
        let message = result.finding("link", "open")?["message"] as? String ?? ""
        #expect(message.contains("the TCP connection was accepted, but nothing answered"), "\(message)")
        let hint = result.finding("link", "open")?["hint"] as? String ?? ""
        #expect(hint.contains("does not speak the terminal's protocol"), "\(hint)")
        #expect(result.severity("terminal", "answer") == "skipped")
    }

    @Test func overTCPToTheSimulatorAndInTheShell() async throws {
        let sandbox = try UCubeSandbox()
        let (simulator, port) = try await sandbox.startSimulator()
        defer { simulator.terminate() }
        let result = try await sandbox.diagnose(["--device", "tcp://127.0.0.1:\(port)"])
        #expect(result.run.status == 0, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.details("link", "device")["transport"] as? String == "tcp")
        #expect(result.severity("terminal", "answer") == "ok")

        // The shell runs it on its one link; a blocking finding fails the line with 16.
        let shell = try await sandbox.run(["shell"], input: "diagnose\nset json on\ndiagnose\n")
        #expect(shell.status == 0, "\(shell.stdout)\(shell.stderr)")
        #expect(shell.stdout.contains("nothing blocks a payment"), "\(shell.stdout)")
        #expect(shell.stdout.contains(#""blocking":false"#), "\(shell.stdout)")
        let port2 = try freePort()
        let failing = try await sandbox.run(["shell"], input: "diagnose --device tcp://127.0.0.1:\(port2)\n")
        #expect(failing.status == 16, "\(failing.stdout)\(failing.stderr)")
    }

    @Test func tmsRegisteredAndCertificateExpiry() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await TMSEndToEndTests.startTMS(sandbox)
        defer { tms.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = tms.url
        sandbox.environment["UCUBE_TMS_CA"] = tms.ca

        let before = try await sandbox.diagnose()
        #expect(before.run.status == 0, "\(before.run.stderr)")
        #expect(before.severity("tms", "configured") == "ok")
        #expect(before.code("tms", "registered") == "tms-not-registered", "\(before.findings)")
        #expect(before.severity("tms", "reachable") == "ok", "\(before.finding("tms", "reachable") ?? [:])")

        let register = try await sandbox.run("--device sim mdm-register")
        #expect(register.status == 0, "\(register.stderr)")
        let after = try await sandbox.diagnose()
        #expect(after.run.status == 0, "\(after.run.stderr)")
        #expect(after.severity("tms", "registered") == "ok", "\(after.findings)")
        #expect(after.severity("tms", "reachable") == "ok", "\(after.finding("tms", "reachable") ?? [:])")
        let certificate = after.details("tms", "certificate")
        #expect(certificate["notAfter"] is String, "\(after.finding("tms", "certificate") ?? [:])")
        #expect((certificate["daysLeft"] as? Int ?? -1) > 0)

        // A TMS that is gone: a warning with the TMS client's code, not a blocking finding.
        tms.process.terminate()
        _ = await tms.process.exit()
        let gone = try await sandbox.diagnose()
        #expect(gone.run.status == 0, "\(gone.run.stdout)")
        #expect(gone.severity("tms", "reachable") == "warning", "\(gone.finding("tms", "reachable") ?? [:])")
        #expect(gone.code("tms", "reachable")?.hasPrefix("tms-") == true)
    }

    /// A stored client certificate that expires tomorrow, then one that expired yesterday (made with the openssl
    /// tool, PKCS#12 with the spec's password): warnings naming the date, not blocking.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl tool"))
    func clientCertificateExpiringAndExpired() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_TMS_URL"] = "https://127.0.0.1:\(try freePort())"
        let first = try await sandbox.diagnose()
        #expect(first.code("tms", "registered") == "tms-not-registered")
        let serial = try #require(first.details("terminal", "answer")["serialNumber"] as? String, "\(first.findings)")
        let tms = sandbox.directory.appendingPathComponent("config/ucube/tms")
        try FileManager.default.createDirectory(at: tms, withIntermediateDirectories: true)
        for (days, code) in [(1, "tms-certificate-expiring"), (-1, "tms-certificate-expired")] {
            let key = sandbox.directory.appendingPathComponent("key.pem").path
            let cert = sandbox.directory.appendingPathComponent("cert.pem").path
            try await openssl([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                "-out", cert, "-days", "1", "-subj", "/CN=\(serial)",
            ])
            if days < 1 { try await openssl(["x509", "-in", cert, "-signkey", key, "-days", "\(days)", "-out", cert]) }
            try await openssl([
                "pkcs12", "-export", "-inkey", key, "-in", cert, "-out",
                tms.appendingPathComponent("\(serial).p12").path, "-passout", "pass:gmxsas",
            ])
            let result = try await sandbox.diagnose()
            #expect(result.run.status == 0, "\(result.run.stdout)\(result.run.stderr)")
            #expect(result.severity("tms", "registered") == "ok", "\(result.findings)")
            #expect(result.code("tms", "certificate") == code, "\(result.finding("tms", "certificate") ?? [:])")
            #expect(result.severity("tms", "certificate") == "warning")
            #expect((result.finding("tms", "certificate")?["hint"] as? String)?.contains("mdm-register") == true)
            let daysLeft = result.details("tms", "certificate")["daysLeft"] as? Int ?? 99
            #expect(days > 0 ? daysLeft >= 0 && daysLeft <= 1 : daysLeft < 0, "\(daysLeft)")
            #expect(result.severity("tms", "reachable") == "warning", "nothing listens there")
        }
    }

    /// The openssl tool, waited for off the cooperative pool (`Process.exit`).
    private func openssl(_ arguments: [String]) async throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try UCubeSandbox.start(p)
        guard await p.exit() == 0 else {
            throw SandboxError(message: "openssl \(arguments.joined(separator: " ")) failed")
        }
    }

    private func freePort() throws -> Int {
        let bound = try boundSocket()
        close(bound.fd)
        return bound.port
    }

    /// A socket on a free port of 127.0.0.1, left open for the caller to close; with `backlog`, listening: the kernel
    /// takes connections into its backlog and nothing ever answers them.
    private func boundSocket(backlog: Int32? = nil) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
            close(fd)
            throw SandboxError(message: "no free port")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// Each Bluetooth failure the BlueZ mock can raise, named by `ucube diagnose` with a hint, blocking.
@Suite(.serialized)
struct DiagnoseBluetoothTests {
    static let device = ["--device", "ble://" + BlueZMock.terminalAddress]

    @Test func healthyBluetoothLink() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox)
        defer { bluez.stop() }
        let result = try await sandbox.diagnose(Self.device)
        #expect(result.run.status == 0, "\(result.run.stdout)\(result.run.stderr)\n\(bluez.log.suffix(2000))")
        for check in ["bus", "bluez", "adapter", "permission", "bluetooth-device", "open"] {
            #expect(result.severity("link", check) == "ok", "\(check): \(result.finding("link", check) ?? [:])")
        }
        #expect(result.severity("terminal", "answer") == "ok")
    }

    @Test func blueZNotRunning() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox, parameters: ["bluez_running": false])
        defer { bluez.stop() }
        let result = try await sandbox.diagnose(Self.device)
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.code("link", "bluez") == "bluez-not-running", "\(result.findings)")
        #expect(result.severity("link", "bluez") == "blocking")
        #expect((result.finding("link", "bluez")?["hint"] as? String)?.contains("systemctl") == true)
        #expect(result.severity("link", "open") == "skipped")
    }

    @Test func adapterPoweredOff() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox, parameters: ["adapter_powered": false])
        defer { bluez.stop() }
        let result = try await sandbox.diagnose(Self.device)
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.code("link", "adapter") == "bluetooth-adapter-off", "\(result.findings)")
        #expect((result.finding("link", "adapter")?["hint"] as? String)?.contains("power on") == true)
        #expect(result.details("link", "adapter")["adapter"] as? String == "hci0")
    }

    @Test func permissionDenied() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(
            sandbox, parameters: ["deny": ["SetDiscoveryFilter", "StartDiscovery", "Connect"]])
        defer { bluez.stop() }
        let result = try await sandbox.diagnose(Self.device)
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.code("link", "permission") == "bluetooth-permission-denied", "\(result.findings)")
        #expect((result.finding("link", "permission")?["hint"] as? String)?.contains("bluetooth group") == true)
        #expect(result.severity("link", "adapter") == "ok")
        #expect(result.severity("link", "open") == "skipped")
        bluez.stop()

        // Refused only when connecting: the link does not open, and the finding says why.
        let other = try UCubeSandbox()
        let connectOnly = try await BlueZMock(other, parameters: ["deny": ["Connect"]])
        defer { connectOnly.stop() }
        let open = try await other.diagnose(Self.device)
        #expect(open.run.status == 16, "\(open.run.stdout)\(open.run.stderr)")
        #expect(open.severity("link", "permission") == "ok")
        #expect(open.code("link", "open") == "bluetooth-permission-denied", "\(open.findings)")
        #expect((open.finding("link", "open")?["hint"] as? String)?.contains("bluetooth group") == true)
    }

    @Test func pendingConnectionLeftByACrashedProcess() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox, parameters: ["pending_connection": true])
        defer { bluez.stop() }
        let result = try await sandbox.diagnose(Self.device)
        #expect(result.run.status == 16, "\(result.run.stdout)\(result.run.stderr)")
        #expect(result.code("link", "connection") == "bluetooth-connection-pending", "\(result.findings)")
        #expect(result.severity("link", "connection") == "blocking")
        #expect((result.finding("link", "connection")?["hint"] as? String)?.contains("bluetoothctl disconnect") == true)
        #expect(result.code("link", "open") == "bluetooth-connection-pending", "\(result.findings)")
        #expect(result.severity("link", "open") == "blocking")
    }
}

/// The codes the guide (docs/guide.md, "Diagnosing") and `diagnose --help` document are every code the command gives,
/// and docs/exit-codes.md has its exit code.
@Suite struct DiagnoseDocumentationTests {
    static func document(_ path: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return (try? String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    @Test func everyCodeIsDocumented() {
        let guide = Self.document("docs/guide.md")
        let help = UCube.Diagnose.discussion
        for code in DiagnoseCode.allCases.map(\.name) + DiagnoseCode.bluetooth where code != "ok" {
            #expect(guide.contains("`\(code)`"), "docs/guide.md lacks \(code)")
            #expect(help.contains(code), "diagnose --help lacks \(code)")
        }
        #expect(Self.document("docs/exit-codes.md").contains("| 16 |"))
        #expect(ExitCodes.all.contains { $0.code == 16 && $0.name == "blocking" })
    }

    @Test func terminalTimeIsReadAsUTC() {
        let t = RTCDateTime(year: 2026, month: 11, day: 24, hour: 10, minute: 0, second: 5)
        #expect(Diagnosis.epochSeconds(t) == 1_795_514_405)
        #expect(
            Diagnosis.epochSeconds(RTCDateTime(year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0))
                == 946_684_800)
    }
}
