/// What a data object means, bit by bit or field by field: lines for people, and the table they come from.
/// `ucube decode`, the shell's `context` and `tlv` views and `pay --json` show the same explanation.
package struct Explanation: Sendable, Hashable, Encodable {
    /// The table the lines were read from ("EMV 4.4 Book 3 Annex C5 Table 46").
    package let source: String
    /// One line per set bit, multi-bit field or decoded part ("byte 1 bit 8: Offline data authentication was not
    /// performed").
    package let lines: [String]

    package init(source: String, lines: [String]) {
        self.source = source
        self.lines = lines
    }
}

/// A data object with its explanation, as `--json` output carries it:
/// `{"tag":"95","name":"terminalVerificationResults","value":"8000000000","source":"…","explanation":["…"]}`.
/// Only tags `Explainer` explains appear here, and none of them is cardholder data.
package struct ExplainedField: Sendable, Hashable, Encodable {
    package let tag: String
    package let name: String?
    /// The value in upper-case hex.
    package let value: String
    package let source: String
    package let explanation: [String]

    package init(_ tlv: TLV, _ explained: Explanation, context: TagContext = .payment) {
        tag = tlv.tag.description
        name = TagDictionary.info(for: tlv.tag, context: context)?.name
        value = Hex.encode(tlv.value)
        source = explained.source
        explanation = explained.lines
    }
}

/// One bit of a bit-coded data object with its meaning when set. Bytes and bits are numbered as the EMV books number
/// them: byte 1 first, bit 8 the most significant.
package struct BitMeaning: Sendable, Hashable {
    package let byte: Int
    package let bit: Int
    package let meaning: String

    package init(_ byte: Int, _ bit: Int, _ meaning: String) {
        precondition((1...8).contains(bit), "bits are numbered 8…1")
        self.byte = byte
        self.bit = bit
        self.meaning = meaning
    }

    var mask: UInt8 { 1 << UInt8(bit - 1) }
}

/// Several adjacent bits of one byte read together as a number, each value with its meaning (the CID's cryptogram
/// type, a CVR's GENERATE AC results, a counter).
package struct BitField: Sendable, Hashable {
    package let byte: Int
    /// Most and least significant bit of the field (8…1, high ≥ low).
    package let high: Int
    package let low: Int
    package let name: String
    /// Meaning of each value (the field's bits shifted down); a value missing here is shown by `otherwise`.
    package let values: [UInt8: String]
    /// For values not in `values`: "RFU", or nil to show the number ("Script counter: 3").
    package let otherwise: String?
    /// Whether the field is shown when its value is 0 (a counter at 0 or "no information" says nothing).
    package let showsZero: Bool

    package init(
        _ byte: Int, bits high: Int, _ low: Int, _ name: String, _ values: [UInt8: String] = [:],
        otherwise: String? = nil, showsZero: Bool = true
    ) {
        precondition(high >= low && (1...8).contains(high) && (1...8).contains(low))
        self.byte = byte
        self.high = high
        self.low = low
        self.name = name
        self.values = values
        self.otherwise = otherwise
        self.showsZero = showsZero
    }

    var mask: UInt8 { UInt8((0xFF >> (8 - (high - low + 1))) << (low - 1)) }

    func value(in byte: UInt8) -> UInt8 { (byte & mask) >> UInt8(low - 1) }

    /// "bits 8-7 = 10: ARQC" style line, or nil when the field is 0 and not shown at 0.
    func line(for byte: UInt8) -> String? {
        let v = value(in: byte)
        if v == 0 && !showsZero { return nil }
        let width = high - low + 1
        let binary = String(v, radix: 2)
        let padded = String(repeating: "0", count: max(0, width - binary.count)) + binary
        let meaning = values[v] ?? otherwise ?? String(v)
        return "byte \(self.byte) bits \(high)-\(low) = \(padded): \(name)\(name.isEmpty ? "" : ": ")\(meaning)"
    }
}

/// The meaning of every bit of a fixed-length bit-coded data object (TVR, AIP, terminal capabilities …), declared
/// once per tag with the source it was read from. Bits that no entry names are RFU: a set RFU bit is flagged.
package struct BitTable: Sendable {
    /// The data object's name ("Terminal Verification Results").
    package let name: String
    /// Where the meanings come from ("EMV 4.4 Book 3 Annex C5 Table 46").
    package let source: String
    /// Bytes the data object has.
    package let length: Int
    package let bits: [BitMeaning]
    package let fields: [BitField]
    /// The number the first byte of the value has in the source (2 for a Visa CVR, whose byte 1 is its length).
    package let firstByte: Int

    package init(
        name: String, source: String, length: Int, bits: [BitMeaning], fields: [BitField] = [], firstByte: Int = 1
    ) {
        self.name = name
        self.source = source
        self.length = length
        self.bits = bits
        self.fields = fields
        self.firstByte = firstByte
    }

    /// One line per set bit and per field, in byte order, bit 8 first; set RFU bits flagged; "no bit set" when the
    /// value is all zeros and no field is shown.
    package func explain(_ value: [UInt8]) -> Explanation {
        Explanation(source: source, lines: lines(value))
    }

    func lines(_ value: [UInt8]) -> [String] {
        guard value.count == length else {
            return ["\(value.count) byte\(value.count == 1 ? "" : "s"): \(name) has \(length); not explained"]
        }
        var out: [String] = []
        for (index, byte) in value.enumerated() {
            let number = index + firstByte
            let byteFields = fields.filter { $0.byte == number }
            var covered: UInt8 = byteFields.reduce(0) { $0 | $1.mask }
            var pending: [(bit: Int, line: String)] = byteFields.compactMap { f in
                f.line(for: byte).map { (f.high, $0) }
            }
            for meaning in bits where meaning.byte == number {
                covered |= meaning.mask
                if byte & meaning.mask != 0 {
                    pending.append((meaning.bit, "byte \(number) bit \(meaning.bit): \(meaning.meaning)"))
                }
            }
            for bit in 1...8 {
                let mask = UInt8(1) << UInt8(bit - 1)
                if covered & mask == 0 && byte & mask != 0 {
                    pending.append((bit, "byte \(number) bit \(bit): RFU, set (should be 0)"))
                }
            }
            out += pending.sorted { $0.bit > $1.bit }.map(\.line)
        }
        return out.isEmpty ? ["no bit set"] : out
    }
}
