import Testing

@testable import UCubeProtocol

@Suite struct TLVTests {
    // spec §2.6 GetInfo response data.
    @Test func getInfoResponseData() throws {
        let nodes = try TLVParser.parse(try Hex.decode("C4 01 03 D1 04 06 00 00 37"), rules: .strict)
        #expect(nodes == [TLV(Tag(0xC4), [0x03]), TLV(Tag(0xD1), [0x06, 0x00, 0x00, 0x37])])
        #expect(nodes.encoded == (try Hex.decode("C4 01 03 D1 04 06 00 00 37")))
    }

    @Test func oneTwoAndThreeByteTags() throws {
        let bytes = try Hex.decode("5A 02 12 34 9F 27 01 80 DF C3 02 01 AA DF 81 29 00")
        let nodes = try TLVParser.parse(bytes, rules: .strict)
        #expect(nodes.map(\.tag) == [Tag(0x5A), Tag(0x9F27), Tag(0xDFC302), Tag(0xDF8129)])
        #expect(nodes.encoded == bytes)
        #expect(Tag(0xDFC302).bytes == [0xDF, 0xC3, 0x02])
    }

    @Test func shortAndLongLengths() throws {
        for length in [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FF] {
            let node = TLV(Tag(0xDF62), [UInt8](repeating: 0x5A, count: length))
            let encoded = node.encoded
            // Correct BER: short form below 0x80 (the SDK writer's `< 0x7F` quirk is not copied, spec §4).
            let lengthBytes = length < 0x80 ? 1 : length <= 0xFF ? 2 : 3
            #expect(encoded.count == 2 + lengthBytes + length)
            #expect(try TLVParser.parse(encoded, rules: .strict) == [node])
        }
        // The SDK writes 0x7F as 81 7F; we read that too.
        #expect(try TLVParser.parse([0x50, 0x81, 0x01, 0x41], rules: .strict) == [TLV(Tag(0x50), [0x41])])
    }

    @Test func nestedConstructed() throws {
        let inner = TLV(Tag(0x70), children: [TLV(Tag(0x5F20), Array("DOE/JOHN".utf8)), TLV(Tag(0x57), [0x47, 0x61])])
        let outer = TLV(Tag(0x77), children: [inner, TLV(Tag(0x9F27), [0x80])])
        let parsed = try TLVParser.parse(outer.encoded, rules: .strict)
        #expect(parsed == [outer])
        #expect(parsed.first(Tag(0x57))?.value == [0x47, 0x61])
        #expect(parsed[Tag(0x9F27)] == [0x80])
    }

    // spec §4: inside GetInfo, E8 may carry a "YT style" one-byte length with the top bit set (0x8C = 140).
    @Test func e8MixedLengthQuirk() throws {
        let value = [0xD1, 0x04, 1, 2, 3, 4] + [UInt8](repeating: 0, count: 134)
        let bytes: [UInt8] = [0xE8, 0x8C] + value + [0xC5, 0x01, 0x50]
        let nodes = try TLVParser.parse(bytes, rules: .terminal)
        #expect(nodes.count == 2)
        #expect(nodes[0].value.count == 140)
        #expect(nodes[0].first(Tag(0xD1))?.value == [1, 2, 3, 4])
        #expect(nodes[1] == TLV(Tag(0xC5), [0x50]))
        #expect(throws: TLVError(.unsupportedLength, "", offset: 0)) { try TLVParser.parse(bytes, rules: .strict) }
        // 0x81 / 0x82 keep their BER meaning inside E8.
        #expect(
            try TLVParser.parse([0xE8, 0x81, 0x03, 0xD1, 0x01, 0x07], rules: .terminal)[0].value == [0xD1, 0x01, 0x07])
    }

    @Test func paddingBetweenObjects() throws {
        let bytes: [UInt8] = [0x00, 0x9F, 0x27, 0x01, 0x40, 0x00, 0x00, 0x95, 0x01, 0x00]
        #expect(try TLVParser.parse(bytes, rules: .terminal).map(\.tag) == [Tag(0x9F27), Tag(0x95)])
    }

    @Test func opaqueConstructedKeptInTerminalRules() throws {
        // F0 is constructed by its bit but carries a blob (spec §7.1 "hex blobs").
        let bytes: [UInt8] = [0xF0, 0x03, 0x9F, 0xFF, 0xFF]
        let nodes = try TLVParser.parse(bytes, rules: .terminal)
        #expect(nodes == [TLV(Tag(0xF0), [0x9F, 0xFF, 0xFF])])
        #expect(nodes[0].children == nil)
        #expect(throws: TLVError(.truncatedTag, "", offset: 0)) { try TLVParser.parse(bytes, rules: .strict) }
    }

    // Truncate a valid list at every length: each prefix either parses (it ends on an object boundary) or throws a
    // specific code — never crashes.
    @Test func everyTruncation() throws {
        let full = try Hex.decode("9F 02 06 00 00 00 00 12 50 77 0A 9F 27 01 80 5F 20 03 41 42 43 DF 62 81 02 AA BB")
        let boundaries: Set<Int> = [0, 9, 21, full.count]
        for n in 0...full.count {
            let prefix = Array(full[..<n])
            if boundaries.contains(n) {
                #expect(throws: Never.self) { try TLVParser.parse(prefix, rules: .strict) }
            } else {
                #expect(throws: TLVError.self) { try TLVParser.parse(prefix, rules: .strict) }
            }
        }
        #expect(throws: TLVError(.truncatedValue, "", offset: 0)) {
            try TLVParser.parse(Array(full[..<8]), rules: .strict)
        }
        #expect(throws: TLVError(.truncatedTag, "", offset: 0)) { try TLVParser.parse([0x9F], rules: .strict) }
        #expect(throws: TLVError(.truncatedLength, "", offset: 0)) {
            try TLVParser.parse([0x9F, 0x02], rules: .strict)
        }
        #expect(throws: TLVError(.truncatedLength, "", offset: 0)) {
            try TLVParser.parse([0x5A, 0x82, 0x01], rules: .strict)
        }
    }

    @Test func boundsOnTagsLengthsAndDepth() throws {
        #expect(throws: TLVError(.tagTooLong, "", offset: 0)) {
            try TLVParser.parse([0x9F, 0x81, 0x82, 0x03, 0x00], rules: .strict)
        }
        #expect(throws: TLVError(.unsupportedLength, "", offset: 0)) {
            try TLVParser.parse([0x5A, 0x80, 0x00], rules: .strict)
        }
        #expect(throws: TLVError(.unsupportedLength, "", offset: 0)) {
            try TLVParser.parse([0x5A, 0x83, 0, 0, 1, 0], rules: .strict)
        }
        var deep = TLV(Tag(0x5A), [1])
        for _ in 0..<12 { deep = TLV(Tag(0x70), children: [deep]) }
        #expect(throws: TLVError(.tooDeep, "", offset: 0)) { try TLVParser.parse(deep.encoded, rules: .terminal) }
    }

    @Test func tagParsingFromText() {
        #expect(Tag("9F02") == Tag(0x9F02))
        #expect(Tag("0xdf62") == Tag(0xDF62))
        #expect(Tag("DFC302") == Tag(0xDFC302))
        #expect(Tag("xyz") == nil)
        #expect(Tag(0x9F02).tagClass == .contextSpecific)
        #expect(Tag(0x70).isConstructed && !Tag(0x5A).isConstructed)
    }
}

@Suite struct HexTests {
    @Test func roundTripAndSeparators() throws {
        #expect(try Hex.decode("02 00:03-00_50 01") == [0x02, 0x00, 0x03, 0x00, 0x50, 0x01])
        #expect(try Hex.decode("0xabCD") == [0xAB, 0xCD])
        #expect(Hex.encode([0x0A, 0xFF], separator: " ") == "0A FF")
        #expect(throws: HexError.self) { try Hex.decode("ABC") }
        #expect(throws: HexError.self) { try Hex.decode("A BC") }
        #expect(throws: HexError.self) { try Hex.decode("zz") }
    }
}
