import UCubeProtocol

/// Every Bluetooth fact and PROJECT CHOICE of the driver in one place (spec §3.1–§3.3).
package enum BluetoothChoices {
    // MARK: GATT identifiers (spec §3.1, IS:Constants `BLEConnection`), lower case as BlueZ reports them.

    /// The uCube Touch primary service.
    package static let serviceUUID = "11a7a236-d841-42d1-a99c-061c6e909bf9"
    /// TxRx: the host writes commands, the terminal notifies responses.
    package static let txRxUUID = "d1f4c2d0-f8c2-4565-9349-e0312effd1ee"
    /// The "connected password" characteristic (write).
    package static let passwordUUID = "4e6efab4-7028-49d4-8458-95e69a93607d"
    /// HState, the power state (read + notify).
    package static let powerStateUUID = "d329a8cb-b872-4c13-971b-72bca85ef0cd"

    /// HState values meaning "powered on". Android tests 0x34, iOS constants say 0x31: PROJECT CHOICE (spec §3.1)
    /// accept either.
    package static let poweredOnStates: Set<UInt8> = [0x34, 0x31]

    /// The 2-byte connection password (spec §3.1, A-BLE `getConnectionPassword`): CRC-16/XMODEM over the bytes of
    /// the advertised name, low byte first. `YT-Touch 0001` → `C4 4C`.
    package static func connectionPassword(forName name: String) -> [UInt8] {
        let crc = CRC16.xmodem(Array(name.utf8))
        return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    // MARK: Timing (spec §3.1: iOS scan 10 s, connection timeout 15 s)

    /// How long `ucube scan` listens by default.
    package static let scanDuration: Duration = .seconds(10)
    /// How long one connection attempt (BlueZ connect, GATT resolution, power-state handshake) may take.
    package static let connectTimeout: Duration = .seconds(15)
    /// PROJECT CHOICE: connection attempts before giving up (a BLE connect often fails once on a busy radio).
    package static let connectAttempts = 2
    /// How often BlueZ's object tree is re-read while waiting for a device to appear or its services to resolve.
    package static let pollInterval: Duration = .milliseconds(100)

    // MARK: Writes (spec §3.1)

    /// With the default ATT MTU 23 a write carries MTU − 3 = 20 bytes (`uCubeTxDataMaxSize`).
    package static let defaultMTU = BLECodec.defaultMTU
    /// PROJECT CHOICE (spec §3.1): write-with-response on TxRx (BlueZ `type` option "request").
    package static let writeType = "request"

    /// Bytes per TxRx write for a negotiated ATT MTU (BlueZ's characteristic `MTU` property; 20 when unknown): the
    /// rule is `BLECodec.chunkSize(mtu:)`, shared with the simulator's link model.
    package static func chunkSize(mtu: Int?) -> Int { BLECodec.chunkSize(mtu: mtu) }

    // MARK: Names (spec §3.3)

    /// PROJECT CHOICE (spec §3.3): a device is a terminal when it advertises the uCube Touch service, or its name
    /// contains "uCube" or "Touch", or starts with "YT-".
    package static func looksLikeTerminal(name: String?, uuids: [String]) -> Bool {
        if uuids.contains(where: { $0.lowercased() == serviceUUID }) { return true }
        guard let name else { return false }
        return name.lowercased().contains("ucube") || name.contains("Touch") || name.hasPrefix("YT-")
    }

    /// The model guessed from the name and services (spec §1, §3.3).
    package static func modelGuess(name: String?, uuids: [String]) -> String {
        let name = name ?? ""
        if uuids.contains(where: { $0.lowercased() == serviceUUID }) || name.contains("Touch") {
            return "uCube Touch (BLE)"
        }
        if name.hasPrefix("YT-KEY") { return "YT-KEY (USB)" }
        if name.lowercased().contains("ucube") { return "uCube (Bluetooth Classic)" }
        if name.hasPrefix("YT-") { return "YouTransactor terminal" }
        return "unknown"
    }

    // MARK: Signal strength

    /// The RSSI a controller measures, in dBm: −127…+20 (Bluetooth Core Specification, Vol 4 Part E §7.7.65.2, HCI
    /// LE Advertising Report). There, 127 (0x7F) means "RSSI is not available", and BlueZ passes it on as the
    /// device's `RSSI` property (btvirt's controllers report nothing else).
    package static let measurableRSSI: ClosedRange<Int> = -127...20

    /// The RSSI `ucube scan` shows for what BlueZ reports: `nil` (unknown) when BlueZ has none, when it is 127 ("not
    /// available") or when it lies outside the range a controller can measure.
    package static func rssi(reported: Int?) -> Int? {
        guard let reported, measurableRSSI.contains(reported) else { return nil }
        return reported
    }

    // MARK: RFCOMM (spec §3.2)

    /// PROJECT CHOICE (spec §3.2): the classic uCube is reached on RFCOMM channel 1, no SDP lookup.
    package static let rfcommChannel: UInt8 = 1

    /// The adapter to use: `$UCUBE_BT_ADAPTER` (e.g. hci1), else the first adapter BlueZ lists (by path).
    package static let adapterEnvironmentVariable = "UCUBE_BT_ADAPTER"
}
