/// The uCube Touch BLE byte-stuffing and end-of-message layer (spec §3.1, A-Tools `bleCode`/`bleDecode`).
///
/// A complete RPC frame is stuffed (0x00 → 0x0C; 0x08, 0x0A, 0x0C, 0x0D, 0x0E → 0x0E, 0xF0|low nibble), followed by the
/// end-of-message pair 0x0E 0x0F, and written in chunks of at most MTU−3 bytes (20 with the default MTU 23).
/// Because a raw 0x0E is always escaped, the pairs 0x0E 0x0E and 0x0E 0x0F never occur inside stuffed data.
package enum BLECodec {
    /// `uCubeTxDataMaxSize` (spec §3.1, IS:Constants): bytes per write with the default MTU.
    package static let defaultChunkSize = 20
    /// The ATT MTU of every BLE link before an exchange (Bluetooth Core Specification Vol 3 Part F §3.2.8).
    package static let defaultMTU = 23

    /// Bytes per write for a negotiated ATT MTU (spec §3.1 PROJECT CHOICE): MTU − 3 (the ATT write header), at most
    /// 512 (an attribute value's limit); 20 when the MTU is unknown or not above 23.
    package static func chunkSize(mtu: Int?) -> Int {
        guard let mtu, mtu > defaultMTU else { return defaultChunkSize }
        return min(mtu - 3, 512)
    }
    static let escape: UInt8 = 0x0E
    static let endOfMessage: [UInt8] = [0x0E, 0x0F]

    /// Stuffs one frame and appends the end-of-message marker.
    package static func stuff<C: Collection>(_ frame: C) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(frame.count + frame.count / 8 + 2)
        for byte in frame {
            switch byte {
            case 0x00: out.append(0x0C)
            case 0x08, 0x0A, 0x0C, 0x0D, 0x0E: out.append(escape); out.append(0xF0 | (byte & 0x0F))
            default: out.append(byte)
            }
        }
        out.append(contentsOf: endOfMessage)
        return out
    }

    /// Splits stuffed bytes into writes of at most `chunkSize` bytes (MTU − 3).
    package static func chunks(_ stuffed: [UInt8], chunkSize: Int = defaultChunkSize) -> [[UInt8]] {
        precondition(chunkSize > 0, "a BLE write carries at least one byte")
        return stride(from: 0, to: stuffed.count, by: chunkSize).map {
            Array(stuffed[$0..<Swift.min($0 + chunkSize, stuffed.count)])
        }
    }

    /// Un-stuffs one message (with or without its end marker): 0x0C → 0x00, 0x0E X → X & 0x0F, EOM pairs dropped.
    package static func unstuff<C: Collection>(_ message: C) throws(BLEError) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(message.count)
        var escaped = false
        for byte in message {
            if escaped {
                escaped = false
                if byte == 0x0E || byte == 0x0F { continue }  // end-of-message pair
                out.append(byte & 0x0F)
            } else if byte == escape {
                escaped = true
            } else if byte == 0x0C {
                out.append(0x00)
            } else {
                out.append(byte)
            }
        }
        if escaped { throw BLEError(.danglingEscape, "message ends with a lone escape byte 0x0E") }
        return out
    }
}

/// Collects BLE notifications until the buffer ends with an end-of-message pair, then yields the un-stuffed frame
/// (A-BLE `txRxReceived`). Bounded: a message that grows past twice the largest stuffed frame is rejected.
package struct BLEReassembler: Sendable {
    private var buffer: [UInt8] = []
    /// A stuffed frame is at most 2 × 2068 + 2 bytes.
    package static let maxMessageSize = 2 * FrameLimits.maxFrameSize + 2

    package init() {}

    package var bufferedCount: Int { buffer.count }

    package mutating func reset() { buffer.removeAll(keepingCapacity: true) }

    /// Appends one notification; returns the raw frames completed by it (usually zero or one).
    package mutating func append<C: Collection>(_ notification: C) throws(BLEError) -> [[UInt8]]
    where C.Element == UInt8 {
        var completed: [[UInt8]] = []
        var escaped = false
        var messageStart = 0
        buffer.append(contentsOf: notification)
        // Scan for EOM pairs, tracking escapes so that "0E 0E" inside data cannot be misread (it cannot occur, but a
        // hostile peer may send it; it then ends a message, as the SDK's receiver does).
        var i = 0
        while i < buffer.count {
            let byte = buffer[i]
            if escaped {
                escaped = false
                if byte == 0x0E || byte == 0x0F {
                    let message = buffer[messageStart...i]
                    messageStart = i + 1
                    let frame = try BLECodec.unstuff(message)
                    if !frame.isEmpty { completed.append(frame) }
                }
            } else if byte == BLECodec.escape {
                escaped = true
            }
            i += 1
        }
        buffer.removeFirst(messageStart)
        if buffer.count > Self.maxMessageSize {
            buffer.removeAll(keepingCapacity: true)
            throw BLEError(
                .oversize, "BLE message grew past \(Self.maxMessageSize) bytes without an end-of-message marker")
        }
        return completed
    }
}

/// Why BLE bytes could not be un-stuffed.
package struct BLEError: CodedError {
    package enum Code: String, Sendable, Hashable {
        case danglingEscape
        case oversize
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
