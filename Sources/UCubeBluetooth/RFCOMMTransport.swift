import CDBus
import Foundation
import UCubeLink
import UCubeSupport

#if canImport(Glibc)
import Glibc
#endif

/// The classic uCube over Bluetooth Classic RFCOMM (spec §3.2): raw RPC frames on an `AF_BLUETOOTH` /
/// `BTPROTO_RFCOMM` stream socket to channel 1 (BluetoothChoices.rfcommChannel), no SDP lookup. The connected socket
/// is handed to `ChannelTransport`, so reading, writing and disconnect detection are those of the serial link.
/// (A bound `/dev/rfcommN` is the serial transport, `serial:///dev/rfcommN`.)
package enum RFCOMMTransport {
    /// Parses `AA:BB:CC:DD:EE:FF` into the kernel's little-endian `bdaddr_t` byte order.
    package static func bdaddr(_ address: String) throws(LinkError) -> [UInt8] {
        let parts = address.split(separator: ":")
        guard parts.count == 6 else {
            throw LinkError(.connectFailed, "bad Bluetooth address '\(address)': expected AA:BB:CC:DD:EE:FF")
        }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let b = UInt8(part, radix: 16) else {
                throw LinkError(.connectFailed, "bad Bluetooth address '\(address)': expected AA:BB:CC:DD:EE:FF")
            }
            bytes.append(b)
        }
        return bytes.reversed()
    }

    /// Connects to `address` on `channel`. The blocking `connect(2)` runs on a dedicated thread, never on the
    /// cooperative pool. Fails with `.connectFailed` naming the errno (EAFNOSUPPORT when the kernel has no Bluetooth).
    package static func connect(
        address: String, channel: UInt8 = BluetoothChoices.rfcommChannel
    ) async throws(LinkError) -> ChannelTransport {
        let raw = try bdaddr(address)
        let result: Result<Int32, LinkError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: connectBlocking(raw, address: address, channel: channel))
            }
            thread.name = "ucube-rfcomm-connect"
            thread.start()
        }
        let fd = try result.get()
        do {
            return try await ChannelTransport.adoptDescriptor(fd, name: "rfcomm://\(address)/\(channel)")
        } catch {
            throw LinkError(.connectFailed, "RFCOMM \(address): \(error)")
        }
    }

    static func connectBlocking(_ raw: [UInt8], address: String, channel: UInt8) -> Result<Int32, LinkError> {
        let fd = socket(UCUBE_AF_BLUETOOTH, Int32(SOCK_STREAM.rawValue), UCUBE_BTPROTO_RFCOMM)
        guard fd >= 0 else {
            let e = errno
            let hint =
                e == EAFNOSUPPORT
                ? " (this kernel has no Bluetooth support: load the bluetooth and rfcomm modules, or use a machine with a radio)"
                : ""
            return .failure(
                LinkError(
                    .connectFailed,
                    "cannot open an RFCOMM socket: socket(AF_BLUETOOTH, BTPROTO_RFCOMM) failed with \(errnoName(e)): \(ErrorNumber.text(e))\(hint)"
                ))
        }
        let rc = raw.withUnsafeBufferPointer { ucube_rfcomm_connect(fd, $0.baseAddress, channel) }
        guard rc == 0 else {
            let e = errno
            _ = close(fd)
            return .failure(
                LinkError(
                    .connectFailed,
                    "cannot connect RFCOMM to \(address) channel \(channel): \(errnoName(e)): \(ErrorNumber.text(e)) (is it paired and on?)"
                ))
        }
        return .success(fd)
    }

    /// The symbolic name of the errno values an RFCOMM connect reports.
    static func errnoName(_ e: Int32) -> String {
        switch e {
        case EAFNOSUPPORT: "EAFNOSUPPORT"
        case EPROTONOSUPPORT: "EPROTONOSUPPORT"
        case EACCES: "EACCES"
        case EPERM: "EPERM"
        case EHOSTDOWN: "EHOSTDOWN"
        case EHOSTUNREACH: "EHOSTUNREACH"
        case ECONNREFUSED: "ECONNREFUSED"
        case ETIMEDOUT: "ETIMEDOUT"
        case EBUSY: "EBUSY"
        default: "errno \(e)"
        }
    }
}
