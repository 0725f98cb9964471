import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private D-Bus bus with python-dbusmock's BlueZ template extended with a uCube Touch
/// (Tests/Fixtures/bluez/ucube_bluez.py), whose TxRx characteristic relays to `ucube simulate --codec ble`.
/// Started per test, stopped at its end.
final class BlueZMock: @unchecked Sendable {
    static let python = "/usr/bin/python3"
    static let terminalName = "YT-Touch 0001"
    static let terminalAddress = "C0:FF:EE:00:00:01"

    /// Debian's python3 with python3-dbusmock, and dbus-daemon, are installed.
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", "import dbusmock"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? UCubeSandbox.start(p)) != nil else { return false }
        return p.waitForEnd() == ChildExit(status: 0, signalled: false)
    }()

    static var template: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/bluez/ucube_bluez.py").path
    }

    let sandbox: UCubeSandbox
    let busAddress: String
    private var daemon: Process?
    private var simulator: Process?
    private var mock: Process?
    let mockLog: URL

    /// Starts the bus, the simulator (BLE-stuffed stream) and the mock; points the sandbox's ucube at the bus.
    init(_ sandbox: UCubeSandbox, parameters: [String: Any] = [:]) async throws {
        guard Self.available else {
            throw SandboxError(
                message:
                    "the BlueZ mock needs Debian's python3-dbusmock and dbus-daemon (bash Scripts/setup.sh --test installs them)"
            )
        }
        self.sandbox = sandbox
        let dir = sandbox.directory.appendingPathComponent("bluez")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        busAddress = "unix:path=" + dir.appendingPathComponent("bus.sock").path
        mockLog = dir.appendingPathComponent("mock.log")

        // In the foreground (not --fork), so it is this test's child and stops with it.
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = [
            "--config-file=/usr/share/dbus-1/session.conf", "--address=" + busAddress, "--nofork", "--print-address",
        ]
        let out = Pipe.cloexec()
        daemon.standardOutput = out
        daemon.standardError = FileHandle.nullDevice
        try UCubeSandbox.start(daemon)
        self.daemon = daemon
        let printed = await UCubeSandbox.readUntil(out, contains: "\n")
        guard printed.contains("unix:") else {
            stop()
            throw SandboxError(message: "dbus-daemon did not start: \(printed)")
        }

        let (sim, port) = try await sandbox.startSimulator(["--codec", "ble"])
        simulator = sim

        var params = parameters
        params["simulator"] = "127.0.0.1:\(port)"
        let ready = dir.appendingPathComponent("ready")
        params["ready_file"] = ready.path
        let json = String(decoding: try JSONSerialization.data(withJSONObject: params), as: UTF8.self)
        _ = FileManager.default.createFile(atPath: mockLog.path, contents: nil)
        let log = try FileHandle(forWritingTo: mockLog)
        let mock = Process()
        mock.executableURL = URL(fileURLWithPath: Self.python)
        mock.arguments = ["-m", "dbusmock", "--system", "--template", Self.template, "-p", json]
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress
        mock.environment = env
        mock.standardOutput = log
        mock.standardError = log
        try UCubeSandbox.start(mock)
        self.mock = mock
        sandbox.environment["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress

        // Hang guard only: the mock writes the ready file as soon as it serves the bus.
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: ready.path) {
            if !mock.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard FileManager.default.fileExists(atPath: ready.path) else {
            stop()
            throw SandboxError(message: "the BlueZ mock did not start: \(log_)")
        }
    }

    private var log_: String { (try? String(contentsOf: mockLog, encoding: .utf8)) ?? "" }
    var log: String { log_ }

    /// SIGKILL: the test runner's children may inherit an ignored SIGTERM, and the mock's GLib loop does not stop on it.
    func stop() {
        for process in [mock, simulator, daemon].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Self.awaitDeath(process.processIdentifier)
        }
    }

    /// Waits (at most 10 s) until `pid` is dead, a zombie or gone, reading /proc rather than calling
    /// `waitUntilExit`: Foundation learns of a child's exit from a socket the child inherits, and a process the
    /// child started keeps that socket open (swift-corelibs-foundation issue 4795). The private dbus-daemon, killed
    /// under load, then left `waitUntilExit` spinning for good and the whole suite with it.
    static func awaitDeath(_ pid: Int32) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return }  // reaped
            // "PID (COMM) STATE …": Z is a zombie, X dead.
            if let state = stat[close...].dropFirst(2).first, state == "Z" || state == "X" { return }
            usleep(10_000)
        }
    }

    deinit { stop() }
}

/// Issue 6: scan, connect, info and a payment over the real BLE code path (libdbus → BlueZ API → GATT → stuffing
/// and 20-byte chunks), against BlueZ mocked on a private bus.
@Suite(.serialized)
struct BluetoothEndToEndTests {
    @Test func scanConnectInfoAndPayOverBLE() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox)
        defer { bluez.stop() }

        let scan = try await sandbox.run(["scan", "--timeout", "0.5", "--json"])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("\"name\": \"\(BlueZMock.terminalName)\""), "\(scan.stdout)")
        #expect(scan.stdout.contains(BlueZMock.terminalAddress))
        #expect(scan.stdout.contains("\"rssi\": -52"))
        #expect(scan.stdout.contains("uCube Touch (BLE)"))

        // A name filter that matches nothing lists nothing.
        let none = try await sandbox.run(["scan", "--timeout", "0.2", "--json", "--name", "^uCube 9"])
        #expect(none.status == 0)
        #expect(!none.stdout.contains(BlueZMock.terminalAddress), "\(none.stdout)")

        // Connect: GATT resolution, HState read (off), password written, power-on notified, GetInfo, remembered.
        let connect = try await sandbox.run(["connect", BlueZMock.terminalName, "--trace"])
        #expect(connect.status == 0, "\(connect.stderr)\n\(bluez.log)")
        #expect(connect.stdout.contains("serial number: "), "\(connect.stdout)")
        #expect(connect.stderr.contains("ble: HState 30"), "\(connect.stderr)")
        #expect(connect.stderr.contains("writing the connection password"))
        #expect(connect.stderr.contains("terminal powered on"))
        #expect(bluez.log.contains("password accepted"))
        let devices = try String(
            contentsOf: sandbox.directory.appendingPathComponent("config/ucube/devices.json"), encoding: .utf8)
        #expect(devices.contains(BlueZMock.terminalName))
        #expect(
            devices.contains("ble:\\/\\/\(BlueZMock.terminalAddress)")
                || devices.contains("ble://\(BlueZMock.terminalAddress)"))

        let list = try await sandbox.run(["connect", "--list"])
        // Quoted as a shell word: the name has a space (`--device 'YT-Touch 0001'`).
        #expect(list.stdout.contains("* '\(BlueZMock.terminalName)'"), "\(list.stdout)")

        let info = try await sandbox.run(["--device", BlueZMock.terminalName, "info", "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("serialNumber") || info.stdout.contains("serial"), "\(info.stdout)")

        // The remembered terminal is the default device: no --device needed.
        let byDefault = try await sandbox.run(["info"])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(byDefault.stdout.contains("serial number"))

        let pay = try await sandbox.run([
            "--device", BlueZMock.terminalName, "pay", "5", "--authorize", "approve", "--trace",
        ])
        #expect(pay.status == 0, "\(pay.stderr.suffix(3000))\n\(bluez.log.suffix(3000))")
        #expect(pay.stdout.contains("APPROVED"), "\(pay.stdout)")
        // Stuffing and 20-byte chunks, visible in --trace.
        #expect(pay.stderr.contains("ble stuffed"), "\(pay.stderr.prefix(2000))")
        #expect(pay.stderr.contains("(20 bytes): "), "no full 20-byte write or notification")
        let writes = pay.stderr.split(separator: "\n").filter { $0.hasPrefix("ble> write ") }
        #expect(
            writes.contains { $0.contains("write 1/2 (20 bytes)") || $0.contains("write 1/3 (20 bytes)") }, "\(writes)")
        #expect(
            writes.allSatisfy { $0.hasSuffix(" 0E 0F") || !$0.contains("write 1/1") },
            "a single write ends with the EOM")
        let sizes = writes.compactMap { line -> Int? in
            guard let open = line.firstIndex(of: "("), let space = line[open...].firstIndex(of: " ") else { return nil }
            return Int(line[line.index(after: open)..<space])
        }
        #expect(!sizes.isEmpty && sizes.allSatisfy { $0 <= 20 }, "\(sizes)")
        #expect(pay.stderr.contains("ble< notification"))
        // A PAN never appears unmasked on the trace.
        #expect(!pay.stderr.contains("4761739001010010"))

        let forget = try await sandbox.run(["connect", "--forget", BlueZMock.terminalName])
        #expect(forget.status == 0)
        let after = try await sandbox.run(["--device", BlueZMock.terminalName, "info"])
        #expect(after.status == 64, "\(after.stderr)")
    }

    /// A link dropped while a command waits for its answer fails that command at once with a link error (exit 5,
    /// not the timeout's 4), and the next `ucube connect` works.
    @Test func droppedLinkFailsTheCommandAtOnceAndReconnectWorks() async throws {
        let sandbox = try UCubeSandbox()
        // Messages 1–3 are connect's CancelAll, ExitSecureSession and GetInfo; message 6, the GetInfo of the info below
        // (after its CancelAll and ExitSecureSession), is swallowed and the link dropped; so is message 17, the fifth of
        // the payment that starts at message 13 (after connect and info again, 3 messages each).
        let bluez = try await BlueZMock(sandbox, parameters: ["drop_after_messages": [6, 17]])
        defer { bluez.stop() }

        let connect = try await sandbox.run(["connect", BlueZMock.terminalName])
        #expect(connect.status == 0, "\(connect.stderr)\n\(bluez.log)")

        let info = try await sandbox.run(["--device", BlueZMock.terminalName, "--rpc-timeout", "30", "info"])
        #expect(info.status == 5, "\(info.stdout)\(info.stderr)")
        #expect(info.stderr.contains("dropped the BLE link"), "\(info.stderr)")
        #expect(bluez.log.contains("swallowed"))

        let again = try await sandbox.run(["connect", BlueZMock.terminalName])
        #expect(again.status == 0, "\(again.stderr)\n\(bluez.log)")
        let info2 = try await sandbox.run(["info"])
        #expect(info2.status == 0, "\(info2.stderr)")

        // In the middle of a payment: the payment ends in ERROR_DISCONNECT with the link's exit code, and is journaled.
        let pay = try await sandbox.run(["pay", "5", "--authorize", "approve"])
        #expect(pay.status == 5, "\(pay.stdout)\(pay.stderr)")
        #expect(pay.stdout.contains("ERROR_DISCONNECT"), "\(pay.stdout)")
        #expect(pay.stderr.contains("dropped the BLE link"), "\(pay.stderr)")
        let history = try await sandbox.run(["history"])
        #expect(history.stdout.contains("ERROR_DISCONNECT"), "\(history.stdout)")
        let again2 = try await sandbox.run(["pay", "5", "--authorize", "approve"])
        #expect(again2.status == 0, "\(again2.stdout)\(again2.stderr)\n\(bluez.log.suffix(2000))")
    }

    /// Issue 24 (seen over real BlueZ in the BLE test bed, 2 commands in 13): the link drops during the GATT
    /// resolution and BlueZ connects again by itself. The disconnection belongs to the link that is gone: the
    /// command runs on the one that came back, instead of failing "link lost" on its first frame.
    @Test func aLinkThatDropsAndReturnsDuringResolutionIsNotLostAfterwards() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox, parameters: ["blip_on_connect": true])
        defer { bluez.stop() }
        let info = try await sandbox.run(["--device", "ble://" + BlueZMock.terminalName, "info"])
        #expect(bluez.log.contains("came back"), "\(bluez.log)")
        #expect(info.status == 0, "\(info.stdout)\(info.stderr)\n\(bluez.log.suffix(1500))")
        #expect(info.stdout.contains("serial number"), "\(info.stdout)")
    }

    /// A negotiated ATT MTU (BlueZ's `MTU` property): every write is at most MTU − 3 bytes, so each frame of a payment
    /// goes in one write; `--trace` says the size (spec §3.1).
    @Test func writesFollowTheNegotiatedMTU() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox, parameters: ["mtu": 247])
        defer { bluez.stop() }
        let pay = try await sandbox.run([
            "--device", "ble://" + BlueZMock.terminalName, "--trace", "pay", "5", "--authorize", "approve",
        ])
        #expect(pay.status == 0, "\(pay.stderr.suffix(3000))\n\(bluez.log.suffix(2000))")
        #expect(pay.stderr.contains("ble: ATT MTU 247: writes of at most 244 bytes"), "\(pay.stderr.prefix(3000))")
        let writes = pay.stderr.split(separator: "\n").filter { $0.hasPrefix("ble> write ") }
        let sizes = writes.compactMap { line -> Int? in
            guard let open = line.firstIndex(of: "("), let space = line[open...].firstIndex(of: " ") else { return nil }
            return Int(line[line.index(after: open)..<space])
        }
        #expect(!sizes.isEmpty && sizes.allSatisfy { $0 <= 244 } && sizes.contains { $0 > 20 }, "\(sizes)")
        // Every frame of the payment fits one write at this MTU.
        #expect(writes.allSatisfy { $0.hasPrefix("ble> write 1/1 ") }, "\(writes)")
    }

    @Test func refusedPasswordIsALinkError() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox, parameters: ["password_name": "YT-Touch 9999"])
        defer { bluez.stop() }
        let connect = try await sandbox.run(["connect", BlueZMock.terminalName, "--tries", "1"])
        #expect(connect.status == 5, "\(connect.stderr)")
        #expect(connect.stderr.contains("refused the connection password"), "\(connect.stderr)")
        #expect(
            !FileManager.default.fileExists(
                atPath: sandbox.directory.appendingPathComponent("config/ucube/devices.json").path))
    }

    /// A device BlueZ never sees: scanning first, then a clear error.
    @Test func unknownDeviceIsNotFoundAfterScanning() async throws {
        let sandbox = try UCubeSandbox()
        let bluez = try await BlueZMock(sandbox)
        defer { bluez.stop() }
        let connect = try await sandbox.run(["connect", "ble://AA:BB:CC:DD:EE:FF", "--timeout", "0.5", "--tries", "1"])
        #expect(connect.status == 5, "\(connect.stderr)")
        #expect(connect.stderr.contains("no Bluetooth device 'AA:BB:CC:DD:EE:FF' found"), "\(connect.stderr)")
    }
}

/// Without BlueZ (no bus, or a bus without org.bluez) and without a radio: clear link errors, never a hang.
@Suite struct BluetoothUnavailableTests {
    @Test func scanWithoutABusIsALinkError() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["DBUS_SYSTEM_BUS_ADDRESS"] =
            "unix:path=" + sandbox.directory.appendingPathComponent("no-bus.sock").path
        let scan = try await sandbox.run(["scan", "--timeout", "0.1"])
        #expect(scan.status == 5, "\(scan.stderr)")
        #expect(scan.stderr.contains("D-Bus system bus"), "\(scan.stderr)")
    }

    @Test func rfcommWithoutKernelSupportNamesTheErrno() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--device", "rfcomm://00:11:22:33:44:55", "info"])
        #expect(run.status == 5, "\(run.stderr)")
        let s = socket(31, 1, 3)
        if s < 0 {
            #expect(run.stderr.contains("EAFNOSUPPORT"), "\(run.stderr)")
        } else {
            close(s)
        }
    }

    @Test func badRFCOMMAddressIsAUsageError() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--device", "rfcomm://00:11:22", "info"])
        #expect(run.status == 64, "\(run.stderr)")
    }
}
