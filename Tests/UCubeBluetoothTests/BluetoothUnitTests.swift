import CDBus
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSupport

@testable import UCubeBluetooth

#if canImport(Glibc)
import Glibc
#endif

@Suite struct BluetoothChoicesTests {
    /// Spec §3.1 worked example: `YT-Touch 0001` → CRC 0x4CC4 → written `C4 4C`.
    @Test func passwordIsCRCOfTheNameLowByteFirst() {
        #expect(BluetoothChoices.connectionPassword(forName: "YT-Touch 0001") == [0xC4, 0x4C])
    }

    @Test func chunkSizeFollowsTheMTU() {
        #expect(BluetoothChoices.chunkSize(mtu: nil) == 20)
        #expect(BluetoothChoices.chunkSize(mtu: 23) == 20)
        #expect(BluetoothChoices.chunkSize(mtu: 185) == 182)
        #expect(BluetoothChoices.chunkSize(mtu: 5) == 20)
    }

    @Test func modelGuessFromNamesAndService() {
        #expect(BluetoothChoices.modelGuess(name: "YT-Touch 0001", uuids: []) == "uCube Touch (BLE)")
        #expect(
            BluetoothChoices.modelGuess(name: "x", uuids: [BluetoothChoices.serviceUUID.uppercased()])
                == "uCube Touch (BLE)")
        #expect(BluetoothChoices.modelGuess(name: "uCube 0042", uuids: []) == "uCube (Bluetooth Classic)")
        #expect(BluetoothChoices.modelGuess(name: "Headphones", uuids: []) == "unknown")
        #expect(BluetoothChoices.looksLikeTerminal(name: "Headphones", uuids: []) == false)
        #expect(BluetoothChoices.looksLikeTerminal(name: "YT-KEY 1", uuids: []))
    }

    @Test func nameFilterIsACaseInsensitiveRegex() throws {
        let filter = try BLEScanner.NameFilter("touch 00[0-9]+")
        #expect(filter.matches("YT-Touch 0001"))
        #expect(!filter.matches("uCube 0001"))
        #expect(!filter.matches(nil))
        #expect(throws: LinkError(.invalidRequest, "")) { try BLEScanner.NameFilter("([") }
    }
}

@Suite struct DBusValueTests {
    @Test func signaturesOfNestedValues() {
        #expect(DBusValue.bytes([1, 2]).signature == "ay")
        #expect(DBusValue.options([("type", .string("request"))]).signature == "a{sv}")
        #expect(DBusValue.structure([.string("a"), .int32(1)]).signature == "(si)")
    }

    @Test func helpersLookThroughVariants() {
        let v = DBusValue.variant(.bytes([0x34]))
        #expect(v.bytes == [0x34])
        #expect(DBusValue.variant(.int16(-52)).integer == -52)
        #expect(DBusValue.variant(.bool(true)).bool == true)
        #expect(DBusValue.string("x").bytes == nil)
    }
}

@Suite struct RFCOMMTests {
    @Test func addressIsLittleEndian() throws {
        #expect(try RFCOMMTransport.bdaddr("00:11:22:33:44:55") == [0x55, 0x44, 0x33, 0x22, 0x11, 0x00])
        #expect(throws: LinkError(.connectFailed, "")) { try RFCOMMTransport.bdaddr("00:11:22") }
        #expect(throws: LinkError(.connectFailed, "")) { try RFCOMMTransport.bdaddr("00:11:22:33:44:GG") }
    }

    /// This kernel has no AF_BLUETOOTH: the connect must fail with a clear reason naming EAFNOSUPPORT, not crash or
    /// hang. On a machine with Bluetooth the socket opens and the connect to a made-up address fails another way.
    @Test func connectFailsClearlyWithoutBluetooth() async throws {
        do {
            let transport = try await RFCOMMTransport.connect(address: "00:11:22:33:44:55")
            await transport.close()
            Issue.record("an RFCOMM connect to a made-up address succeeded")
        } catch {
            #expect(error.code == .connectFailed)
            let s = socket(31, 1, 3)
            if s < 0 {
                #expect(error.reason.contains("EAFNOSUPPORT"), "\(error.reason)")
            } else {
                close(s)
            }
        }
    }
}

@Suite struct DBusCodecTests {
    /// Values written with the iterator API read back the same, through a real libdbus message (no bus needed).
    @Test func valuesRoundTripThroughALibdbusMessage() throws {
        let values: [DBusValue] = [
            .bytes([0x00, 0x0E, 0xFF]),
            .options([("type", .string("request")), ("offset", .uint16(3))]),
            .string("YT-Touch 0001"),
            .objectPath("/org/bluez/hci0"),
            .bool(true),
            .int16(-52),
            .array(elementSignature: "s", []),
            .structure([.uint32(7), .string("x")]),
        ]
        let message = try #require(dbus_message_new_method_call("org.bluez", "/", "org.bluez.Test", "Echo"))
        defer { dbus_message_unref(message) }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { #expect(DBusCodec.append(value, to: &iter)) }
        #expect(DBusCodec.arguments(of: message) == values)
    }
}

@Suite struct LinkStateTests {
    /// Notifications are reassembled into frames; garbage is dropped without ending the link; a drop ends `incoming`
    /// with a disconnected error that names the reason.
    @Test func notificationsBecomeFramesAndADropEndsTheStream() async throws {
        let stream = ByteQueue()
        let link = LinkState(incoming: stream, trace: nil)
        // Spec §3.1: the response `02 00 02 01 50 40 00 00 49 87 03` is notified stuffed.
        await link.notified([0x02, 0x0C, 0x02, 0x01, 0x50, 0x40, 0x0C])
        await link.notified([0x0C, 0x49, 0x87, 0x03, 0x0E, 0x0F])
        // Junk closed by an EOM pair is handed up as it is (the RPC frame decoder rejects it); nothing crashes.
        await link.notified([0x41, 0x0E])
        await link.notified([0x0E])
        await link.drop("the uCube Touch dropped the BLE link (test)")
        await link.notified([0x02, 0x0E, 0x0F])  // after the drop: ignored
        var frames: [[UInt8]] = []
        for await frame in stream { frames.append(frame) }
        let error = try #require(stream.failure as? LinkError, "the queue ended without an error")
        #expect(error.code == .disconnected)
        #expect(error.reason.contains("dropped the BLE link"))
        #expect(frames.first == [0x02, 0x00, 0x02, 0x01, 0x50, 0x40, 0x00, 0x00, 0x49, 0x87, 0x03])
        #expect(await link.droppedReason != nil)
    }
}

/// Issue 24: btvirt's controllers (and real ones without a measurement) report RSSI 127, which the HCI LE
/// Advertising Report defines as "RSSI is not available" (Bluetooth Core Specification, Vol 4 Part E §7.7.65.2;
/// a measured RSSI lies in −127…+20 dBm). `ucube scan` printed it as `127 dBm`.
@Suite struct ScanRSSITests {
    static func device(rssi: DBusValue?) -> DiscoveredDevice {
        var properties: [String: DBusValue] = [
            "Address": .string("00:AA:01:01:00:24"), "Name": .string("YT-Touch 0001"),
        ]
        if let rssi { properties["RSSI"] = rssi }
        return DiscoveredDevice(path: "/org/bluez/hci0/dev_00_AA_01_01_00_24", properties: properties)
    }

    @Test func rssi127IsNotAvailable() {
        #expect(Self.device(rssi: .int16(127)).rssi == nil)
        #expect(Self.device(rssi: .variant(.int16(0x7F))).rssi == nil)
        #expect(Self.device(rssi: nil).rssi == nil)
    }

    @Test func aMeasuredRSSIIsKeptAndTheRangeEndsAreMeasurable() {
        #expect(Self.device(rssi: .int16(-52)).rssi == -52)
        #expect(BluetoothChoices.rssi(reported: -127) == -127)
        #expect(BluetoothChoices.rssi(reported: 20) == 20)
        #expect(BluetoothChoices.rssi(reported: 21) == nil)
        #expect(BluetoothChoices.rssi(reported: -128) == nil)
    }
}
