/// 0x5130 InstallForLoadKey: reads the terminal's certificate chain for the TMS (spec §5.2). Request empty.
package struct InstallForLoadKey: EmptyPayloadCommand {
    package static let id = CommandID.installForLoadKey
    package init() {}

    /// `LL LL ‖ CA-prod certificate ‖ LL LL ‖ K_KEK certificate ‖ [iKSN data (10) ‖ [iKSN PIN (10)]]` (2-byte BE
    /// lengths; the KSNs are read by the current SDK when at least 10 bytes remain for each, spec §5.2 0x5130).
    /// `raw` is the whole data — the "dongle certificate" sent to the TMS. The 2020 SDK's bug of copying the KEK
    /// into the CA buffer is not copied.
    package struct Response: RPCResponse, Hashable {
        /// The length of each initial KSN (spec §5.2 0x5130, L:InstallForLoadKeyCommand.parseResponse).
        package static let initialKSNLength = 10

        package let caCertificate: [UInt8]
        package let kekCertificate: [UInt8]
        /// The initial KSN of the data (SRED) DUKPT key, when the answer carries one (current firmware).
        package let initialDataKSN: [UInt8]?
        /// The initial KSN of the PIN DUKPT key, when the answer carries one after the data KSN.
        package let initialPINKSN: [UInt8]?
        package let raw: [UInt8]

        /// Builds the data from the two certificates and, for the current dialect, the initial KSNs (a PIN KSN only
        /// after a data KSN, each 10 bytes).
        package init(
            caCertificate: [UInt8],
            kekCertificate: [UInt8],
            initialDataKSN: [UInt8]? = nil,
            initialPINKSN: [UInt8]? = nil
        ) throws(CommandError) {
            for (name, cert) in [("CA certificate", caCertificate), ("KEK certificate", kekCertificate)]
            where cert.count > 0xFFFF {
                throw CommandError(.invalidArgument, "\(name) of \(cert.count) bytes does not fit a 2-byte length")
            }
            for ksn in [initialDataKSN, initialPINKSN].compactMap(\.self) where ksn.count != Self.initialKSNLength {
                throw CommandError(
                    .invalidArgument, "an initial KSN is \(Self.initialKSNLength) bytes, got \(ksn.count)")
            }
            if initialPINKSN != nil && initialDataKSN == nil {
                throw CommandError(.invalidArgument, "the PIN KSN follows the data KSN: give both")
            }
            self.caCertificate = caCertificate
            self.kekCertificate = kekCertificate
            self.initialDataKSN = initialDataKSN
            self.initialPINKSN = initialPINKSN
            self.raw =
                Self.prefixed(caCertificate) + Self.prefixed(kekCertificate) + (initialDataKSN ?? [])
                + (initialPINKSN ?? [])
        }

        /// Builds the data from the two certificates and `trailing` bytes as they are (read back as KSNs when they
        /// are long enough).
        package init(caCertificate: [UInt8], kekCertificate: [UInt8], trailing: [UInt8]) throws(CommandError) {
            let chain = try Self(caCertificate: caCertificate, kekCertificate: kekCertificate)
            try self.init(status: .success, data: chain.raw + trailing)
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            var reader = ByteReader(data, what: "InstallForLoadKey response")
            caCertificate = try reader.take(Int(try reader.u16("CA certificate length")), "CA certificate")
            kekCertificate = try reader.take(Int(try reader.u16("KEK certificate length")), "KEK certificate")
            initialDataKSN =
                reader.remaining >= Self.initialKSNLength ? try reader.take(Self.initialKSNLength, "iKSN data") : nil
            initialPINKSN =
                reader.remaining >= Self.initialKSNLength ? try reader.take(Self.initialKSNLength, "iKSN PIN") : nil
            raw = data
        }

        private static func prefixed(_ bytes: [UInt8]) -> [UInt8] {
            [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }

        package func encodeData() -> [UInt8] { raw }

        private enum CodingKeys: String, CodingKey {
            case caCertificate, kekCertificate, initialDataKSN, initialPINKSN, raw
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeHex(caCertificate, forKey: .caCertificate)
            try container.encodeHex(kekCertificate, forKey: .kekCertificate)
            if let initialDataKSN { try container.encodeHex(initialDataKSN, forKey: .initialDataKSN) }
            if let initialPINKSN { try container.encodeHex(initialPINKSN, forKey: .initialPINKSN) }
            try container.encodeHex(raw, forKey: .raw)
        }
    }
}

/// 0x5160 InstallForLoad: announces a signed binary before its Load blocks (spec §5.2, old SDK layout).
///
/// `signature ‖ method (1) ‖ parameter length (2, BE) ‖ parameter`. SRED and PLAIN carry length 0 and no parameter;
/// DYNAMIC carries the ciphered session key (0x0100 = 256 bytes in the sources).
///
/// The signature's length is not encoded, so `init(payload:)` locates the method and length from the END of the
/// payload: it takes the last position p where `payload[p]` is a method, the two bytes after it give exactly the
/// number of bytes that follow them, and the method agrees with the length (DYNAMIC ⇔ length > 0). Everything before
/// p is the signature. The newer 280-byte firmware layout (spec §5.2) ends in `02 00 00` and so reads as PLAIN with
/// a 277-byte "signature".
package struct InstallForLoad: RPCCommand, Hashable {
    package typealias Response = EmptyResponse
    package static let id = CommandID.installForLoad

    package var signature: [UInt8]
    package var method: EncryptionMethod
    /// DYNAMIC only: the ciphered session key.
    package var sessionKey: [UInt8]?

    package init(signature: [UInt8], method: EncryptionMethod, sessionKey: [UInt8]? = nil) {
        self.signature = signature
        self.method = method
        self.sessionKey = sessionKey
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard !signature.isEmpty else { throw CommandError(.invalidArgument, "InstallForLoad needs a signature") }
        let parameter = sessionKey ?? []
        switch method {
        case .dynamic:
            guard !parameter.isEmpty else {
                throw CommandError(.invalidArgument, "the dynamic encryption method needs the ciphered session key")
            }
        case .sred, .plain:
            guard sessionKey == nil else {
                throw CommandError(.invalidArgument, "only the dynamic encryption method carries a session key")
            }
        }
        let payload =
            signature + [method.rawValue, UInt8((parameter.count >> 8) & 0xFF), UInt8(parameter.count & 0xFF)]
            + parameter
        return try PayloadLimits.checked(payload, "InstallForLoad")
    }

    package init(payload: [UInt8]) throws(CommandError) {
        guard payload.count >= 3 else {
            throw CommandError(.truncated, "InstallForLoad request is \(payload.count) bytes; it needs at least 4")
        }
        var position = payload.count - 3
        while true {
            let length = Int(payload[position + 1]) << 8 | Int(payload[position + 2])
            if let method = EncryptionMethod(rawValue: payload[position]),
                length == payload.count - position - 3,
                (method == .dynamic) == (length > 0)
            {
                guard position > 0 else {
                    throw CommandError(.malformed, "InstallForLoad request has no signature before the method")
                }
                signature = Array(payload[..<position])
                self.method = method
                sessionKey = method == .dynamic ? Array(payload[(position + 3)...]) : nil
                return
            }
            guard position > 0 else { break }
            position -= 1
        }
        throw CommandError(
            .malformed,
            "InstallForLoad request: no encryption method and parameter length found at its end"
        )
    }

    private enum CodingKeys: String, CodingKey { case signature, method, sessionKey }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(signature, forKey: .signature)
        try container.encode(method, forKey: .method)
        try container.encodeHexIfPresent(sessionKey, forKey: .sessionKey)
    }
}

/// 0x5161 Load: one block of a binary; the next is sent after status 0 (spec §5.2).
///
/// `last-block flag (01 last, 00 more) ‖ block length (2, BE) ‖ block`.
package struct Load: RPCCommand, Hashable {
    package typealias Response = EmptyResponse
    package static let id = CommandID.load

    /// PROJECT CHOICE (spec §5.2 Load): 2040-byte blocks, the size the SDK's frame limit was sized for.
    package static let maxBlockSize = 2040

    package var isLast: Bool
    package var block: [UInt8]

    package init(isLast: Bool, block: [UInt8]) {
        self.isLast = isLast
        self.block = block
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard !block.isEmpty else { throw CommandError(.invalidArgument, "a Load block cannot be empty") }
        guard block.count <= Self.maxBlockSize else {
            throw CommandError(
                .invalidArgument,
                "a Load block is at most \(Self.maxBlockSize) bytes, got \(block.count)"
            )
        }
        return [isLast ? 0x01 : 0x00, UInt8(block.count >> 8), UInt8(block.count & 0xFF)] + block
    }

    package init(payload: [UInt8]) throws(CommandError) {
        var reader = ByteReader(payload, what: "Load request")
        let flag = try reader.u8("last-block flag")
        guard flag <= 1 else {
            throw CommandError(.malformed, "Load request: last-block flag must be 00 or 01, got \(Hex.encode([flag]))")
        }
        let length = Int(try reader.u16("block length"))
        guard length > 0 else { throw CommandError(.malformed, "Load request carries an empty block") }
        block = try reader.take(length, "block")
        guard reader.isAtEnd else {
            throw CommandError(.malformed, "Load request has \(reader.remaining) bytes after its block")
        }
        isLast = flag == 1
    }

    private enum CodingKeys: String, CodingKey { case isLast, blockLength, block }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isLast, forKey: .isLast)
        try container.encode(block.count, forKey: .blockLength)
        try container.encodeHex(block, forKey: .block)
    }
}
