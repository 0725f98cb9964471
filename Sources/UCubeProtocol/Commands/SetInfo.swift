/// 0x5002 SetInfoProd: factory-only production information (MP-README); payload layout not in sources.
package struct SetInfoProd: OpaqueCommand {
    package typealias Response = EmptyResponse
    package static let id = CommandID.setInfoProd
    package var payload: [UInt8]
    package init(payload: [UInt8]) { self.payload = payload }
}

/// 0x5003 SetInfoField: sets terminal fields given as a TLV list (spec §5.2). Response: no data.
package struct SetInfoField: RPCCommand, Hashable {
    package typealias Response = EmptyResponse
    package static let id = CommandID.setInfoField

    /// C6 power-off timeout (spec §5.2, §7.1).
    package static let powerOffTimeoutTag = Tag(0xC6)
    /// FC BLE speed mode (tag inferred from `TAG_FC_SPEED_MODE`, spec §5.2).
    package static let speedModeTag = Tag(0xFC)
    /// F7 merchant locale (PROJECT CHOICE, spec §5.2 "Locale commands").
    package static let localeTag = Tag(0xF7)

    /// Tag and value of each field (children of constructed tags are not kept; the value holds their encoding).
    package var fields: [TLV]

    package init(fields: [TLV]) { self.fields = fields.map(\.withoutChildren) }

    /// C6 01 tt. The SDK's clamp (spec §5.2): 0 = never, 1…31 → 32, over 255 → 255. Negative is refused.
    package static func powerOffTimeout(_ seconds: Int) throws(CommandError) -> SetInfoField {
        guard seconds >= 0 else {
            throw CommandError(
                .invalidArgument,
                "power-off timeout must be 0 (never) or 32…255 seconds, got \(seconds)"
            )
        }
        let clamped = seconds == 0 ? 0 : min(max(seconds, 32), 255)
        return SetInfoField(fields: [TLV(powerOffTimeoutTag, [UInt8(clamped)])])
    }

    /// FC 01 mm: 0 slow, 1 quick.
    package static func speedMode(_ mode: SpeedMode) -> SetInfoField {
        SetInfoField(fields: [TLV(speedModeTag, [mode.rawValue])])
    }

    /// F7 LL locale, ASCII (PROJECT CHOICE, spec §5.2): "en", "fr", "en-US"; letters, digits, '-' and '_', 2…16.
    package static func locale(_ code: String) throws(CommandError) -> SetInfoField {
        let allowed = code.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
        guard allowed, (2...16).contains(code.unicodeScalars.count) else {
            throw CommandError(
                .invalidArgument,
                "locale must be 2…16 ASCII letters, digits, '-' or '_' (e.g. \"en\"), got \"\(code)\""
            )
        }
        return SetInfoField(fields: [TLV(localeTag, Array(code.utf8))])
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard !fields.isEmpty else { throw CommandError(.invalidArgument, "SetInfoField needs at least one field") }
        var writer = TLVWriter("SetInfoField")
        for field in fields { try writer.append(field) }
        return try writer.payload()
    }

    package init(payload: [UInt8]) throws(CommandError) {
        fields = try TLVParser.parseCommandData(payload, "SetInfoField request").map(\.withoutChildren)
        guard !fields.isEmpty else { throw CommandError(.truncated, "SetInfoField request has no field") }
    }

    private enum CodingKeys: String, CodingKey { case fields }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeTLVs(fields, forKey: .fields, context: .getInfo)
    }
}
