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

/// Opens the link a command asked for and gives it an RPC client. Also keeps the link session (SEQ and secure
/// session flag) across one-shot invocations, since the terminal outlives the process (a file per device under the
/// runtime directory).
struct Connection {
    let client: RPCClient
    let address: DeviceAddress
    /// The terminal's advertised name, when the link knows it (BLE).
    var peerName: String? = nil
    /// The Bluetooth address of a BLE terminal (`AA:BB:…`), whatever name it was reached by.
    var transportAddress: String? = nil
    private let sessionFile: String?
    private let simulatorTask: Task<Void, Never>?
    /// This link's records, with `--record`.
    private var recorder: LinkRecorder? = nil
    /// Whether the terminal is known idle, and the terminal a payment met on this link (spec §8.6).
    private let memo = TerminalMemo()

    /// What a command needs from the terminal before its first command (`LinkPreparation`, decided by `LinkOpening`).
    typealias Preparation = LinkPreparation

    /// The device a command addresses: `given`, else `--device`; a name remembered by `ucube connect` is resolved
    /// through devices.json. `ucube cancel` uses it too, to find the same control socket.
    static func resolve(_ given: DeviceAddress?, _ context: CommandContext) throws -> DeviceAddress {
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

    /// Opens `context`'s device, or `address` when given (`ucube connect`). A remembered name is resolved through
    /// devices.json first. `prepare` says what state the command needs the terminal in (see `Preparation`).
    /// Whether this process has yet to say that the built-in simulator stands in for an unnamed terminal.
    private static let simulatorNoticeDue = Mutex(true)

    static func open(
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
        try DeviceLock.acquire(key: fileKey(address), device: address.description)
        await ControlSocket.listen(forDevice: address.description)
        let sessionFile = Self.sessionPath(for: address)
        var recorded = sessionFile.map(SessionRecord.load) ?? .missing
        let transport: any Transport
        var simulatorTask: Task<Void, Never>? = nil
        var peerName: String? = nil
        var transportAddress: String? = nil
        do {
            switch address {
            case .simulator:
                let (client, peer) = InMemoryTransport.pair(name: "sim")
                let simulator = try BuiltInSimulator.make(scenario: card)
                simulatorTask = Task {
                    // `serve` returns when the client closes, or when a fault scenario drops the link: either way
                    // the client's stream ends, as a real link would.
                    _ = await simulator.serve(input: peer.input, output: { bytes in peer.write(bytes) })
                    peer.disconnect()
                }
                transport = client
            case .tcp(let host, let port):
                transport = try await ChannelTransport.connectTCP(host: host, port: port)
            case .serial(let path):
                transport = try await ChannelTransport.openDevice(path: path)
            case .ble(let target):
                let bleTrace: (@Sendable (BLETraceEvent) -> Void)? =
                    context.trace ? { @Sendable event in TracePrinter.print(event) } : nil
                let ble = try await BluetoothConnectGate.shared.serialized { () async throws(LinkError) in
                    try await BLETransport.connect(target: target, options: bluetooth, trace: bleTrace)
                }
                peerName = ble.deviceName
                transportAddress = ble.address
                transport = ble
            case .rfcomm(let bdaddr, let channel):
                transport = try await BluetoothConnectGate.shared.serialized { () async throws(LinkError) in
                    try await RFCOMMTransport.connect(address: bdaddr, channel: UInt8(channel))
                }
            case .remembered(let name):
                throw CLIFailure(ExitCodes.usage, "unknown device '\(name)'")
            case .replay(let path):
                (transport, recorded) = try ReplaySource.link(path: path, name: address.description, fast: context.fast)
            }
        } catch let error as LinkError {
            throw CLIFailure(error)
        }
        // A replay takes the recorded command line as it was: its --card chose the readers then, and does now.
        if case .replay = address {
        } else if card != nil && address != .simulator {
            throw CLIFailure(ExitCodes.usage, "--card chooses the built-in simulator's card; it needs --device sim")
        }
        let opening = LinkOpening(recorded, preparation: prepare)
        let recorder = SessionRecorder.active?.link(device: address.description, session: Recording.Session(recorded))
        let client = RPCClient(
            transport: transport, defaultTimeout: context.timeout, rules: opening.rules,
            trace: Self.trace(printing: context.trace, recorder: recorder),
            logger: Logger(layer: .rpc), connectionLogger: Logger(layer: .connection))
        var connection = Connection(
            client: client, address: address, peerName: peerName, transportAddress: transportAddress,
            sessionFile: sessionFile, simulatorTask: simulatorTask)
        connection.recorder = recorder
        // Ours from now on: a process that dies before `close` leaves this mark, and the next one resets.
        if let sessionFile { opening.openRecord(owner: getpid()).save(to: sessionFile) }
        if case .stale(let owner) = recorded {
            Logger(layer: .connection).notice(
                "the last ucube process on \(address)\(owner.map { " (pid \($0))" } ?? "") did not close the link: resetting the terminal"
            )
        }
        do {
            // The terminal is idle, its secure-session state known, once the last process closed the link cleanly or
            // this one resynchronised it; a payment's own starting steps resynchronise it otherwise.
            try await opening.perform(on: connection.client)
            connection.memo.set(
                idle: opening.idle, opening.terminal, commandsSent: await connection.client.commandsSent,
                unverified: opening.unverified)
        } catch {
            await connection.close()
            throw CLIFailure(error)
        }
        return connection
    }

    /// What the RPC client does with each frame: print it (`--trace`), record it (`--record`), both or neither.
    func trace(printing: Bool) -> (@Sendable (TraceEvent) -> Void)? {
        Self.trace(printing: printing, recorder: recorder)
    }

    private static func trace(printing: Bool, recorder: LinkRecorder?) -> (@Sendable (TraceEvent) -> Void)? {
        guard printing || recorder != nil else { return nil }
        return { @Sendable event in
            if printing { TracePrinter.print(event) }
            recorder?.record(event)
        }
    }

    /// Sends the first command of a `.query` link (a read): when the link took the terminal as idle on the record's
    /// word alone, the answer must confirm it, and the terminal is reset and asked again if it does not
    /// (`RPCClient.sendConfirmingIdle`, spec §8.7). Otherwise, and for every later command, it is `client.send`.
    func query<C: RPCCommand>(_ command: C) async throws(LinkError) -> Reply<C.Response> {
        guard memo.takeUnverified() else { return try await client.send(command) }
        let (reply, reset) = try await client.sendConfirmingIdle(command)
        if reset {
            memo.set(idle: true, nil, commandsSent: await client.commandsSent)
            Logger(layer: .connection).notice(
                "\(address): the terminal was not idle after the last clean exit (another host used it?): it was reset")
        }
        return reply
    }

    /// What a payment starting now may take as known (spec §8.6): the terminal is idle when the link started so and no
    /// command since went unanswered; the known terminal holds when no command was sent since a payment (or the last
    /// process) learned it.
    func linkStart() async -> LinkStart {
        let lostTrack = await client.lostTrack
        guard memo.idle, !lostTrack else { return .unknown }
        return LinkStart(
            idle: true, secured: await client.isSecured,
            terminal: memo.terminal(ifCommandsSent: await client.commandsSent))
    }

    /// Keeps the terminal a payment met (nil: it learned none, and what was known no longer holds). A payment's
    /// starting steps leave the terminal's state known, whatever they started from.
    func remember(_ terminal: KnownTerminal?) async {
        memo.set(idle: true, terminal, commandsSent: await client.commandsSent)
    }

    /// Saves the session (marked closed cleanly) and closes the link. When the client lost track of the terminal (an
    /// unanswered command, a dropped link), the session is not kept: the file goes, and the next process resets the
    /// terminal first. The known terminal is kept only when no command followed the payment that learned it.
    func close() async {
        if let sessionFile {
            if await client.lostTrack {
                unlink(sessionFile)
            } else {
                let terminal = memo.terminal(ifCommandsSent: await client.commandsSent)
                SessionRecord(rules: await client.rules, owner: nil, terminal: terminal).save(to: sessionFile)
            }
        }
        await client.close()
        recorder?.closed()
        if let simulatorTask { await simulatorTask.value }
        await ControlSocket.stopListening(forDevice: address.description)
    }

    static func sessionPath(for address: DeviceAddress) -> String? {
        // A replay starts from the recording's session and leaves the real terminals' files alone.
        if case .replay = address { return nil }
        return Environment.runtimeDirectory + "/session-" + fileKey(address)
    }

    /// The device as a file-name part: letters and digits kept, everything else `_`.
    static func fileKey(_ address: DeviceAddress) -> String { fileKey(address.description) }

    static func fileKey(_ device: String) -> String {
        String(device.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
