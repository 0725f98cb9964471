import Synchronization
import Testing
import UCubeProtocol
import UCubeSimulator
import UCubeSupport

@testable import UCubeLink

/// Where an address becomes a transport (`TransportFactory`): TCP and device files here, the in-process terminal,
/// Bluetooth and replays through their hooks, and an address whose hook is missing refused with a connect error.
@Suite struct TransportFactoryTests {
    /// A transport that is only a name, for the hooks to hand back.
    struct Named: Transport {
        let name: String
        let incoming = ByteQueue()
        func write(_ bytes: [UInt8]) async throws {}
        func close() async { incoming.finish() }
    }

    @Test(arguments: [
        DeviceAddress.simulator, .ble("uCube"), .rfcomm(address: "AA:BB:CC:DD:EE:FF", channel: 1),
        .replay(path: "/tmp/x.ucube-rec"), .remembered("till-1"),
    ])
    func anAddressWithoutItsHookIsAConnectError(_ address: DeviceAddress) async {
        await #expect(throws: LinkError(.connectFailed, "")) { try await TransportFactory().open(address) }
    }

    @Test func bluetoothAndReplaysGoToTheirHooks() async throws {
        let asked = Mutex<[String]>([])
        let factory = TransportFactory(
            bluetooth: { address in
                asked.withLock { $0.append("bluetooth \(address)") }
                return TransportFactory.Opened(Named(name: address.description), peerName: "uCube Touch")
            },
            replay: { path in
                asked.withLock { $0.append("replay \(path)") }
                return TransportFactory.Opened(Named(name: path), session: .stale(owner: nil))
            })
        let ble = try await factory.open(.ble("AA:BB:CC:DD:EE:FF"))
        #expect(ble.transport.name == "ble://AA:BB:CC:DD:EE:FF" && ble.peerName == "uCube Touch")
        let rfcomm = try await factory.open(.rfcomm(address: "AA:BB:CC:DD:EE:FF", channel: 3))
        #expect(rfcomm.transport.name == "rfcomm://AA:BB:CC:DD:EE:FF/3")
        let replay = try await factory.open(.replay(path: "/tmp/a.rec"))
        #expect(replay.session == .stale(owner: nil))
        let calls = asked.withLock { $0 }
        #expect(
            calls == [
                "bluetooth ble://AA:BB:CC:DD:EE:FF", "bluetooth rfcomm://AA:BB:CC:DD:EE:FF/3", "replay /tmp/a.rec",
            ])
    }

    /// `sim`: the hook's terminal answers on the other end, and its task ends once the client closed the link.
    @Test func theSimulatorAnswersInProcess() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let link = try await TransportFactory(inProcess: { peer in
            _ = await simulator.serve(input: peer.input, output: { peer.write($0) })
        }).open(.simulator)
        #expect(link.transport.name == "sim")
        let client = RPCClient(transport: link.transport, defaultTimeout: .seconds(30))
        #expect(try await client.send(GetInfo(tags: [0xC4])).response?.state == .ready)
        await client.close()
        await link.peer?.value
    }

    /// A terminal that refuses to be made (a configuration that does not hold) is the open's error.
    @Test func aSimulatorThatCannotBeMadeIsTheError() async {
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused()) {
            try await TransportFactory(simulator: { throw Refused() }).open(.simulator)
        }
    }

    @Test func aMissingDeviceFileIsAConnectError() async {
        await #expect(throws: LinkError(.connectFailed, "")) {
            try await TransportFactory().open(.serial(path: "/dev/does-not-exist-ucube"))
        }
    }
}
