import Testing

@testable import UCubeProtocol

@Suite("PAN masking and leak detection")
struct MaskingTests {
    /// PCI DSS: at most the first 6 and last 4 digits are shown.
    @Test func maskPAN() {
        #expect(Masking.maskPAN("4761739001010010") == "476173******0010")
        #expect(Masking.maskPAN("4012345678909") == "401234***8909")
        #expect(Masking.maskPAN("6799998900000060018") == "679999*********0018")
    }

    /// Below 13 digits fewer are kept, so that at least half of them stay hidden.
    @Test(arguments: 1...19)
    func maskKeepsAtMostHalfAndAtMostTen(length: Int) {
        let digits = String((0..<length).map { Character(String($0 % 10)) })
        let masked = Masking.maskPAN(digits)
        #expect(masked.count == length)
        let visible = masked.filter { $0 != "*" }.count
        #expect(visible <= 10)
        if length < 13 { #expect(visible * 2 <= length, "\(masked)") }
    }

    @Test func panDigitsStripPadding() {
        #expect(Masking.panDigits(from: [0x40, 0x12, 0x34, 0x56, 0x78, 0x90, 0x9F]) == "4012345678909")
        #expect(Masking.panDigits(from: [0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10]) == "4761739001010010")
        #expect(Masking.panDigits(from: []) == "")
    }

    /// Track 2 equivalent data (EMV 57): PAN, separator D, expiry, service code, discretionary data, F padding.
    @Test func maskTrack2() throws {
        let track2 = try Hex.decode("4761739001010010D25122011234567890")
        #expect(Masking.maskTrack2(track2) == "476173******0010=****")
        #expect(Masking.maskTrack2(try Hex.decode("4012345678909D2512201F")) == "401234***8909=****")
        #expect(Masking.maskTrack2(try Hex.decode("DD")) == "<1 byte hidden>")
        // Nothing after the separator survives, not even its length.
        #expect(!Masking.maskTrack2(track2).contains("2512"))
    }

    @Test func maskTrack1() {
        let track1 = Array("B4761739001010010^DOE/JOHN^2512201000000".utf8)
        #expect(Masking.maskTrack1(track1) == "B476173******0010^****")
        #expect(Masking.maskTrack1(Array("^^".utf8)) == "<2 bytes hidden>")
    }

    @Test func luhn() {
        #expect(Masking.luhnValid("4012345678909"))
        #expect(Masking.luhnValid("4761739001010010"))
        #expect(Masking.luhnValid("79927398713"))
        #expect(!Masking.luhnValid("4761739001010011"))
        #expect(!Masking.luhnValid(""))
        #expect(!Masking.luhnValid("4012 3456"))
    }

    /// The X9.24 test PAN of spec §12.3 in a log line is found.
    @Test(arguments: [
        "PIN block for PAN 4012345678909 built",
        "card=4761739001010010;",
        "PAN 4761 7390 0101 0010 read",
        "PAN 4761-7390-0101-0010",
        "4111111111111111",
    ])
    func unmaskedPANsAreFound(line: String) {
        #expect(Masking.containsUnmaskedPAN(line))
    }

    @Test(arguments: [
        "amount 1234567812345678 is not a PAN",  // 16 digits, Luhn fails
        "card 476173******0010 read",  // masked
        "2025-01-31 14:30:05 seq 0001 len 0012",
        "KSN FFFF9876543210E00000",
        "12345678901234567890123",  // 23 digits: longer than any PAN
        "",
    ])
    func otherNumbersAreNotFlagged(line: String) {
        #expect(!Masking.containsUnmaskedPAN(line))
    }

    @Test func redactPANs() {
        #expect(Masking.redactPANs(in: "card=4761739001010010; amount 1250") == "card=476173******0010; amount 1250")
        #expect(Masking.redactPANs(in: "PAN 4761 7390 0101 0010 ok") == "PAN 476173******0010 ok")
        #expect(Masking.redactPANs(in: "nothing here 42") == "nothing here 42")
        #expect(!Masking.containsUnmaskedPAN(Masking.redactPANs(in: "a 4012345678909 b 4111111111111111 c")))
    }
}

@Suite("PAN scrubbing for logs: spaced, dashed, hex-dump BCD, track 2")
struct MaskingScrubberTests {
    @Test(arguments: [
        ("PAN 4761 7390 0101 0010 read", "PAN 476173******0010 read"),
        ("PAN 4761-7390-0101-0010", "PAN 476173******0010"),
        ("5A: 47 61 73 90 01 01 00 10 end", "5A: 476173******0010 end"),
        ("5A 07 40 12 34 56 78 90 9F 34", "5A 07 401234***8909 34"),
        ("t2 4761739001010010=25122011234567890", "t2 476173******0010=****"),
        ("57 4761739001010010D25122011234567890F", "57 476173******0010D****F"),
        ("card=4761739001010010;", "card=476173******0010;"),
    ])
    func scrubbed(line: String, expected: String) {
        #expect(Masking.containsUnmaskedPAN(line))
        let redacted = Masking.redactPANs(in: line)
        #expect(redacted == expected)
        #expect(!Masking.containsUnmaskedPAN(redacted))
    }

    /// Serial numbers, amounts, timestamps and ordinary hex dumps are not PANs.
    @Test(arguments: [
        "serial 1234567890123 ok",  // 13 digits, Luhn fails
        "amount 12.50 EUR, 000000001250",
        "2026-11-22 08:16:51.123 seq 12 len 0034",
        "sent message: GetInfo seq 3 12 bytes 02 00 0C 03 5F 20 01 C1 C2 C3 03",
        "KSN FFFF9876543210E00000",
        "count=1234 retries=5",
        "12 34 56 78",
    ])
    func leftAlone(line: String) {
        #expect(!Masking.containsUnmaskedPAN(line))
        #expect(Masking.redactPANs(in: line) == line)
    }
}

@Suite("Which commands' data a log may show")
struct LoggableDataTests {
    /// The allowlist holds only catalogue commands usable outside SECURED, and no card, payment or key command.
    @Test func allowlistMatchesTheCatalogue() {
        for id in Masking.commandsWithLoggableData {
            let descriptor = CommandCatalogue.descriptor(for: id)
            #expect(descriptor != nil, "\(id)")
            #expect(descriptor?.allowedStates != [.secured], "\(id) is a SECURED-only command")
        }
        for id in [
            CommandID.transactionInit, .getPlainTag, .getSecuredTag, .cardSendAPDU, .magstripeRead, .loadKey,
            .simplifiedOnlinePIN, .nfcStartTransaction, .waitCard, CommandID(0x1234),
        ] {
            #expect(!Masking.commandDataIsLoggable(id), "\(id)")
        }
    }
}

@Suite("Hex dumps of ASCII are not track 2")
struct MaskingHexFalsePositiveTests {
    /// BuildCandidateList data in hex: "…0500 74 D4 1455354524F…" is the label MAESTRO, not a PAN "D" expiry.
    @Test func asciiInHexIsLeftAlone() {
        let hex = "008407A000000004306000000000000000000050074D41455354524F0000000000000000008701029F110100DF22"
        #expect(!Masking.containsUnmaskedPAN(hex))
        // The same shape with a Luhn-valid PAN and an expiry + service code is track 2.
        #expect(Masking.containsUnmaskedPAN("4761739001010010D2512201F"))
    }
}

@Suite("Masking never leaves a PAN's middle digits next to a stretch that passes Luhn by chance")
struct MaskingOverlapTests {
    /// Every 2-digit tag byte before a PAN's length and BCD in a hex dump: whatever stretch passes the Luhn check,
    /// at most the PAN's first 6 and last 4 digits stay visible.
    @Test(arguments: 0..<100)
    func prefixedHexDump(prefix: Int) {
        let byte = prefix < 10 ? "0\(prefix)" : "\(prefix)"
        let line = "5A \(byte) 08 47 61 73 90 01 01 00 10 9F 34"
        let redacted = Masking.redactPANs(in: line)
        #expect(!Masking.containsUnmaskedPAN(redacted), "\(redacted)")
        #expect(!redacted.contains("3900101"), "\(redacted)")
        let digits = redacted.filter(\.isNumber)
        #expect(!digits.contains("739001"), "\(redacted)")
    }

    @Test(arguments: [123, 400, 9999, 55555])
    func prefixedGroups(prefix: Int) {
        let line = "id \(prefix) 4761 7390 0101 0010 ok"
        let redacted = Masking.redactPANs(in: line)
        #expect(!redacted.contains("7390"), "\(redacted)")
        #expect(!redacted.contains("0101"), "\(redacted)")
    }

    @Test func zeroFilledDataIsNotAPAN() {
        #expect(!Masking.containsUnmaskedPAN("00 00 00 00 00 00 00 00 00"))
        #expect(!Masking.containsUnmaskedPAN("0000000000000000"))
    }

    /// The scrubber runs over everything ucube prints (`Console`), so what is not card data must come out as it went
    /// in: a JSON microsecond timestamp that passes the Luhn check (1795520000007500 does: a 1 is no card industry,
    /// ISO/IEC 7812-1), digits inside a hex string, and digit-only stretches of a longer hex dump (a `--trace` line
    /// that `decode` must still read). Card data in those is found by its tag.
    @Test func outputThatIsNoCardDataIsLeftWhole() {
        #expect(Masking.luhnValid("1795520000007504"))
        #expect(
            Masking.redactPANs(in: #""unixMicroseconds": 1795520000007504,"#)
                == #""unixMicroseconds": 1795520000007504,"#)
        // A JSON double's fraction (a fleet run's "seconds"), Luhn-valid by chance.
        #expect(Masking.redactPANs(in: #"{"seconds":0.4761739001010010}"#) == #"{"seconds":0.4761739001010010}"#)
        #expect(Masking.redactPANs(in: "PAN 4761739001010010.") == "PAN 476173******0010.")
        let hexString = "C1085A4761739001010010C2"
        #expect(Masking.redactPANs(in: hexString) == hexString)
        let dump = "02 00 1C 01 55 30 47 61 73 90 01 01 00 10 9F 27"
        #expect(Masking.redactPANs(in: dump) == dump)
        // TLV-shaped, under any tag: masked.
        #expect(Masking.redactPANs(in: "DF 44 08 47 61 73 90 01 01 00 10 9F 27") == "DF 44 08 476173******0010 9F 27")
        // Tag-aware masking still finds a PAN in the same dump when its tag is there.
        #expect(Masking.redactCardDataInHex("02 00 5A 08 47 61 73 90 01 01 00 10 9F 27").contains("47 61 73 **"))
        // A PAN alone, in BCD, in words or in groups is still masked.
        #expect(Masking.redactPANs(in: "47 61 73 90 01 01 00 10") != "47 61 73 90 01 01 00 10")
        #expect(Masking.redactPANs(in: "card 4761739001010010.") == "card 476173******0010.")
        #expect(Masking.redactPANs(in: "4761 7390 0101 0010") != "4761 7390 0101 0010")
    }
}
