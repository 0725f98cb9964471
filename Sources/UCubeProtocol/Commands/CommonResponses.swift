/// Response types several commands share: a TLV list, opaque bytes, and an SRED blob.

/// Response data that is a list of TLVs (GetPlainTag, TransactionInit, TransactionProcess; spec §5.2).
public struct TLVResponse: RPCResponse, Hashable {
    public var tlvs: [TLV]

    public init(tlvs: [TLV]) { self.tlvs = tlvs }

    public init(status: Status, data: [UInt8]) throws(CommandError) {
        tlvs = try TLVParser.parseCommandData(data, "TLV response")
    }

    public func encodeData() -> [UInt8] { tlvs.encoded }

    /// The value of the first object with `tag`, depth-first.
    public subscript(tag: Tag) -> [UInt8]? { tlvs[tag] }

    /// 9F27 cryptogram information data as a type (spec §7.6); `nil` when absent, empty or reserved.
    public var cryptogram: CryptogramType? {
        guard let cid = tlvs[Tag(0x9F27)]?.first else { return nil }
        return CryptogramType(cid: cid)
    }

    private enum CodingKeys: String, CodingKey { case tlvs, cryptogram }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeTLVs(tlvs, forKey: .tlvs)
        try container.encodeIfPresent(cryptogram, forKey: .cryptogram)
    }
}

/// Response data this project does not interpret (commands whose layouts are not in the sources, spec §14).
public struct RawDataResponse: RPCResponse, Hashable {
    public var data: [UInt8]

    public init(data: [UInt8]) { self.data = data }
    public init(status: Status, data: [UInt8]) throws(CommandError) { self.data = data }

    public func encodeData() -> [UInt8] { data }

    private enum CodingKeys: String, CodingKey { case data }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Plain data a terminal chose to send: card data in it is masked, as in `summary`.
        try container.encode(Masking.hex(data), forKey: .data)
    }
}

/// GetSecuredTag's answer: ciphertext the driver never decrypts; it goes to the backend as is (spec §5.2 0x5025,
/// §12.3 SRED PROJECT CHOICE).
public struct SecuredTagResponse: RPCResponse, Hashable {
    public var blob: [UInt8]

    public init(blob: [UInt8]) { self.blob = blob }
    public init(status: Status, data: [UInt8]) throws(CommandError) { blob = data }

    public func encodeData() -> [UInt8] { blob }

    private enum CodingKeys: String, CodingKey { case blob }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(blob, forKey: .blob)
    }
}

// MARK: - Opaque commands

/// A command whose payload layout is not in the sources: the caller supplies the bytes (spec §5.1 MP-README-only
/// commands; §5.2 0x5501/0x5503 PROJECT CHOICE "accept and store opaque bytes").
public protocol OpaqueCommand: RPCCommand, Hashable {
    var payload: [UInt8] { get }
}

extension OpaqueCommand {
    public func encodePayload() throws(CommandError) -> [UInt8] {
        try PayloadLimits.checked(payload, Self.descriptor.name)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: OpaqueCommandCodingKeys.self)
        try container.encodeHex(payload, forKey: .payload)
    }
}

enum OpaqueCommandCodingKeys: String, CodingKey { case payload }

/// 0x5022 CardSendAPDU (MP-README): payload layout not in sources.
public struct CardSendAPDU: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.cardSendAPDU
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5023 CardPowerOff (MP-README): payload layout not in sources.
public struct CardPowerOff: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.cardPowerOff
    public var payload: [UInt8]
    public init(payload: [UInt8] = []) { self.payload = payload }
}

/// 0x5024 MagstripeRead (MP-README): payload layout not in sources; waits for a swipe.
public struct MagstripeRead: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.magstripeRead
    public var payload: [UInt8]
    public init(payload: [UInt8] = []) { self.payload = payload }
    public var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5043 DisplayMessageWithKI (MP-README; only YouTransactor-signed prompts): payload layout not in sources.
public struct DisplayMessageWithKI: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.displayMessageWithKI
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
    public var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5045 DisplayMessageWithKICustom (MP-README, manual PAN entry): payload layout not in sources.
public struct DisplayMessageWithKICustom: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.displayMessageWithKICustom
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
    public var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5110 GetKeyInfo (MP-README): payload layout not in sources.
public struct GetKeyInfo: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.getKeyInfo
    public var payload: [UInt8]
    public init(payload: [UInt8] = []) { self.payload = payload }
}

/// 0x5120 ExportPublicKey (MP-README; K_KEK_PUB, production): payload layout not in sources.
public struct ExportPublicKey: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.exportPublicKey
    public var payload: [UInt8]
    public init(payload: [UInt8] = []) { self.payload = payload }
}

/// 0x5121 ImportPublicKeyCert (MP-README): payload layout not in sources.
public struct ImportPublicKeyCert: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.importPublicKeyCert
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5122 ImportPublicKeyPersoCert (MP-README): payload layout not in sources.
public struct ImportPublicKeyPersoCert: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.importPublicKeyPersoCert
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5131 LoadKey (MP-README; a TR-31 key block for RKI): payload layout not in sources.
public struct LoadKey: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.loadKey
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5170 OnlinePIN (MP-README): payload layout not in sources; waits for PIN entry.
public struct OnlinePIN: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.onlinePIN
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
    public var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5501 BankParametersDownload: HSM-built, SIGNED input; format not in sources (spec §5.2).
public struct BankParametersDownload: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.bankParametersDownload
    public var payload: [UInt8]
    public init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5503 BankParametersGet (GetEMVParameters): format not in sources (spec §5.2).
public struct BankParametersGet: OpaqueCommand {
    public typealias Response = RawDataResponse
    public static let id = CommandID.bankParametersGet
    public var payload: [UInt8]
    public init(payload: [UInt8] = []) { self.payload = payload }
}
