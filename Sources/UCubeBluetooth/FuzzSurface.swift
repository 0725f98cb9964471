import CDBus

/// What the fuzz targets (Fuzz/, `@_spi(Fuzz) import UCubeBluetooth`) feed BlueZ's side of the link with: D-Bus
/// messages, as the system bus could deliver them, read by the same code that reads BlueZ's replies and signals.
package enum BlueZFuzzSurface {
    /// Reads a marshalled D-Bus message as the driver reads what BlueZ sends: every argument, the object tree
    /// (GetManagedObjects' shape), the devices and uCube Touch GATT paths in it, and what the message would mean to
    /// an open link (`BLESignal`) for each role its path could play. Bytes libdbus refuses are dropped, as the bus does
    /// (nil); otherwise the message's arguments.
    @discardableResult
    package static func message(_ bytes: [UInt8]) -> [DBusValue]? {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count <= Int32.max else { return nil }
            return dbus_message_demarshal(base.assumingMemoryBound(to: CChar.self), Int32(raw.count), &error)
        }
        guard let message else { return nil }
        defer { dbus_message_unref(message) }

        let arguments = DBusCodec.arguments(of: message)
        let tree = BlueZ.objectTree(fromReply: arguments)
        for device in DiscoveredDevice.all(in: tree, adapter: nil) {
            if let gatt = GATTPaths(tree: tree, device: device.path) { _ = gatt.complete }
            _ = device.matches(device.name ?? device.address)
        }
        let path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        let signal = DBusSignal(
            path: path, interface: dbus_message_get_interface(message).map { String(cString: $0) } ?? "",
            member: dbus_message_get_member(message).map { String(cString: $0) } ?? "", arguments: arguments)
        _ = BLESignal(signal, txRx: path, powerState: "", device: "")
        _ = BLESignal(signal, txRx: "", powerState: path, device: "")
        _ = BLESignal(signal, txRx: "", powerState: "", device: path)
        // A ReadValue / AcquireWrite answer is read as bytes or a number.
        _ = arguments.first?.bytes
        _ = arguments.first?.integer
        return arguments
    }

    /// Seed messages: a GetManagedObjects answer holding an adapter and a uCube Touch with its GATT service and three
    /// characteristics, and the PropertiesChanged / InterfacesRemoved signals an open link receives.
    package static func seedMessages() -> [[UInt8]] {
        let device = "/org/bluez/hci0/dev_00_11_22_33_44_55"
        let service = device + "/service0010"
        func props(_ entries: [(String, DBusValue)]) -> DBusValue {
            .dictionary(keySignature: "s", valueSignature: "v", entries.map { .init(.string($0.0), .variant($0.1)) })
        }
        func interfaces(_ entries: [(String, DBusValue)]) -> DBusValue {
            .dictionary(keySignature: "s", valueSignature: "a{sv}", entries.map { .init(.string($0.0), $0.1) })
        }
        func characteristic(_ uuid: String) -> DBusValue {
            interfaces([
                (
                    BlueZ.gattCharacteristicInterface,
                    props([("UUID", .string(uuid)), ("Service", .objectPath(service)), ("MTU", .uint16(247))])
                )
            ])
        }
        let tree = DBusValue.dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            [
                .init(
                    .objectPath("/org/bluez/hci0"),
                    interfaces([(BlueZ.adapterInterface, props([("Powered", .bool(true))]))])),
                .init(
                    .objectPath(device),
                    interfaces([
                        (
                            BlueZ.deviceInterface,
                            props([
                                ("Name", .string("uCube_Touch_5C7A")), ("Address", .string("00:11:22:33:44:55")),
                                ("RSSI", .int16(-60)), ("Adapter", .objectPath("/org/bluez/hci0")),
                                ("UUIDs", .array(elementSignature: "s", [.string(BluetoothChoices.serviceUUID)])),
                                ("Connected", .bool(true)), ("ServicesResolved", .bool(true)),
                            ])
                        )
                    ])),
                .init(
                    .objectPath(service),
                    interfaces([
                        (
                            BlueZ.gattServiceInterface,
                            props([("UUID", .string(BluetoothChoices.serviceUUID)), ("Device", .objectPath(device))])
                        )
                    ])),
                .init(.objectPath(service + "/char0011"), characteristic(BluetoothChoices.txRxUUID)),
                .init(.objectPath(service + "/char0014"), characteristic(BluetoothChoices.powerStateUUID)),
                .init(.objectPath(service + "/char0016"), characteristic(BluetoothChoices.passwordUUID)),
            ])
        let changed: (String, String, [(String, DBusValue)]) -> [UInt8]? = { path, interface, entries in
            marshal(
                path: path, member: "PropertiesChanged",
                [.string(interface), props(entries), .array(elementSignature: "s", [])])
        }
        return [
            marshal(path: "/", member: "InterfacesAdded", [tree]),
            changed(
                service + "/char0011", BlueZ.gattCharacteristicInterface,
                [("Value", .bytes([0x02, 0x00, 0x05, 0x00, 0x01, 0x05, 0x01]))]),
            changed(device, BlueZ.deviceInterface, [("Connected", .bool(false))]),
            marshal(
                path: "/", member: "InterfacesRemoved",
                [.objectPath(device), .array(elementSignature: "s", [.string(BlueZ.deviceInterface)])]),
        ].compactMap { $0 }
    }

    /// A signal carrying `arguments`, in the D-Bus wire format.
    private static func marshal(path: String, member: String, _ arguments: [DBusValue]) -> [UInt8]? {
        guard let message = dbus_message_new_signal(path, "org.freedesktop.DBus.Properties", member) else { return nil }
        defer { dbus_message_unref(message) }
        dbus_message_set_serial(message, 1)  // the bus numbers every message; serial 0 does not demarshal
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for argument in arguments where !DBusCodec.append(argument, to: &iter) { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message, &buffer, &length) != 0, let buffer else { return nil }
        defer { dbus_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }
}
