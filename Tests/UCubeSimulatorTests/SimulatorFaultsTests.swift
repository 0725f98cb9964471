import Testing
import UCubeProtocol

@testable import UCubeSimulator

/// The faults a script injects, decided as a value at each frame's arrival (issue 42, item 2): the actor only counts
/// arrivals and acts on what fires. Each fault fires once, in the order the terminal applies them.
struct SimulatorFaultsTests {
    @Test func aDropByCommandFiresAtItsOccurrenceOnly() {
        var faults = SimulatorFaults(disconnectAt: .transactionProcess, disconnectOccurrence: 2)
        #expect(faults.arrival(of: .transactionProcess, occurrence: 1, frame: 5) == .init())
        #expect(faults.arrival(of: .getInfo, occurrence: 2, frame: 6) == .init())
        let fired = faults.arrival(of: .transactionProcess, occurrence: 2, frame: 7)
        #expect(fired.drop?.contains("arrival 2") == true)
        #expect(faults.disconnectAt == nil, "spent")
        #expect(faults.arrival(of: .transactionProcess, occurrence: 2, frame: 8) == .init())
    }

    @Test func aDropWinsOverTheCardAndTheRebootOfTheSameFrame() {
        var faults = SimulatorFaults(cardRemovedAt: .getInfo, disconnectAtFrame: 3, rebootAtFrame: 3)
        let fired = faults.arrival(of: .getInfo, occurrence: 1, frame: 3)
        #expect(fired.drop == "fault: drop@3: link dropped at \(CommandID.getInfo)")
        #expect(!fired.cardRemoved)
        #expect(fired.reboot == nil)
        #expect(faults.rebootAtFrame == 3, "a reboot that did not fire is not spent")
        #expect(faults.cardRemovedAt == .getInfo)
    }

    @Test func theCardComesOutAndTheTerminalRebootsOnOneFrame() {
        var faults = SimulatorFaults(cardRemovedAt: .transactionInit, rebootAtFrame: 4)
        let fired = faults.arrival(of: .transactionInit, occurrence: 1, frame: 4)
        #expect(fired.drop == nil)
        #expect(fired.cardRemoved)
        #expect(fired.reboot?.hasPrefix("fault: reboot@4") == true)
        #expect(faults.arrival(of: .transactionInit, occurrence: 1, frame: 4) == .init(), "each fires once")
    }

    @Test func silenceFiresAtItsFrameOnce() throws {
        var faults = try SimulatorFaults(parsing: "silent@2")
        #expect(faults.silence(atFrame: 1) == nil)
        #expect(faults.silence(atFrame: 2)?.hasPrefix("fault: silent@2") == true)
        #expect(faults.silence(atFrame: 2) == nil)
    }
}
