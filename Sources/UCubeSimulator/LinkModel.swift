import UCubeProtocol

/// A model of the time one frame spends on the link between host and terminal, applied by the simulator to every
/// frame it receives (before handling it) and sends (before writing it), so that link speed can be measured.
///
/// The time for one frame of `n` bytes (`n` counts the BLE byte-stuffing and end-of-message marker when
/// `appliesBLEStuffing`, spec §3.1) is
///
///     latency + ceil(n / chunkSize) × chunkInterval + n / bytesPerSecond
///
/// where a term is left out when its figure is 0 (no chunking, unlimited throughput). The presets are a model built
/// from nominal radio figures, not measurements of a real terminal; see each preset for where its numbers come from.
package struct LinkModel: Sendable, Hashable, CustomStringConvertible {
    /// Fixed one-way delay per frame (radio scheduling, stack and firmware turnaround).
    package var latency: Duration
    /// Bytes carried per link packet (BLE: MTU − 3); 0 = the frame travels as one unit.
    package var chunkSize: Int
    /// Time each chunk costs (BLE: one connection interval per write).
    package var chunkInterval: Duration
    /// Sustained throughput in bytes per second; 0 = unlimited.
    package var bytesPerSecond: Int
    /// Count the frame's size after BLE stuffing (0x00 → 0x0C, escapes, 0x0E 0x0F end marker; spec §3.1).
    package var appliesBLEStuffing: Bool

    package init(
        latency: Duration,
        chunkSize: Int = 0,
        chunkInterval: Duration = .zero,
        bytesPerSecond: Int = 0,
        appliesBLEStuffing: Bool = false
    ) {
        precondition(chunkSize >= 0 && bytesPerSecond >= 0, "link figures are never negative")
        self.latency = latency
        self.chunkSize = chunkSize
        self.chunkInterval = chunkInterval
        self.bytesPerSecond = bytesPerSecond
        self.appliesBLEStuffing = appliesBLEStuffing
    }

    /// No delay at all (the same as configuring no link model).
    package static let none = LinkModel(latency: .zero)

    /// uCube Touch over BLE (spec §3.1): frames are byte-stuffed and written 20 bytes at a time (default MTU 23 − 3,
    /// `uCubeTxDataMaxSize`); the model assumes one 20-byte write per 30 ms connection interval (a common Android/iOS
    /// interval with "high" connection priority; write-with-response, spec §3.1 PROJECT CHOICE) and 15 ms average wait
    /// for the next interval: about 650 bytes/s.
    package static let ble = ble(mtu: BLECodec.defaultMTU)

    /// The same BLE model with writes of MTU − 3 bytes: what a host writes once BlueZ has negotiated a larger ATT MTU
    /// (spec §3.1; `BLECodec.chunkSize(mtu:)`, the driver's rule). The model keeps
    /// one write per connection interval, so a larger MTU saves writes, not latency. An MTU of 23 or less (or more than
    /// 515, whose MTU − 3 exceeds the 512 bytes of an attribute value) is taken as BLE allows it.
    package static func ble(mtu: Int) -> LinkModel {
        LinkModel(
            latency: .milliseconds(15),
            chunkSize: BLECodec.chunkSize(mtu: mtu),
            chunkInterval: .milliseconds(30),
            appliesBLEStuffing: true
        )
    }

    /// The ATT MTU the model's writes assume (BLE models only).
    package var mtu: Int? { appliesBLEStuffing && chunkSize > 0 ? chunkSize + 3 : nil }

    /// Original uCube over Bluetooth Classic RFCOMM (spec §3.2): raw frames, about 20 kB/s (≈ 160 kbit/s, a typical
    /// sustained SPP rate) and 10 ms per frame for baseband scheduling and turnaround.
    package static let classic = LinkModel(latency: .milliseconds(10), bytesPerSecond: 20_000)

    /// The modelled transfer time of one raw frame.
    package func transferTime(forFrame frame: [UInt8]) -> Duration {
        let size = appliesBLEStuffing ? BLECodec.stuff(frame).count : frame.count
        return transferTime(byteCount: size)
    }

    /// The modelled transfer time of `byteCount` bytes as they travel on the link (already stuffed, if stuffing
    /// applies).
    package func transferTime(byteCount: Int) -> Duration {
        var total = latency
        if chunkSize > 0 {
            let chunks = (byteCount + chunkSize - 1) / chunkSize
            total += chunkInterval * chunks
        }
        if bytesPerSecond > 0 {
            total += .nanoseconds(Int64(byteCount) * 1_000_000_000 / Int64(bytesPerSecond))
        }
        return total
    }

    package var description: String {
        var parts = ["latency \(latency)"]
        if chunkSize > 0 {
            parts.append("\(chunkSize)-byte chunks every \(chunkInterval)" + (mtu.map { " (ATT MTU \($0))" } ?? ""))
        }
        if bytesPerSecond > 0 { parts.append("\(bytesPerSecond) B/s") }
        if appliesBLEStuffing { parts.append("BLE stuffing") }
        return parts.joined(separator: ", ")
    }
}
