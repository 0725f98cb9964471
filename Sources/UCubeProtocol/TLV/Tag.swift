/// A BER-TLV tag: 1, 2 or 3 bytes, kept as its big-endian value (9F02 → 0x9F02) (spec §4, EMV Book 3 Annex B).
package struct Tag: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The tag's bytes, minimal big-endian (PROJECT CHOICE for multi-byte tags in request lists, spec §4).
    package var bytes: [UInt8] {
        if rawValue > 0xFFFF { return [UInt8(rawValue >> 16), UInt8((rawValue >> 8) & 0xFF), UInt8(rawValue & 0xFF)] }
        if rawValue > 0xFF { return [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] }
        return [UInt8(rawValue)]
    }

    /// Tag from its bytes (1–3).
    package init?(bytes: [UInt8]) {
        guard (1...3).contains(bytes.count) else { return nil }
        self.rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Parses "9F02", "0x9F02" or a dictionary name ("amountAuthorised", case-insensitive).
    package init?(_ text: String) {
        var s = Substring(text)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        if (2...6).contains(s.count), s.count % 2 == 0, let v = UInt32(s, radix: 16) {
            self.rawValue = v
            return
        }
        if let entry = TagDictionary.entry(named: text) {
            self = entry.tag
            return
        }
        return nil
    }

    private var firstByte: UInt8 { bytes[0] }

    /// Bit 6 of the first byte (EMV Book 3 Annex B1).
    package var isConstructed: Bool { firstByte & 0x20 != 0 }

    /// Class from bits 8–7 of the first byte.
    package var tagClass: TagClass { TagClass(rawValue: firstByte >> 6)! }

    package static func < (lhs: Tag, rhs: Tag) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String { Hex.encode(bytes) }
}

/// BER tag class.
package enum TagClass: UInt8, Sendable {
    case universal = 0, application = 1, contextSpecific = 2, `private` = 3
}
