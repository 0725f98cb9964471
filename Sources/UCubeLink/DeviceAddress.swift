import UCubeProtocol

/// Where a terminal is: the `--device` grammar (docs/architecture.md "The command line").
package enum DeviceAddress: Hashable, Sendable, CustomStringConvertible {
    /// The built-in simulator, in process.
    case simulator
    /// Raw frames over TCP (spec §3.4), e.g. another `ucube simulate --listen`.
    case tcp(host: String, port: Int)
    /// A serial or RFCOMM device file, or a pseudo-terminal.
    case serial(path: String)
    /// A uCube Touch over BLE, by address or advertised name.
    case ble(String)
    /// A classic uCube over an RFCOMM socket (spec §3.2): Bluetooth address and channel (1 by default).
    case rfcomm(address: String, channel: Int)
    /// A terminal remembered by `ucube connect`, by name.
    case remembered(String)
    /// A recording (`--record FILE`) acting as the terminal: `replay:FILE` (docs/recording.md).
    case replay(path: String)

    /// Default TCP port of the simulator (PROJECT CHOICE, spec §3.4).
    package static let defaultTCPPort = 5000

    /// Parses `sim`, `tcp://host:port`, `serial:///dev/rfcomm0`, `ble://…`, `rfcomm://…`, or a remembered name.
    package init(parsing text: String) throws(LinkError) {
        if text == "sim" || text == "simulator" {
            self = .simulator
        } else if text.hasPrefix("tcp://") {
            let rest = text.dropFirst("tcp://".count)
            var host = Substring(rest)
            var port = DeviceAddress.defaultTCPPort
            if rest.hasPrefix("[") {  // [::1]:5000
                guard let close = rest.firstIndex(of: "]") else {
                    throw LinkError(.connectFailed, "bad address '\(text)': missing ']'")
                }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let p = Int(after.dropFirst()), (1...65535).contains(p) else {
                        throw LinkError(.connectFailed, "bad port in '\(text)'")
                    }
                    port = p
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else {
                    throw LinkError(.connectFailed, "bad port in '\(text)': expected tcp://HOST:PORT with PORT 1…65535")
                }
                port = p
            }
            guard !host.isEmpty else { throw LinkError(.connectFailed, "bad address '\(text)': no host") }
            self = .tcp(host: String(host), port: port)
        } else if text.hasPrefix("serial://") {
            let path = String(text.dropFirst("serial://".count))
            guard path.hasPrefix("/") else {
                throw LinkError(.connectFailed, "bad address '\(text)': expected serial:///dev/NAME (an absolute path)")
            }
            self = .serial(path: path)
        } else if text.hasPrefix("ble://") {
            let target = String(text.dropFirst("ble://".count))
            guard !target.isEmpty else { throw LinkError(.connectFailed, "bad address '\(text)': no device") }
            self = .ble(target)
        } else if text.hasPrefix("rfcomm://") {
            // rfcomm://AA:BB:CC:DD:EE:FF or rfcomm://AA:BB:CC:DD:EE:FF/CHANNEL
            let rest = text.dropFirst("rfcomm://".count)
            let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
            let address = String(parts.first ?? "")
            let isAddress =
                address.split(separator: ":").count == 6
                && address.split(separator: ":").allSatisfy { $0.count == 2 && UInt8($0, radix: 16) != nil }
            guard isAddress, parts.count <= 2 else {
                throw LinkError(.connectFailed, "bad address '\(text)': expected rfcomm://AA:BB:CC:DD:EE:FF[/CHANNEL]")
            }
            var channel = 1
            if parts.count == 2 {
                guard let c = Int(parts[1]), (1...30).contains(c) else {
                    throw LinkError(.connectFailed, "bad RFCOMM channel in '\(text)': expected 1…30")
                }
                channel = c
            }
            self = .rfcomm(address: address.uppercased(), channel: channel)
        } else if text.hasPrefix("replay:") {
            let path = String(text.dropFirst("replay:".count))
            guard !path.isEmpty else { throw LinkError(.connectFailed, "bad address '\(text)': expected replay:FILE") }
            self = .replay(path: path)
        } else if text.hasPrefix("/dev/") {
            self = .serial(path: text)
        } else if text.contains("://") {
            throw LinkError(
                .connectFailed,
                "unknown device scheme in '\(text)': use sim, tcp://, serial://, ble://, rfcomm:// or replay:")
        } else if !text.isEmpty {
            self = .remembered(text)
        } else {
            throw LinkError(.connectFailed, "empty device address")
        }
    }

    /// A simulator or a recording, not a terminal: what it answers is never a real payment.
    package var isSimulated: Bool {
        switch self {
        case .simulator, .replay: true
        case .tcp, .serial, .ble, .rfcomm, .remembered: false
        }
    }

    package var description: String {
        switch self {
        case .simulator: "sim"
        case .tcp(let host, let port): host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .serial(let path): "serial://\(path)"
        case .ble(let target): "ble://\(target)"
        case .rfcomm(let address, let channel): "rfcomm://\(address)/\(channel)"
        case .remembered(let name): name
        case .replay(let path): "replay:\(path)"
        }
    }
}
