/// 9F10 Issuer Application Data in the Visa and Mastercard layouts. The layout is recognised by its shape, as
/// emv-decode does: nothing in the value names the scheme, so a value that fits neither layout is not explained,
/// and one that fits a layout by chance is explained as that layout (the AID, 4F / 84, tells the scheme for sure).
package enum IssuerApplicationData {
    /// Visa Smart Debit/Credit IAD formats 0, 1 and 3: byte 1 = 06 (length of the Visa discretionary data), byte 2
    /// Derivation Key Index, byte 3 Cryptogram Version Number (its high nibble is the format), bytes 4–7 the Card
    /// Verification Results (byte 4 = 03, their length), then optionally a length and issuer discretionary data.
    /// Source: Visa Contactless Payment Specification (VCPS) Supplemental Requirements 2.2 Appendix M, and VIS 1.5/1.6
    /// (the VIS appendix number was not checked).
    package static let visaSource =
        "VCPS 2.2 Supplemental Requirements Appendix M (VSDC IAD formats 0/1/3); VIS 1.5/1.6 CVR"

    /// The Visa CVR of formats 0/1/3, bytes 2–4 (byte 1 is its length, 03).
    package static let visaCVR = BitTable(
        name: "Visa Card Verification Results",
        source: visaSource,
        length: 3,
        bits: [
            BitMeaning(2, 4, "Issuer Authentication performed and failed"),
            BitMeaning(2, 3, "Offline PIN verification performed"),
            BitMeaning(2, 2, "Offline PIN verification failed"),
            BitMeaning(2, 1, "Unable to go online"),
            BitMeaning(3, 8, "Last online transaction not completed"),
            BitMeaning(3, 7, "PIN Try Limit exceeded"),
            BitMeaning(3, 6, "Exceeded velocity checking counters"),
            BitMeaning(3, 5, "New card"),
            BitMeaning(3, 4, "Issuer Authentication failure on last online transaction"),
            BitMeaning(3, 3, "Issuer Authentication not performed after online authorization"),
            BitMeaning(3, 2, "Application blocked by card because PIN Try Limit exceeded"),
            BitMeaning(3, 1, "Offline static data authentication failed on last transaction"),
            BitMeaning(4, 4, "Issuer Script processing failed"),
            BitMeaning(4, 3, "Offline dynamic data authentication failed on last transaction"),
            BitMeaning(4, 2, "Offline dynamic data authentication performed"),
            BitMeaning(4, 1, "PIN verification command not received for a PIN-Expecting card"),
        ],
        fields: [
            BitField(
                2, bits: 8, 7, "Second GENERATE AC",
                [0: "AAC", 1: "TC", 2: "not requested"], otherwise: "RFU"),
            BitField(2, bits: 6, 5, "First GENERATE AC (or GPO)", [0: "AAC", 1: "TC", 2: "ARQC"], otherwise: "RFU"),
            BitField(4, bits: 8, 5, "Number of Issuer Script Commands", showsZero: false),
        ],
        firstByte: 2)

    /// Mastercard M/Chip 4 (18 bytes) and M/Chip Advance (20, 26 or 28 bytes): byte 1 Derivation Key Index, byte 2
    /// Cryptogram Version Number (1x), bytes 3–8 the Card Verification Results, bytes 9–10 the DAC / ICC Dynamic
    /// Number, bytes 11–18 the counters. Source: M/Chip Requirements for Contact and Contactless (Appendix B, 9F10)
    /// and the M/Chip 4 / M/Chip Advance card application specifications, as emv-utils reads them; the bytes after
    /// the 18th in the M/Chip Advance lengths are not explained.
    package static let mastercardSource =
        "M/Chip Requirements for Contact and Contactless Appendix B (9F10); M/Chip 4 and M/Chip Advance CVR"

    package static let mastercardCVR = BitTable(
        name: "Mastercard Card Verification Results",
        source: mastercardSource,
        length: 6,
        bits: [
            BitMeaning(1, 4, "Date Check Failed"),
            BitMeaning(1, 3, "Offline PIN Verification Performed"),
            BitMeaning(1, 2, "Offline Encrypted PIN Verification Performed"),
            BitMeaning(1, 1, "Offline PIN Verification Successful"),
            BitMeaning(2, 8, "DDA Returned"),
            BitMeaning(2, 7, "CDA Returned in First GENERATE AC"),
            BitMeaning(2, 6, "CDA Returned in Second GENERATE AC"),
            BitMeaning(2, 5, "Issuer Authentication Performed"),
            BitMeaning(2, 4, "CIAC-Default Skipped on CAT3"),
            BitMeaning(2, 3, "Offline Change PIN Result Successful"),
            BitMeaning(2, 2, "Issuer Discretionary"),
            BitMeaning(2, 1, "Issuer Discretionary"),
            BitMeaning(4, 8, "Last Online Transaction Not Completed"),
            BitMeaning(4, 7, "Unable To Go Online"),
            BitMeaning(4, 6, "Offline PIN Verification Not Performed"),
            BitMeaning(4, 5, "Offline PIN Verification Failed"),
            BitMeaning(4, 4, "PTL Exceeded"),
            BitMeaning(4, 3, "International Transaction"),
            BitMeaning(4, 2, "Domestic Transaction"),
            BitMeaning(4, 1, "Terminal Erroneously Considers Offline PIN OK"),
            BitMeaning(5, 8, "Lower Consecutive Offline Limit (M/Chip 4) or Counter 1 Limit (M/Chip Advance) Exceeded"),
            BitMeaning(5, 7, "Upper Consecutive Offline Limit (M/Chip 4) or Counter 1 Limit (M/Chip Advance) Exceeded"),
            BitMeaning(
                5, 6, "Lower Cumulative Offline Limit (M/Chip 4) or Accumulator Limit (M/Chip Advance) Exceeded"),
            BitMeaning(
                5, 5, "Upper Cumulative Offline Limit (M/Chip 4) or Accumulator Limit (M/Chip Advance) Exceeded"),
            BitMeaning(5, 4, "Go Online On Next Transaction Was Set"),
            BitMeaning(5, 3, "Issuer Authentication Failed"),
            BitMeaning(5, 2, "Script Received"),
            BitMeaning(5, 1, "Script Failed"),
            BitMeaning(6, 8, "Lower Consecutive Counter 2 Limit Exceeded"),
            BitMeaning(6, 7, "Upper Consecutive Counter 2 Limit Exceeded"),
            BitMeaning(6, 6, "Lower Cumulative Accumulator 2 Limit Exceeded"),
            BitMeaning(6, 5, "Upper Cumulative Accumulator 2 Limit Exceeded"),
            BitMeaning(6, 4, "MTA Limit Exceeded"),
            BitMeaning(6, 3, "Number Of Days Offline Limit Exceeded"),
            BitMeaning(6, 2, "Match Found In Additional Check Table"),
            BitMeaning(6, 1, "No Match Found In Additional Check Table"),
        ],
        fields: [
            BitField(
                1, bits: 8, 7, "AC returned in second GENERATE AC",
                [0: "AAC", 1: "TC", 2: "not requested"], otherwise: "RFU"),
            BitField(
                1, bits: 6, 5, "AC returned in first GENERATE AC", [0: "AAC", 1: "TC", 2: "ARQC"], otherwise: "RFU"),
            BitField(3, bits: 8, 5, "Script Counter (right nibble)"),
            BitField(3, bits: 4, 1, "PIN Try Counter (right nibble)"),
        ])

    /// The explanation of `value` in the first layout it fits, or nil.
    package static func explain(_ value: [UInt8]) -> Explanation? {
        visa013(value) ?? visa24(value) ?? mastercard(value)
    }

    static func visa013(_ v: [UInt8]) -> Explanation? {
        guard v.count >= 7, v[0] == 0x06, v[3] == 0x03, [0, 1, 3].contains(v[2] >> 4) else { return nil }
        var lines = [
            "layout: Visa (VSDC) IAD format \(v[2] >> 4)",
            "byte 2: Derivation Key Index \(Hex.encode([v[1]]))",
            "byte 3: Cryptogram Version Number \(Hex.encode([v[2]])) (CVN \(v[2]))",
            "bytes 4-7: Card Verification Results \(Hex.encode(Array(v[3..<7])))",
        ]
        lines += visaCVR.lines(Array(v[4..<7])).map { "CVR " + $0 }
        if v.count > 7 {
            let idd = Array(v[8...])
            lines.append("byte 8: length of Issuer Discretionary Data \(v[7])")
            if !idd.isEmpty { lines.append("bytes 9-\(v.count): Issuer Discretionary Data \(Hex.encode(idd))") }
            if Int(v[7]) != idd.count { lines.append("(the length says \(v[7]), \(idd.count) bytes follow)") }
        }
        return Explanation(source: visaSource, lines: lines)
    }

    /// Formats 2 and 4 (32 bytes, byte 1 = 1F): the layout only; the bits of their 5-byte CVR are not explained here
    /// (their table was not checked against a Visa document).
    static func visa24(_ v: [UInt8]) -> Explanation? {
        guard v.count == 32, v[0] == 0x1F, [2, 4].contains(v[1] >> 4) else { return nil }
        return Explanation(
            source: visaSource,
            lines: [
                "layout: Visa (VSDC) IAD format \(v[1] >> 4)",
                "byte 2: Cryptogram Version Number \(Hex.encode([v[1]])) (CVN '\(Hex.encode([v[1]]))')",
                "byte 3: Derivation Key Index \(Hex.encode([v[2]]))",
                "bytes 4-8: Card Verification Results \(Hex.encode(Array(v[3..<8]))) (bits of formats 2/4 not explained)",
                "bytes 9-32: Issuer Discretionary Data \(Hex.encode(Array(v[8...])))",
            ])
    }

    static func mastercard(_ v: [UInt8]) -> Explanation? {
        guard [18, 20, 26, 28].contains(v.count), v[1] & 0xF0 == 0x10, v[1] & 0x0A == 0 else { return nil }
        let product = v.count == 18 ? "M/Chip 4 or M/Chip Advance" : "M/Chip Advance"
        var lines = [
            "layout: Mastercard \(product) (\(v.count) bytes)",
            "byte 1: Derivation Key Index \(Hex.encode([v[0]]))",
            "byte 2: Cryptogram Version Number \(Hex.encode([v[1]]))",
            "CVN bits 3-2: \(v[1] & 0x04 != 0 ? "EMV CSK session key" : "Mastercard proprietary SKD session key")",
            "CVN bit 1: \(v[1] & 0x01 != 0 ? "counters included in AC data" : "counters not included in AC data")",
            "bytes 3-8: Card Verification Results \(Hex.encode(Array(v[2..<8])))",
        ]
        lines += mastercardCVR.lines(Array(v[2..<8])).map { "CVR " + $0 }
        lines.append("bytes 9-10: DAC / ICC Dynamic Number \(Hex.encode(Array(v[8..<10])))")
        lines.append("bytes 11-18: Counters \(Hex.encode(Array(v[10..<18])))")
        if v.count > 18 { lines.append("bytes 19-\(v.count): \(Hex.encode(Array(v[18...]))) (not explained)") }
        return Explanation(source: mastercardSource, lines: lines)
    }
}
