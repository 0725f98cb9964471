import Foundation
import Testing
import UCubePayment
import UCubeProtocol
import UCubeSimulator

@testable import UCubeCLI

/// `ucube read-card`, `display` and `choose` on the simulator: from the command line and the shell, JSON shapes,
/// timeouts, cancel (Ctrl-C and `ucube cancel`), bad input; never a clear PAN.
@Suite(.serialized) struct PromptsEndToEndTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    // MARK: display

    @Test func displayWaitsForAKeyAndPrintsIt() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_KEYS"] = "01"
        let run = try await sandbox.run(["--device", "sim", "display", "Press OK", "--wait-key", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.json(run.stdout)
        #expect(object["key"] as? String == "01")
        #expect(object["text"] as? String == "Press OK")
        #expect(object["timeout"] as? Int == 30)
        #expect(Set(object.keys) == ["key", "text", "timeout", "version"])

        let human = try await sandbox.run(["--device", "sim", "display", "Press OK", "--wait-key"])
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.contains("displayed: Press OK"))
        #expect(human.stdout.contains("key: 0x01"))
    }

    @Test func displayWithoutAKeyReturnsAfterItsTimeout() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let run = try await sandbox.run(["--device", "sim", "display", "Hello", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.json(run.stdout)
        #expect(object["key"] is NSNull)
        #expect(object["timeout"] as? Int == 0)
        let timed = try await sandbox.run(["--device", "sim", "display", "Hello", "--timeout", "3"])
        #expect(timed.status == 0, "\(timed.stderr)")
        #expect(timed.stdout == "displayed: Hello\n")
    }

    @Test func displayWaitKeyTimesOut() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let run = try await sandbox.run([
            "--device", "sim", "--json", "display", "Press OK", "--wait-key", "--timeout", "2",
        ])
        #expect(run.status == 4, "\(run.stdout)\(run.stderr)")
        let error = try #require(try Self.json(run.stdout)["error"] as? [String: Any])
        #expect(error["exit"] as? Int == 4)
        #expect(error["code"] as? String == "timeout")
    }

    // MARK: choose

    @Test func chooseReturnsTheChosenItem() async throws {
        let sandbox = try UCubeSandbox()
        let first = try await sandbox.run(["--device", "sim", "choose", "Coffee", "Tea", "Water"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "1: Coffee\n")

        sandbox.environment["UCUBE_SIM_CHOICES"] = "2"
        let run = try await sandbox.run([
            "--device", "sim", "choose", "Coffee", "Tea", "Water", "--title", "Drink", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.json(run.stdout)
        #expect(object["index"] as? Int == 2)
        #expect(object["item"] as? String == "Tea")
        #expect(object["title"] as? String == "Drink")
        #expect(Set(object.keys) == ["index", "item", "title", "version"])
    }

    @Test func chooseAbortedOnTheTerminalOrTimedOut() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        sandbox.environment["UCUBE_SIM_CHOICES"] = "abort"
        let aborted = try await sandbox.run(["--device", "sim", "choose", "Yes", "No"])
        #expect(aborted.status == 11, "\(aborted.stderr)")
        #expect(aborted.stderr.contains("aborted on the terminal"))
        sandbox.environment["UCUBE_SIM_CHOICES"] = "none"
        let none = try await sandbox.run(["--device", "sim", "choose", "Yes", "No", "--timeout", "2"])
        #expect(none.status == 4, "\(none.stderr)")
        #expect(none.stderr.contains("no item was chosen within 2 s"))
    }

    @Test func promptsInTheShell() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_KEYS"] = "02"
        sandbox.environment["UCUBE_SIM_CHOICES"] = "3"
        let script = sandbox.directory.appendingPathComponent("prompts.ucube")
        try """
        display "Hello there" --wait-key
        choose Red Green Blue --json
        read-card --card visa-contact
        rpc enter-secure-session
        read-card
        info
        """.write(to: script, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["shell", "--script", script.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("displayed: Hello there"))
        #expect(run.stdout.contains("key: 0x02"))
        // The shell's stdout is JSON lines: the result on one line (docs/json.md).
        #expect(run.stdout.contains(#""item":"Blue""#), "\(run.stdout)")
        #expect(run.stdout.components(separatedBy: "card: 476173******0010").count == 3, "read twice: \(run.stdout)")
        #expect(run.stdout.contains("state: READY"), "read-card leaves the terminal READY: \(run.stdout)")
        #expect(!(run.stdout + run.stderr).contains("4761739001010010"))
    }

    @Test(arguments: [
        ["display", ""],
        ["display", String(repeating: "x", count: 255)],
        ["display", "two\nlines"],
        ["display", "Hi", "--timeout", "256"],
        ["display", "Hi", "--wait-key", "--timeout", "0"],
        ["display", "snow ☃"],
        ["choose"],
        ["choose", "Café", "Tea"],
        ["choose", "A", ""],
        ["choose", "A", "B", "--timeout", "0"],
        ["choose", String(repeating: "x", count: 120), String(repeating: "y", count: 90)],
        ["read-card", "--card-timeout", "0"],
        ["read-card", "--readers", "icc,icc"],
        ["read-card", "--card", "no-such-card"],
    ])
    func badInputIsAUsageError(_ arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(["--device", "sim"] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.stdout)\(run.stderr)")
    }

    // MARK: read-card

    @Test(
        arguments: [
            ("visa-contact", "4761739001010010", "icc", "476173******0010", "Visa", "A0000000031010"),
            ("visa-contactless", "4761739001010127", "nfc", "476173******0127", "Visa", "A0000000031010"),
            // The simulated swipe answers the card's AID to GetPlainTag too.
            ("magstripe-chip-required", "5413330089020052", "msr", "541333******0052", "Mastercard", "A0000000041010"),
        ] as [(String, String, String, String, String, String?)])
    func readCardOnEachReader(
        _ card: String, _ pan: String, _ entryMode: String, _ masked: String, _ scheme: String, _ aid: String?
    ) async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--device", "sim", "--trace", "read-card", "--card", card, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.json(run.stdout)
        #expect(object["entryMode"] as? String == entryMode)
        #expect(object["maskedPAN"] as? String == masked)
        #expect(object["scheme"] as? String == scheme)
        #expect(object["expiry"] is NSNull, "5F24 is an SRED tag: never in plain")
        if let aid { #expect(object["aid"] as? String == aid) } else { #expect(object["aid"] is NSNull) }
        #expect(
            Set(object.keys) == [
                "aid", "applicationLabel", "applications", "entryMode", "expiry", "maskedPAN", "scheme", "version",
            ])
        #expect(!(run.stdout + run.stderr).contains(pan), "no clear PAN in the output or the trace")
        #expect(!run.stderr.contains("GENERATE") && !run.stderr.contains("TransactionProcess"))

        let human = try await sandbox.run(["--device", "sim", "read-card", "--card", card])
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.contains("card: \(masked)"))
        #expect(human.stdout.contains("entry mode: \(entryMode)"))
        #expect(!(human.stdout + human.stderr).contains(pan))
        let info = try await sandbox.run(["--device", "sim", "info"])
        #expect(info.stdout.contains("state: READY"), "\(info.stdout)")
    }

    @Test func readCardListsTheApplications() async throws {
        let run = try await UCubeSandbox().run(["--device", "sim", "read-card", "--card", "mc-two-apps", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.json(run.stdout)
        let apps = try #require(object["applications"] as? [[String: Any]])
        #expect(apps.count == 2)
        #expect(object["aid"] as? String == "A0000000041010")
        #expect(object["applicationLabel"] as? String == "MASTERCARD")
        #expect(object["scheme"] as? String == "Mastercard")
    }

    @Test func readCardProblemsAndTimeout() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let noApp = try await sandbox.run(["--device", "sim", "read-card", "--card", "no-common-app"])
        #expect(noApp.status == 12, "\(noApp.stderr)")
        let timeout = try await sandbox.run([
            "--device", "sim", "--json", "read-card", "--card", "card-timeout", "--card-timeout", "2",
        ])
        #expect(timeout.status == 4, "\(timeout.stdout)\(timeout.stderr)")
        #expect((try Self.json(timeout.stdout)["error"] as? [String: Any])?["exit"] as? Int == 4)
        let info = try await sandbox.run(["--device", "sim", "info"])
        #expect(info.stdout.contains("state: READY"), "\(info.stdout)")
    }

    // MARK: cancel

    @Test func ctrlCCancelsReadCardAndDisplay() async throws {
        let sandbox = try UCubeSandbox()
        let read = try sandbox.startCapturing(
            ["--device", "sim", "--trace", "read-card", "--card", "card-timeout", "--card-timeout", "120"])
        _ = await UCubeSandbox.readUntil(read.stderr, contains: "NFCStartTransaction")
        read.process.interrupt()
        #expect(await read.process.ended() == ChildExit(status: 11, signalled: false))

        let display = try sandbox.startCapturing(
            ["--device", "sim", "--trace", "--json", "display", "Wait", "--wait-key", "--timeout", "120"])
        _ = await UCubeSandbox.readUntil(display.stderr, contains: "DisplayMessage")
        display.process.interrupt()
        #expect(await display.process.exit() == 11)
        let out = await UCubeSandbox.readToEnd(display.stdout)
        let error = try #require(try Self.json(out)["error"] as? [String: Any])
        #expect(error["code"] as? String == "cancelled")
        #expect(error["exit"] as? Int == 11)
    }

    @Test func ucubeCancelReachesAPrompt() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--choices", "none"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let choose = try sandbox.startCapturing(["--device", device, "--trace", "choose", "A", "B", "--timeout", "120"])
        _ = await UCubeSandbox.readUntil(choose.stderr, contains: "DisplayListBox")
        let cancel = try await sandbox.run(["--device", device, "cancel"])
        #expect(cancel.status == 0, "\(cancel.stdout)\(cancel.stderr)")
        #expect(cancel.stdout.contains("cancelling `ucube choose`"), "\(cancel.stdout)")
        #expect(await choose.process.exit() == 11)

        let read = try sandbox.startCapturing([
            "--device", device, "--trace", "read-card", "--card-timeout", "120", "--readers", "msr",
        ])
        _ = await UCubeSandbox.readUntil(read.stderr, contains: "NFCStartTransaction")
        let again = try await sandbox.run(["--device", device, "cancel"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(await read.process.exit() == 11)
        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.stdout.contains("state: READY"), "\(info.stdout)\(info.stderr)")
    }
}

extension PromptsEndToEndTests {
    /// `ucube cancel` reaches a prompt that a shell script runs: the script stops with exit 11.
    @Test func ucubeCancelReachesAPromptInTheShell() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator()
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let script = sandbox.directory.appendingPathComponent("wait.ucube")
        try "display Waiting --wait-key --timeout 120\ninfo\n".write(to: script, atomically: true, encoding: .utf8)
        let shell = try sandbox.startCapturing(["--device", device, "--trace", "shell", "--script", script.path])
        _ = await UCubeSandbox.readUntil(shell.stderr, contains: "DisplayMessage")
        let cancel = try await sandbox.run(["--device", device, "cancel"])
        #expect(cancel.status == 0, "\(cancel.stdout)\(cancel.stderr)")
        #expect(cancel.stdout.contains("cancelling `ucube display`"), "\(cancel.stdout)")
        #expect(await shell.process.exit() == 11)
    }

    @Test func simulatorScriptsAreParsed() async throws {
        #expect(try SimulatorScript.parseKeys("01,0x0A,ff") == [0x01, 0x0A, 0xFF])
        #expect(try SimulatorScript.parseChoices("2,abort,none") == [2, 0, -1])
        #expect(throws: CommandError.self) { try SimulatorScript.parseKeys("100") }
        #expect(throws: CommandError.self) { try SimulatorScript.parseChoices("0") }
        let bad = try await UCubeSandbox().run(["simulate", "--choices", "maybe"])
        #expect(bad.status == 64, "\(bad.stderr)")
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_KEYS"] = "zz"
        let badEnv = try await sandbox.run(["--device", "sim", "display", "Hi"])
        #expect(badEnv.status == 64, "\(badEnv.stderr)")
    }
}

/// The pure parts: the scheme table, the expiry, completion of the new commands.
@Suite struct ReadCardUnitTests {
    @Test func schemesFromTheRIDOrThePAN() {
        #expect(CardSchemes.scheme(aid: [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10]) == "Visa")
        #expect(CardSchemes.scheme(aid: [0xA0, 0x00, 0x00, 0x00, 0x04, 0x30, 0x60]) == "Mastercard")
        #expect(CardSchemes.scheme(aid: [0xA0, 0x00, 0x00, 0x00, 0x25, 0x01]) == "American Express")
        #expect(CardSchemes.scheme(aid: [0xA0, 0x00, 0x00, 0x09, 0x99]) == nil)
        #expect(CardSchemes.scheme(aid: [0xA0, 0x00]) == nil)
        #expect(CardSchemes.scheme(panPrefix: "476173******0010") == "Visa")
        #expect(CardSchemes.scheme(panPrefix: "541333******0052") == "Mastercard")
        #expect(CardSchemes.scheme(panPrefix: "222100******0000") == "Mastercard")
        #expect(CardSchemes.scheme(panPrefix: "371449******8431") == "American Express")
        #expect(CardSchemes.scheme(panPrefix: "62") == nil)
        #expect(CardSchemes.scheme(panPrefix: "6799998900000060018") == nil)
    }

    @Test func expiryIsMonthOverYear() {
        #expect(CardReading.expiry([0x28, 0x12, 0x31]) == "12/28")
        #expect(CardReading.expiry([0x30, 0x01]) == "01/30")
        #expect(CardReading.expiry([0x28, 0x13, 0x31]) == nil)
        #expect(CardReading.expiry([0x28]) == nil)
        #expect(CardReading.expiry([0x2A, 0x12]) == nil)
    }

    @Test func theShellCompletesTheNewCommands() {
        let top = ShellCompletion.candidates(words: [], partial: "", state: CompletionState(linkState: .ready))
        for word in ["read-card", "display", "choose"] { #expect(top.contains(word), "\(word)") }
    }
}
