import Foundation
import UCubeLink

/// BlueZ's D-Bus API (org.bluez): the object tree, adapters, devices and GATT objects.
package struct BlueZ: Sendable {
    package static let service = "org.bluez"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let gattServiceInterface = "org.bluez.GattService1"
    static let gattCharacteristicInterface = "org.bluez.GattCharacteristic1"

    package let bus: DBusBus

    /// Object path → interface → property → value.
    package typealias ObjectTree = [String: [String: [String: DBusValue]]]

    /// Connects to the system bus and subscribes to BlueZ's signals.
    package static func connect() async throws(LinkError) -> BlueZ {
        do {
            let bus = try await DBusBus.system(matchRules: ["type='signal',sender='org.bluez'"])
            return BlueZ(bus: bus)
        } catch {
            throw LinkError(
                .connectFailed, "cannot reach the D-Bus system bus (\(error.message))",
                hint: "check that dbus runs (systemctl status dbus) and that DBUS_SYSTEM_BUS_ADDRESS, if set, is right")
        }
    }

    package func close() { bus.close() }

    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(DBusCallError) -> [DBusValue] {
        try await bus.call(
            destination: Self.service, path: path, interface: interface, member: member, arguments: arguments,
            timeout: timeout)
    }

    /// Every object BlueZ exports.
    package func objects() async throws(LinkError) -> ObjectTree {
        let reply: [DBusValue]
        do {
            reply = try await call("/", Self.objectManager, "GetManagedObjects")
        } catch {
            if error.name == "org.freedesktop.DBus.Error.ServiceUnknown"
                || error.name == "org.freedesktop.DBus.Error.NameHasNoOwner"
            {
                throw LinkError(
                    .connectFailed, "BlueZ is not running (no org.bluez on the system bus): start bluetoothd")
            }
            throw LinkError(.connectFailed, "BlueZ GetManagedObjects failed: \(error)")
        }
        return Self.objectTree(fromReply: reply)
    }

    /// GetManagedObjects' answer (`a{oa{sa{sv}}}`) as a tree; whatever does not have that shape is left out.
    static func objectTree(fromReply reply: [DBusValue]) -> ObjectTree {
        var tree: ObjectTree = [:]
        for (path, interfaces) in reply.first?.dictionary ?? [:] {
            var entry: [String: [String: DBusValue]] = [:]
            for (name, properties) in interfaces.dictionary ?? [:] {
                entry[name] = properties.dictionary ?? [:]
            }
            tree[path] = entry
        }
        return tree
    }

    /// The adapter to use: `$UCUBE_BT_ADAPTER` if set, else the first (by path).
    package func adapterPath(in tree: ObjectTree) throws(LinkError) -> String {
        let adapters = tree.filter { $0.value[Self.adapterInterface] != nil }.keys.sorted()
        if let wanted = ProcessInfo.processInfo.environment[BluetoothChoices.adapterEnvironmentVariable],
            !wanted.isEmpty
        {
            guard let path = adapters.first(where: { $0 == wanted || $0.hasSuffix("/" + wanted) }) else {
                throw LinkError(
                    .connectFailed, "no Bluetooth adapter '\(wanted)' (have: \(adapters.joined(separator: ", ")))")
            }
            return path
        }
        guard let first = adapters.first else {
            throw LinkError(
                .connectFailed,
                "no Bluetooth adapter: BlueZ lists none (is the controller powered and unblocked? see rfkill)")
        }
        return first
    }

    /// Starts discovery of LE devices on `adapter`.
    package func startDiscovery(adapter: String) async throws(LinkError) {
        _ = try? await call(
            adapter, Self.adapterInterface, "SetDiscoveryFilter", [.options([("Transport", .string("le"))])])
        do {
            _ = try await call(adapter, Self.adapterInterface, "StartDiscovery")
        } catch {
            if error.name == "org.bluez.Error.InProgress" { return }
            if error.name == "org.bluez.Error.NotReady" {
                throw LinkError(
                    .connectFailed, "the Bluetooth adapter is not ready (powered off?): bluetoothctl power on")
            }
            throw LinkError(.connectFailed, "cannot start a Bluetooth scan: \(error)")
        }
    }

    package func stopDiscovery(adapter: String) async {
        _ = try? await call(adapter, Self.adapterInterface, "StopDiscovery")
    }
}

/// One device BlueZ knows, as `ucube scan` shows it.
package struct DiscoveredDevice: Sendable, Codable, Equatable {
    package let name: String?
    package let address: String
    /// In dBm; `nil` when unknown (`BluetoothChoices.rssi(reported:)`: none reported, or 127 "not available").
    package let rssi: Int?
    package let model: String
    package let paired: Bool
    package let connected: Bool
    /// BlueZ's object path (not printed).
    package let path: String

    init(path: String, properties: [String: DBusValue]) {
        self.path = path
        name = properties["Name"]?.string ?? properties["Alias"]?.string
        address = properties["Address"]?.string ?? ""
        rssi = BluetoothChoices.rssi(reported: properties["RSSI"]?.integer)
        let uuids = properties["UUIDs"]?.strings ?? []
        model = BluetoothChoices.modelGuess(name: name, uuids: uuids)
        paired = properties["Paired"]?.bool ?? false
        connected = properties["Connected"]?.bool ?? false
        isTerminal = BluetoothChoices.looksLikeTerminal(name: name, uuids: uuids)
    }

    /// Advertises the uCube Touch service or has a terminal-like name (spec §3.3).
    package let isTerminal: Bool

    static func all(in tree: BlueZ.ObjectTree, adapter: String?) -> [DiscoveredDevice] {
        tree.compactMap { path, interfaces in
            guard let properties = interfaces[BlueZ.deviceInterface] else { return nil }
            if let adapter, properties["Adapter"]?.string != adapter { return nil }
            return DiscoveredDevice(path: path, properties: properties)
        }
    }

    /// Whether `target` (an address, or a name compared without case) names this device.
    func matches(_ target: String) -> Bool {
        address.caseInsensitiveCompare(target) == .orderedSame || name?.caseInsensitiveCompare(target) == .orderedSame
    }
}

/// Finds uCube terminals: BlueZ discovery for a while, then the devices it knows (spec §3.3).
package enum BLEScanner {
    /// A name filter: a regular expression matched anywhere in the name, case-insensitively.
    package struct NameFilter: Sendable {
        let pattern: String
        package init(_ pattern: String) throws(LinkError) {
            do {
                _ = try Regex(pattern).ignoresCase()
            } catch {
                throw LinkError(.invalidRequest, "bad --name pattern '\(pattern)': \(error)")
            }
            self.pattern = pattern
        }

        func matches(_ name: String?) -> Bool {
            guard let name, let regex = try? Regex(pattern).ignoresCase() else { return false }
            return name.contains(regex)
        }
    }

    /// Scans for `duration` and returns the terminals seen (or every device when `allDevices`), strongest first.
    package static func scan(
        duration: Duration = BluetoothChoices.scanDuration, name: NameFilter? = nil, allDevices: Bool = false
    ) async throws(LinkError) -> [DiscoveredDevice] {
        let bluez = try await BlueZ.connect()
        defer { bluez.close() }
        let adapter = try bluez.adapterPath(in: try await bluez.objects())
        try await bluez.startDiscovery(adapter: adapter)
        try? await Task.sleep(for: duration)
        let tree = try await bluez.objects()
        await bluez.stopDiscovery(adapter: adapter)
        return DiscoveredDevice.all(in: tree, adapter: adapter)
            .filter { (allDevices || $0.isTerminal) && (name?.matches($0.name) ?? true) }
            .sorted { ($0.rssi ?? -999, $1.address) > ($1.rssi ?? -999, $0.address) }
    }
}
