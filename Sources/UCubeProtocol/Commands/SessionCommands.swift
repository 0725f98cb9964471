/// Commands with an empty payload: CancelAll, PowerOff, Enter/ExitSecureSession, RTCGet, InstallForLoadKey
/// (spec §5.2: "Request: empty").
package protocol EmptyPayloadCommand: RPCCommand, Hashable {
    init()
}

extension EmptyPayloadCommand {
    package func encodePayload() throws(CommandError) -> [UInt8] { [] }

    package init(payload: [UInt8]) throws(CommandError) {
        guard payload.isEmpty else {
            throw CommandError(.malformed, "\(Self.descriptor.name) takes no payload, got \(payload.count) bytes")
        }
        self.init()
    }

    package func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: EmptyCodingKeys.self)
    }
}

enum EmptyCodingKeys: CodingKey {}

/// 0x0202 CancelAll: a pending asynchronous command ends with −32; answers 0 even when nothing is pending (PROJECT
/// CHOICE, spec §5.2). Empty, as the 2020 SDK and the current SDK's payment start send it; `FF FE` when the current
/// SDK cancels a card wait or a choice (spec §2.8, "withMessage").
package struct CancelAll: EmptyPayloadCommand {
    package typealias Response = EmptyResponse
    package static let id = CommandID.cancelAll
    /// The payload the current SDK sends to cancel a pending command.
    static let cancelMessage: [UInt8] = [0xFF, 0xFE]

    /// The current SDK's `FF FE` form.
    package var withMessage: Bool

    /// The empty form (`ucube rpc cancel-all`, a payment's start, a cancel).
    package init() { withMessage = false }

    package init(withMessage: Bool) { self.withMessage = withMessage }

    package func encodePayload() throws(CommandError) -> [UInt8] { withMessage ? Self.cancelMessage : [] }

    package init(payload: [UInt8]) throws(CommandError) {
        switch payload {
        case []: withMessage = false
        case Self.cancelMessage: withMessage = true
        default:
            throw CommandError(.malformed, "CancelAll takes no payload or FF FE, got \(Hex.encode(payload))")
        }
    }

    private enum CodingKeys: String, CodingKey { case withMessage }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if withMessage { try container.encode(withMessage, forKey: .withMessage) }
    }
}

/// 0x5060 PowerOff: switches the terminal off (IS:Constants; empty payload inferred, spec §5.2).
package struct PowerOff: EmptyPayloadCommand {
    package typealias Response = EmptyResponse
    package static let id = CommandID.powerOff
    package init() {}
}

/// 0x5102 ExitSecuredSession: SECURED → READY; always sent and answered in READY format (spec §2.3).
package struct ExitSecureSession: EmptyPayloadCommand {
    package typealias Response = EmptyResponse
    package static let id = CommandID.exitSecureSession
    package init() {}
}

/// 0x5101 EnterSecuredSession: READY → SECURED (PERSO → READY, PRE-PERSO → PERSO); answers the SRED KSN (spec §5.2).
///
/// Empty (2020, and the current SDK by default), or the current SDK's "SDSE mode" `01 01 mm 02 01 oo`: tag 01 the
/// data-encryption mechanism, tag 02 its option (`FF` from a payment, which never sets it).
package struct EnterSecureSession: EmptyPayloadCommand {
    package static let id = CommandID.enterSecureSession

    /// The current SDK's data-encryption choice (`UCubePaymentRequest.setDataEncryptionMechanism`, spec §5.2 0x5101).
    package struct DataEncryption: Sendable, Hashable, Encodable {
        /// 0 SRED, 1 RFU, 2 VOLTAGE (the sample's default).
        package var mechanism: UInt8
        /// `FF` when the app set none (a payment never does).
        package var option: UInt8

        package init(mechanism: UInt8, option: UInt8 = 0xFF) {
            self.mechanism = mechanism
            self.option = option
        }
    }

    /// `nil`: the empty request.
    package var dataEncryption: DataEncryption?

    package init() { dataEncryption = nil }

    package init(dataEncryption: DataEncryption?) { self.dataEncryption = dataEncryption }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard let dataEncryption else { return [] }
        return [0x01, 0x01, dataEncryption.mechanism, 0x02, 0x01, dataEncryption.option]
    }

    package init(payload: [UInt8]) throws(CommandError) {
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

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let dataEncryption { try container.encode(dataEncryption, forKey: .dataEncryption) }
    }

    /// The SRED KSN of the new session: 10 bytes for TDES DUKPT (iOS `ksnLength` = 10, MP `sredKsn[10]`), 12 for
    /// AES DUKPT. The current SDK keeps the whole answer data as the KSN, whatever its length
    /// (L35/L138:EnterSecureSessionCommand `parseResponse`); so does ucube, within `ksnLengths`.
    package struct Response: RPCResponse, Hashable {
        package static let ksnLength = 10
        /// The lengths taken as a KSN, here and wherever a terminal gives one (the PIN KSN too): from TDES DUKPT's 10
        /// bytes (X9.24-1 2009) to 16, past AES DUKPT's 12 (X9.24-3).
        package static let ksnLengths = 10...16

        package var ksn: [UInt8]

        package init(ksn: [UInt8]) { self.ksn = ksn }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            guard data.count >= Self.ksnLengths.lowerBound else {
                throw CommandError(
                    .truncated,
                    "EnterSecureSession response: \(data.count) bytes, short of a \(Self.ksnLength)-byte KSN")
            }
            guard Self.ksnLengths.contains(data.count) else {
                throw CommandError(
                    .malformed, "EnterSecureSession response: a KSN of \(data.count) bytes (10 to 16 are taken)")
            }
            ksn = data
        }

        package func encodeData() -> [UInt8] { ksn }

        private enum CodingKeys: String, CodingKey { case ksn }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeHex(ksn, forKey: .ksn)
        }
    }
}
