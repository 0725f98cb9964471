import Foundation
import Testing
import UCubePayment
import UCubeProtocol
import UCubeSimulator

@testable import UCubeCLI

/// What an operator sees on a terminal (issue 12, "a payment a person can follow"): the cardholder's instruction and
/// the time left while `pay` waits for a card (on a terminal only), the authorization prompt's values explained, and
/// a Ctrl-C notice that does not land on top of the update's progress bar.
@Suite(.serialized) struct OperatorDisplayTests {
    @Test func payOnATerminalShowsWhatTheCardholderMustDoAndTheTimeLeft() async throws {
        let tmux = try ShellTmuxTests.requireTmux()
        let sandbox = try UCubeSandbox()
        let screen = ShellTmuxTests.Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking {
            try screen.start(["pay", "7", "--card", "card-timeout", "--card-timeout", "30"], hold: true)
        }
        let waiting = try await screen.waitFor("Insert or tap a card (", "s left)")
        // Updated in place: one line, whose count goes down.
        #expect(waiting.components(separatedBy: "Insert or tap a card").count == 2, "\(waiting)")
        func left(_ text: String) -> Int? {
            guard let r = text.range(of: #"\((\d+) s left\)"#, options: .regularExpression) else { return nil }
            return Int(text[r].dropFirst().prefix { $0.isNumber })
        }
        let first = try #require(left(waiting))
        // The screen as soon as the count has moved (the 30 s card wait bounds the wait).
        var later = waiting
        let deadline = ContinuousClock.now + .seconds(25)
        while left(later).map({ $0 >= first }) ?? true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))  // the poll's pace, not a synchronisation
            later = try await blocking { try screen.screen() }
        }
        let second = try #require(left(later), "\(later)")
        #expect(second < first, "the time left goes down: \(first) then \(second)")
        #expect(later.components(separatedBy: "Insert or tap a card").count == 2, "still one line: \(later)")
    }

    @Test func pipedPayPrintsNoCardholderPrompt() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["pay", "7", "--card", "card-timeout", "--card-timeout", "2"])
        #expect(run.status == 12, "\(run.stdout) \(run.stderr)")
        #expect(!run.stderr.contains("s left"), "\(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}["), "no terminal control sequences when stderr is a pipe: \(run.stderr)")
    }

    /// The cardholder instructions: each reader its verb, in the order asked.
    @Test func cardholderInstructions() {
        #expect(PaymentProgress.message(for: .startTransaction, readers: [.icc, .nfc]) == "Insert or tap a card")
        #expect(
            PaymentProgress.message(for: .waitingCard, readers: [.icc, .nfc, .msr]) == "Insert, tap or swipe a card")
        #expect(PaymentProgress.message(for: .startTransaction, readers: [.nfc]) == "Tap a card")
        #expect(PaymentProgress.message(for: .smcRemoveCard, readers: [.icc]) == "Remove the card")
        #expect(
            PaymentProgress.message(for: .authorization, readers: [.icc]) == nil, "a prompt of our own follows: no line"
        )
    }

    /// `--authorize prompt` shows each authorization value with its tag, its name and its meaning, not bare hex.
    @Test func authorizationPromptExplainsEachValue() async throws {
        let sandbox = try UCubeSandbox()
        let script = sandbox.directory.appendingPathComponent("auth.ucube")
        try "pay 10 --authorize prompt\napprove\n".write(to: script, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["shell", "--script", script.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("9F27 cryptogramInformationData: 80 (ARQC)"), "\(run.stderr)")
        #expect(run.stderr.contains("9C transactionType: 00 (purchase)"), "\(run.stderr)")
        #expect(run.stderr.contains("5F2A transactionCurrencyCode: 978 (EUR)"), "\(run.stderr)")
        let bare = run.stderr.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces) == "80" }
        #expect(bare.isEmpty, "no bare value lines: \(run.stderr)")
    }

    /// Ctrl-C during `mdm-update` on a terminal: the notice starts on a line of its own, below the bar.
    @Test func ctrlCDuringAnUpdateEndsTheBarLineFirst() async throws {
        guard let tmux = ShellTmuxTests.tmux else { return }
        let sandbox = try UCubeSandbox()
        let (image, signature) = try sandbox.signedSVPPImage(payloadSize: 200_000)
        let (server, port) = try await sandbox.startSimulator(["--link-model", "classic"])
        defer { server.terminate() }
        let screen = ShellTmuxTests.Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking {
            try screen.start(
                ["--device", "tcp://127.0.0.1:\(port)", "mdm-update", "--file", image, "--signature", signature],
                hold: true)
        }
        _ = try await screen.waitFor("%", "ETA")
        try await screen.keys("C-c")
        let after = try await screen.waitFor("[exit 11]", seconds: 30)
        let lines = after.split(separator: "\n")
        let notice = try #require(lines.first { $0.contains("ucube: interrupted") }, "\(after)")
        #expect(notice.hasPrefix("ucube: interrupted"), "the notice starts its own line: \(after)")
        #expect(lines.contains { $0.contains("[#") || $0.contains("[-") }, "the bar stays visible above it: \(after)")
    }
}
