/// Frame layout constants (spec §2.1, §2.2, §2.3).
package enum FrameLimits {
    package static let stx: UInt8 = 0x02
    package static let etx: UInt8 = 0x03
    /// LEN (2) + SEQ (1) + CMD (2): `RPC_HEADER_LEN` (spec §2.1).
    package static let headerSize = 5
    /// STX + CRC (2) + ETX: `PROTOCOL_BYTES_SIZE` (spec §2.1).
    package static let protocolBytes = 4
    /// LEN + 9 = the whole frame.
    package static let overhead = headerSize + protocolBytes
    /// `MAX_RPC_PACKET_SIZE`: a frame whose announced size exceeds it is rejected (spec §2.2).
    package static let maxFrameSize = 2068
    /// The largest LEN that fits the limit.
    package static let maxBodySize = maxFrameSize - overhead
    /// The current SDK's `MAX_RPC_PACKET_SIZE` (spec §2.2, L:rpc.Constants): what a terminal serving it must read.
    package static let currentSDKMaxFrameSize = 2560
    /// `RPC_SRED_MAC_SIZE` (spec §2.3).
    package static let macSize = 4
    /// `RPC_SECURED_HEADER_CRYPTO_RND_LEN` (spec §2.3).
    package static let cryptoHeaderSize = 1
    /// The signed 16-bit STATUS that opens every response body, after the crypto header when secured (spec §2.2, §2.3).
    package static let statusSize = 2
    /// The crypto header the SDK always sends (spec §2.3: "the SDK always sends 0x7F").
    package static let defaultCryptoHeader: UInt8 = 0x7F
}

/// One frame as it came off the wire: the fields every layout shares, and the body between CMD and CRC.
///
/// Whether the body is plain or secured, a command or a response, depends on who sent it and on the session state,
/// so a `RawFrame` is interpreted with `CommandFrame(raw:secured:)` or `ResponseFrame(raw:secured:)`.
package struct RawFrame: Hashable, Sendable {
    package var sequence: UInt8
    package var command: CommandID
    /// Bytes between CMD ID and CRC; LEN counts exactly these.
    package var body: [UInt8]

    package init(sequence: UInt8, command: CommandID, body: [UInt8]) {
        self.sequence = sequence
        self.command = command
        self.body = body
    }

    /// STX ‖ LEN ‖ SEQ ‖ CMD ‖ body ‖ CRC ‖ ETX (spec §2.1). Throws when the frame would exceed 2068 bytes.
    package func encoded() throws(FrameError) -> [UInt8] {
        guard body.count <= FrameLimits.maxBodySize else {
            throw FrameError(
                .oversize,
                "frame of \(body.count + FrameLimits.overhead) bytes exceeds the \(FrameLimits.maxFrameSize)-byte limit"
            )
        }
        var out: [UInt8] = []
        out.reserveCapacity(body.count + FrameLimits.overhead)
        out.append(FrameLimits.stx)
        out.append(UInt8(body.count >> 8))
        out.append(UInt8(body.count & 0xFF))
        out.append(sequence)
        out.append(UInt8(command.rawValue >> 8))
        out.append(UInt8(command.rawValue & 0xFF))
        out.append(contentsOf: body)
        let crc = CRC16.xmodem(out[1...])
        out.append(UInt8(crc >> 8))
        out.append(UInt8(crc & 0xFF))
        out.append(FrameLimits.etx)
        return out
    }
}

/// The crypto header and MAC that wrap data in SECURED state (spec §2.3).
package struct SecuredEnvelope: Hashable, Sendable {
    package var cryptoHeader: UInt8
    /// Four bytes, or empty for a secured response without data ("no MAC if the data is null").
    package var mac: [UInt8]

    package init(cryptoHeader: UInt8 = FrameLimits.defaultCryptoHeader, mac: [UInt8] = [0, 0, 0, 0]) {
        self.cryptoHeader = cryptoHeader
        self.mac = mac
    }
}

/// A command from host to terminal, plain (READY layout) or wrapped (SECURED layout) (spec §2.1, §2.3).
package struct CommandFrame: Hashable, Sendable {
    package var sequence: UInt8
    package var command: CommandID
    package var payload: [UInt8]
    /// Present when the command travels in the SECURED layout.
    package var envelope: SecuredEnvelope?

    package init(sequence: UInt8, command: CommandID, payload: [UInt8], envelope: SecuredEnvelope? = nil) {
        self.sequence = sequence
        self.command = command
        self.payload = payload
        self.envelope = envelope
    }

    package var raw: RawFrame {
        guard let envelope else { return RawFrame(sequence: sequence, command: command, body: payload) }
        return RawFrame(sequence: sequence, command: command, body: [envelope.cryptoHeader] + payload + envelope.mac)
    }

    package func encoded() throws(FrameError) -> [UInt8] { try raw.encoded() }

    /// Reads a command body. `secured`: the body carries crypto header ‖ payload ‖ 4-byte MAC.
    package init(raw: RawFrame, secured: Bool) throws(FrameError) {
        sequence = raw.sequence
        command = raw.command
        if secured {
            guard raw.body.count >= FrameLimits.cryptoHeaderSize + FrameLimits.macSize else {
                throw FrameError(
                    .truncatedSecuredBody,
                    "secured command body of \(raw.body.count) bytes is shorter than crypto header + MAC")
            }
            let macStart = raw.body.count - FrameLimits.macSize
            payload = Array(raw.body[1..<macStart])
            envelope = SecuredEnvelope(cryptoHeader: raw.body[0], mac: Array(raw.body[macStart...]))
        } else {
            payload = raw.body
            envelope = nil
        }
    }

    /// The bytes the MAC covers: SEQ ‖ CMD ‖ crypto header ‖ payload (PROJECT CHOICE, spec §12.3).
    package var macInput: [UInt8] {
        [
            sequence, UInt8(command.rawValue >> 8), UInt8(command.rawValue & 0xFF),
            envelope?.cryptoHeader ?? FrameLimits.defaultCryptoHeader,
        ] + payload
    }
}

/// A response from terminal to host, plain (READY layout) or secured (spec §2.2, §2.3).
package struct ResponseFrame: Hashable, Sendable {
    package var sequence: UInt8
    package var command: CommandID
    package var status: Status
    package var data: [UInt8]
    /// Present when the response travels in the SECURED layout.
    package var envelope: SecuredEnvelope?

    package init(
        sequence: UInt8, command: CommandID, status: Status, data: [UInt8] = [], envelope: SecuredEnvelope? = nil
    ) {
        self.sequence = sequence
        self.command = command
        self.status = status
        self.data = data
        self.envelope = envelope
    }

    package var raw: RawFrame {
        guard let envelope else { return RawFrame(sequence: sequence, command: command, body: status.bytes + data) }
        // "no MAC if the data is null" (spec §2.3, AR-README).
        let mac = data.isEmpty ? [] : envelope.mac
        return RawFrame(sequence: sequence, command: command, body: [envelope.cryptoHeader] + status.bytes + data + mac)
    }

    package func encoded() throws(FrameError) -> [UInt8] { try raw.encoded() }

    /// Reads a response body. `secured`: crypto header ‖ status ‖ data ‖ MAC (MAC only when data is non-empty).
    ///
    /// DATA is LEN−7 bytes, not the legacy parser's LEN−6 (spec §2.3 quirk).
    package init(raw: RawFrame, secured: Bool) throws(FrameError) {
        sequence = raw.sequence
        command = raw.command
        let body = raw.body
        if secured {
            guard body.count >= 3 else {
                throw FrameError(
                    .truncatedSecuredBody,
                    "secured response body of \(body.count) bytes has no crypto header and status")
            }
            status = Status(bytes: body[1], body[2])
            if body.count == 3 {
                data = []
                envelope = SecuredEnvelope(cryptoHeader: body[0], mac: [])
            } else {
                guard body.count >= 3 + 1 + FrameLimits.macSize else {
                    throw FrameError(
                        .truncatedSecuredBody,
                        "secured response body of \(body.count) bytes is too short for data and a 4-byte MAC")
                }
                let macStart = body.count - FrameLimits.macSize
                data = Array(body[3..<macStart])
                envelope = SecuredEnvelope(cryptoHeader: body[0], mac: Array(body[macStart...]))
            }
        } else {
            guard body.count >= 2 else {
                throw FrameError(.missingStatus, "response body of \(body.count) bytes has no 2-byte status")
            }
            status = Status(bytes: body[0], body[1])
            data = Array(body[2...])
            envelope = nil
        }
    }

    /// The bytes the MAC covers: SEQ ‖ CMD ‖ crypto header ‖ STATUS ‖ DATA (PROJECT CHOICE, spec §12.3).
    package var macInput: [UInt8] {
        [
            sequence, UInt8(command.rawValue >> 8), UInt8(command.rawValue & 0xFF),
            envelope?.cryptoHeader ?? FrameLimits.defaultCryptoHeader,
        ]
            + status.bytes + data
    }
}

/// Why bytes were not a frame. `code` is stable; `reason` is for people.
package struct FrameError: CodedError {
    package enum Code: String, Sendable, Hashable {
        /// The announced LEN + 9 exceeds the decoder's limit (2068 bytes, or 2560 for the current SDK; spec §2.2).
        case oversize
        /// The byte at LEN + 8 is not ETX.
        case missingETX
        /// The CRC-16/XMODEM over LEN…data does not match (spec §2.5).
        case crcMismatch
        /// A secured body is shorter than its crypto header, status and MAC.
        case truncatedSecuredBody
        /// A response body is shorter than its status.
        case missingStatus
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
