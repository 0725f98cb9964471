#if canImport(Glibc)
import Glibc
#endif
import Testing
import UCubeLink
import UCubeProtocol

@testable import UCubeBluetooth

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
        #expect(BluetoothChoices.modelGuess(name: "x", uuids: [BluetoothChoices.serviceUUID.uppercased()]) == "uCube Touch (BLE)")
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
