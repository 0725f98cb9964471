import Foundation
import Testing
import UCubeLink
import UCubeProtocol

@testable import UCubePayment

/// The state table (`PaymentState.row`) is the one place a state is named and described: each state has one row, the
/// names are the SDKs' and unique, and what a payment sends, journals and reports is what the table says.
@Suite struct PaymentStateTableTests {
    @Test func everyStateHasOneRowAndANameOfItsOwn() throws {
        let states = PaymentState.allCases
        #expect(states.count == 36)
        #expect(Set(states.map(\.name)).count == states.count, "two states share a name")
        for state in states {
            #expect(states.filter { $0.name == state.name } == [state], "\(state.name) names one state")
            #expect(!state.name.isEmpty && state.name.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" })
            // Logged (description), journalled and written in JSON (its encoding) by that one name.
            #expect(state.description == state.name)
            #expect(try json([state]) == "[\"\(state.name)\"]")
        }
        // Every command a row names is a command of the catalogue; a state that prompts the cardholder to present
        // a card is a card wait, the one kind of state whose command a cancel interrupts.
        for state in states {
            if let command = state.command { #expect(CommandCatalogue.descriptor(for: command) != nil, "\(state)") }
            #expect(
                (state.row.cardholder == .presentCard) == (state.cancelWindow == .open(longCommandPending: true)),
                "\(state)")
        }
    }

    /// The contact transcript (ARQC, approved online), state by state: the SDK's names, and at each command sent,
    /// the command the state's row names.
    @Test func aContactPaymentEntersTheTablesStatesAndSendsTheirCommands() {
        var machine = PaymentStateMachine(request: Fixture.request())
        var action = machine.start()
        var sent: [(PaymentState, CommandID)] = []
        for feed in CancelAndLinkTests.contactFeeds {
            if case .send(let command) = action, let state = machine.currentState { sent.append((state, command.id)) }
            action = feed.apply(to: &machine)
        }
        #expect(action.finished == .approved)
        #expect(
            machine.transitions.map(\.name) == [
                "START_CANCEL_ALL", "START_EXIT_SECURE_SESSION", "GET_INFO", "ENTER_SECURE_SESSION", "KSN_AVAILABLE",
                "START_TRANSACTION", "CARD_READ_END", "START_ICC", "SMC_BUILD_CANDIDATE_LIST", "SMC_INIT_TRANSACTION",
                "SMC_RISK_MANAGEMENT", "SMC_PROCESS_TRANSACTION", "SMC_GET_AUTHORIZATION_SECURED_TAGS",
                "SMC_GET_AUTHORIZATION_PLAIN_TAGS", "AUTHORIZATION", "SMC_FINALIZE_TRANSACTION",
                "GET_FINALIZATION_PLAIN_TAGS", "SMC_REMOVE_CARD", "END_EXIT_SECURE_SESSION",
            ])
        #expect(sent.count == machine.transitions.filter { $0.command != nil }.count)
        for (state, command) in sent { #expect(state.command == command, "\(state) sent \(command)") }
        #expect(
            sent.map(\.1) == [
                .cancelAll, .exitSecureSession, .getInfo, .enterSecureSession, .nfcStartTransaction,
                .buildCandidateList, .transactionInit, .transactionProcess, .getSecuredTag, .getPlainTag,
                .transactionFinalisation, .getPlainTag, .waitCardRemoval, .exitSecureSession,
            ])
    }

    /// A payment against the simulator: its journal's steps and its events name each state and command as the
    /// table does.
    @Test func theJournalAndTheEventsSayWhatTheTableSays() async throws {
        let h = try PaymentEngineTests.harness()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-table-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PaymentJournal(path: directory + "/journal.jsonl")
        let engine = PaymentEngine(client: h.client, authorization: FixedAuthorization(.approve), journal: journal)
        let log = PaymentEngineTests.EventLog()
        let context = await engine.run(
            PaymentRequest(amount: 1250, currency: .eur, requestID: "table"), events: { log.append($0) })
        #expect(context.status == .approved, "\(context.statusReason ?? "") \(context.errors)")

        // Each event's JSON names its state as the table does.
        let eventNames = try log.events.compactMap { event -> String? in
            guard case .stateChanged = event else { return nil }
            let object = try JSONSerialization.jsonObject(with: Data(try json(event).utf8)) as? [String: Any]
            return object?["state"] as? String
        }
        #expect(eventNames == context.states.map(\.name))
        #expect(eventNames.first == "START_CANCEL_ALL" && eventNames.last == "END_EXIT_SECURE_SESSION")

        // Each step record: an answer to the command the table gives its state, under the table's name.
        let steps = try String(contentsOfFile: journal.path, encoding: .utf8).split(separator: "\n").compactMap {
            line -> (state: String, command: String)? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard object?["kind"] as? String == "step" else { return nil }
            return (object?["state"] as? String ?? "", object?["command"] as? String ?? "")
        }
        let commanded = context.states.filter { $0.command != nil }
        #expect(steps.map(\.state) == commanded.map(\.name))
        #expect(
            steps.map(\.command) == commanded.map { CommandCatalogue.descriptor(for: $0.command!)?.name ?? "" })
        #expect(steps.contains { $0 == (state: "SMC_PROCESS_TRANSACTION", command: "TransactionProcess") })
        h.serving.cancel()
    }
}
