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
        let pay = try sandbox.startCapturing(["--device", "sim", "pay", "10", "--card", "card-timeout", "--card-timeout", "120", "--events"])
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        pay.process.interrupt()
        #expect(await pay.process.ended() == ChildExit(status: 11, signalled: false))
    }

    // SIGTERM (timeout, a CI job's cancel, systemd) and SIGHUP (a closed terminal) end a payment as Ctrl-C does: it is
    // cancelled and journalled CANCELLED, not left unknown.
    @Test(arguments: [SIGTERM, SIGHUP])
    func terminatingSignalsCancelLikeCtrlC(signal: Int32) async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing(["--device", "sim", "pay", "10", "--card", "card-timeout", "--card-timeout", "120", "--events"])
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        kill(pay.process.processIdentifier, signal)
        #expect(await pay.process.ended() == ChildExit(status: 11, signalled: false))
        let history = try await sandbox.run("history --json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(entries.first?["status"] as? String == "CANCELLED", "\(history.stdout)")
    }

    // A payment whose process dies (SIGKILL) shows as unknown in the journal, not lost; the next payment works.
    @Test func killedPaymentShowsAsUnknown() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try sandbox.startCapturing(["--device", "sim", "pay", "7.77", "--card", "card-timeout", "--card-timeout", "120", "--events"])
        _ = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        kill(pay.process.processIdentifier, SIGKILL)
        _ = await pay.process.exit()
        let history = try await sandbox.run("history --json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
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
}
