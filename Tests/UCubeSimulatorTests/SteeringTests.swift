import Foundation
import Testing
import UCubeProtocol

@testable import UCubeSimulator

/// Steering a running simulator (`ScriptChange`, `TerminalSimulator.steer`): the connection being served stays up
/// while the card changes, and each next card wait shows the new one.
@Suite("TerminalSimulator: steering while a connection is served")
struct SteeringTests {
    static func scenario(_ name: String) throws -> NamedScript {
        let scenario = try #require(CardCatalogue.named(name))
        return NamedScript(name: scenario.name, script: scenario.script)
    }

    static func steer(_ link: SimulatorHarness, card name: String) async throws -> SteeringSnapshot {
        var change = ScriptChange()
        change.scenario = try scenario(name)
        return await link.simulator.steer(change)
    }

    @Test("one connection: a chip card, then a contactless one, then none; each next card wait shows it")
    func cardChangesOnOneConnection() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        let wait = try WaitCard(readers: [.icc, .nfc], timeoutSeconds: 5).encodePayload()

        let chip = try await link.exchange(.waitCard, wait, seq: 1)
        #expect(chip.status == .success && chip.data.first == 0x11, "\(chip)")

        let tapped = try await Self.steer(link, card: "visa-contactless")
        #expect(tapped.card == "visa-contactless" && tapped.interfaces == ["contactless"])
        let contactless = try await link.exchange(.waitCard, wait, seq: 2)
        #expect(contactless.status == .success && contactless.data.first == 0x21, "\(contactless)")

        var none = ScriptChange()
        none.scenario = NamedScript(name: "none", script: SimulatorScript(card: nil))
        #expect(await link.simulator.steer(none).interfaces.isEmpty)
        let nothing = try await link.exchange(.waitCard, wait, seq: 3)
        #expect(nothing.status == .timeout)

        let status = await link.simulator.steeringSnapshot
        #expect(status.connected && status.connections == 1, "the connection stayed up: \(status)")
        #expect(await link.inbox.pendingCount == 0)
    }

    @Test("a card's own fault comes with it and goes with the next card; the terminal's faults stay")
    func cardFaultsFollowTheCard() throws {
        var script = SimulatorScript()
        script.faults = try SimulatorFaults(parsing: "silent@9,refuse-image")
        var change = ScriptChange()
        change.scenario = try Self.scenario("card-removed")
        let removed = change.applied(to: script)
        #expect(removed.faults.cardRemovedAt == .transactionProcess)
        #expect(removed.faults.silentFromFrame == 9 && removed.faults.refuseImages)
        change.scenario = try Self.scenario("visa-contactless")
        let tapped = change.applied(to: removed)
        #expect(tapped.faults.cardRemovedAt == nil && tapped.faults.silentFromFrame == 9)
        #expect(tapped.faults.terminalText == "silent@9,refuse-image")
    }

    @Test("keys, choices and PIN change alone; a whole scenario replaces them but the terminal's faults")
    func partialAndWholeChanges() throws {
        var script = SimulatorScript()
        script.faults = try SimulatorFaults(parsing: "mute")
        var keys = ScriptChange()
        keys.keys = [0x01, 0x02]
        keys.pin = "4321"
        let keyed = keys.applied(to: script)
        #expect(keyed.keys == [1, 2] && keyed.pin == "4321" && keyed.card == script.card)
        var whole = ScriptChange()
        whole.scenario = NamedScript(name: "x", script: SimulatorScript(card: nil, choices: [2], pin: "9999"))
        whole.wholeScript = true
        let replaced = whole.applied(to: keyed)
        #expect(replaced.card == nil && replaced.keys.isEmpty && replaced.choices == [2] && replaced.pin == "9999")
        #expect(replaced.faults.mute)
    }

    @Test("drop@1 steered in: the link drops at the next frame, counted from the change")
    func faultCountsFromTheChange() async throws {
        let link = try SimulatorHarness()
        for seq in UInt8(0)..<3 { _ = try await link.exchange(.getInfo, [0xC1], seq: seq) }
        var change = ScriptChange()
        change.terminalFaults = try SimulatorFaults(parsing: "drop@1")
        #expect(await link.simulator.steer(change).faults == "drop@1")
        try link.send(.getInfo, [0xC1], seq: 3)
        #expect(await link.ended() == .disconnected(.getInfo))
    }

    @Test("battery: GetInfo's C5 reports the steered level")
    func battery() async throws {
        let link = try SimulatorHarness()
        defer { Task { await link.close() } }
        var change = ScriptChange()
        change.batteryPercent = 5
        #expect(await link.simulator.steer(change).batteryPercent == 5)
        let info = try await link.exchange(.getInfo, [0xC5], seq: 0)
        #expect(info.status == .success && info.data.suffix(1) == [5], "\(info)")
    }
}
