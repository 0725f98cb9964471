import Testing

@testable import UCubeCrypto

@Suite struct PINBlockTests {
    let pan = "4012345678909"
    let pinKey1 = h("042666B49184CF5C68DE9628D0397B36")  // spec §12.3 counter-1 PIN key

    /// Deterministic "random" bytes for a case (simple LCG; the tests only need variety, not randomness).
    static func fill(seed: UInt32, count: Int = 16) -> [UInt8] {
        var s = seed &* 2_654_435_761 &+ 12345
        return (0..<count).map { _ in
            s = s &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: s >> 16)
        }
    }

    // MARK: known answers

    // Source: spec §12.3 / X9.24-1 Annex A (clear ISO-0 block) — also covered with encryption in DUKPTTests.
    @Test func format0SpecVector() throws {
        #expect(hx(try PINBlock.encode(pin: "1234", pan: pan, format: .iso0)) == "041274EDCBA9876F")
    }

    // Python-computed (independent ISO 9564 format 0 construction): 12-digit PIN 123456789012, PAN 5413330089600010.
    @Test func format0TwelveDigitVector() throws {
        let b = try PINBlock.encode(pin: "123456789012", pan: "5413330089600010", format: .iso0)
        #expect(hx(b) == "0C120766700612FE")
        #expect(try PINBlock.decode(block: b, pan: "5413330089600010", format: .iso0) == "123456789012")
    }

    // Python-computed: format 3, PIN 1234, PAN 4012345678909, random bytes 00…09 → fill nibbles A,B,C,D,E,F,A,B,C,D
    // (0xA + b % 6): PIN field 341234ABCDEFABCD ⊕ PAN field 0000401234567890 = 341274B9F9B9D35D; TDES-ECB under the
    // counter-1 PIN key → 2B98101DDC1C59FC.
    @Test func format3Vector() throws {
        let rnd: [UInt8] = Array(0...9)
        let clear = try PINBlock.encode(pin: "1234", pan: pan, format: .iso3, randomBytes: rnd)
        #expect(hx(clear) == "341274B9F9B9D35D")
        #expect(
            hx(try PINBlock.encrypt(pin: "1234", pan: pan, format: .iso3, randomBytes: rnd, key: pinKey1))
                == "2B98101DDC1C59FC")
        #expect(try PINBlock.decrypt(block: h("2B98101DDC1C59FC"), pan: pan, format: .iso3, key: pinKey1) == "1234")
    }

    // Python-computed: format 1, PIN 1234, fill = low nibbles of 5A 3C F1 07 88 99 10 2E 4D 66 → 141234AC17890ED6;
    // under the counter-1 PIN key → CCBDD66D6980070F.
    @Test func format1Vector() throws {
        let rnd: [UInt8] = [0x5A, 0x3C, 0xF1, 0x07, 0x88, 0x99, 0x10, 0x2E, 0x4D, 0x66]
        #expect(hx(try PINBlock.encode(pin: "1234", pan: nil, format: .iso1, randomBytes: rnd)) == "141234AC17890ED6")
        #expect(
            hx(try PINBlock.encrypt(pin: "1234", pan: nil, format: .iso1, randomBytes: rnd, key: pinKey1))
                == "CCBDD66D6980070F")
        #expect(try PINBlock.decrypt(block: h("CCBDD66D6980070F"), pan: nil, format: .iso1, key: pinKey1) == "1234")
    }

    // Hand-built from the ISO 9564-1:2017 format 4 field layout: PIN field = 4 N PIN, fill A to 16 nibbles, then 8
    // random bytes; PAN field = M (PAN length − 12) ‖ PAN ‖ 0-fill; a PAN shorter than 12 digits is left-padded with
    // zeros to 12 and M = 0.
    @Test func format4Fields() throws {
        let rnd = h("1122334455667788")
        let f = try PINBlock.format4Fields(pin: "1234", pan: "1234567890123456789", randomBytes: rnd)
        #expect(hx(f.pinField) == "441234AAAAAAAAAA1122334455667788")
        #expect(hx(f.panField) == "71234567890123456789000000000000")
        #expect(hx(try PINBlock.format4PANField(pan: pan)) == "14012345678909000000000000000000")
        #expect(hx(try PINBlock.format4PANField(pan: "123456789012")) == "01234567890120000000000000000000")
        #expect(hx(try PINBlock.format4PANField(pan: "12345678901")) == "00123456789010000000000000000000")
        #expect(
            hx(try PINBlock.encode(pin: "123456789012", pan: pan, format: .iso4, randomBytes: rnd))
                == "4C123456789012AA1122334455667788")
        #expect(try PINBlock.decode(block: f.pinField, pan: nil, format: .iso4) == "1234")
        #expect(!f.description.contains("1234"))
        #expect(!String(reflecting: f).contains("44"))
    }

    // MARK: round trips

    static let pans = [
        "4012345678909", "5413330089600010", "4761739001010010", "6011000990139424", "1234567890123456789", "12",
    ]

    @Test(arguments: PINBlockFormat.allCases)
    func roundTripAllLengths(format: PINBlockFormat) throws {
        var seed: UInt32 = 1
        for pan in Self.pans {
            for length in 4...12 {
                seed += 1
                let pin = String((0..<length).map { Character(String(($0 * 7 + Int(seed)) % 10)) })
                let rnd = Self.fill(seed: seed)
                #expect(rnd.count >= PINBlock.randomByteCount(pinLength: length, format: format))
                let block = try PINBlock.encode(pin: pin, pan: pan, format: format, randomBytes: rnd)
                #expect(block.count == (format == .iso4 ? 16 : 8))
                #expect(try PINBlock.decode(block: block, pan: pan, format: format) == pin)
                if format != .iso4 {
                    let enc = try PINBlock.encrypt(pin: pin, pan: pan, format: format, randomBytes: rnd, key: pinKey1)
                    #expect(enc == (try PINBlock.encrypt(clearBlock: block, key: pinKey1)))
                    #expect(try PINBlock.decrypt(block: enc, pan: pan, format: format, key: pinKey1) == pin)
                    #expect(try PINBlock.decrypt(encryptedBlock: enc, key: pinKey1) == block)
                }
            }
        }
    }

    @Test func format3FillIsAlwaysAtoF() throws {
        for seed in UInt32(0)..<64 {
            let clear = try PINBlock.encode(
                pin: "9876", pan: "0000000000000", format: .iso3, randomBytes: Self.fill(seed: seed))
            // PAN of zeros → the block is the bare PIN field
            let nibbles = PINBlock.unpack(clear)
            #expect(Array(nibbles[0..<6]) == [3, 4, 9, 8, 7, 6])
            #expect(nibbles[6...].allSatisfy { (0xA...0xF).contains($0) })
        }
    }

    @Test func differentRandomBytesGiveDifferentFormat3Blocks() throws {
        let a = try PINBlock.encode(pin: "1234", pan: pan, format: .iso3, randomBytes: Self.fill(seed: 1))
        let b = try PINBlock.encode(pin: "1234", pan: pan, format: .iso3, randomBytes: Self.fill(seed: 2))
        #expect(a != b)
    }

    // MARK: wrong PAN / malformed blocks

    // The wrong PAN differs in the last digit before the check digit by XOR 8 ('0' ↔ '8'); that digit always sits
    // on a fill nibble (position 15), where F ⊕ 8 = 7 (format 0) and A…F ⊕ 8 = 2…7 (format 3) are both illegal.
    @Test(arguments: [PINBlockFormat.iso0, .iso3])
    func wrongPANDetected(format: PINBlockFormat) throws {
        let wrongPAN = "4012345678989"
        for length in 4...12 {
            let pin = String("123456789012".prefix(length))
            let block = try PINBlock.encode(
                pin: pin, pan: pan, format: format, randomBytes: Self.fill(seed: UInt32(length)))
            #expect(
                thrownCode { try PINBlock.decode(block: block, pan: wrongPAN, format: format) } == .malformedPINBlock)
            let enc = try PINBlock.encrypt(clearBlock: block, key: pinKey1)
            #expect(
                thrownCode { try PINBlock.decrypt(block: enc, pan: wrongPAN, format: format, key: pinKey1) }
                    == .malformedPINBlock)
        }
    }

    @Test func wrongKeyDetected() throws {
        let enc = try PINBlock.encrypt(pin: "1234", pan: pan, format: .iso0, key: pinKey1)
        let otherKey = h("C46551CEF9FD244FAA9AD834130D3B38")
        #expect(
            thrownCode { try PINBlock.decrypt(block: enc, pan: pan, format: .iso0, key: otherKey) }
                == .malformedPINBlock)
    }

    @Test func malformedBlocksRejected() {
        // format 0 block read as format 3 / format 1: control nibble mismatch
        #expect(
            thrownCode { try PINBlock.decode(block: h("041274EDCBA9876F"), pan: pan, format: .iso3) }
                == .malformedPINBlock)
        #expect(
            thrownCode { try PINBlock.decode(block: h("041274EDCBA9876F"), pan: nil, format: .iso1) }
                == .malformedPINBlock)
        // PIN length 3 and 13
        #expect(
            thrownCode { try PINBlock.decode(block: h("13123FFFFFFFFFFF"), pan: nil, format: .iso1) }
                == .malformedPINBlock)
        #expect(
            thrownCode { try PINBlock.decode(block: h("1D12345678901234"), pan: nil, format: .iso1) }
                == .malformedPINBlock)
        // non-decimal PIN digit
        #expect(
            thrownCode { try PINBlock.decode(block: h("14123A0000000000"), pan: nil, format: .iso1) }
                == .malformedPINBlock)
        // format 0 fill must be F
        #expect(
            thrownCode { try PINBlock.decode(block: h("041234FFFFFFFFFE"), pan: "0000000000000", format: .iso0) }
                == .malformedPINBlock)
        #expect(
            thrownCode { try PINBlock.decode(block: h("041234FFFFFFFFFF"), pan: "0000000000000", format: .iso0) } == nil
        )
        // format 4 fill must be A
        #expect(
            thrownCode { try PINBlock.decode(block: h("441234AAAAAAAAAB1122334455667788"), pan: nil, format: .iso4) }
                == .malformedPINBlock)
        // wrong block sizes
        #expect(
            thrownCode { try PINBlock.decode(block: h("041274EDCBA987"), pan: pan, format: .iso0) }
                == .invalidDataLength)
        #expect(
            thrownCode { try PINBlock.decode(block: h("041274EDCBA9876F"), pan: pan, format: .iso4) }
                == .invalidDataLength)
        #expect(
            thrownCode { try PINBlock.decrypt(encryptedBlock: h("0412"), key: h("042666B49184CF5C68DE9628D0397B36")) }
                == .invalidDataLength)
    }

    // MARK: bad input

    @Test func badPINsAndPANsThrow() {
        for bad in ["", "123", "1234567890123", "12a4", "12 4", "１２３４"] {
            #expect(thrownCode { try PINBlock.encode(pin: bad, pan: pan, format: .iso0) } == .invalidPIN, "\(bad)")
        }
        #expect(thrownCode { try PINBlock.encode(pin: "1234", pan: nil, format: .iso0) } == .invalidPAN)
        #expect(
            thrownCode { try PINBlock.encode(pin: "1234", pan: nil, format: .iso3, randomBytes: Self.fill(seed: 0)) }
                == .invalidPAN)
        #expect(thrownCode { try PINBlock.encode(pin: "1234", pan: "40123X5678909", format: .iso0) } == .invalidPAN)
        #expect(
            thrownCode { try PINBlock.encode(pin: "1234", pan: "12345678901234567890", format: .iso0) } == .invalidPAN)
        #expect(
            thrownCode { try PINBlock.decode(block: h("041274EDCBA9876F"), pan: nil, format: .iso0) } == .invalidPAN)
        #expect(thrownCode { try PINBlock.format4PANField(pan: "1") } == .invalidPAN)
    }

    @Test func insufficientRandomBytesThrow() {
        #expect(
            thrownCode {
                try PINBlock.encode(pin: "1234", pan: nil, format: .iso1, randomBytes: Array(repeating: 0, count: 9))
            } == .insufficientRandomBytes)
        #expect(thrownCode { try PINBlock.encode(pin: "1234", pan: pan, format: .iso3) } == .insufficientRandomBytes)
        #expect(
            thrownCode {
                try PINBlock.encode(pin: "1234", pan: pan, format: .iso4, randomBytes: Array(repeating: 0, count: 7))
            } == .insufficientRandomBytes)
        // a 12-digit PIN needs only 2 fill nibbles in formats 1/3; format 0 needs none
        #expect(
            thrownCode { try PINBlock.encode(pin: "123456789012", pan: pan, format: .iso3, randomBytes: [1, 2]) } == nil
        )
        #expect(PINBlock.randomByteCount(pinLength: 4, format: .iso0) == 0)
        #expect(PINBlock.randomByteCount(pinLength: 4, format: .iso1) == 10)
        #expect(PINBlock.randomByteCount(pinLength: 12, format: .iso3) == 2)
        #expect(PINBlock.randomByteCount(pinLength: 6, format: .iso4) == 8)
    }

    @Test func format4TDESUnsupported() {
        let rnd = Self.fill(seed: 9)
        #expect(
            thrownCode { try PINBlock.encrypt(pin: "1234", pan: pan, format: .iso4, randomBytes: rnd, key: pinKey1) }
                == .unsupported)
        #expect(
            thrownCode {
                try PINBlock.decrypt(block: [UInt8](repeating: 0, count: 16), pan: pan, format: .iso4, key: pinKey1)
            } == .unsupported)
    }

    @Test func badPINKeyLengthThrows() {
        #expect(
            thrownCode { try PINBlock.encrypt(pin: "1234", pan: pan, format: .iso0, key: h("042666B49184CF5C")) }
                == .invalidKeyLength)
    }
}
