import Synchronization
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubePayment

/// `read-card`'s sequence in the payment library (issue 42, item 4): run against the simulator's cards, with no
/// executable, no countdown and no rendering. The cards and what each gives are the simulator's catalogue
/// (`ucube simulate --list-cards`).
@Suite struct CardReadingTests {
    /// Reads `card` on a terminal with nothing pending, as `read-card` leaves it READY first.
    static func read(card: String, readers: [CardReader] = [.icc, .nfc]) async throws -> (
        Result<CardReading, any Error>, inserted: Bool
    ) {
        let scenario = try #require(CardCatalogue.named(card))
        let simulator = try TerminalSimulator(
            configuration: scenario.configuration(SimulatorConfiguration(timeScale: 0.01)))
        let opened = TransportFactory.inProcess { peer in
            _ = await simulator.serve(input: peer.input, output: { peer.write($0) })
        }
        let client = RPCClient(transport: opened.transport, defaultTimeout: .seconds(600))
        let inserted = Flag()
        let result: Result<CardReading, any Error>
        do {
            result = .success(try await CardReading.read(client, readers: readers, timeout: 30) { inserted.set() })
        } catch {
            result = .failure(error)
        }
        await client.close()
        await opened.peer?.value
        return (result, inserted.isSet)
    }

    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    @Test func aChipCardShowsItsApplicationsAndOnlyItsMaskedPAN() async throws {
        let (result, inserted) = try await Self.read(card: "mc-two-apps")
        let reading = try result.get()
        #expect(inserted, "a chip card's removal is the caller's to await")
        #expect(reading.entryMode == .icc)
        #expect(reading.applications.map(\.priority) == [1, 2])
        #expect(reading.applicationLabel == reading.applications.first?.label)
        #expect(reading.scheme == "Mastercard")
        let pan = try #require(reading.maskedPAN)
        #expect(pan.contains("******"), "only the first 6 and last 4 digits: \(pan)")
    }

    @Test func aContactlessCardIsReadWithoutBuildingACandidateList() async throws {
        let (result, inserted) = try await Self.read(card: "visa-contactless")
        let reading = try result.get()
        #expect(!inserted)
        #expect(reading.entryMode == .nfc)
        #expect(reading.applications.isEmpty)
        #expect(reading.scheme == "Visa")
    }

    @Test(arguments: [
        ("card-timeout", CardReading.Failure.noCard(timeout: 30)),
        ("no-common-app", CardReading.Failure.noCommonApplication),
    ])
    func aFailedReadSaysWhy(card: String, expected: CardReading.Failure) async throws {
        let (result, _) = try await Self.read(card: card)
        #expect(throws: expected) { try result.get() }
    }

    /// 5F24 is YYMMDD in BCD (EMV Book 3, Annex A): shown as MM/YY, and only a real month.
    @Test func theExpiryIsAMonthOrNothing() {
        #expect(CardReading.expiry([0x28, 0x12, 0x31]) == "12/28")
        #expect(CardReading.expiry([0x28, 0x13, 0x31]) == nil)
        #expect(CardReading.expiry([0x2A, 0x12]) == nil)
    }
}
