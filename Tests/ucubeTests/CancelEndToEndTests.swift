import Foundation
import Testing
import UCubeProtocol

/// Honest cancel (spec §8.1): `ucube cancel` from another process reaches a running `ucube pay` over TCP. Before the
/// card is read the payment ends CANCELLED and the terminal is back in READY; after an NFC read it is too late and
/// the payment completes.
@Suite(.serialized) struct CancelEndToEndTests {
    @Test func cancelWhileWaitingForTheCard() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--card", "card-timeout"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let pay = try sandbox.startCapturing(["--device", device, "pay", "10", "--card-timeout", "120", "--events"])
        let seen = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        #expect(seen.contains("START_TRANSACTION"))

        let cancel = try await sandbox.run(["--device", device, "cancel"])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("cancelling"))

        #expect(await pay.process.exit() == 11)  // CANCELLED
        let out = await UCubeSandbox.readToEnd(pay.stdout)
        #expect(out.contains("status: CANCELLED"))

        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.stdout.contains("state: READY"), "\(info.stdout)\(info.stderr)")
        let history = try await sandbox.run(["history", "--json"])
        #expect(history.stdout.contains("CANCELLED"))
    }

    @Test func cancelAfterAnNFCReadIsTooLate() async throws {
        let sandbox = try UCubeSandbox()
        // The payment holds after the contactless read: in `ucube shell`, it waits for the operator's authorization
        // answer on the shell's input, so the cancel is sure to find it running with the card already read.
        let (server, port) = try await sandbox.startSimulator(["--card", "mc-contactless-online"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let input = Pipe.cloexec()
        let shell = try sandbox.startCapturing(["--device", device, "shell"], stdin: input)
        defer { kill(shell.process.processIdentifier, SIGKILL) }
        input.fileHandleForWriting.write(Data("pay 10 --readers nfc --authorize prompt --events\n".utf8))
        let seen = await UCubeSandbox.readUntil(shell.stderr, contains: #""task":"authorize""#)
        #expect(seen.contains("CARD_READ_END"), "\(seen)")

        let cancel = try await sandbox.run(["--device", device, "cancel"])
        #expect(cancel.status == 14, "\(cancel.stdout)\(cancel.stderr)")
        #expect(cancel.stdout.contains("too late"), "\(cancel.stdout)")
        input.fileHandleForWriting.write(Data("approve\n".utf8))
        try input.fileHandleForWriting.close()
        #expect(await shell.process.exit() == 0)
        let out = await UCubeSandbox.readToEnd(shell.stdout)
        #expect(out.contains("status: APPROVED"), "\(out)")
    }

    @Test func cancelWithNoPaymentResetsTheTerminal() async throws {
        let sandbox = try UCubeSandbox()
        #expect(try await sandbox.run("--device sim rpc enter-secure-session").status == 0)
        let cancel = try await sandbox.run("--device sim cancel")
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("reset"))
        #expect(try await sandbox.run("--device sim info").stdout.contains("state: READY"))
    }

    // Ctrl-C during `pay` while waiting for the card: the payment ends CANCELLED (exit 11), not killed.
    @Test func sigintWhileWaitingForTheCard() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing([
            "--device", "sim", "pay", "10", "--card", "card-timeout", "--card-timeout", "120", "--events",
        ])
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        pay.process.interrupt()
        #expect(await pay.process.ended() == ChildExit(status: 11, signalled: false))
    }

    // SIGTERM (timeout, a CI job's cancel, systemd) and SIGHUP (a closed terminal) end a payment as Ctrl-C does: it is
    // cancelled and journalled CANCELLED, not left unknown.
    @Test(arguments: [SIGTERM, SIGHUP])
    func terminatingSignalsCancelLikeCtrlC(signal: Int32) async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing([
            "--device", "sim", "pay", "10", "--card", "card-timeout", "--card-timeout", "120", "--events",
        ])
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        kill(pay.process.processIdentifier, signal)
        #expect(await pay.process.ended() == ChildExit(status: 11, signalled: false))
        let history = try await sandbox.run("history --json")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(entries.first?["status"] as? String == "CANCELLED", "\(history.stdout)")
    }

    // A payment whose process dies (SIGKILL) shows as unknown in the journal, not lost; the next payment works.
    @Test func killedPaymentShowsAsUnknown() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing([
            "--device", "sim", "pay", "7.77", "--card", "card-timeout", "--card-timeout", "120", "--events",
        ])
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        kill(pay.process.processIdentifier, SIGKILL)
        _ = await pay.process.exit()
        let history = try await sandbox.run("history --json")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["status"] as? String == "unknown")
        #expect(entries.first?["amount"] as? Int == 777)
        let human = try await sandbox.run("history")
        #expect(human.stdout.contains("unknown"))
        // The terminal was left in a secure session; the next payment's starting steps recover it.
        let next = try await sandbox.run("--device sim pay 5")
        #expect(next.status == 0, "\(next.stderr)")
    }

    /// `ucube cancel` reaches whatever command holds the terminal, not only a payment: a firmware update over a slow
    /// link is interrupted as Ctrl-C would (exit 11, stopped after the current block), and the terminal keeps its
    /// installed firmware.
    @Test func cancelReachesAnUpdateInProgress() async throws {
        let sandbox = try UCubeSandbox()
        let (image, signature) = try sandbox.signedSVPPImage(payloadSize: 40_000)
        let (server, port) = try await sandbox.startSimulator(["--link-model", "classic"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let update = try sandbox.startCapturing(
            ["--device", device, "--json", "mdm-update", "--file", image, "--signature", signature])
        _ = await UCubeSandbox.readUntil(update.stdout, contains: #""event":"progress""#)

        let cancel = try await sandbox.run(["--device", device, "cancel"])
        #expect(cancel.status == 0, "\(cancel.stdout)\(cancel.stderr)")
        #expect(cancel.stdout.contains("interrupting `ucube --device \(device) --json mdm-update"), "\(cancel.stdout)")
        #expect(await update.process.exit() == 11, "the update ends cancelled")

        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("firmware (SVPP): 6.0.0.54"), "\(info.stdout)")
        // Nothing holds the terminal now: cancel resets it instead.
        let idle = try await sandbox.run(["--device", device, "cancel"])
        #expect(idle.status == 0 && idle.stdout.contains("no payment was running"), "\(idle.stdout)\(idle.stderr)")
    }

    // MARK: Repeated, concurrent and foreign cancels (issue 23)

    /// Repro 5: twelve cancels 30 ms apart, or twenty at once, during a card wait. Each gets a truthful answer and
    /// exits 0: exactly one cancelled the payment, the others learn that it already ends CANCELLED, or (once the
    /// payment process has gone) that no payment runs. None is "too late" (14), killed by a signal, or exits 1.
    /// Before the fix, 3 or 4 of twelve exited 14, one was killed by SIGINT (a cancel that was resetting the terminal
    /// listened on the socket and was interrupted "as Ctrl-C would" by the next one), and twenty at once gave exit 1
    /// "I/O on closed channel".
    @Test(arguments: [(12, 30), (20, 0)])
    func repeatedCancelsAreEachAnsweredTruthfully(count: Int, gapMilliseconds: Int) async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing([
            "--device", "sim", "pay", "10", "--card", "card-timeout", "--card-timeout", "120", "--events",
        ])
        defer { kill(pay.process.processIdentifier, SIGKILL) }
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        let runs = try await withThrowingTaskGroup(of: UCubeRun.self) { group in
            for i in 0..<count {
                if i > 0 && gapMilliseconds > 0 { try await Task.sleep(for: .milliseconds(gapMilliseconds)) }
                group.addTask { try await sandbox.run(["--device", "sim", "--json", "cancel"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var results: [String] = []
        for run in runs {
            #expect(run.status == 0, "exit \(run.status): \(run.stdout)\(run.stderr)")
            let object = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            results.append(object?["result"] as? String ?? "no result: \(run.stdout)")
        }
        #expect(results.filter { $0 == "cancelled" }.count == 1, "\(results)")
        #expect(
            results.allSatisfy { ["cancelled", "already-cancelled", "no-payment", "reset"].contains($0) }, "\(results)")
        #expect(await pay.process.ended() == ChildExit(status: 11, signalled: false), "the payment ends CANCELLED")
        let history = try await sandbox.run("history --json")
        #expect(history.stdout.contains("CANCELLED"), "\(history.stdout)")
    }

    /// Repro 6: a cancel that cannot reach the socket because it belongs to another user (EACCES) says so (exit 20)
    /// and leaves the terminal alone; the payment runs on and its own user can still cancel it. Before the fix it
    /// said "no payment was running; terminal reset" (exit 0) and reset the terminal under the payment.
    ///
    /// What this covers: a real EACCES from the kernel. As root (where a chmod cannot refuse anything) the cancel runs
    /// as the user nobody through setpriv, a second local user, and then also meets the server's own check of the
    /// peer's user; otherwise the runtime directory is made unreadable (and the server's check is not reached). The
    /// mapping of EPERM, which neither way produces, is covered by `ControlSocketUnitTests`.
    @Test(.enabled(if: geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func anotherUsersCancelIsToldItIsNotTheirs() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing([
            "--device", "sim", "pay", "10", "--card", "card-timeout", "--card-timeout", "120", "--events",
        ])
        defer { kill(pay.process.processIdentifier, SIGKILL) }
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        let runDirectory = sandbox.directory.appendingPathComponent("run/ucube").path
        let foreign: UCubeRun
        let home = sandbox.directory.appendingPathComponent("nobody")
        var foreignEnvironment = sandbox.environment
        foreignEnvironment["XDG_STATE_HOME"] = home.path
        foreignEnvironment["HOME"] = home.path
        if geteuid() == 0 {
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            chown(home.path, 65534, 65534)
            foreign = try await Self.run(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", UCubeSandbox.binary.path, "--device", "sim",
                    "cancel",
                ],
                environment: foreignEnvironment)
        } else {
            chmod(runDirectory, 0)
            foreign = try await sandbox.run("--device sim cancel")
            chmod(runDirectory, 0o700)
        }
        #expect(foreign.status == 20, "exit \(foreign.status): \(foreign.stdout)\(foreign.stderr)")
        #expect(foreign.stderr.contains("another user"), "\(foreign.stderr)")
        #expect(!foreign.stdout.contains("reset"), "\(foreign.stdout)")
        if geteuid() == 0 {
            // The second lock: with the directory and the socket opened to everyone, the payment's process itself
            // tells the other user's connection (SO_PEERCRED) that it is not theirs.
            let socketPath = try #require(
                try FileManager.default.contentsOfDirectory(atPath: runDirectory).first { $0.hasPrefix("control-") })
            let parent = (runDirectory as NSString).deletingLastPathComponent
            for directory in [sandbox.directory.path, parent, runDirectory] { chmod(directory, 0o755) }
            chmod(runDirectory + "/" + socketPath, 0o777)
            let denied = try await Self.run(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", UCubeSandbox.binary.path, "--device", "sim",
                    "cancel",
                ],
                environment: foreignEnvironment)
            for directory in [parent, runDirectory] { chmod(directory, 0o700) }
            #expect(denied.status == 20, "exit \(denied.status): \(denied.stdout)\(denied.stderr)")
            #expect(denied.stderr.contains("held by another user's process"), "\(denied.stderr)")
        }
        // The payment still waits for its card, and its own user cancels it.
        let mine = try await sandbox.run("--device sim --json cancel")
        #expect(mine.status == 0 && mine.stdout.contains(#""result": "cancelled""#), "\(mine.stdout)\(mine.stderr)")
        #expect(await pay.process.ended() == ChildExit(status: 11, signalled: false))
    }

    /// Runs `executable ARGS…` to its end with stdout and stderr captured.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> UCubeRun
    {
        try await blocking {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = environment
            let out = Pipe.cloexec(), err = Pipe.cloexec()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try UCubeSandbox.start(process)
            nonisolated(unsafe) var outData = Data()
            let outRead = DispatchSemaphore(value: 0)
            Thread {
                outData = out.fileHandleForReading.readAllRetryingInterrupts()
                outRead.signal()
            }.start()
            let errData = err.fileHandleForReading.readAllRetryingInterrupts()
            let end = process.waitForEnd()
            outRead.wait()
            return UCubeRun(
                status: end.status, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData, as: UTF8.self))
        }
    }
}
