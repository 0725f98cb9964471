import Testing

@testable import UCubeProtocol

/// Card data inside hex dumps (`Masking.hex`, `Masking.redactCardDataInHex`). The PAN 4761 7390 0101 0010 is the
/// Visa ADVT test card the simulator also uses; 4012 3456 7890 9 is the 13-digit test PAN of `MaskingTests`.
@Suite struct HexMaskingTests {
    /// 5A 08 4761739001010010 (EMV Book 3 Annex A: Application PAN, cn, up to 10 bytes).
    static let pan: [UInt8] = [0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10]
    /// 57 11 4761739001010010 D 2512 201 123456789 F (Track 2 Equivalent Data: PAN, separator D, YYMM, service code,
    /// discretionary data, F pad).
    static let track2: [UInt8] = [
        0x57, 0x11, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0xD2, 0x51, 0x22, 0x01, 0x12, 0x34, 0x56, 0x78,
        0x9F,
    ]

    @Test func aPANTagKeepsFirstSixAndLastFour() {
        #expect(Masking.hex(Self.pan) == "5A08476173******0010")
        #expect(Masking.hex(Self.pan, separator: " ") == "5A 08 47 61 73 ** ** ** 00 10")
    }

    @Test func track2HidesEverythingAfterTheSeparator() {
        #expect(Masking.hex(Self.track2) == "5711476173******0010D****************F")
        // The same under the contactless tag 9F6B.
        #expect(Masking.hex([0x9F, 0x6B] + Self.track2.dropFirst()) == "9F6B11476173******0010D****************F")
    }

    @Test func track1ASCIIKeepsOnlyTheVisibleDigits() {
        let value = Array("B4761739001010010^TEST/CARD^2512".utf8)
        let masked = Masking.hex([0x56, UInt8(value.count)] + value)
        // "B", "476173" visible; the 6 middle digits and everything after the PAN's last 4 are stars.
        #expect(masked.hasPrefix("5620" + "42" + "343736313733" + String(repeating: "*", count: 12) + "30303130"))
        #expect(masked.dropFirst(4 + 2 + 12 + 12 + 8).allSatisfy { $0 == "*" })
    }

    /// Anywhere in a frame: after a header, between other tags, in a 13-digit PAN padded with F.
    @Test func foundWhereverItSits() {
        let frame: [UInt8] =
            [0x02, 0x00, 0x1A, 0x00, 0x50, 0x26, 0x00, 0x00, 0x5F, 0x34, 0x01, 0x01]
            + [0x5A, 0x07, 0x40, 0x12, 0x34, 0x56, 0x78, 0x90, 0x9F] + [0x9F, 0x02, 0x06, 0, 0, 0, 0, 0x10, 0x00]
        #expect(Masking.hex(frame) == "02001A00502600005F3401015A07401234***8909F9F0206000000001000")
    }

    /// Bytes that only start like card data are shown as they are: a tag without a digit-shaped value, a length past
    /// the end, a PAN too short, a track separator under 5A.
    @Test func nonCardDataIsLeftAlone() {
        let samples: [[UInt8]] = [
            [0x5A, 0x08, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10, 0x00],
            [0x5A, 0x20, 0x47, 0x61, 0x73, 0x90],
            [0x5A, 0x05, 0x47, 0x61, 0x73, 0x90, 0x01],
            [0x5A, 0x09, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0xD2],
            [0x56, 0x05, 0x41, 0x31, 0x32, 0x33, 0x34],
        ]
        for bytes in samples { #expect(Masking.hex(bytes) == Hex.encode(bytes)) }
    }

    /// Free text: a `decode` argument or a dump in a log line, packed or spaced, at either nibble alignment.
    @Test func insideText() {
        #expect(
            Masking.redactCardDataInHex("ucube decode 5A0847617390010100105F3401 --tags")
                == "ucube decode 5A08476173******00105F3401 --tags")
        #expect(Masking.redactCardDataInHex("< 5A 08 47 61 73 90 01 01 00 10") == "< 5A 08 47 61 73 ** ** ** 00 10")
        #expect(Masking.redactCardDataInHex("x=F5A0847617390010100109") == "x=F5A08476173******00109")
        #expect(Masking.redactCardDataInHex("no hex here, 5A08 short") == "no hex here, 5A08 short")
    }
}
