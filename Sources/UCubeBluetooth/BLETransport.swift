import UCubeLink
import UCubeProtocol
import UCubeSupport

/// What the BLE layer did below the RPC frames, for `--trace`: the stuffed message, each write, each notification.
package enum BLETraceEvent: Sendable {
    /// A raw frame was stuffed (spec §3.1) into `stuffed`, to be written in `writes` chunks of at most `chunkSize`.
    case stuffed(frame: [UInt8], stuffed: [UInt8], writes: Int, chunkSize: Int)
    /// One TxRx write (1-based index of count).
    case write(index: Int, count: Int, bytes: [UInt8])
    /// One TxRx notification.
    case notified([UInt8])
    /// A step of the connection (GATT resolution, power state, password).
    case step(String)
}

/// Options of a BLE connection.
package struct BLEConnectOptions: Sendable {
    package var timeout: Duration
    package var attempts: Int
    package init(timeout: Duration = BluetoothChoices.connectTimeout, attempts: Int = BluetoothChoices.connectAttempts)
    {
        self.timeout = timeout
        self.attempts = max(1, attempts)
    }
}

/// A uCube Touch over BLE through BlueZ (spec §3.1): GATT service and characteristics resolved, the power state
/// read and, when the terminal is off, the 2-byte connection password written and the power-on notification
/// awaited; then TxRx notifications feed `incoming` with un-stuffed frames, and writes are stuffed and chunked to
/// the negotiated MTU. When BlueZ reports the device disconnected (or the bus goes away) `incoming` ends with a
/// `LinkError(.disconnected)` naming the reason, and every later write fails.
package final class BLETransport: Transport, @unchecked Sendable {
    package let name: String
    package let incoming: ByteQueue
    /// The advertised name (the password is derived from it).
    package let deviceName: String
    /// The Bluetooth address, `AA:BB:CC:DD:EE:FF`.
    package let address: String
    /// Bytes per TxRx write (MTU − 3).
    package let chunkSize: Int

    private let bluez: BlueZ
    private let devicePath: String
    private let txRxPath: String
    private let link: LinkState
    private let trace: (@Sendable (BLETraceEvent) -> Void)?
    private let router: Task<Void, Never>

    private init(
        name: String, deviceName: String, address: String, chunkSize: Int, bluez: BlueZ, devicePath: String,
        txRxPath: String,
        link: LinkState, incoming: ByteQueue, trace: (@Sendable (BLETraceEvent) -> Void)?,
        router: Task<Void, Never>
    ) {
        self.name = name
        self.deviceName = deviceName
        self.address = address
        self.chunkSize = chunkSize
        self.bluez = bluez
        self.devicePath = devicePath
        self.txRxPath = txRxPath
        self.link = link
        self.incoming = incoming
        self.trace = trace
        self.router = router
    }

    /// Connects to the uCube Touch `target` (an address `AA:BB:…` or an advertised name), scanning first when BlueZ
    /// does not know it yet, with `options.attempts` tries of at most `options.timeout` each.
    package static func connect(
        target: String, options: BLEConnectOptions = BLEConnectOptions(),
        trace: (@Sendable (BLETraceEvent) -> Void)? = nil
    ) async throws(LinkError) -> BLETransport {
        let bluez = try await BlueZ.connect()
        do {
            return try await connect(bluez: bluez, target: target, options: options, trace: trace)
        } catch {
            bluez.close()
            throw error
        }
    }

    private static func connect(
        bluez: BlueZ, target: String, options: BLEConnectOptions, trace: (@Sendable (BLETraceEvent) -> Void)?
    ) async throws(LinkError) -> BLETransport {
        var tree = try await bluez.objects()
        let adapter = try bluez.adapterPath(in: tree)
        var device = DiscoveredDevice.all(in: tree, adapter: adapter).first { $0.matches(target) }
        if device == nil {
            trace?(.step("\(target) is not known to BlueZ yet: scanning"))
            try await bluez.startDiscovery(adapter: adapter)
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: options.timeout)
            while device == nil && clock.now < deadline {
                try? await Task.sleep(for: BluetoothChoices.pollInterval)
                tree = try await bluez.objects()
                device = DiscoveredDevice.all(in: tree, adapter: adapter).first { $0.matches(target) }
            }
            await bluez.stopDiscovery(adapter: adapter)
        }
        guard let device else {
            throw LinkError(
                .connectFailed,
                "no Bluetooth device '\(target)' found after scanning \(options.timeout): is the terminal on and in range? (`ucube scan` lists what is seen)"
            )
        }

        var lastError = LinkError(.connectFailed, "no attempt made")
        for attempt in 1...options.attempts {
            do {
                trace?(
                    .step(
                        "connecting to \(device.address) (\(device.name ?? "no name")), attempt \(attempt) of \(options.attempts)"
                    ))
                return try await attemptConnection(bluez: bluez, device: device, options: options, trace: trace)
            } catch {
                lastError = error
                _ = try? await bluez.call(device.path, BlueZ.deviceInterface, "Disconnect", timeout: .seconds(5))
            }
        }
        throw LinkError(
            lastError.code, "\(lastError.reason) (after \(options.attempts) attempt\(options.attempts == 1 ? "" : "s"))"
        )
    }

    private static func attemptConnection(
        bluez: BlueZ, device: DiscoveredDevice, options: BLEConnectOptions, trace: (@Sendable (BLETraceEvent) -> Void)?
    ) async throws(LinkError) -> BLETransport {
        do {
            _ = try await bluez.call(device.path, BlueZ.deviceInterface, "Connect", timeout: options.timeout)
        } catch {
            if error.name != "org.bluez.Error.AlreadyConnected" {
                throw LinkError(.connectFailed, "cannot connect to \(device.address): \(error)")
            }
        }
        // GATT resolution (spec §3.1): wait for the service and its three characteristics.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: options.timeout)
        var gatt: GATTPaths? = nil
        while true {
            let tree = try await bluez.objects()
            if tree[device.path]?[BlueZ.deviceInterface]?["Connected"]?.bool == false && clock.now > deadline {
                throw LinkError(.connectFailed, "\(device.address) did not stay connected")
            }
            gatt = GATTPaths(tree: tree, device: device.path)
            let resolved = tree[device.path]?[BlueZ.deviceInterface]?["ServicesResolved"]?.bool ?? false
            if let gatt, gatt.complete { break }
            if resolved && gatt == nil {
                throw LinkError(
                    .connectFailed,
                    "\(device.address) does not offer the uCube Touch service \(BluetoothChoices.serviceUUID.uppercased()) (spec §3.1): is it a uCube Touch?"
                )
            }
            if clock.now >= deadline {
                throw LinkError(.timeout, "\(device.address): GATT services not resolved within \(options.timeout)")
            }
            try? await Task.sleep(for: BluetoothChoices.pollInterval)
        }
        guard let gatt, let txRx = gatt.txRx, let powerState = gatt.powerState, let password = gatt.password else {
            throw LinkError(
                .connectFailed,
                "\(device.address): the uCube Touch service lacks TxRx, HState or the password characteristic")
        }
        trace?(.step("GATT resolved: service \(gatt.service), TxRx \(txRx)"))

        // Subscribed only now that the link is up and resolved, then checked once more: a disconnection during the
        // resolution, after which BlueZ connected again by itself, belongs to a link that is gone and must not be
        // taken later for the loss of this one (issue 24: seen over real BlueZ, 2 commands in 13 failed "link
        // lost" on their first frame). Nothing is missed: notifications start with StartNotify, which comes after.
        let signals = bluez.bus.signals()
        let settled = try await bluez.objects()
        guard settled[device.path]?[BlueZ.deviceInterface]?["Connected"]?.bool == true else {
            throw LinkError(.connectFailed, "\(device.address) did not stay connected during the GATT resolution")
        }
        // The ATT MTU BlueZ negotiated (it asks for up to 517 when it connects; the terminal answers its own): the
        // characteristic's `MTU` property, read from this later tree in case the exchange ended after the first one.
        let mtu = GATTPaths(tree: settled, device: device.path)?.txRxMTU ?? gatt.txRxMTU

        let incoming = ByteQueue()
        let (powerStates, powerContinuation) = AsyncStream<[UInt8]>.makeStream()
        let link = LinkState(incoming: incoming, trace: trace)
        let router = Task {
            for await signal in signals {
                switch BLESignal(signal, txRx: txRx, powerState: powerState, device: device.path) {
                case .notification(let value): await link.notified(value)
                case .powerState(let value): powerContinuation.yield(value)
                case .disconnected: await link.drop("the uCube Touch dropped the BLE link (BlueZ: Connected=false)")
                case .removed: await link.drop("BlueZ removed the device \(device.address)")
                case nil: break
                }
            }
            powerContinuation.finish()
            await link.drop("the D-Bus system bus went away")
        }
        do throws(LinkError) {
            // Power state and password handshake (spec §3.1, A-BLE `connectionLoop`).
            let state = try await gattCall(bluez, powerState, "ReadValue", [.options([])]).first?.bytes ?? []
            trace?(.step("HState \(Hex.encode(state, separator: " "))"))
            if let first = state.first, BluetoothChoices.poweredOnStates.contains(first) {
                trace?(.step("terminal is powered on"))
            } else {
                _ = try await gattCall(bluez, powerState, "StartNotify", [])
                let name = device.name ?? ""
                let secret = BluetoothChoices.connectionPassword(forName: name)
                trace?(.step("terminal is off: writing the connection password (CRC-16 of \"\(name)\")"))
                do {
                    _ = try await bluez.call(
                        password, BlueZ.gattCharacteristicInterface, "WriteValue",
                        [.bytes(secret), .options([("type", .string(BluetoothChoices.writeType))])],
                        timeout: options.timeout)
                } catch {
                    throw LinkError(
                        .connectFailed, "the terminal refused the connection password for '\(name)': \(error)")
                }
                try await waitForPowerOn(powerStates, timeout: options.timeout, address: device.address)
                trace?(.step("terminal powered on"))
            }
            _ = try await gattCall(bluez, txRx, "StartNotify", [])
        } catch {
            router.cancel()
            throw error
        }
        trace?(
            .step(
                "ATT MTU \(mtu.map(String.init) ?? "not reported (BlueZ < 5.62)"): writes of at most \(BluetoothChoices.chunkSize(mtu: mtu)) bytes"
            ))
        return BLETransport(
            name: "ble://\(device.address)", deviceName: device.name ?? device.address, address: device.address,
            chunkSize: BluetoothChoices.chunkSize(mtu: mtu), bluez: bluez, devicePath: device.path, txRxPath: txRx,
            link: link,
            incoming: incoming, trace: trace, router: router)
    }

    private static func waitForPowerOn(
        _ states: AsyncStream<[UInt8]>, timeout: Duration, address: String
    ) async throws(LinkError) {
        let outcome: Bool = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await value in states {
                    if let first = value.first, BluetoothChoices.poweredOnStates.contains(first) { return true }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !outcome {
            throw LinkError(
                .connectFailed, "\(address) did not report power-on (HState 0x34) after the connection password")
        }
    }

    private static func gattCall(
        _ bluez: BlueZ, _ path: String, _ member: String, _ arguments: [DBusValue]
    ) async throws(LinkError) -> [DBusValue] {
        do {
            return try await bluez.call(
                path, BlueZ.gattCharacteristicInterface, member, arguments, timeout: .seconds(10))
        } catch {
            throw LinkError(.connectFailed, "GATT \(member) on \(path) failed: \(error)")
        }
    }

    /// Stuffs the frame (spec §3.1), appends the end-of-message pair and writes it in chunks of `chunkSize`.
    package func write(_ bytes: [UInt8]) async throws {
        try await link.serialized { [self] () async throws(LinkError) in
            if let reason = await link.droppedReason { throw LinkError(.disconnected, reason) }
            let stuffed = BLECodec.stuff(bytes)
            let chunks = BLECodec.chunks(stuffed, chunkSize: chunkSize)
            trace?(.stuffed(frame: bytes, stuffed: stuffed, writes: chunks.count, chunkSize: chunkSize))
            for (index, chunk) in chunks.enumerated() {
                trace?(.write(index: index + 1, count: chunks.count, bytes: chunk))
                do {
                    _ = try await bluez.call(
                        txRxPath, BlueZ.gattCharacteristicInterface, "WriteValue",
                        [.bytes(chunk), .options([("type", .string(BluetoothChoices.writeType))])],
                        timeout: .seconds(10))
                } catch {
                    if let reason = await link.droppedReason { throw LinkError(.disconnected, reason) }
                    throw LinkError(.disconnected, "BLE write to \(address) failed: \(error)")
                }
            }
        }
    }

    /// Stops notifications, disconnects the device and closes the bus connection; `incoming` finishes.
    package func close() async {
        let wasUp = await link.droppedReason == nil
        await link.close()
        if wasUp {
            _ = try? await bluez.call(txRxPath, BlueZ.gattCharacteristicInterface, "StopNotify", timeout: .seconds(2))
            _ = try? await bluez.call(devicePath, BlueZ.deviceInterface, "Disconnect", timeout: .seconds(5))
        }
        router.cancel()
        bluez.close()
    }
}

/// The GATT objects of the uCube Touch service under one device.
/// What a BlueZ signal means for an open uCube Touch link (nil: nothing).
enum BLESignal: Equatable {
    /// A TxRx notification: bytes from the terminal.
    case notification([UInt8])
    /// A new value of the power-state characteristic.
    case powerState([UInt8])
    /// BlueZ says the device is no longer connected.
    case disconnected
    /// BlueZ removed the device object.
    case removed

    init?(_ signal: DBusSignal, txRx: String, powerState: String, device: String) {
        if signal.member == "PropertiesChanged", signal.arguments.count >= 2,
            let changed = signal.arguments[1].dictionary
        {
            let interface = signal.arguments[0].string
            if signal.path == txRx, let value = changed["Value"]?.bytes {
                self = .notification(value)
            } else if signal.path == powerState, let value = changed["Value"]?.bytes {
                self = .powerState(value)
            } else if signal.path == device, interface == BlueZ.deviceInterface, changed["Connected"]?.bool == false {
                self = .disconnected
            } else {
                return nil
            }
        } else if signal.member == "InterfacesRemoved", signal.arguments.first?.string == device {
            self = .removed
        } else {
            return nil
        }
    }
}

struct GATTPaths {
    let service: String
    var txRx: String?
    var powerState: String?
    var password: String?
    var txRxMTU: Int?

    var complete: Bool { txRx != nil && powerState != nil && password != nil }

    init?(tree: BlueZ.ObjectTree, device: String) {
        guard
            let service = tree.first(where: { path, interfaces in
                guard let s = interfaces[BlueZ.gattServiceInterface] else { return false }
                return s["Device"]?.string == device && s["UUID"]?.string?.lowercased() == BluetoothChoices.serviceUUID
            })?.key
        else { return nil }
        self.service = service
        for (path, interfaces) in tree {
            guard let c = interfaces[BlueZ.gattCharacteristicInterface], c["Service"]?.string == service else {
                continue
            }
            switch c["UUID"]?.string?.lowercased() {
            case BluetoothChoices.txRxUUID:
                txRx = path
                txRxMTU = c["MTU"]?.integer
            case BluetoothChoices.powerStateUUID: powerState = path
            case BluetoothChoices.passwordUUID: password = path
            default: break
            }
        }
    }
}

/// The link's mutable state: reassembly of notifications into frames, the drop reason, and write serialisation.
actor LinkState {
    private let incoming: ByteQueue
    private let trace: (@Sendable (BLETraceEvent) -> Void)?
    private var reassembler = BLEReassembler()
    private(set) var droppedReason: String?
    private var lastWrite: Task<Void, any Error>?

    init(incoming: ByteQueue, trace: (@Sendable (BLETraceEvent) -> Void)?) {
        self.incoming = incoming
        self.trace = trace
    }

    func notified(_ bytes: [UInt8]) {
        guard droppedReason == nil else { return }
        trace?(.notified(bytes))
        do {
            for frame in try reassembler.append(bytes) { incoming.send(frame) }
        } catch {
            // Hostile or garbled notifications: the RPC layer's timeout reports the missing answer; the buffer is
            // reset so the next message starts clean.
            reassembler.reset()
            trace?(.step("discarded BLE bytes: \(error.reason)"))
        }
    }

    func drop(_ reason: String) {
        guard droppedReason == nil else { return }
        droppedReason = reason
        incoming.finish(throwing: LinkError(.disconnected, reason))
    }

    func close() {
        guard droppedReason == nil else { return }
        droppedReason = "closed by the host"
        incoming.finish()
    }

    /// Runs writes one after the other (a CancelAll may be written while a command's chunks are going out).
    func serialized(_ body: @escaping @Sendable () async throws(LinkError) -> Void) async throws {
        let previous = lastWrite
        let task = Task {
            _ = await previous?.result
            try await body()
        }
        lastWrite = task
        try await task.value
    }
}
