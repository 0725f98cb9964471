import Foundation
import Testing
import UCubeProtocol
import UCubeSimulator

/// `ucube pay` through the built binary against the built-in simulator: every card scenario ends in the status the
/// SDK rules give, with the state sequence of its flow; no output, event or journal line carries a full PAN.
@Suite(.serialized) struct PaymentEndToEndTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        let card: String
        let status: String
        let exit: Int32
        /// The flow's state sequence (spec §8.1), checked in order.
        let states: [String]
        var testDescription: String { card }
    }

    static let start = [
        "START_CANCEL_ALL", "START_EXIT_SECURE_SESSION", "GET_INFO", "ENTER_SECURE_SESSION", "KSN_AVAILABLE",
        "START_TRANSACTION", "CARD_READ_END",
    ]
    static let iccOnline =
        start + [
            "START_ICC", "SMC_BUILD_CANDIDATE_LIST", "SMC_INIT_TRANSACTION", "SMC_RISK_MANAGEMENT",
            // The authorisation's plain tags come in TransactionProcess's answer; no SRED blob by default (spec §8.6).
            "SMC_PROCESS_TRANSACTION", "AUTHORIZATION", "SMC_FINALIZE_TRANSACTION", "GET_FINALIZATION_PLAIN_TAGS",
            "SMC_REMOVE_CARD",
        ]
    static let end = ["END_EXIT_SECURE_SESSION"]

    static let scenarios: [Scenario] = [
        .init(card: "visa-contact", status: "APPROVED", exit: 0, states: iccOnline + end),
        .init(
            card: "mc-two-apps", status: "APPROVED", exit: 0,
            states: start + [
                "SMC_BUILD_CANDIDATE_LIST", "SMC_SELECT_APPLICATION", "SMC_INIT_TRANSACTION", "AUTHORIZATION",
                "SMC_FINALIZE_TRANSACTION", "SMC_REMOVE_CARD",
            ] + end),
        .init(card: "visa-offline-pin", status: "APPROVED", exit: 0, states: iccOnline + end),
        .init(card: "mc-online-pin", status: "APPROVED", exit: 0, states: iccOnline + end),
        .init(
            card: "visa-contactless", status: "APPROVED", exit: 0,
            states: start + ["START_NFC", "GET_FINALIZATION_PLAIN_TAGS"] + end),
        .init(
            card: "mc-contactless-online", status: "APPROVED", exit: 0,
            states: start + ["START_NFC", "AUTHORIZATION", "NFC_COMPLETE_TRANSACTION"] + end),
        .init(
            card: "mc-contactless-online-pin", status: "APPROVED", exit: 0,
            states: start + ["START_NFC", "NFC_SIMPLIFIED_ONLINE_PIN", "AUTHORIZATION", "NFC_COMPLETE_TRANSACTION"]
                + end),
        .init(card: "visa-contactless-declined", status: "DECLINED", exit: 10, states: start + ["START_NFC"] + end),
        .init(card: "visa-contactless-signature", status: "APPROVED", exit: 0, states: start + ["START_NFC"] + end),
        .init(
            card: "contactless-try-other", status: "NFC_OUTCOME_TRY_OTHER_INTERFACE", exit: 12,
            states: start + ["START_NFC"] + end),
        .init(
            card: "contactless-end-application", status: "NFC_OUTCOME_END_APPLICATION", exit: 12,
            states: start + ["START_NFC"] + end),
        .init(
            card: "magstripe-chip-required", status: "CHIP_REQUIRED", exit: 12,
            states: start + ["START_MSR", "MSR_GET_SECURED_TAGS", "MSR_GET_PLAIN_TAGS"] + end),
        .init(
            card: "no-common-app", status: "UNSUPPORTED_CARD", exit: 12,
            states: start + ["START_ICC", "SMC_BUILD_CANDIDATE_LIST"] + end),
        .init(
            card: "card-refused", status: "REFUSED_CARD", exit: 12,
            states: start + ["SMC_INIT_TRANSACTION", "SMC_PROCESS_TRANSACTION"] + end),
        .init(
            card: "card-removed", status: "ERROR", exit: 13,
            states: start + ["SMC_PROCESS_TRANSACTION", "SMC_REMOVE_CARD"] + end),
        .init(
            card: "card-timeout", status: "CARD_WAIT_FAILED", exit: 12,
            states: ["START_CANCEL_ALL", "ENTER_SECURE_SESSION", "START_TRANSACTION"] + end),  // no CARD_READ_END
        .init(card: "declined-aac", status: "DECLINED", exit: 10, states: start + ["SMC_PROCESS_TRANSACTION"] + end),
        .init(
            card: "approved-offline-tc", status: "APPROVED", exit: 0, states: start + ["SMC_PROCESS_TRANSACTION"] + end),
        .init(
            card: "declines-second-ac", status: "DECLINED", exit: 10,
            states: start + ["SMC_PROCESS_TRANSACTION", "AUTHORIZATION", "SMC_FINALIZE_TRANSACTION"] + end),
    ]

    /// `expected` appears in `states` in order (other states may come between).
    static func inOrder(_ expected: [String], in states: [String]) -> Bool {
        var i = states.startIndex
        for s in expected {
            guard let hit = states[i...].firstIndex(of: s) else { return false }
            i = states.index(after: hit)
        }
        return true
    }

    @Test(arguments: scenarios)
    func scenarioEndsInTheSDKStatus(_ scenario: Scenario) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let run = try await sandbox.run(["--device", "sim", "--json", "pay", "10", "--card", scenario.card, "--events"])
        #expect(run.status == scenario.exit, "\(scenario.card): exit \(run.status): \(run.stderr.suffix(300))")
        let context = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(context["status"] as? String == scenario.status)
        let states = context["states"] as? [String] ?? []
        #expect(Self.inOrder(scenario.states, in: states), "\(scenario.card): \(states)")
        // One JSON event per state on stderr, then exactly one "finished".
        let events = run.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(events.filter { $0.contains("\"event\":\"state\"") }.count == states.count)
        #expect(events.filter { $0.contains("\"event\":\"finished\"") }.count == 1)
        // Never the card's PAN anywhere. The card's own digits are looked for: the generic scanner
        // (`Masking.containsUnmaskedPAN`) also fires, once in a few hundred runs, on a Luhn-valid run of 13+ digits
        // inside the random ciphertext hex of `authorizationSecuredData`.
        let journal = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl"), encoding: .utf8)
        if let pan = try #require(CardCatalogue.named(scenario.card)).card?.pan {
            #expect(!run.stdout.contains(pan), "\(scenario.card): PAN in stdout")
            #expect(!run.stderr.contains(pan), "\(scenario.card): PAN in stderr")
            #expect(!journal.contains(pan), "\(scenario.card): PAN in the journal")
        }
        // One start, one outcome, and a step per command answered.
        let kinds = journal.split(separator: "\n").map { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["kind"] as? String ?? "?"
        }
        #expect(kinds.first == "start" && kinds.last == "outcome")
        #expect(kinds.filter { $0 == "start" }.count == 1 && kinds.filter { $0 == "outcome" }.count == 1)
        let steps = kinds.filter { $0 == "step" }.count
        #expect(steps >= 1 && steps <= (context["roundTrips"] as? Int ?? 0), "\(scenario.card): \(steps) steps")
    }

    // The first check: a contact payment of 12.50 EUR, approved, with the AID, masked PAN and KSN in --json.
    @Test func contactPaymentApproved() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run("--device sim pay 12.50 --currency EUR --authorize approve --json")
        #expect(run.status == 0, "\(run.stderr)")
        let context = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(context["status"] as? String == "APPROVED")
        #expect(context["selectedAID"] as? String == "A0000000031010")
        #expect(context["maskedPAN"] as? String == "476173******0010")
        #expect((context["sredKSN"] as? String)?.hasPrefix("FFFF9876543210E") == true)
        #expect((context["pinKSN"] as? String)?.hasPrefix("FFFF9876543210E") == true)
        #expect(context["amount"] as? Int == 1250)
        let history = try await sandbox.run("history --json")
        #expect(history.stdout.contains("APPROVED"))
    }

    // ISO 4217 exponents: JPY has none.
    @Test func currencyExponents() async throws {
        let sandbox = try UCubeSandbox()
        let refused = try await sandbox.run("--device sim pay 12.5 --currency JPY")
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("JPY"))
        let yen = try await sandbox.run("--device sim --json pay 1250 --currency JPY")
        #expect(yen.status == 0, "\(yen.stderr)")
        #expect(yen.stdout.contains("\"amount\" : 1250") || yen.stdout.contains("\"amount\": 1250"))
    }

    @Test func declineExitCode() async throws {
        let run = try await UCubeSandbox().run("--device sim pay 5 --authorize decline")
        #expect(run.status == 10)
        #expect(run.stdout.contains("status: DECLINED"))
    }
}

/// What `pay` sends at its start follows the link session file (spec §8.6), and the count it reports is what it sent:
/// the summary, `--json` and the journal say the number of commands on the wire.
@Suite(.serialized) struct PaymentStartEndToEndTests {
    /// The commands of one `pay --trace --json`, its `roundTrips`, and its journal's `commands`.
    static func pay(_ sandbox: UCubeSandbox, card: String, id: String) async throws -> (
        commands: [String], roundTrips: Int?, journalled: Int?
    ) {
        let run = try await sandbox.run([
            "--device", "sim", "--trace", "--json", "pay", "7", "--card", card, "--request-id", id,
        ])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let journal = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl"), encoding: .utf8)
        let outcome = journal.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["requestID"] as? String == id && $0["kind"] as? String == "outcome" }
        return (
            JournalEndToEndTests.commands(inTrace: run.stderr), json?["roundTrips"] as? Int,
            outcome?["commands"] as? Int
        )
    }

    static var sessionFile: String { "run/ucube/session-sim" }

    @Test(arguments: [
        (
            "visa-contact",
            [
                "BuildCandidateList", "TransactionInit", "TransactionProcess", "TransactionFinalisation", "GetPlainTag",
                "WaitCardRemoval", "ExitSecureSession",
            ]
        ),
        ("mc-contactless-online", ["NFCCompleteTransaction", "GetPlainTag", "ExitSecureSession"]),
    ])
    func theStartFollowsTheLinkRecordAndTheCountIsWhatWasSent(card: String, flow: [String]) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let record = sandbox.directory.appendingPathComponent(Self.sessionFile)
        let full = ["CancelAll", "ExitSecureSession", "GetInfo", "EnterSecureSession", "NFCStartTransaction"]

        // No record: the full sequence, once (no reset of the link before it).
        let first = try await Self.pay(sandbox, card: card, id: "first")
        #expect(first.commands == full + flow, "\(first.commands)")
        // A clean exit that recorded the terminal: EnterSecureSession first.
        let text = try String(contentsOf: record, encoding: .utf8)
        #expect(text.hasPrefix("secured=0 ") && text.contains(" terminal="), "\(text)")
        let second = try await Self.pay(sandbox, card: card, id: "second")
        #expect(second.commands == ["EnterSecureSession", "NFCStartTransaction"] + flow, "\(second.commands)")
        // A process that died holding the link (its pid in the record): the full sequence again.
        try "secured=0 next=3 owner=2147483646\n".write(to: record, atomically: true, encoding: .utf8)
        let third = try await Self.pay(sandbox, card: card, id: "third")
        #expect(third.commands == full + flow, "\(third.commands)")

        for run in [first, second, third] {
            #expect(run.roundTrips == run.commands.count && run.journalled == run.commands.count, "\(run)")
        }
    }
}
