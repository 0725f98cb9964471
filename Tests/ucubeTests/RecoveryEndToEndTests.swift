import Foundation
import Testing
import UCubeProtocol
import UCubeSimulator

/// A terminal outlives every ucube process (issue 12): whatever state a process leaves it in when it dies — a secure
/// session open, a long command pending, a sequence number nobody knows, a session file that says otherwise, a
/// terminal that rebooted — the next `info`, `pay` and `mdm-update` work.
///
/// Each flow below is interrupted at every one of its commands, on the in-process simulator and over TCP, in two
/// ways: SIGKILL while the terminal holds command k unanswered (the simulator's `silent@k` fault: a hung terminal,
/// the process killed waiting), and a link dropped when command k arrives (`drop@k`). Then the three commands run
/// straight after, in the same state directories, and must succeed. The eight flows run in parallel, each in its own
/// sandbox (one after the other, the slowest test of the suite took as long as the rest of it together).
@Suite struct RecoveryEndToEndTests {
    enum Transport: String, CaseIterable, CustomTestStringConvertible {
        case sim, tcp
        var testDescription: String { rawValue }
    }

    enum Flow: String, CaseIterable, CustomTestStringConvertible {
        case pay, enterSecureSession, mdmUpdate, shell
        var testDescription: String { rawValue }
    }

    /// The images the flows install: an SVPP firmware (the terminal reboots after it) for the interrupted update, an
    /// ICC configuration for the update that must succeed afterwards. Small, so a flow has few Load blocks.
    final class Images: Sendable {
        let directory: URL
        let svpp: (image: String, signature: String)
        let icc: (image: String, signature: String)

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ucube-images-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            svpp = (
                directory.appendingPathComponent("svpp.bin").path, directory.appendingPathComponent("svpp.sig").path
            )
            icc = (directory.appendingPathComponent("icc.bin").path, directory.appendingPathComponent("icc.sig").path)
            try SimulatedFirmware.writeImage(
                type: .svppFirmware, version: FirmwareVersion([6, 0, 2, 0]), payloadSize: 3_000, imagePath: svpp.image,
                signaturePath: svpp.signature)
            try SimulatedFirmware.writeImage(
                type: .iccConfig, version: FirmwareVersion([1, 0, 0, 9]), payloadSize: 1_000, imagePath: icc.image,
                signaturePath: icc.signature)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// The command line of `flow` (the shell reads its lines from a script file).
    static func arguments(_ flow: Flow, images: Images, sandbox: UCubeSandbox) throws -> [String] {
        switch flow {
        case .pay: return ["pay", "7", "--authorize", "approve"]
        case .enterSecureSession: return ["rpc", "enter-secure-session"]
        case .mdmUpdate: return ["mdm-update", "--file", images.svpp.image, "--signature", images.svpp.signature]
        case .shell:
            let script = sandbox.directory.appendingPathComponent("flow.ucube")
            try "rpc enter-secure-session\nrpc get-info C4 --rpc-timeout 10\npay 3 --authorize approve\n".write(
                to: script, atomically: true, encoding: .utf8)
            return ["shell", "--script", script.path]
        }
    }

    /// One run of `ucube [--device D] --trace ARGS`: SIGKILLed as soon as it has sent `killAfter` frames (the k-th
    /// `> ` line of its trace) and, over TCP, the simulator has said its `silent@k` fault fired (so the frame did
    /// reach it), else left to finish. Returns the frames it sent.
    static func run(
        _ sandbox: UCubeSandbox, device: [String], _ arguments: [String], killAfter: Int? = nil, server: Server? = nil
    ) async throws -> Int {
        let (process, _, err) = try sandbox.startCapturing(device + ["--trace", "--rpc-timeout", "20"] + arguments)
        if let killAfter, let server {
            // Bounded: a flow that ends before frame k would leave this read waiting; stopping the server ends it.
            let watchdog = Task {
                try await Task.sleep(for: SafetyNet.process)
                server.process.terminate()
            }
            defer { watchdog.cancel() }
            let said = await UCubeSandbox.readUntil(server.stderr, contains: "silent@\(killAfter)")
            #expect(said.contains("silent@\(killAfter)"), "the simulator's fault fired: \(said)")
            kill(process.processIdentifier, SIGKILL)
        }
        let sent = await blocking { () -> Int in
            var text = ""
            let handle = err.fileHandleForReading
            var frames = 0
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
                frames = text.split(separator: "\n").filter { $0.hasPrefix("> ") }.count
                if let killAfter, frames >= killAfter {
                    kill(process.processIdentifier, SIGKILL)
                    break
                }
            }
            return frames
        }
        // A safety net far above the longest command timeout of the flows (TransactionProcess: 65 s), so only a real
        // hang is reported.
        let deadline = ContinuousClock.now + SafetyNet.process
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record(
                "ucube \(arguments.joined(separator: " ")) did not end within \(SafetyNet.process) (\(sent) frames sent)"
            )
        }
        _ = await process.exit()
        return sent
    }

    /// `info`, `pay` and `mdm-update` straight after an interruption: each must succeed.
    static func expectRecovered(
        _ sandbox: UCubeSandbox, device: [String], images: Images, _ label: String
    ) async throws {
        let info = try await sandbox.run(device + ["info"])
        #expect(info.status == 0, "\(label): info exit \(info.status): \(info.stderr)")
        #expect(info.stdout.contains("serial"), "\(label): \(info.stdout)")
        let pay = try await sandbox.run(device + ["pay", "5", "--authorize", "approve"])
        #expect(pay.status == 0, "\(label): pay exit \(pay.status): \(pay.stdout) \(pay.stderr)")
        #expect(pay.stdout.contains("status: APPROVED"), "\(label): \(pay.stdout)")
        let update = try await sandbox.run(
            device + ["mdm-update", "--file", images.icc.image, "--signature", images.icc.signature],
            timeout: .seconds(90))
        #expect(update.status == 0, "\(label): mdm-update exit \(update.status): \(update.stdout) \(update.stderr)")
        // No payment shows two outcomes, and one whose process was killed is still there, unknown.
        let history = try await sandbox.run(["--json", "history"])
        #expect(history.status == 0, "\(label): history: \(history.stderr)")
        let entries = (try? JSONSerialization.jsonObject(with: Data(history.stdout.utf8))) as? [[String: Any]] ?? []
        let ids = entries.compactMap { $0["requestID"] as? String }
        #expect(!ids.isEmpty, "\(label): the payment just taken is journalled: \(history.stdout)")
        #expect(Set(ids).count == ids.count, "\(label): a payment listed twice: \(history.stdout)")
    }

    /// `ucube simulate --listen` with its stderr (where it says when a fault fires).
    struct Server {
        let process: Process
        let stderr: Pipe

        func stop() async {
            process.terminate()
            _ = await process.exit()
        }
    }

    /// A sandbox whose simulator runs fast (short terminal timeouts and reboot), on `transport`, with `fault`.
    static func prepare(_ transport: Transport, fault: String?) async throws -> (UCubeSandbox, [String], Server?) {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        switch transport {
        case .sim:
            if let fault { sandbox.environment["UCUBE_SIM_FAULT"] = fault }
            return (sandbox, ["--device", "sim"], nil)
        case .tcp:
            let state = sandbox.directory.appendingPathComponent("tcp-sim").path
            let (process, out, err) = try sandbox.startCapturing(
                ["simulate", "--listen", "127.0.0.1:0", "--state-dir", state] + (fault.map { ["--fault", $0] } ?? []))
            let line = await UCubeSandbox.readUntil(out, contains: "\n")
            guard
                let port = line.split(separator: ":").last.flatMap({
                    Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
                })
            else {
                process.terminate()
                throw SandboxError(message: "simulator printed no port: \(line)")
            }
            return (sandbox, ["--device", "tcp://127.0.0.1:\(port)"], Server(process: process, stderr: err))
        }
    }

    @Test(arguments: Flow.allCases, Transport.allCases)
    func interruptedAtEveryCommandThenInfoPayAndUpdateSucceed(flow: Flow, transport: Transport) async throws {
        let images = try Images()
        // How many frames the flow sends when nothing goes wrong.
        let (clean, device, server) = try await Self.prepare(transport, fault: nil)
        let frames = try await Self.run(clean, device: device, try Self.arguments(flow, images: images, sandbox: clean))
        await server?.stop()
        #expect(frames >= 2, "\(flow) sent \(frames) frames")

        for k in 1...frames {
            for mode in ["silent", "drop"] {
                let label =
                    "\(flow) over \(transport), \(mode == "silent" ? "killed at" : "link dropped at") frame \(k)/\(frames)"
                let (sandbox, device, server) = try await Self.prepare(transport, fault: "\(mode)@\(k)")
                let arguments = try Self.arguments(flow, images: images, sandbox: sandbox)
                _ = try await Self.run(
                    sandbox, device: device, arguments, killAfter: mode == "silent" ? k : nil, server: server)
                // The terminal as the dead process left it; the fault has fired and is not set for what follows.
                sandbox.environment.removeValue(forKey: "UCUBE_SIM_FAULT")
                try await Self.expectRecovered(sandbox, device: device, images: images, label)
                await server?.stop()
            }
        }
    }

    /// The issue's repro: a payment killed while the terminal waits for a card leaves the secure session open and
    /// WaitCard pending; `info` straight after used to answer `GetInfo failed: status -18176`.
    @Test func infoAfterAPaymentKilledWhileWaitingForACard() async throws {
        let sandbox = try UCubeSandbox()
        let (process, _, err) = try sandbox.startCapturing([
            "pay", "7", "--card", "card-timeout", "--card-timeout", "20", "--events",
        ])
        _ = await UCubeSandbox.readUntil(err, contains: "START_TRANSACTION")
        kill(process.processIdentifier, SIGKILL)
        _ = await process.exit()
        let info = try await sandbox.run("info")
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("state: READY") || info.stdout.contains("READY"), "\(info.stdout)")
        let history = try await sandbox.run("history")
        #expect(history.stdout.contains("unknown"), "the killed payment stays unknown: \(history.stdout)")
    }

    /// A session file that says SECURED while the terminal is READY (it rebooted), one that is unreadable, and one
    /// left by a process that never closed: each is detected, and commands go on.
    @Test func staleSessionFiles() async throws {
        let sandbox = try UCubeSandbox()
        let runDir = sandbox.directory.appendingPathComponent("run/ucube")
        try FileManager.default.createDirectory(at: runDir, withIntermediateDirectories: true)
        let file = runDir.appendingPathComponent("session-sim")

        try "secured=1 next=77\n".write(to: file, atomically: true, encoding: .utf8)
        let secured = try await sandbox.run("rpc get-info C4")
        #expect(secured.status == 0 || secured.status == 3, "\(secured.stderr)")
        let after = try await sandbox.run("rpc get-info C4")
        #expect(after.status == 0, "the plain answer taught the client the terminal is READY: \(after.stderr)")

        try "secured=yes next=1\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try await sandbox.run("rpc get-info C4").status == 0)

        try #"{"secured":false,"nextSequence":3,"owner":999999}"#.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await sandbox.run("rpc get-info C4").status == 0)
        #expect(try await sandbox.run("info").status == 0)
    }

    /// A second command on a terminal another process holds is refused at once with exit 7, naming the holder.
    @Test func aSecondCommandOnABusyTerminalIsRefused() async throws {
        let sandbox = try UCubeSandbox()
        let (process, _, err) = try sandbox.startCapturing([
            "pay", "7", "--card", "card-timeout", "--card-timeout", "20", "--events",
        ])
        defer { kill(process.processIdentifier, SIGKILL) }
        _ = await UCubeSandbox.readUntil(err, contains: "START_TRANSACTION")
        let second = try await sandbox.run("pay 10")
        #expect(second.status == 7, "\(second.stdout) \(second.stderr)")
        #expect(second.stderr.contains("pid \(process.processIdentifier)"), "\(second.stderr)")
        kill(process.processIdentifier, SIGKILL)
        _ = await process.exit()
        #expect(try await sandbox.run("info").status == 0, "the kernel released the dead process's lock")
    }
}
