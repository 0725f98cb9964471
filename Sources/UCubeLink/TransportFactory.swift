/// Opens the byte link a `DeviceAddress` names: the one place an address becomes a transport, for the CLI, the fuzz
/// targets, the benchmarks and the tests. TCP and device files (serial, `/dev/rfcomm*`, pseudo-terminals) are this
/// module's own. The others come as hooks, so that the dependencies keep pointing down: the in-process terminal
/// (UCubeSimulator is a peer and imports no link code), Bluetooth (UCubeBluetooth imports this module) and recordings
/// (which link of a recording comes next is the process's state). An address without its hook is refused.
package struct TransportFactory: Sendable {
    /// A link as opened, with what the opening learned.
    package struct Opened: Sendable {
        package let transport: any Transport
        /// The terminal's advertised name, when the link knows it (BLE).
        package var peerName: String?
        /// The Bluetooth address of a BLE terminal (`AA:BB:…`), whatever name it was reached by.
        package var transportAddress: String?
        /// The link session to start from when it is not the session file's: a replay's, the recorded process's view.
        package var session: SessionRecord.Loaded?
        /// The in-process terminal's task: it ends once the client closed the link, or the terminal dropped it.
        package var peer: Task<Void, Never>?

        package init(
            _ transport: any Transport, peerName: String? = nil, transportAddress: String? = nil,
            session: SessionRecord.Loaded? = nil, peer: Task<Void, Never>? = nil
        ) {
            self.transport = transport
            self.peerName = peerName
            self.transportAddress = transportAddress
            self.session = session
            self.peer = peer
        }
    }

    /// An in-process terminal: answers what the client writes on the peer's end until the client closes the link
    /// (or drops it itself, as a fault scenario does).
    package typealias InProcessTerminal = @Sendable (InMemoryTransport.PeerEnd) async -> Void

    /// `sim`: makes the in-process terminal (it may refuse: a configuration that does not hold).
    package var simulator: (@Sendable () throws -> InProcessTerminal)?
    /// `ble://…` and `rfcomm://…`: UCubeBluetooth's transports.
    package var bluetooth: (@Sendable (DeviceAddress) async throws -> Opened)?
    /// `replay:FILE`: the recording's next link, and the session its process found.
    package var replay: (@Sendable (_ path: String) throws -> Opened)?

    package init(
        simulator: (@Sendable () throws -> InProcessTerminal)? = nil,
        bluetooth: (@Sendable (DeviceAddress) async throws -> Opened)? = nil,
        replay: (@Sendable (_ path: String) throws -> Opened)? = nil
    ) {
        self.simulator = simulator
        self.bluetooth = bluetooth
        self.replay = replay
    }

    /// A factory whose `sim` is `terminal` (a benchmark's or a test's simulator, a fuzz script).
    package init(inProcess terminal: @escaping InProcessTerminal) {
        self.init(simulator: { terminal })
    }

    /// Opens `address`. A remembered name is resolved before (devices.json is the CLI's).
    package func open(_ address: DeviceAddress) async throws -> Opened {
        switch address {
        case .simulator:
            guard let simulator else { throw Self.unavailable(address, "no in-process terminal") }
            return Self.inProcess(name: address.description, try simulator())
        case .tcp(let host, let port):
            return Opened(try await ChannelTransport.connectTCP(host: host, port: port))
        case .serial(let path):
            return Opened(try await ChannelTransport.openDevice(path: path))
        case .ble, .rfcomm:
            guard let bluetooth else { throw Self.unavailable(address, "no Bluetooth") }
            return try await bluetooth(address)
        case .replay(let path):
            guard let replay else { throw Self.unavailable(address, "no replay") }
            return try replay(path)
        case .remembered(let name):
            throw LinkError(.connectFailed, "unknown device '\(name)': a name is resolved before a link opens")
        }
    }

    /// A link to an in-process terminal: `terminal` answers on the peer's end in a task of its own, and the peer's
    /// end is dropped when it returns, so the client's stream ends as a real link's would.
    package static func inProcess(name: String = "sim", _ terminal: @escaping InProcessTerminal) -> Opened {
        let (client, peer) = InMemoryTransport.pair(name: name)
        let task = Task {
            await terminal(peer)
            peer.disconnect()
        }
        return Opened(client, peer: task)
    }

    private static func unavailable(_ address: DeviceAddress, _ what: String) -> LinkError {
        LinkError(.connectFailed, "cannot open \(address): \(what) here")
    }
}
