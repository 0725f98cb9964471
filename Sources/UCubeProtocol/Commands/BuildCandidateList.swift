/// 0x5510 BuildCandidateList: lists the applications the card and terminal share (spec §5.2). Status −300 = no
/// common application.
///
/// Request: empty (old SDK), or `C2 01 fmt` and/or `C3 01 n` (newer constants). The response decoder reads the legacy
/// 64-byte layout only; the full-TLV output (C2 = 01) has no documented layout and fails to decode (a
/// `CommandError`); read such data as raw bytes.
public struct BuildCandidateList: RPCCommand, Hashable {
    public static let id = CommandID.buildCandidateList

    static let outputFormatTag: UInt32 = 0xC2
    static let maxApplicationsTag: UInt32 = 0xC3

    /// C2: 0x00 legacy output, 0x01 full TLV output.
    public var outputFormat: UInt8?
    /// C3: the number of applications.
    public var maxApplications: UInt8?

    public init(outputFormat: UInt8? = nil, maxApplications: UInt8? = nil) {
        self.outputFormat = outputFormat
        self.maxApplications = maxApplications
    }

    public func encodePayload() throws(CommandError) -> [UInt8] {
        var writer = TLVWriter("BuildCandidateList")
        if let outputFormat { try writer.append(Self.outputFormatTag, [outputFormat]) }
        if let maxApplications { try writer.append(Self.maxApplicationsTag, [maxApplications]) }
        return try writer.payload()
    }

    public init(payload: [UInt8]) throws(CommandError) {
        let fields = try TLVFields(payload, "BuildCandidateList request")
        outputFormat = try fields.optionalByte(Self.outputFormatTag, "output format")
        maxApplications = try fields.optionalByte(Self.maxApplicationsTag, "number of applications")
    }

    private enum CodingKeys: String, CodingKey { case outputFormat, maxApplications }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(outputFormat, forKey: .outputFormat)
        try container.encodeIfPresent(maxApplications, forKey: .maxApplications)
    }

    /// Legacy output: byte 0 = N, then N blocks of 64 bytes (`CandidateBlock`). Blocks that do not start with 0x84 are
    /// skipped, as the SDK does; bytes after the N blocks are ignored.
    public struct Response: RPCResponse, Hashable {
        public var candidates: [CandidateApplication]

        public init(candidates: [CandidateApplication]) { self.candidates = candidates }

        public init(status: Status, data: [UInt8]) throws(CommandError) {
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
        public func encodeData() -> [UInt8] {
            let written = candidates.prefix(255)
            return [UInt8(written.count)] + written.flatMap(CandidateBlock.encode)
        }

        public var summary: [String] {
            guard !candidates.isEmpty else { return ["no candidate application"] }
            return candidates.enumerated().map { index, app in
                var line = "\(index + 1). \(app.label) AID \(Hex.encode(app.aid)) priority \(app.priority)"
                if app.blocked { line += " (blocked)" }
                return line
            }
        }

        private enum CodingKeys: String, CodingKey { case candidates }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(candidates, forKey: .candidates)
        }
    }
}

/// One application the card offers (spec §5.2 BuildCandidateList, A-EMVApp).
public struct CandidateApplication: Hashable, Sendable, Encodable {
    /// 84: up to 16 bytes.
    public var aid: [UInt8]
    /// 50 application label or 9F12 preferred name: up to 16 characters.
    public var label: String
    /// 87 low nibble.
    public var priority: UInt8
    /// 9F11 low nibble.
    public var issuerCodeTableIndex: UInt8
    /// DF22 high nibble, kept in place (0x00, 0x10, … 0xF0) as the SDK keeps it.
    public var selectionOptions: UInt8
    /// DF04 = 0x01.
    public var blocked: Bool
    /// The label header was `9F 12` (preferred name) rather than `50` (label).
    public var usesPreferredName: Bool

    public init(
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

    public func encode(to encoder: any Encoder) throws {
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
