/// Commands whose payload is a bare list of tag ids (spec §5.2 0x5025, 0x5026).
public protocol TagListCommand: RPCCommand, Hashable {
    var tags: [Tag] { get }
    init(tags: [Tag])
}

extension TagListCommand {
    public func encodePayload() throws(CommandError) -> [UInt8] {
        let name = Self.descriptor.name
        guard !tags.isEmpty else { throw CommandError(.invalidArgument, "\(name) needs at least one tag") }
        return try PayloadLimits.checked(try TagList.encode(tags, field: name), name)
    }

    public init(payload: [UInt8]) throws(CommandError) {
        let name = Self.descriptor.name
        guard !payload.isEmpty else { throw CommandError(.truncated, "\(name) request has no tag") }
        self.init(tags: try TagList.parse(payload, what: "\(name) request"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TagListCodingKeys.self)
        try container.encodeTags(tags, forKey: .tags)
    }
}

enum TagListCodingKeys: String, CodingKey { case tags }

/// 0x5025 GetSecuredTagValue: SRED tags (56, 57, 5A, 5F20, 5F24, 5F30, 9F0B, 9F6B, DF62, DF5A) as an encrypted blob
/// the driver passes on untouched (spec §5.2).
public struct GetSecuredTag: TagListCommand {
    public typealias Response = SecuredTagResponse
    public static let id = CommandID.getSecuredTag

    public var tags: [Tag]

    public init(tags: [Tag]) { self.tags = tags }
}

/// 0x5026 GetPlainTagValue: plain payment tags as TLVs (spec §5.2). The old SDK always prepended DF60 (MSR action);
/// here the caller chooses the list.
public struct GetPlainTag: TagListCommand {
    public typealias Response = TLVResponse
    public static let id = CommandID.getPlainTag

    public var tags: [Tag]

    public init(tags: [Tag]) { self.tags = tags }
}
