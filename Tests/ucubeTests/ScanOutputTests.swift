import Testing
import UCubeRuntime

@testable import UCubeCLI

/// Issue 24: `ucube scan` shows an RSSI it does not know (none reported, or 127 "not available": Bluetooth Core
/// Specification, Vol 4 Part E §7.7.65.2) as "unknown" in text and `null` in JSON, never as a number.
struct ScanOutputTests {
    static func row(rssi: Int?) -> UCube.Scan.Row {
        .init(
            name: "YT-Touch 0001", address: "00:AA:01:01:00:24", rssi: rssi, model: "uCube Touch (BLE)", paired: false,
            connected: false)
    }

    @Test func anUnknownRSSIIsSaidToBeUnknown() throws {
        let row = Self.row(rssi: nil)
        #expect(row.line.contains("00:AA:01:01:00:24  unknown  uCube Touch (BLE)"), "\(row.line)")
        #expect(!row.line.contains("dBm"))
        let json = try JSONOutput.encode(row, pretty: false)
        #expect(json.contains("\"rssi\":null"), "\(json)")
    }

    @Test func aMeasuredRSSIIsInDBm() throws {
        let row = Self.row(rssi: -52)
        #expect(row.line.contains("-52 dBm"), "\(row.line)")
        #expect(try JSONOutput.encode(row, pretty: false).contains("\"rssi\":-52"))
    }
}
