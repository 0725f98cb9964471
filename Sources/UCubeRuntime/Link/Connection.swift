import Foundation
import Logging
import Synchronization
import UCubeBluetooth
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator
import UCubeSupport

/// Opens the link a command asked for and gives it an RPC client, with the process's part of the link session: the
/// device lock, the control socket, and the session record's file (one per device under the runtime directory, since
/// the terminal outlives the process). The session's rules are `LinkSession`'s (UCubeLink).
package struct Connection {
    /// The link's session with the terminal (spec §8.6, §8.7): what a payment may take as known, the record at close.
    package let session: LinkSession
    package var client: RPCClient { session.client }
    package let address: DeviceAddress
    /// The terminal's advertised name, when the link knows it (BLE).
    package var peerName: String? = nil
    /// The Bluetooth address of a BLE terminal (`AA:BB:…`), whatever name it was reached by.
    package var transportAddress: String? = nil
    private let sessionFile: String?
    private let simulatorTask: Task<Void, Never>?
    /// This link's records, with `--record`.
    private var recorder: LinkRecorder? = nil
    /// What a command needs from the terminal before its first command (`LinkPreparation`, decided by `LinkOpening`).
    package typealias Preparation = LinkPreparation

    /// The device a command addresses: `given`, else `--device`; a name remembered by `ucube connect` is resolved
    /// through devices.json. `ucube cancel` uses it too, to find the same control socket.
    package static func resolve(_ given: DeviceAddress?, _ context: CommandContext) throws -> DeviceAddress {
        if given == nil && context.givenDevices.count > 1 {
            throw CLIFailure(
                ExitCodes.usage,
                "--device is given \(context.givenDevices.count) times, and this command drives one terminal",
                hint:
                    "info, diagnose, mdm-register, mdm-update, send-logs, test and shell --script run over several terminals (--device repeated, --devices FILE)"
            )
        }
        var address: DeviceAddress
        do {
            address = try given ?? DeviceAddress(parsing: context.deviceAddress)
            if case .remembered(let name) = address {
                guard let known = try RememberedDevices.find(name) else {
                    throw CLIFailure(
                        ExitCodes.usage,
                        "unknown device '\(name)': use sim, tcp://HOST:PORT, serial:///dev/NAME, ble://ADDRESS, rfcomm://ADDRESS or a name remembered by `ucube connect` (see `ucube connect --list`)"
                    )
                }
                address = try DeviceAddress(parsing: known.address)
            }
        } catch let error as LinkError {
            throw CLIFailure(ExitCodes.usage, error.reason)
        }
        return address
    }

    /// Whether this process has yet to say that the built-in simulator stands in for an unnamed terminal.
    private static let simulatorNoticeDue = Mutex(true)

    /// Opens `context`'s device, or `address` when given (`ucube connect`). A remembered name is resolved through
    /// devices.json first. `prepare` says what state the command needs the terminal in (see `Preparation`).
    package static func open(
        _ context: CommandContext, card: CardScenario? = nil, address given: DeviceAddress? = nil,
        bluetooth: BLEConnectOptions = BLEConnectOptions(), prepare: Preparation = .ready
    ) async throws -> Connection {
        let address = try resolve(given, context)
        if given == nil, context.namedDevice == nil, !context.quiet,
            simulatorNoticeDue.withLock({ (due: inout Bool) in
                defer { due = false }; return due
            })
        {
            // Never a simulator by surprise: a fresh user, `sudo` or another HOME has no terminal configured. Said by
            // every command that stands the simulator in, once (a suite's cases open a link each).
            StandardError.write(
                "ucube: no terminal named (--device, $UCUBE_DEVICE, `ucube connect`): using the built-in simulator; its outcomes are simulated (--device sim or UCUBE_DEVICE=sim chooses it and silences this)"
            )
        }
        try DeviceLock.acquire(key: Environment.fileKey(address), device: address.description)
        await ControlSocket.listen(forDevice: address.description)
        let sessionFile = Self.sessionPath(for: address)
        let stored = sessionFile.map(SessionRecord.load) ?? .missing
        if case .remembered(let name) = address { throw CLIFailure(ExitCodes.usage, "unknown device '\(name)'") }
        let link: TransportFactory.Opened
        do {
            link = try await transports(context, card: card, bluetooth: bluetooth).open(address)
        } catch let error as LinkError {
            throw CLIFailure(error)
        }
        // A replay takes the recorded command line as it was: its --card chose the readers then, and does now.
        if case .replay = address {
        } else if card != nil && address != .simulator {
            throw CLIFailure(ExitCodes.usage, "--card chooses the built-in simulator's card; it needs --device sim")
        }
        // A replay starts from the recording's session; a device from its file.
        let recorded = link.session ?? stored
        let recorder = SessionRecorder.active?.link(device: address.description, session: Recording.Session(recorded))
        let session = LinkSession(record: recorded, preparation: prepare) { rules in
            RPCClient(
                transport: link.transport, defaultTimeout: context.timeout, rules: rules,
                trace: Self.trace(printing: context.trace, recorder: recorder),
                logger: Logger(layer: .rpc), connectionLogger: Logger(layer: .connection))
        }
        var connection = Connection(
            session: session, address: address, peerName: link.peerName, transportAddress: link.transportAddress,
            sessionFile: sessionFile, simulatorTask: link.peer)
        connection.recorder = recorder
        if let sessionFile { session.openRecord(owner: getpid()).save(to: sessionFile) }
        if case .stale(let owner) = recorded {
            Logger(layer: .connection).notice(
                "the last ucube process on \(address)\(owner.map { " (pid \($0))" } ?? "") did not close the link: resetting the terminal"
            )
        }
        do {
            try await session.start()
        } catch {
            await connection.close()
            throw CLIFailure(error)
        }
        return connection
    }

    /// How this process opens a link (`TransportFactory`): the built-in simulator with `card` (`BuiltInSimulator`:
    /// its state directory, $UCUBE_SIM_FAULT, $UCUBE_SIM_SEED …), Bluetooth one connect at a time
    /// (`BluetoothConnectGate`), and a recording's next link (`ReplaySource`).
    private static func transports(_ context: CommandContext, card: CardScenario?, bluetooth: BLEConnectOptions)
        -> TransportFactory
    {
        let trace = context.trace
        return TransportFactory(
            simulator: {
                let simulator = try BuiltInSimulator.make(scenario: card)
                return { peer in _ = await simulator.serve(input: peer.input, output: { bytes in peer.write(bytes) }) }
            },
            bluetooth: { address in
                let bleTrace: (@Sendable (BLETraceEvent) -> Void)? =
                    trace ? { @Sendable event in TracePrinter.print(event) } : nil
                return try await BluetoothConnectGate.shared.serialized { () async throws(LinkError) in
                    try await TransportFactory.openBluetooth(address, options: bluetooth, trace: bleTrace)
                }
            },
            replay: { path in try ReplaySource.link(path: path, name: "replay:\(path)", fast: context.fast) })
    }

    /// What the RPC client does with each frame: print it (`--trace`), record it (`--record`), both or neither.
    package func trace(printing: Bool) -> (@Sendable (TraceEvent) -> Void)? {
        Self.trace(printing: printing, recorder: recorder)
    }

    private static func trace(printing: Bool, recorder: LinkRecorder?) -> (@Sendable (TraceEvent) -> Void)? {
        guard printing || recorder != nil else { return nil }
        return { @Sendable event in
            if printing { TracePrinter.print(event) }
            recorder?.record(event)
        }
    }

    /// Sends a read whose answer shows whether the terminal is idle (`LinkSession.query`, spec §8.7): on a `.query`
    /// link that took it as idle on the record's word alone, the terminal is reset and asked again if it was not.
    package func query<C: RPCCommand>(_ command: C) async throws(LinkError) -> Reply<C.Response> {
        let (reply, reset) = try await session.query(command)
        if reset {
            Logger(layer: .connection).notice(
                "\(address): the terminal was not idle after the last clean exit (another host used it?): it was reset")
        }
        return reply
    }

    /// What a payment starting now may take as known (`LinkSession.linkStart`, spec §8.6).
    package func linkStart() async -> LinkStart { await session.linkStart() }

    /// Keeps the terminal a payment met (`LinkSession.remember`).
    package func remember(_ terminal: KnownTerminal?) async { await session.remember(terminal) }

    /// Writes the session's closing record, or removes the file when the session is not kept
    /// (`LinkSession.closingRecord`), and closes the link.
    package func close() async {
        if let sessionFile {
            if let record = await session.closingRecord() {
                record.save(to: sessionFile)
            } else {
                unlink(sessionFile)
            }
        }
        await client.close()
        recorder?.closed()
        if let simulatorTask { await simulatorTask.value }
        await ControlSocket.stopListening(forDevice: address.description)
    }

    package static func sessionPath(for address: DeviceAddress) -> String? {
        // A replay starts from the recording's session and leaves the real terminals' files alone.
        if case .replay = address { return nil }
        return Environment.runtimeDirectory + "/session-" + Environment.fileKey(address)
    }
}

/// Runs `body` with an open connection and always closes it, saving the link session. Inside `ucube shell` (the
/// context's shell) the shell's one link is used and stays open. `prepare`: the state the command needs the terminal in.
package func withConnection<T>(
    _ context: CommandContext, card: CardScenario? = nil, prepare: Connection.Preparation = .ready,
    _ body: (Connection) async throws -> T
) async throws -> T {
    if let session = context.shell {
        return try await body(try await session.connection(context, card: card))
    }
    let connection = try await Connection.open(context, card: card, prepare: prepare)
    do {
        let result = try await body(connection)
        await connection.close()
        return result
    } catch {
        await connection.close()
        throw error
    }
}
