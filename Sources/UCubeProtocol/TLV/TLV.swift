/// One BER-TLV data object: a tag, its value and, for a constructed tag whose value parses, its children.
///
/// Every node keeps `encoded` (tag ‖ length ‖ value as received) so traces can show exactly what arrived.
package struct TLV: Hashable, Sendable, CustomStringConvertible {
    package var tag: Tag
    package var value: [UInt8]
    /// Children of a constructed tag whose value parsed as TLV; `nil` for primitive or opaque values.
    package var children: [TLV]?

    package init(_ tag: Tag, _ value: [UInt8]) {
        self.tag = tag
        self.value = value
        self.children = nil
    }

    /// A constructed object from children; the value is their encoding.
    package init(_ tag: Tag, children: [TLV]) {
        self.tag = tag
        self.children = children
        self.value = children.flatMap { $0.encoded }
    }

    init(tag: Tag, value: [UInt8], children: [TLV]?) {
        self.tag = tag
        self.value = value
        self.children = children
    }

    /// Tag ‖ BER length ‖ value, with correct short form below 0x80 (not the SDK's `< 0x7F`, spec §4).
    package var encoded: [UInt8] { tag.bytes + TLVLength.encode(value.count) + value }

    /// The first child with `tag`, searching depth-first.
    package func first(_ tag: Tag) -> TLV? { children?.first(tag) }

    package var description: String { "\(tag)=\(Hex.encode(value))" }

    /// Two objects are equal when tag and value are: `children` is only a parsed view of the value.
    package static func == (lhs: TLV, rhs: TLV) -> Bool { lhs.tag == rhs.tag && lhs.value == rhs.value }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(tag)
        hasher.combine(value)
    }
}

/// BER length encoding (spec §4): short form below 0x80, then 0x81 LL, 0x82 LL LL.
package enum TLVLength {
    package static func encode(_ length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= 0xFFFF, "a TLV value in a 2068-byte frame is never longer than 0xFFFF")
        if length < 0x80 { return [UInt8(length)] }
        if length <= 0xFF { return [0x81, UInt8(length)] }
        return [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
    }
}

extension Array where Element == TLV {
    /// The first object with `tag`, depth-first through constructed objects.
    package func first(_ tag: Tag) -> TLV? {
        for node in self {
            if node.tag == tag { return node }
            if let hit = node.children?.first(tag) { return hit }
        }
        return nil
    }

    /// The value of the first object with `tag` (depth-first).
    package subscript(tag: Tag) -> [UInt8]? { first(tag)?.value }

    /// The concatenated encodings.
    package var encoded: [UInt8] { flatMap { $0.encoded } }
}

/// How lenient the parser is. One parser, one rules value (style of swift-asn1's `EncodingRules`).
package struct TLVRules: Sendable, Hashable {
    /// Tags whose one-byte length may be "YT style" with the top bit set (0x8C = 140), unless 0x81/0x82 (spec §4, E8).
    package var ytMixedLengthTags: [Tag]
    /// Skip 0x00 (and 0xFF) bytes between objects (EMV Book 3 Annex B allows 00 padding).
    package var allowsPadding: Bool
    /// Keep a constructed tag whose value does not parse as TLV as an opaque value instead of failing.
    package var allowsOpaqueConstructed: Bool
    /// Deepest nesting accepted.
    package var maxDepth: Int

    package init(ytMixedLengthTags: [Tag], allowsPadding: Bool, allowsOpaqueConstructed: Bool, maxDepth: Int) {
        self.ytMixedLengthTags = ytMixedLengthTags
        self.allowsPadding = allowsPadding
        self.allowsOpaqueConstructed = allowsOpaqueConstructed
        self.maxDepth = maxDepth
    }

    /// For what we encode and for tests: standard BER, no quirks.
    package static let strict = TLVRules(
        ytMixedLengthTags: [], allowsPadding: false, allowsOpaqueConstructed: false, maxDepth: 8)
    /// For what a terminal sends: the E8 length quirk, 00 padding, opaque proprietary constructed values.
    package static let terminal = TLVRules(
        ytMixedLengthTags: [Tag(0xE8)], allowsPadding: true, allowsOpaqueConstructed: true, maxDepth: 8)
}

/// Why bytes were not a TLV list. `code` is stable; `reason` says where.
package struct TLVError: CodedError {
    package enum Code: String, Sendable, Hashable {
        /// The input ended inside a tag.
        case truncatedTag
        /// A tag longer than 3 bytes.
        case tagTooLong
        /// The input ended inside a length field.
        case truncatedLength
        /// A length form this parser does not accept (0x80 indefinite, or more than two length bytes).
        case unsupportedLength
        /// The announced length runs past the end of the input.
        case truncatedValue
        /// Constructed objects nest deeper than the rules allow.
        case tooDeep
    }

    package let code: Code
    package let reason: String
    /// Offset in the input where the problem was found.
    package let offset: Int

    package init(_ code: Code, _ reason: String, offset: Int) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    package var description: String { "\(reason) at byte \(offset)" }
}

/// BER-TLV parser (spec §4; EMV Book 3 Annex B). Bounded: tags ≤ 3 bytes, lengths ≤ 2 bytes, depth ≤ `maxDepth`.
package enum TLVParser {
    /// Parses a concatenation of TLV objects.
    package static func parse(_ bytes: [UInt8], rules: TLVRules = .terminal) throws(TLVError) -> [TLV] {
        try parse(bytes[...], rules: rules, depth: 0, base: 0)
    }

    package static func parse(_ bytes: ArraySlice<UInt8>, rules: TLVRules = .terminal) throws(TLVError) -> [TLV] {
        try parse(bytes, rules: rules, depth: 0, base: 0)
    }

    private static func parse(_ input: ArraySlice<UInt8>, rules: TLVRules, depth: Int, base: Int) throws(TLVError)
        -> [TLV]
    {
        guard depth <= rules.maxDepth else {
            throw TLVError(.tooDeep, "constructed objects nest deeper than \(rules.maxDepth)", offset: base)
        }
        var out: [TLV] = []
        var i = input.startIndex
        let end = input.endIndex
        func offset(_ idx: Int) -> Int { base + idx - input.startIndex }
        while i < end {
            if rules.allowsPadding && (input[i] == 0x00 || input[i] == 0xFF) {
                i += 1
                continue
            }
            // Tag (EMV Book 3 B1): subsequent bytes follow when the low five bits are all ones; each subsequent byte
            // with bit 8 set announces another.
            let tagStart = i
            var tagValue = UInt32(input[i])
            i += 1
            if input[tagStart] & 0x1F == 0x1F {
                while true {
                    guard i < end else {
                        throw TLVError(.truncatedTag, "input ends inside a tag", offset: offset(tagStart))
                    }
                    guard i - tagStart < 3 else {
                        throw TLVError(.tagTooLong, "tag longer than 3 bytes", offset: offset(tagStart))
                    }
                    let b = input[i]
                    tagValue = tagValue << 8 | UInt32(b)
                    i += 1
                    if b & 0x80 == 0 { break }
                }
            }
            let tag = Tag(tagValue)
            // Length (spec §4).
            guard i < end else {
                throw TLVError(.truncatedLength, "input ends before the length of \(tag)", offset: offset(i))
            }
            let first = input[i]
            i += 1
            var length: Int
            if first & 0x80 == 0 {
                length = Int(first)
            } else if first == 0x81 || first == 0x82 {
                let count = Int(first & 0x7F)
                guard end - i >= count else {
                    throw TLVError(.truncatedLength, "input ends inside the length of \(tag)", offset: offset(i - 1))
                }
                length = 0
                for _ in 0..<count {
                    length = length << 8 | Int(input[i])
                    i += 1
                }
            } else if rules.ytMixedLengthTags.contains(tag) {
                length = Int(first)  // "YT style": 0x8C means 140 bytes.
            } else {
                throw TLVError(
                    .unsupportedLength, "length byte 0x\(Hex.encode([first])) of \(tag) is not supported",
                    offset: offset(i - 1))
            }
            guard end - i >= length else {
                throw TLVError(
                    .truncatedValue, "\(tag) announces \(length) bytes but \(end - i) remain", offset: offset(tagStart))
            }
            let valueSlice = input[i..<(i + length)]
            var children: [TLV]? = nil
            if tag.isConstructed && !valueSlice.isEmpty {
                do {
                    children = try parse(valueSlice, rules: rules, depth: depth + 1, base: offset(i))
                } catch {
                    if !rules.allowsOpaqueConstructed || error.code == .tooDeep { throw error }
                    children = nil
                }
            }
            out.append(TLV(tag: tag, value: Array(valueSlice), children: children))
            i += length
        }
        return out
    }
}
