import UCubeLink

extension TransportFactory {
    /// Opens a Bluetooth address, `TransportFactory.bluetooth`'s hook: a uCube Touch over BLE (`BLETransport`, its
    /// advertised name and address learned) or a classic uCube over RFCOMM (`RFCOMMTransport`).
    package static func openBluetooth(
        _ address: DeviceAddress, options: BLEConnectOptions = BLEConnectOptions(),
        trace: (@Sendable (BLETraceEvent) -> Void)? = nil
    ) async throws(LinkError) -> Opened {
        switch address {
        case .ble(let target):
            let ble = try await BLETransport.connect(target: target, options: options, trace: trace)
            return Opened(ble, peerName: ble.deviceName, transportAddress: ble.address)
        case .rfcomm(let bdaddr, let channel):
            return Opened(try await RFCOMMTransport.connect(address: bdaddr, channel: UInt8(channel)))
        case .simulator, .tcp, .serial, .remembered, .replay:
            throw LinkError(.connectFailed, "\(address) is not a Bluetooth address")
        }
    }
}
