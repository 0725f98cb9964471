import UCubeSupport

/// 0x5001 GetInfo: reads terminal information tags (spec §5.2, tag dictionary §7.1).
///
/// Request: concatenation of 1-byte tag ids ("usable tags are all on 1 byte"). Response: TLVs for the tags the
/// terminal knows; unknown tags are omitted. E8 may carry a "YT style" length (spec §4).
package struct GetInfo: RPCCommand, Hashable {
    package typealias Response = DeviceInfo
    package static let id = CommandID.getInfo

    package var tags: [UInt8]

    package init(tags: [UInt8] = GetInfo.standardTags) { self.tags = tags }

    /// What `ucube info` asks for: identity, versions, state, power and configuration versions.
    package static let standardTags: [UInt8] = [
        0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xD1, 0xD3, 0xD5, 0xD7, 0xD9, 0xDB, 0xE8, 0xEA, 0xEB, 0xEC, 0xED,
        0xFB, 0xFC, 0xFD, 0xF6, 0xF7,
    ]

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard !tags.isEmpty else { throw CommandError(.invalidArgument, "GetInfo needs at least one tag") }
        return tags
    }

    package init(payload: [UInt8]) throws(CommandError) {
        guard !payload.isEmpty else { throw CommandError(.truncated, "GetInfo request has no tag") }
        tags = payload
    }
}

/// A four-byte version printed "a.b.c.d" in decimal, bytes 128…255 as positive (spec §4 "Versions").
package struct FirmwareVersion: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    package var parts: [UInt8]

    package init(_ parts: [UInt8]) { self.parts = parts }

    /// Parses "6.0.0.54".
    package init?(_ text: String) {
        let fields = text.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 4 else { return nil }
        var parts: [UInt8] = []
        for f in fields {
            guard let v = UInt8(f) else { return nil }
            parts.append(v)
        }
        self.parts = parts
    }

    package var description: String { parts.map(String.init).joinedWithoutLookup(separator: ".") }

    package static func < (lhs: FirmwareVersion, rhs: FirmwareVersion) -> Bool {
        lhs.parts.lexicographicallyPrecedes(rhs.parts)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let v = FirmwareVersion(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a.b.c.d: \(text)"))
        }
        self = v
    }
}

/// The GetInfo response, with every §7.1 tag the terminal returned decoded into a field, and the raw TLVs kept.
package struct DeviceInfo: RPCResponse, Hashable {
    package var tlvs: [TLV]

    package init(tlvs: [TLV]) { self.tlvs = tlvs }

    package init(status: Status, data: [UInt8]) throws(CommandError) {
        tlvs = try TLVParser.parseCommandData(data, "GetInfo response")
    }

    package func encodeData() -> [UInt8] { tlvs.encoded }

    private func top(_ tag: UInt32) -> [UInt8]? { tlvs.first { $0.tag == Tag(tag) }?.value }

    private func version(_ tag: UInt32) -> FirmwareVersion? {
        guard let v = top(tag), v.count >= 4 else { return nil }
        return FirmwareVersion(Array(v.prefix(4)))
    }

    /// C3: 5-byte big-endian integer divided by 4, in decimal (spec §4 "Serial number").
    package var serialNumber: String? {
        guard let v = top(0xC3), v.count == 5 else { return nil }
        let n = v.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(n / 4)
    }

    /// C2: 15 ASCII bytes, spaces removed.
    package var partNumber: String? {
        guard let v = top(0xC2) else { return nil }
        return String(decoding: v.filter { $0 != 0x20 && $0 != 0x00 }, as: UTF8.self)
    }

    package var atmelSerial: String? { top(0xC1).map { Hex.encode($0) } }
    /// C4 (PROJECT CHOICE values, spec §7.2).
    package var state: TerminalState? { top(0xC4).flatMap { $0.count == 1 ? TerminalState(rawValue: $0[0]) : nil } }
    /// C5 battery percent (PROJECT CHOICE, spec §7.1).
    package var batteryPercent: Int? { top(0xC5).flatMap { $0.count == 1 ? Int($0[0]) : nil } }
    /// C6 power-off timeout in seconds (0 = never).
    package var powerOffTimeout: Int? { top(0xC6).flatMap { $0.count == 1 ? Int($0[0]) : nil } }
    /// FB charging status (IS:DeviceInfoTableViewController).
    package var charging: ChargingStatus? {
        top(0xFB).flatMap { $0.count == 1 ? ChargingStatus(rawValue: $0[0]) : nil }
    }
    /// FC BLE speed mode: 0 slow, 1 quick.
    package var speedMode: SpeedMode? { top(0xFC).flatMap { $0.count == 1 ? SpeedMode(rawValue: $0[0]) : nil } }
    /// ED mPOS (NFC) module state: 0 none, 1–2 not ready, 3 ready (A-Pay:PaymentHelper).
    package var nfcModuleState: Int? { top(0xED).flatMap { $0.count == 1 ? Int($0[0]) : nil } }

    package var firmwareVersion: FirmwareVersion? { version(0xD1) }
    package var pciPEDVersion: FirmwareVersion? { version(0xD3) }
    package var emvL1Version: FirmwareVersion? { version(0xD5) }
    package var emvL2Version: FirmwareVersion? { version(0xD7) }
    package var bootLoaderVersion: FirmwareVersion? { version(0xD9) }
    package var emvICCConfigVersion: FirmwareVersion? { version(0xEA) }
    package var emvNFCConfigVersion: FirmwareVersion? { version(0xEB) }
    package var osVersion: FirmwareVersion? { version(0xEC) }
    package var nonSecureFirmwareVersion: FirmwareVersion? { version(0xFD) }
    /// E8 → D1: the NFC (ST) firmware version.
    package var nfcFirmwareVersion: FirmwareVersion? {
        guard let e8 = tlvs.first(where: { $0.tag == Tag(0xE8) }), let d1 = e8.first(Tag(0xD1)), d1.value.count >= 4
        else { return nil }
        return FirmwareVersion(Array(d1.value.prefix(4)))
    }
    /// DB key serial list id, with the known names of spec §7.1.
    package var kslID: String? { top(0xDB).map { Hex.encode($0) } }

    /// F6: supported locales, "en\0fr\0" (PROJECT CHOICE, spec §5.2 "Locale commands").
    package var supportedLocales: [String]? {
        guard let v = top(0xF6) else { return nil }
        return v.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// F7: current merchant locale (PROJECT CHOICE, spec §5.2).
    package var locale: String? {
        guard let v = top(0xF7) else { return nil }
        return String(decoding: v.filter { $0 != 0 }, as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey {
        case serialNumber, partNumber, atmelSerial, state, batteryPercent, charging, speedMode, powerOffTimeout
        case firmwareVersion, nfcFirmwareVersion, emvICCConfigVersion, emvNFCConfigVersion, emvL1Version, emvL2Version
        case pciPEDVersion, bootLoaderVersion, osVersion, nonSecureFirmwareVersion, nfcModuleState, kslID, locale
        case supportedLocales, tlv
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(serialNumber, forKey: .serialNumber)
        try c.encodeIfPresent(partNumber, forKey: .partNumber)
        try c.encodeIfPresent(atmelSerial, forKey: .atmelSerial)
        try c.encodeIfPresent(state?.description, forKey: .state)
        try c.encodeIfPresent(batteryPercent, forKey: .batteryPercent)
        try c.encodeIfPresent(charging?.description, forKey: .charging)
        try c.encodeIfPresent(speedMode?.description, forKey: .speedMode)
        try c.encodeIfPresent(powerOffTimeout, forKey: .powerOffTimeout)
        try c.encodeIfPresent(firmwareVersion, forKey: .firmwareVersion)
        try c.encodeIfPresent(nfcFirmwareVersion, forKey: .nfcFirmwareVersion)
        try c.encodeIfPresent(emvICCConfigVersion, forKey: .emvICCConfigVersion)
        try c.encodeIfPresent(emvNFCConfigVersion, forKey: .emvNFCConfigVersion)
        try c.encodeIfPresent(emvL1Version, forKey: .emvL1Version)
        try c.encodeIfPresent(emvL2Version, forKey: .emvL2Version)
        try c.encodeIfPresent(pciPEDVersion, forKey: .pciPEDVersion)
        try c.encodeIfPresent(bootLoaderVersion, forKey: .bootLoaderVersion)
        try c.encodeIfPresent(osVersion, forKey: .osVersion)
        try c.encodeIfPresent(nonSecureFirmwareVersion, forKey: .nonSecureFirmwareVersion)
        try c.encodeIfPresent(nfcModuleState, forKey: .nfcModuleState)
        try c.encodeIfPresent(kslID, forKey: .kslID)
        try c.encodeIfPresent(locale, forKey: .locale)
        try c.encodeIfPresent(supportedLocales, forKey: .supportedLocales)
        // Card data astray in an answer (a 5A, 57 or 56) is given masked, as `decode` shows it, never as hex.
        let values = tlvs.map { tlv in
            (
                tlv.tag.description,
                TagValueFormatter.mayShowHex(tlv, context: .getInfo)
                    ? Hex.encode(tlv.value) : TagValueFormatter.render(tlv, context: .getInfo)
            )
        }
        try c.encode(Dictionary(values, uniquingKeysWith: { a, _ in a }), forKey: .tlv)
    }
}

/// FB charging status (IS:DeviceInfoTableViewController).
package enum ChargingStatus: UInt8, Sendable, CustomStringConvertible {
    case notCharging = 0x00, charging = 0x01, fullOnUSB = 0x03
    package var description: String {
        switch self {
        case .notCharging: "not charging"
        case .charging: "charging"
        case .fullOnUSB: "full (on USB)"
        }
    }
}

/// FC BLE speed mode (AR-README §9).
package enum SpeedMode: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case slow = 0, quick = 1
    package var description: String { self == .slow ? "slow" : "quick" }
}
