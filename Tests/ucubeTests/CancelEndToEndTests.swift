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
        let out = String(decoding: pay.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(out.contains("status: CANCELLED"))

        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.stdout.contains("state: READY"), "\(info.stdout)\(info.stderr)")
        let history = try await sandbox.run(["history", "--json"])
        #expect(history.stdout.contains("CANCELLED"))
    }

    @Test func cancelAfterAnNFCReadIsTooLate() async throws {
        let sandbox = try UCubeSandbox()
        // The BLE link model makes each exchange take tens of milliseconds, so the payment is usually still running
        // when the cancel arrives after the contactless read. On a loaded machine the cancel process can start after
        // the payment has ended ("no payment was running"): that attempt proves nothing, and the scenario runs again.
        // Either way the payment is APPROVED; at least one cancel must reach it, and be refused as too late.
        let (server, port) = try await sandbox.startSimulator(["--card", "mc-contactless-online", "--link-model", "ble"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        var reachedThePayment = false
        for _ in 0..<5 where !reachedThePayment {
            let pay = try sandbox.startCapturing(["--device", device, "pay", "10", "--readers", "nfc", "--events"])
            _ = await UCubeSandbox.readUntil(pay.stderr, contains: "CARD_READ_END")

            let cancel = try await sandbox.run(["--device", device, "cancel"])
            #expect(await pay.process.exit() == 0)
            let out = String(decoding: pay.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(out.contains("status: APPROVED"))
            if cancel.status == 0 && cancel.stdout.contains("no payment was running") { continue }
            reachedThePayment = true
            #expect(cancel.status == 14, "\(cancel.stdout)\(cancel.stderr)")
            #expect(cancel.stdout.contains("too late"))
        }
        #expect(reachedThePayment, "in five attempts, no cancel arrived while the payment ran")
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
        #expect(await pay.process.exit() == 11)
        #expect(pay.process.terminationReason == .exit)
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
