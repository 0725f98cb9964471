/// Commands whose payload is a bare list of tag ids (spec §5.2 0x5025, 0x5026).
package protocol TagListCommand: RPCCommand, Hashable {
    var tags: [Tag] { get }
    init(tags: [Tag])
}

extension TagListCommand {
    package func encodePayload() throws(CommandError) -> [UInt8] {
        let name = Self.descriptor.name
        guard !tags.isEmpty else { throw CommandError(.invalidArgument, "\(name) needs at least one tag") }
        return try PayloadLimits.checked(try TagList.encode(tags, field: name), name)
    }

    package init(payload: [UInt8]) throws(CommandError) {
        let name = Self.descriptor.name
        guard !payload.isEmpty else { throw CommandError(.truncated, "\(name) request has no tag") }
        self.init(tags: try TagList.parse(payload, what: "\(name) request"))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TagListCodingKeys.self)
        try container.encodeTags(tags, forKey: .tags)
    }
}

enum TagListCodingKeys: String, CodingKey { case tags }

/// 0x5025 GetSecuredTagValue: SRED tags (56, 57, 5A, 5F20, 5F24, 5F30, 9F0B, 9F6B, DF62, DF5A) as an encrypted blob
/// the driver passes on untouched (spec §5.2).
package struct GetSecuredTag: TagListCommand {
    package typealias Response = SecuredTagResponse
    package static let id = CommandID.getSecuredTag

    package var tags: [Tag]

    package init(tags: [Tag]) { self.tags = tags }
}

/// 0x5026 GetPlainTagValue: plain payment tags as TLVs (spec §5.2). The old SDK always prepended DF60 (MSR action);
/// here the caller chooses the list.
package struct GetPlainTag: TagListCommand {
    package typealias Response = TLVResponse
    package static let id = CommandID.getPlainTag

    package var tags: [Tag]

    package init(tags: [Tag]) { self.tags = tags }
}
