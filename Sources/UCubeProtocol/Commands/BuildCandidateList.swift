/// 0x5510 BuildCandidateList: lists the applications the card and terminal share (spec §5.2). Status −300 = no
/// common application.
///
/// Request: empty (the 2020 SDK: legacy output), or the current SDK's `C2 02 00 01` (full TLV output), which libApp
/// 1.3.8.19 follows with `9C 01 tt` (the transaction type). `C2 01 fmt` (the iOS constants' one-byte form) and
/// `C3 01 n` are read too. The response is read in either layout: the full-TLV one (`C2 02 00 01 C3 01 NN`, then a
/// flat run of items, each candidate opened by `84`) when the data starts with C2 or C3, else the legacy 64-byte
/// blocks.
package struct BuildCandidateList: RPCCommand, Hashable {
    package static let id = CommandID.buildCandidateList

    static let outputFormatTag: UInt32 = 0xC2
    static let maxApplicationsTag: UInt32 = 0xC3

    static let transactionTypeTag: UInt32 = 0x9C

    /// The C2 value that asks for the full TLV output (spec §5.2: `00 01`, "mode 1").
    package static let fullTLVOutput: UInt8 = 0x01

    /// C2: 0x00 legacy output, 0x01 full TLV output. Written `C2 02 00 mm` as the current Android SDK writes it;
    /// read from one byte or two.
    package var outputFormat: UInt8?
    /// C3: the number of applications.
    package var maxApplications: UInt8?
    /// 9C: the transaction type (libApp 1.3.8.19 sends it after C2).
    package var transactionType: UInt8?

    package init(outputFormat: UInt8? = nil, maxApplications: UInt8? = nil, transactionType: UInt8? = nil) {
        self.outputFormat = outputFormat
        self.maxApplications = maxApplications
        self.transactionType = transactionType
    }

    /// What the current SDK sends for a payment (spec §5.2, §8.4): the full TLV output, and the transaction type.
    package static func currentSDK(transactionType: UInt8) -> BuildCandidateList {
        BuildCandidateList(outputFormat: fullTLVOutput, transactionType: transactionType)
    }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        var writer = TLVWriter("BuildCandidateList")
        if let outputFormat { try writer.append(Self.outputFormatTag, [0x00, outputFormat]) }
        if let maxApplications { try writer.append(Self.maxApplicationsTag, [maxApplications]) }
        if let transactionType { try writer.append(Self.transactionTypeTag, [transactionType]) }
        return try writer.payload()
    }

    package init(payload: [UInt8]) throws(CommandError) {
        let fields = try TLVFields(payload, "BuildCandidateList request")
        if let format = fields.value(Self.outputFormatTag) {
            // One byte (iOS constants) or two, `00 mm` (the Android libraries): the mode is the last byte.
            guard format.count == 1 || (format.count == 2 && format[0] == 0) else {
                throw CommandError(
                    .malformed,
                    "BuildCandidateList request: output format (C2) must be `mm` or `00 mm`, got \(Hex.encode(format))")
            }
            outputFormat = format.last
        } else {
            outputFormat = nil
        }
        maxApplications = try fields.optionalByte(Self.maxApplicationsTag, "number of applications")
        transactionType = try fields.optionalByte(Self.transactionTypeTag, "transaction type")
    }

    private enum CodingKeys: String, CodingKey { case outputFormat, maxApplications, transactionType }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(outputFormat, forKey: .outputFormat)
        try container.encodeIfPresent(maxApplications, forKey: .maxApplications)
        try container.encodeIfPresent(transactionType, forKey: .transactionType)
    }

    /// Legacy output: byte 0 = N, then N blocks of 64 bytes (`CandidateBlock`). Blocks that do not start with 0x84 are
    /// skipped, as the SDK does; bytes after the N blocks are ignored.
    package struct Response: RPCResponse, Hashable {
        package var candidates: [CandidateApplication]

        package init(candidates: [CandidateApplication]) { self.candidates = candidates }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            if let first = data.first,
                first == UInt8(BuildCandidateList.outputFormatTag)
                    || first == UInt8(BuildCandidateList.maxApplicationsTag)
            {
                self.candidates = try Self.fullTLV(data)
                return
            }
            var reader = ByteReader(data, what: "BuildCandidateList response")
            let count = Int(try reader.u8("number of applications"))
            var candidates: [CandidateApplication] = []
            for index in 0..<count {
                let block = try reader.take(CandidateBlock.size, "application block \(index + 1)")
                if let candidate = try CandidateBlock.decode(block, index: index + 1) {
                    candidates.append(candidate)
                }
            }
            self.candidates = candidates
        }

        /// At most 255 candidates are written (the count is one byte).
        package func encodeData() -> [UInt8] {
            let written = candidates.prefix(255)
            return [UInt8(written.count)] + written.flatMap(CandidateBlock.encode)
        }

        /// The full TLV layout (spec §5.2): `C2 02 00 01 C3 01 NN`, then per candidate 84, 50 (or 9F12), 87, 9F11,
        /// DF22, DF04, every length one byte, as the current SDK requires.
        package func encodeFullTLV() -> [UInt8] {
            let written = candidates.prefix(255)
            var items = [
                TLV(Tag(BuildCandidateList.outputFormatTag), [0x00, BuildCandidateList.fullTLVOutput]),
                TLV(Tag(BuildCandidateList.maxApplicationsTag), [UInt8(written.count)]),
            ]
            for app in written {
                items.append(TLV(Tag(0x84), Array(app.aid.prefix(16))))
                items.append(TLV(Tag(app.usesPreferredName ? 0x9F12 : 0x50), Array(app.label.utf8.prefix(16))))
                items.append(TLV(Tag(0x87), [app.priority]))
                items.append(TLV(Tag(0x9F11), [app.issuerCodeTableIndex]))
                items.append(TLV(Tag(0xDF22), [app.selectionOptions]))
                items.append(TLV(Tag(0xDF04), [app.blocked ? 0x01 : 0x00]))
            }
            return items.encoded
        }

        /// Reads the full TLV layout: the count from C3, then a candidate for each `84` item, up to the next one.
        /// The count must match the candidates found (a terminal's own count is checked, not trusted).
        private static func fullTLV(_ data: [UInt8]) throws(CommandError) -> [CandidateApplication] {
            let items = try TLVParser.parseCommandData(data, "BuildCandidateList response (full TLV)", rules: .strict)
            var groups: [[TLV]] = []
            var count: Int?
            for item in items {
                switch item.tag {
                case Tag(BuildCandidateList.outputFormatTag) where groups.isEmpty: continue
                case Tag(BuildCandidateList.maxApplicationsTag) where groups.isEmpty:
                    guard item.value.count == 1 else {
                        throw CommandError(
                            .malformed,
                            "BuildCandidateList response: C3 must be one byte, got \(Hex.encode(item.value))")
                    }
                    count = Int(item.value[0])
                case Tag(0x84): groups.append([item])
                default:
                    guard !groups.isEmpty else {
                        throw CommandError(
                            .malformed, "BuildCandidateList response: \(item.tag) before the first candidate (84)")
                    }
                    groups[groups.count - 1].append(item)
                }
            }
            if let count, count != groups.count {
                throw CommandError(
                    .malformed,
                    "BuildCandidateList response: C3 announces \(count) candidates, the data has \(groups.count)")
            }
            return try groups.enumerated().map { index, group throws(CommandError) in
                try candidate(TLVFields(tlvs: group, "BuildCandidateList candidate \(index + 1)"))
            }
        }

        private static func candidate(_ fields: TLVFields) throws(CommandError) -> CandidateApplication {
            let aid = try fields.requiredAny(0x84, "AID")
            guard (1...16).contains(aid.count) else {
                throw CommandError(.malformed, "\(fields.what): the AID (84) must be 1…16 bytes, got \(aid.count)")
            }
            let preferred = fields.value(0x9F12)
            let label = (preferred ?? fields.value(0x50) ?? []).filter { $0 != 0 }
            return CandidateApplication(
                aid: aid, label: String(decoding: label, as: UTF8.self),
                priority: (try fields.optionalByte(0x87, "priority") ?? 0) & 0x0F,
                issuerCodeTableIndex: (try fields.optionalByte(0x9F11, "issuer code table index") ?? 0) & 0x0F,
                selectionOptions: (try fields.optionalByte(0xDF22, "selection options") ?? 0) & 0xF0,
                blocked: try fields.optionalByte(0xDF04, "blocked") == 0x01,
                usesPreferredName: preferred != nil)
        }

        private enum CodingKeys: String, CodingKey { case candidates }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(candidates, forKey: .candidates)
        }
    }
}

/// One application the card offers (spec §5.2 BuildCandidateList, A-EMVApp).
package struct CandidateApplication: Hashable, Sendable, Encodable {
    /// 84: up to 16 bytes.
    package var aid: [UInt8]
    /// 50 application label or 9F12 preferred name: up to 16 characters.
    package var label: String
    /// 87 low nibble.
    package var priority: UInt8
    /// 9F11 low nibble.
    package var issuerCodeTableIndex: UInt8
    /// DF22 high nibble, kept in place (0x00, 0x10, … 0xF0) as the SDK keeps it.
    package var selectionOptions: UInt8
    /// DF04 = 0x01.
    package var blocked: Bool
    /// The label header was `9F 12` (preferred name) rather than `50` (label).
    package var usesPreferredName: Bool

    package init(
        aid: [UInt8],
        label: String,
        priority: UInt8 = 0,
        issuerCodeTableIndex: UInt8 = 0,
        selectionOptions: UInt8 = 0,
        blocked: Bool = false,
        usesPreferredName: Bool = false
    ) {
        self.aid = aid
        self.label = label
        self.priority = priority
        self.issuerCodeTableIndex = issuerCodeTableIndex
        self.selectionOptions = selectionOptions
        self.blocked = blocked
        self.usesPreferredName = usesPreferredName
    }

    private enum CodingKeys: String, CodingKey {
        case aid, label, priority, issuerCodeTableIndex, selectionOptions, blocked, usesPreferredName
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeHex(aid, forKey: .aid)
        try container.encode(label, forKey: .label)
        try container.encode(priority, forKey: .priority)
        try container.encode(issuerCodeTableIndex, forKey: .issuerCodeTableIndex)
        try container.encode(selectionOptions, forKey: .selectionOptions)
        try container.encode(blocked, forKey: .blocked)
        try container.encode(usesPreferredName, forKey: .usesPreferredName)
    }
}

/// The legacy 64-byte candidate block (spec §5.2 table; A-EMVApp `parse`):
///
///     0   84                    (else the block is ignored)
///     1   AID length L (≤ 16)
///     2   AID, 16 bytes (L used, rest 00)
///     18  50 LL  — or 9F 12 LL, which shifts everything below by +1
///     20  label, 16 bytes, 00-terminated when shorter
///     36  87 01 pp              priority (low nibble)
///     39  9F 11 01 ii           issuer code table index (low nibble)
///     43  DF 22 01 ss           selection options (high nibble)
///     47  DF 04 01 bb           blocked (01)
///     51  00 padding to 64      (PROJECT CHOICE, spec §5.2)
///
/// Like the SDK, the reader skips the fixed `87 01`, `9F 11 01`, … markers without checking them. LL is written as
/// the label's length (the SDK ignores it; its value is not in the sources).
enum CandidateBlock {
    static let size = 64
    static let marker: UInt8 = 0x84
    static let aidField = 16
    static let labelField = 16

    static func decode(_ block: [UInt8], index: Int) throws(CommandError) -> CandidateApplication? {
        let what = "BuildCandidateList response, application block \(index)"
        var reader = ByteReader(block, what: what)
        guard try reader.u8("0x84 marker") == marker else { return nil }
        let aidLength = Int(try reader.u8("AID length"))
        guard aidLength <= aidField else {
            throw CommandError(.malformed, "\(what): AID length \(aidLength) exceeds \(aidField)")
        }
        let aidBytes = try reader.take(aidField, "AID")
        let headerFirst = try reader.u8("label header")
        let usesPreferredName: Bool
        switch headerFirst {
        case 0x50:
            usesPreferredName = false
        case 0x9F:
            guard try reader.u8("label header") == 0x12 else {
                throw CommandError(.malformed, "\(what): label header is neither 50 nor 9F 12")
            }
            usesPreferredName = true
        default:
            throw CommandError(
                .malformed,
                "\(what): label header 0x\(Hex.encode([headerFirst])) is neither 50 nor 9F 12"
            )
        }
        _ = try reader.u8("label length")
        let labelBytes = try reader.take(labelField, "label")
        _ = try reader.take(2, "87 01")
        let priority = try reader.u8("priority") & 0x0F
        _ = try reader.take(3, "9F 11 01")
        let codeTable = try reader.u8("issuer code table index") & 0x0F
        _ = try reader.take(3, "DF 22 01")
        let selection = try reader.u8("selection options") & 0xF0
        _ = try reader.take(3, "DF 04 01")
        let blocked = try reader.u8("blocked flag") == 0x01
        return CandidateApplication(
            aid: Array(aidBytes.prefix(aidLength)),
            label: Latin1.decode(labelBytes.prefix { $0 != 0x00 }),
            priority: priority,
            issuerCodeTableIndex: codeTable,
            selectionOptions: selection,
            blocked: blocked,
            usesPreferredName: usesPreferredName
        )
    }

    /// The block for `app`. Fields are cut to their widths (AID and label 16 bytes, nibbles masked; characters past
    /// U+00FF become '?'), so a value that fits reads back unchanged.
    static func encode(_ app: CandidateApplication) -> [UInt8] {
        let aid = Array(app.aid.prefix(aidField))
        let label = Array(
            app.label.unicodeScalars.map { $0.value <= 0xFF && $0.value != 0 ? UInt8($0.value) : UInt8(ascii: "?") }
                .prefix(labelField)
        )
        var block: [UInt8] = [marker, UInt8(aid.count)]
        block += aid + [UInt8](repeating: 0, count: aidField - aid.count)
        block += app.usesPreferredName ? [0x9F, 0x12, UInt8(label.count)] : [0x50, UInt8(label.count)]
        block += label + [UInt8](repeating: 0, count: labelField - label.count)
        block += [0x87, 0x01, app.priority & 0x0F]
        block += [0x9F, 0x11, 0x01, app.issuerCodeTableIndex & 0x0F]
        block += [0xDF, 0x22, 0x01, app.selectionOptions & 0xF0]
        block += [0xDF, 0x04, 0x01, app.blocked ? 0x01 : 0x00]
        block += [UInt8](repeating: 0, count: size - block.count)
        return block
    }
}
