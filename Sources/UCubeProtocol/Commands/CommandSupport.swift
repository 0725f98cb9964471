/// Building blocks the command files share: the payload limit, response timeouts, text and tag-list codecs, a TLV
/// writer and reader for requests, and JSON helpers. Each rule lives here once so the command files stay a table of
/// fields.

// MARK: - Limits and timeouts

/// The size limit every request payload is checked against.
package enum PayloadLimits {
    /// The largest payload that still fits a 2068-byte frame once wrapped for SECURED state:
    /// 2068 − 9 (STX, LEN, SEQ, CMD, CRC, ETX) − 1 (crypto header) − 4 (MAC) = 2054 (spec §2.1, §2.2, §2.3).
    package static let maxPayloadSize = FrameLimits.maxBodySize - FrameLimits.cryptoHeaderSize - FrameLimits.macSize

    /// Returns `payload` when it fits in a frame, else throws `.tooLong`.
    static func checked(_ payload: [UInt8], _ command: String) throws(CommandError) -> [UInt8] {
        guard payload.count <= maxPayloadSize else {
            throw CommandError(
                .tooLong,
                "\(command) payload of \(payload.count) bytes exceeds the \(maxPayloadSize)-byte frame limit"
            )
        }
        return payload
    }
}

/// How long the client waits for long-running commands (spec §9: they answer only on an event or their own timeout).
package enum ResponseTimeouts {
    /// Added to the command's own timeout field so the terminal's timeout answer (−2) arrives before ours fires.
    package static let margin: Duration = .seconds(5)
    /// For long-running commands whose payload carries no timeout (opaque layouts, offline PIN inside
    /// TransactionProcess): the SDK's 60 s cardholder default (DisplayListBox, DF34) plus the margin.
    package static let cardholderInteraction: Duration = .seconds(60) + margin

    /// How long the link may stay silent in the middle of a frame, once its first bytes arrived: the terminal is
    /// then answering, and the rest of even the largest frame (2068 bytes, spec §2.2) comes within about 3 s over BLE
    /// at 20-byte notifications (spec §3.1). PROJECT CHOICE: 5 s; a longer silence fails the command at once, where
    /// the command's own timeout (up to 65 s for TransactionProcess) would otherwise hold it.
    package static let frameSilence: Duration = .seconds(5)

    /// The command's own timeout field plus the margin.
    static func after(seconds: some BinaryInteger) -> Duration { .seconds(Int64(seconds)) + margin }
}

/// Checks for values a CLI user types, with messages that say the allowed range.
package enum CommandArguments {
    /// A timeout in whole seconds as carried in a one-byte field (WaitCard, DisplayMessage, DF71, …).
    package static func timeoutSeconds(_ value: Int, field: String = "timeout") throws(CommandError) -> UInt8 {
        guard let byte = UInt8(exactly: value) else {
            throw CommandError(.invalidArgument, "\(field) must be 0…255 seconds, got \(value)")
        }
        return byte
    }
}

// MARK: - Text

/// ISO-8859-1 text (spec §5.2 DisplayMessage: "ISO-8859-1 by default"): one byte per character, U+0000…U+00FF.
enum Latin1 {
    /// The bytes of `text`; throws `.invalidArgument` for a character past U+00FF, a NUL (the wire terminator), or
    /// more than `maxCount` characters.
    static func encode(_ text: String, field: String, maxCount: Int) throws(CommandError) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else {
                throw CommandError(
                    .invalidArgument,
                    "\(field) can only use ISO-8859-1 characters; '\(scalar)' is not one"
                )
            }
            guard scalar.value != 0 else { throw CommandError(.invalidArgument, "\(field) must not contain NUL") }
            out.append(UInt8(scalar.value))
        }
        guard out.count <= maxCount else {
            throw CommandError(.invalidArgument, "\(field) is \(out.count) characters; at most \(maxCount) allowed")
        }
        return out
    }

    /// Text from ISO-8859-1 bytes; every byte maps to one character, so decoding never fails.
    static func decode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var text = ""
        for byte in bytes { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        return text
    }
}

/// 7-bit ASCII text (DisplayListBox items, spec §5.2: "items, each ASCII").
enum ASCII {
    /// The bytes of `text`; throws `.invalidArgument` for anything outside printable ASCII (0x20…0x7E).
    static func encodePrintable(_ text: String, field: String) throws(CommandError) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard (0x20...0x7E).contains(scalar.value) else {
                throw CommandError(.invalidArgument, "\(field) can only use printable ASCII; '\(scalar)' is not")
            }
            out.append(UInt8(scalar.value))
        }
        return out
    }
}

/// A counted, NUL-terminated string: `length ‖ text ‖ 00`, where length counts the terminator (spec §5.2
/// DisplayMessage "text length +1 (includes the terminating 0x00)"; SimplifiedOnlinePIN amount and currency label).
enum CountedText {
    /// Longest text that fits: the length byte counts the terminator, so 254.
    static let maxTextCount = 254

    static func append(_ text: [UInt8], to out: inout [UInt8]) {
        precondition(text.count <= maxTextCount, "callers check text lengths first")
        out.append(UInt8(text.count + 1))
        out.append(contentsOf: text)
        out.append(0x00)
    }

    /// Reads `length ‖ text ‖ 00` and returns the text bytes.
    static func read(_ reader: inout ByteReader, _ field: String) throws(CommandError) -> [UInt8] {
        let length = Int(try reader.u8("\(field) length"))
        guard length >= 1 else {
            throw CommandError(.malformed, "\(field) length is 0; it must count the terminating 0x00")
        }
        let text = try reader.take(length - 1, field)
        guard try reader.u8("\(field) terminator") == 0x00 else {
            throw CommandError(.malformed, "\(field) is not terminated by 0x00")
        }
        return text
    }
}

// MARK: - Tag lists

/// Requested-tag lists: tag ids written back to back (spec §4; multi-byte tags big-endian, minimal bytes — PROJECT
/// CHOICE, spec §4 — which is also their BER form, so the list reads back with the BER tag rule).
enum TagList {
    /// The concatenated tag bytes. Throws `.invalidArgument` for a tag that would not read back as itself (e.g. 0x1F,
    /// whose low bits announce a second byte).
    static func encode(_ tags: [Tag], field: String) throws(CommandError) -> [UInt8] {
        var out: [UInt8] = []
        for tag in tags {
            let bytes = tag.bytes
            guard let (read, used) = readTag(bytes[...]), read == tag, used == bytes.count else {
                throw CommandError(.invalidArgument, "\(field): \(tag) is not a valid BER tag")
            }
            out.append(contentsOf: bytes)
        }
        return out
    }

    /// Tags from concatenated ids (EMV Book 3 Annex B1 tag rule, at most 3 bytes each).
    static func parse(_ bytes: [UInt8], what: String) throws(CommandError) -> [Tag] {
        var tags: [Tag] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            guard let (tag, used) = readTag(rest) else {
                throw CommandError(.malformed, "\(what): bad tag id at byte \(rest.startIndex - bytes.startIndex)")
            }
            tags.append(tag)
            rest = rest.dropFirst(used)
        }
        return tags
    }

    /// One BER tag from the front of `bytes`: the tag and how many bytes it used; `nil` when cut short or too long.
    private static func readTag(_ bytes: ArraySlice<UInt8>) -> (Tag, Int)? {
        guard let first = bytes.first else { return nil }
        var value = UInt32(first)
        var used = 1
        if first & 0x1F == 0x1F {
            while true {
                guard used < 3, bytes.count > used else { return nil }
                let byte = bytes[bytes.startIndex + used]
                value = value << 8 | UInt32(byte)
                used += 1
                if byte & 0x80 == 0 { break }
            }
        }
        return (Tag(value), used)
    }
}

// MARK: - TLV requests

/// Well-known tag values used by the payment commands (EMV Book 3 Annex A; proprietary tags spec §7.8).
enum PaymentTag {
    static let requestedTags = Tag(0xC1)
}

extension TLV {
    /// Tag and value only. Request fields given as `[TLV]` are kept this way so a request reads back equal to what
    /// was encoded: the parser fills `children` for any tag with the constructed bit (every DFxx tag has it) whose
    /// value happens to parse, while a `TLV(tag, value)` built by a caller has none.
    var withoutChildren: TLV { TLV(tag, value) }
}

/// Appends TLVs to a request payload, refusing values that could not fit in a frame (so `TLVLength.encode`'s
/// precondition is never reached from user input).
struct TLVWriter {
    private(set) var bytes: [UInt8] = []
    let command: String

    init(_ command: String) { self.command = command }

    mutating func append(_ tag: UInt32, _ value: [UInt8]) throws(CommandError) {
        try append(TLV(Tag(tag), value))
    }

    mutating func append(_ tlv: TLV) throws(CommandError) {
        guard tlv.value.count <= PayloadLimits.maxPayloadSize else {
            throw CommandError(
                .tooLong,
                "\(command): \(tlv.tag) value of \(tlv.value.count) bytes cannot fit in a frame"
            )
        }
        _ = try TagList.encode([tlv.tag], field: command)
        bytes += tlv.encoded
        guard bytes.count <= PayloadLimits.maxPayloadSize else {
            throw CommandError(
                .tooLong,
                "\(command) payload exceeds the \(PayloadLimits.maxPayloadSize)-byte frame limit"
            )
        }
    }

    /// `C1 LL` + tag ids (spec §4 "Requested-tag lists"); nothing when the list is empty.
    mutating func appendRequestedTags(_ tags: [Tag]) throws(CommandError) {
        guard !tags.isEmpty else { return }
        try append(TLV(PaymentTag.requestedTags, try TagList.encode(tags, field: "\(command) requested tags")))
    }

    func payload() throws(CommandError) -> [UInt8] { try PayloadLimits.checked(bytes, command) }
}

/// Reads the fields of a TLV request payload by tag. The first occurrence of a tag wins; unknown tags are left for
/// the caller (`unknown(excluding:)`).
struct TLVFields {
    let tlvs: [TLV]
    let what: String

    init(_ payload: [UInt8], _ what: String) throws(CommandError) {
        self.what = what
        self.tlvs = try TLVParser.parseCommandData(payload, what)
    }

    init(tlvs: [TLV], _ what: String) {
        self.tlvs = tlvs
        self.what = what
    }

    func value(_ tag: UInt32) -> [UInt8]? { tlvs.first { $0.tag == Tag(tag) }?.value }

    /// The value of `tag`, which must be `count` bytes when present.
    func optional(_ tag: UInt32, _ name: String, count: Int) throws(CommandError) -> [UInt8]? {
        guard let value = value(tag) else { return nil }
        guard value.count == count else {
            throw CommandError(.malformed, "\(what): \(name) (\(Tag(tag))) must be \(count) bytes, got \(value.count)")
        }
        return value
    }

    func required(_ tag: UInt32, _ name: String, count: Int) throws(CommandError) -> [UInt8] {
        guard let value = try optional(tag, name, count: count) else { throw missing(tag, name) }
        return value
    }

    func requiredAny(_ tag: UInt32, _ name: String) throws(CommandError) -> [UInt8] {
        guard let value = value(tag) else { throw missing(tag, name) }
        return value
    }

    func optionalByte(_ tag: UInt32, _ name: String) throws(CommandError) -> UInt8? {
        try optional(tag, name, count: 1)?[0]
    }

    func optionalBool(_ tag: UInt32, _ name: String) throws(CommandError) -> Bool? {
        guard let byte = try optionalByte(tag, name) else { return nil }
        guard byte <= 1 else {
            throw CommandError(.malformed, "\(what): \(name) (\(Tag(tag))) must be 00 or 01, got \(Hex.encode([byte]))")
        }
        return byte == 1
    }

    /// A BCD number of `count` bytes (amounts, currency codes).
    func optionalBCD(_ tag: UInt32, _ name: String, count: Int) throws(CommandError) -> UInt64? {
        guard let value = try optional(tag, name, count: count) else { return nil }
        guard let number = BCD.decode(value) else {
            throw CommandError(.malformed, "\(what): \(name) (\(Tag(tag))) is not BCD: \(Hex.encode(value))")
        }
        return number
    }

    func requiredBCD(_ tag: UInt32, _ name: String, count: Int) throws(CommandError) -> UInt64 {
        guard let value = try optionalBCD(tag, name, count: count) else { throw missing(tag, name) }
        return value
    }

    /// A 4-byte big-endian binary number (floor limits, threshold).
    func optionalUInt32(_ tag: UInt32, _ name: String) throws(CommandError) -> UInt32? {
        try optional(tag, name, count: 4).map { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }

    /// The C1 requested-tag list, empty when absent.
    func requestedTags() throws(CommandError) -> [Tag] {
        guard let value = value(PaymentTag.requestedTags.rawValue) else { return [] }
        return try TagList.parse(value, what: "\(what) requested tags")
    }

    /// The objects whose tag is not in `known`, in order.
    func unknown(excluding known: Set<UInt32>) -> [TLV] { tlvs.filter { !known.contains($0.tag.rawValue) } }

    private func missing(_ tag: UInt32, _ name: String) -> CommandError {
        CommandError(.malformed, "\(what): \(name) (\(Tag(tag))) is missing")
    }
}

/// Field checks shared by the payment encoders.
enum FieldCheck {
    /// A BCD field of `count` bytes supplied as raw bytes (9A date, 9F21 time, 9F15 MCC, 9F41, 9F09).
    static func bcd(_ bytes: [UInt8], count: Int, _ field: String) throws(CommandError) -> [UInt8] {
        guard bytes.count == count, BCD.isValid(bytes) else {
            throw CommandError(.invalidArgument, "\(field) must be \(count) BCD bytes, got \(Hex.encode(bytes))")
        }
        return bytes
    }

    static func exact(_ bytes: [UInt8], count: Int, _ field: String) throws(CommandError) -> [UInt8] {
        guard bytes.count == count else {
            throw CommandError(.invalidArgument, "\(field) must be \(count) bytes, got \(bytes.count)")
        }
        return bytes
    }

    /// An amount in minor units as 6-byte BCD (spec §4; at most 12 digits).
    static func amount(_ value: UInt64, _ field: String) throws(CommandError) -> [UInt8] {
        guard let bytes = BCD.encode(value, byteCount: 6) else {
            throw CommandError(.invalidArgument, "\(field) must be at most 999999999999 minor units, got \(value)")
        }
        return bytes
    }

    /// A numeric ISO 4217 code as 2-byte BCD (978 → 09 78, spec §4).
    static func currency(_ code: UInt16) throws(CommandError) -> [UInt8] {
        guard let bytes = BCD.encode(UInt64(code), byteCount: 2), code <= 999 else {
            throw CommandError(.invalidArgument, "currency code must be a numeric ISO 4217 code 0…999, got \(code)")
        }
        return bytes
    }

    static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

// MARK: - JSON

/// One TLV as JSON: tag, dictionary name when known, the value as hex, the value as `TagValueFormatter` renders it,
/// and the children of a parsed constructed object. For a tag the dictionary marks as cardholder data the hex is left
/// out and the text is the formatter's masked form (docs/architecture.md "Nothing sensitive leaks").
struct TLVJSON: Encodable {
    let tag: String
    let name: String?
    let value: String?
    let text: String
    let children: [TLVJSON]?

    init(_ tlv: TLV, context: TagContext) {
        let info = TagDictionary.info(for: tlv.tag, context: context)
        tag = tlv.tag.description
        name = info?.name
        value = TagValueFormatter.mayShowHex(tlv, context: context) ? Hex.encode(tlv.value) : nil
        text = TagValueFormatter.render(tlv, context: context)
        let inner = TagDictionary.context(inside: tlv.tag, of: context)
        children = tlv.children?.map { TLVJSON($0, context: inner) }
    }
}

extension KeyedEncodingContainer {
    mutating func encodeHex(_ bytes: [UInt8], forKey key: Key) throws {
        try encode(Hex.encode(bytes), forKey: key)
    }

    mutating func encodeHexIfPresent(_ bytes: [UInt8]?, forKey key: Key) throws {
        try encodeIfPresent(bytes.map { Hex.encode($0) }, forKey: key)
    }

    mutating func encodeTags(_ tags: [Tag], forKey key: Key) throws {
        try encode(tags.map(\.description), forKey: key)
    }

    mutating func encodeTLVs(_ tlvs: [TLV], forKey key: Key, context: TagContext = .payment) throws {
        try encode(tlvs.map { TLVJSON($0, context: context) }, forKey: key)
    }
}
