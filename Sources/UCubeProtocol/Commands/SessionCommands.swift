/// Commands with an empty payload: CancelAll, PowerOff, Enter/ExitSecureSession, RTCGet, InstallForLoadKey
/// (spec §5.2: "Request: empty").
public protocol EmptyPayloadCommand: RPCCommand, Hashable {
    init()
}

extension EmptyPayloadCommand {
    public func encodePayload() throws(CommandError) -> [UInt8] { [] }

    public init(payload: [UInt8]) throws(CommandError) {
        guard payload.isEmpty else {
            throw CommandError(.malformed, "\(Self.descriptor.name) takes no payload, got \(payload.count) bytes")
        }
        self.init()
    }

    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: EmptyCodingKeys.self)
    }
}

enum EmptyCodingKeys: CodingKey {}

/// 0x0202 CancelAll: a pending asynchronous command ends with −32; answers 0 even when nothing is pending (PROJECT
/// CHOICE, spec §5.2). Empty, as the 2020 SDK and the current SDK's payment start send it; `FF FE` when the current
/// SDK cancels a card wait or a choice (spec §2.8, "withMessage").
public struct CancelAll: EmptyPayloadCommand {
    public typealias Response = EmptyResponse
    public static let id = CommandID.cancelAll
    /// The payload the current SDK sends to cancel a pending command.
    static let cancelMessage: [UInt8] = [0xFF, 0xFE]

    /// The current SDK's `FF FE` form.
    public var withMessage: Bool

    /// The empty form (`ucube rpc cancel-all`, a payment's start, a cancel).
    public init() { withMessage = false }

    public init(withMessage: Bool) { self.withMessage = withMessage }

    public func encodePayload() throws(CommandError) -> [UInt8] { withMessage ? Self.cancelMessage : [] }

    public init(payload: [UInt8]) throws(CommandError) {
        switch payload {
        case []: withMessage = false
        case Self.cancelMessage: withMessage = true
        default:
            throw CommandError(.malformed, "CancelAll takes no payload or FF FE, got \(Hex.encode(payload))")
        }
    }

    private enum CodingKeys: String, CodingKey { case withMessage }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if withMessage { try container.encode(withMessage, forKey: .withMessage) }
    }
}

/// 0x5060 PowerOff: switches the terminal off (IS:Constants; empty payload inferred, spec §5.2).
public struct PowerOff: EmptyPayloadCommand {
    public typealias Response = EmptyResponse
    public static let id = CommandID.powerOff
    public init() {}
}

/// 0x5102 ExitSecuredSession: SECURED → READY; always sent and answered in READY format (spec §2.3).
public struct ExitSecureSession: EmptyPayloadCommand {
    public typealias Response = EmptyResponse
    public static let id = CommandID.exitSecureSession
    public init() {}
}

/// 0x5101 EnterSecuredSession: READY → SECURED (PERSO → READY, PRE-PERSO → PERSO); answers the SRED KSN (spec §5.2).
///
/// Empty (2020, and the current SDK by default), or the current SDK's "SDSE mode" `01 01 mm 02 01 oo`: tag 01 the
/// data-encryption mechanism, tag 02 its option (`FF` from a payment, which never sets it).
public struct EnterSecureSession: EmptyPayloadCommand {
    public static let id = CommandID.enterSecureSession

    /// The current SDK's data-encryption choice (`UCubePaymentRequest.setDataEncryptionMechanism`, spec §5.2 0x5101).
    public struct DataEncryption: Sendable, Hashable, Encodable {
        /// 0 SRED, 1 RFU, 2 VOLTAGE (the sample's default).
        public var mechanism: UInt8
        /// `FF` when the app set none (a payment never does).
        public var option: UInt8

        public init(mechanism: UInt8, option: UInt8 = 0xFF) {
            self.mechanism = mechanism
            self.option = option
        }
    }

    /// `nil`: the empty request.
    public var dataEncryption: DataEncryption?

    public init() { dataEncryption = nil }

    public init(dataEncryption: DataEncryption?) { self.dataEncryption = dataEncryption }

    public func encodePayload() throws(CommandError) -> [UInt8] {
        guard let dataEncryption else { return [] }
        return [0x01, 0x01, dataEncryption.mechanism, 0x02, 0x01, dataEncryption.option]
    }

    public init(payload: [UInt8]) throws(CommandError) {
        switch payload.count {
        case 0:
            dataEncryption = nil
        case 6 where payload[0] == 0x01 && payload[1] == 0x01 && payload[3] == 0x02 && payload[4] == 0x01:
            dataEncryption = DataEncryption(mechanism: payload[2], option: payload[5])
        default:
            throw CommandError(
                .malformed, "EnterSecureSession takes no payload or 01 01 mm 02 01 oo, got \(Hex.encode(payload))")
        }
    }

    private enum CodingKeys: String, CodingKey { case dataEncryption }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let dataEncryption { try container.encode(dataEncryption, forKey: .dataEncryption) }
    }

    /// The 10-byte SRED KSN of the new session (iOS `ksnLength` = 10, MP `sredKsn[10]`).
    public struct Response: RPCResponse, Hashable {
        public static let ksnLength = 10

        public var ksn: [UInt8]

        public init(ksn: [UInt8]) { self.ksn = ksn }

        /// Trailing bytes after the KSN are ignored, as `EmptyResponse` ignores padding.
        public init(status: Status, data: [UInt8]) throws(CommandError) {
            var reader = ByteReader(data, what: "EnterSecureSession response")
            ksn = try reader.take(Self.ksnLength, "SRED KSN")
        }

        public func encodeData() -> [UInt8] { ksn }

        private enum CodingKeys: String, CodingKey { case ksn }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeHex(ksn, forKey: .ksn)
        }
    }
}
