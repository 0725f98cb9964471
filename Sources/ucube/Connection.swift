import Foundation
import Logging
import UCubeLog
import UCubeBluetooth
import UCubeLink
import UCubeProtocol
import UCubeSimulator

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

    /// Opens `globals`' device, or `address` when given (`ucube connect`). A remembered name is resolved through
    /// devices.json first.
    static func open(
        _ globals: GlobalOptions, card: CardScenario? = nil, address given: DeviceAddress? = nil,
        bluetooth: BLEConnectOptions = BLEConnectOptions()
    ) async throws -> Connection {
        var address: DeviceAddress
        do {
            address = try given ?? DeviceAddress(parsing: globals.deviceAddress)
            if case .remembered(let name) = address {
                guard let known = try RememberedDevices.find(name) else {
                    throw CLIFailure(
                        ExitCodes.usage,
                        "unknown device '\(name)': use sim, tcp://HOST:PORT, serial:///dev/NAME, ble://ADDRESS, rfcomm://ADDRESS or a name remembered by `ucube connect` (see `ucube connect --list`)")
                }
                address = try DeviceAddress(parsing: known.address)
            }
        } catch let error as LinkError {
            throw CLIFailure(ExitCodes.usage, error.reason)
        }
        let trace: (@Sendable (TraceEvent) -> Void)? = globals.trace ? { @Sendable event in TracePrinter.print(event) } : nil
        let sessionFile = Self.sessionPath(for: address)
        let rules = sessionFile.flatMap(SessionRecord.load)?.rules ?? LinkRules()
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
                let bleTrace: (@Sendable (BLETraceEvent) -> Void)? = globals.trace ? { @Sendable event in TracePrinter.print(event) } : nil
                let ble = try await BLETransport.connect(target: target, options: bluetooth, trace: bleTrace)
                peerName = ble.deviceName
                transportAddress = ble.address
                transport = ble
            case .rfcomm(let bdaddr, let channel):
                transport = try await RFCOMMTransport.connect(address: bdaddr, channel: UInt8(channel))
            case .remembered(let name):
                throw CLIFailure(ExitCodes.usage, "unknown device '\(name)'")
            }
        } catch let error as LinkError {
            throw CLIFailure(error)
        }
        if card != nil && address != .simulator {
            throw CLIFailure(ExitCodes.usage, "--card chooses the built-in simulator's card; it needs --device sim")
        }
        let client = RPCClient(
            transport: transport, defaultTimeout: globals.timeout, rules: rules, trace: trace,
            logger: Logger(layer: .rpc), connectionLogger: Logger(layer: .connection))
        return Connection(
            client: client, address: address, peerName: peerName, transportAddress: transportAddress, sessionFile: sessionFile, simulatorTask: simulatorTask)
    }

    /// Saves the session and closes the link.
    func close() async {
        if let sessionFile {
            let rules = await client.rules
            SessionRecord(rules: rules).save(to: sessionFile)
        }
        await client.close()
        if let simulatorTask { await simulatorTask.value }
    }

    private static func sessionPath(for address: DeviceAddress) -> String? {
        let key = address.description.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return Environment.runtimeDirectory + "/session-" + String(key) + ".json"
    }
}

/// The link session kept between invocations.
private struct SessionRecord: Codable {
    var secured: Bool
    var nextSequence: UInt8

    init(rules: LinkRules) {
        secured = rules.secured
        nextSequence = rules.nextSequence
    }

    var rules: LinkRules { LinkRules(secured: secured, nextSequence: nextSequence) }

    static func load(_ path: String) -> SessionRecord? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(SessionRecord.self, from: data)
    }

    /// Written to a temporary file renamed over the old one, so a reader never sees half a record, but not synced to
    /// disk (`Data.write(options: .atomic)` fsyncs): this is runtime state, lost at a reboot anyway, and a record that
    /// cannot be read is the same as none. Where the runtime directory is on disk (no `$XDG_RUNTIME_DIR`), the fsync
    /// and the rename over a synced file were most of a short command's wall time.
    func save(to path: String) {
        do {
            try Environment.ensureDirectory((path as NSString).deletingLastPathComponent)
            let bytes = Array(try JSONEncoder().encode(self))
            let temporary = path + ".\(getpid()).tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard written == bytes.count, rename(temporary, path) == 0 else {
                let code = POSIXErrorCode(rawValue: errno) ?? .EIO
                unlink(temporary)
                throw POSIXError(code)
            }
        } catch {
            StandardError.write("ucube: warning: cannot save the link session to \(path): \(error.localizedDescription)")
        }
    }
}

/// `--trace`: every frame, both ways, as hex with its fields (spec §2 layout), on stderr.
enum TracePrinter {
    static func print(_ event: TraceEvent) {
        switch event {
        case .sent(let bytes, let frame):
            let layout = frame.envelope == nil ? "" : " secured crypto=\(Hex.encode([frame.envelope!.cryptoHeader])) MAC=\(Hex.encode(frame.envelope!.mac))"
            StandardError.write("> \(Hex.encode(bytes, separator: " "))")
            StandardError.write("  SEQ \(Hex.encode([frame.sequence])) CMD \(frame.command) LEN \(bytes.count - 9)\(layout)")
        case .received(let bytes, let frame):
            StandardError.write("< \(Hex.encode(bytes, separator: " "))")
            StandardError.write("  SEQ \(Hex.encode([frame.sequence])) CMD \(frame.command) LEN \(frame.body.count)")
        case .rejected(let error):
            StandardError.write("! rejected bytes: \(error.reason)")
        case .disconnected(let reason):
            StandardError.write("! link down: \(reason)")
        }
    }

    /// The BLE layer under the frames (spec §3.1): stuffing, each write of at most MTU − 3 bytes, notifications.
    static func print(_ event: BLETraceEvent) {
        switch event {
        case .stuffed(let frame, let stuffed, let writes, let chunkSize):
            StandardError.write(
                "ble stuffed \(frame.count) → \(stuffed.count) bytes (with end-of-message 0E 0F), \(writes) write\(writes == 1 ? "" : "s") of at most \(chunkSize): \(Hex.encode(stuffed, separator: " "))")
        case .write(let index, let count, let bytes):
            StandardError.write("ble> write \(index)/\(count) (\(bytes.count) bytes): \(Hex.encode(bytes, separator: " "))")
        case .notified(let bytes):
            StandardError.write("ble< notification (\(bytes.count) bytes): \(Hex.encode(bytes, separator: " "))")
        case .step(let text):
            StandardError.write("ble: \(text)")
        }
    }
}
