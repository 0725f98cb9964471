/// Response types several commands share: a TLV list, opaque bytes, and an SRED blob.

/// Response data that is a list of TLVs (GetPlainTag, TransactionInit, TransactionProcess; spec §5.2).
package struct TLVResponse: RPCResponse, Hashable {
    package var tlvs: [TLV]

    package init(tlvs: [TLV]) { self.tlvs = tlvs }

    package init(status: Status, data: [UInt8]) throws(CommandError) {
        tlvs = try TLVParser.parseCommandData(data, "TLV response")
    }

    package func encodeData() -> [UInt8] { tlvs.encoded }

    /// The value of the first object with `tag`, depth-first.
    package subscript(tag: Tag) -> [UInt8]? { tlvs[tag] }

    /// 9F27 cryptogram information data as a type (spec §7.6); `nil` when absent, empty or reserved.
    package var cryptogram: CryptogramType? {
        guard let cid = tlvs[Tag(0x9F27)]?.first else { return nil }
        return CryptogramType(cid: cid)
    }

    private enum CodingKeys: String, CodingKey { case tlvs, cryptogram }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeTLVs(tlvs, forKey: .tlvs)
        try container.encodeIfPresent(cryptogram, forKey: .cryptogram)
    }
}

/// Response data this project does not interpret (commands whose layouts are not in the sources, spec §14).
package struct RawDataResponse: RPCResponse, Hashable {
    package var data: [UInt8]

    package init(data: [UInt8]) { self.data = data }
    package init(status: Status, data: [UInt8]) throws(CommandError) { self.data = data }

    package func encodeData() -> [UInt8] { data }

    private enum CodingKeys: String, CodingKey { case data }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Plain data a terminal chose to send: card data in it is masked, as in `summary`.
        try container.encode(Masking.hex(data), forKey: .data)
    }
}

/// GetSecuredTag's answer: ciphertext the driver never decrypts; it goes to the backend as is (spec §5.2 0x5025,
/// §12.3 SRED PROJECT CHOICE).
package struct SecuredTagResponse: RPCResponse, Hashable {
    package var blob: [UInt8]

    package init(blob: [UInt8]) { self.blob = blob }
    package init(status: Status, data: [UInt8]) throws(CommandError) { blob = data }

    package func encodeData() -> [UInt8] { blob }

    private enum CodingKeys: String, CodingKey { case blob }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(blob, forKey: .blob)
    }
}

// MARK: - Opaque commands

/// A command whose payload layout is not in the sources: the caller supplies the bytes (spec §5.1 MP-README-only
/// commands; §5.2 0x5501/0x5503 PROJECT CHOICE "accept and store opaque bytes").
package protocol OpaqueCommand: RPCCommand, Hashable {
    var payload: [UInt8] { get }
}

extension OpaqueCommand {
    package func encodePayload() throws(CommandError) -> [UInt8] {
        try PayloadLimits.checked(payload, Self.descriptor.name)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: OpaqueCommandCodingKeys.self)
        try container.encodeHex(payload, forKey: .payload)
    }
}

enum OpaqueCommandCodingKeys: String, CodingKey { case payload }

/// 0x5022 CardSendAPDU (MP-README): payload layout not in sources.
package struct CardSendAPDU: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.cardSendAPDU
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5023 CardPowerOff (MP-README): payload layout not in sources.
package struct CardPowerOff: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.cardPowerOff
    package var payload: [UInt8]
    package init(payload: [UInt8] = []) { self.payload = payload }
}

/// 0x5024 MagstripeRead (MP-README): payload layout not in sources; waits for a swipe.
package struct MagstripeRead: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.magstripeRead
    package var payload: [UInt8]
    package init(payload: [UInt8] = []) { self.payload = payload }
    package var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5043 DisplayMessageWithKI (MP-README; only YouTransactor-signed prompts): payload layout not in sources.
package struct DisplayMessageWithKI: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.displayMessageWithKI
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
    package var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5045 DisplayMessageWithKICustom (MP-README, manual PAN entry): payload layout not in sources.
package struct DisplayMessageWithKICustom: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.displayMessageWithKICustom
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
    package var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5110 GetKeyInfo (MP-README): payload layout not in sources.
package struct GetKeyInfo: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.getKeyInfo
    package var payload: [UInt8]
    package init(payload: [UInt8] = []) { self.payload = payload }
}

/// 0x5120 ExportPublicKey (MP-README; K_KEK_PUB, production): payload layout not in sources.
package struct ExportPublicKey: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.exportPublicKey
    package var payload: [UInt8]
    package init(payload: [UInt8] = []) { self.payload = payload }
}

/// 0x5121 ImportPublicKeyCert (MP-README): payload layout not in sources.
package struct ImportPublicKeyCert: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.importPublicKeyCert
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5122 ImportPublicKeyPersoCert (MP-README): payload layout not in sources.
package struct ImportPublicKeyPersoCert: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.importPublicKeyPersoCert
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5131 LoadKey (MP-README; a TR-31 key block for RKI): payload layout not in sources.
package struct LoadKey: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.loadKey
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5170 OnlinePIN (MP-README): payload layout not in sources; waits for PIN entry.
package struct OnlinePIN: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.onlinePIN
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
    package var responseTimeout: Duration? { ResponseTimeouts.cardholderInteraction }
}

/// 0x5501 BankParametersDownload: HSM-built, SIGNED input; format not in sources (spec §5.2).
package struct BankParametersDownload: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.bankParametersDownload
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5503 BankParametersGet (GetEMVParameters): format not in sources (spec §5.2).
package struct BankParametersGet: OpaqueCommand {
    package typealias Response = RawDataResponse
    package static let id = CommandID.bankParametersGet
    package var payload: [UInt8]
    package init(payload: [UInt8] = []) { self.payload = payload }
}
