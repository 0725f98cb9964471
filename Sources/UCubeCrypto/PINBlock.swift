/// ISO 9564-1 PIN block formats supported by the project (spec §12.3: format 0 by default; 1, 3 and 4 selectable).
package enum PINBlockFormat: UInt8, CaseIterable, Sendable {
    /// Format 0 (8 bytes): `0 N PIN F…F` XOR `0000` + 12 rightmost PAN digits excluding the check digit.
    case iso0 = 0
    /// Format 1 (8 bytes): `1 N PIN` + transaction-field fill (any hex nibbles); not bound to a PAN.
    case iso1 = 1
    /// Format 3 (8 bytes): like format 0 but the fill nibbles are random values A–F.
    case iso3 = 3
    /// Format 4 (16 bytes, ISO 9564-1:2017, AES): clear PIN field and PAN field only; see `PINBlock`.
    case iso4 = 4
}

/// ISO 9564-1 PIN block construction, parsing and TDES encipherment.
///
/// Everything is deterministic: the caller supplies the fill/random bytes (`randomBytes`), so a seeded simulator
/// reproduces its output. `randomByteCount(pinLength:format:)` tells how many are consumed (extra bytes are ignored):
/// * format 0: none;
/// * format 1: one byte per fill nibble (14 − PIN length); the low nibble of each byte is used;
/// * format 3: one byte per fill nibble (14 − PIN length); each byte maps to `0xA + byte % 6` (A–F);
/// * format 4: 8 bytes, used as-is as the random right half of the PIN field.
///
/// **Format 4 choice.** ISO 9564-1:2017 format 4 is enciphered with AES as
/// `E_K(E_K(PIN field) ⊕ PAN field)`; this project uses no AES, so `encode(…format: .iso4…)` returns the 16-byte clear
/// **PIN field** (`4 N PIN A…A` ‖ 8 random bytes), `format4PANField(pan:)` / `format4Fields` give the 16-byte clear
/// PAN field (`M` ‖ PAN left-justified ‖ zero fill, M = PAN length − 12), and `decode(…format: .iso4)` parses a
/// clear PIN field (the PAN is not involved: it is bound only by the AES step). The TDES helpers `encrypt`/`decrypt`
/// support formats 0, 1 and 3 and throw `.unsupported` for format 4.
///
/// PINs are 4 to 12 decimal digits. PANs are 2 to 19 decimal digits (formats 0 and 3 use the 12 rightmost digits
/// excluding the check digit, left-padded with zeros when shorter; format 1 ignores the PAN, which may be nil).
package enum PINBlock {
    package static let minPINLength = 4
    package static let maxPINLength = 12

    /// How many caller-supplied random bytes `encode` consumes for this PIN length and format.
    package static func randomByteCount(pinLength: Int, format: PINBlockFormat) -> Int {
        switch format {
        case .iso0: 0
        case .iso1, .iso3: max(0, 14 - pinLength)
        case .iso4: 8
        }
    }

    /// Clear PIN block: 8 bytes for formats 0, 1, 3 (already combined with the PAN for 0 and 3); for format 4 the
    /// 16-byte clear PIN field.
    package static func encode(
        pin: String, pan: String?, format: PINBlockFormat, randomBytes: [UInt8] = []
    ) throws -> [UInt8] {
        let digits = try pinDigits(pin)
        let needed = randomByteCount(pinLength: digits.count, format: format)
        guard randomBytes.count >= needed else {
            throw CryptoError(
                .insufficientRandomBytes,
                "format \(format.rawValue) with a \(digits.count)-digit PIN needs \(needed) random bytes, got \(randomBytes.count)"
            )
        }
        var nibbles: [UInt8] = [format.rawValue, UInt8(digits.count)] + digits
        switch format {
        case .iso0:
            nibbles += [UInt8](repeating: 0xF, count: 16 - nibbles.count)
            return Bytes.xor(pack(nibbles), try panField(pan))
        case .iso1:
            nibbles += randomBytes.prefix(needed).map { $0 & 0x0F }
            return pack(nibbles)
        case .iso3:
            nibbles += randomBytes.prefix(needed).map { 0xA + $0 % 6 }
            return Bytes.xor(pack(nibbles), try panField(pan))
        case .iso4:
            nibbles += [UInt8](repeating: 0xA, count: 16 - nibbles.count)
            return pack(nibbles) + Array(randomBytes.prefix(8))
        }
    }

    /// Recovers the PIN from a clear PIN block (8 bytes; 16-byte clear PIN field for format 4), validating the
    /// control nibble, PIN length, digits and fill. A wrong PAN usually shows up as `.malformedPINBlock` (always when
    /// it changes a fill nibble in a way the format forbids), but a PAN difference falling only on PIN digit
    /// positions can go unnoticed — the block format cannot detect it.
    package static func decode(block: [UInt8], pan: String?, format: PINBlockFormat) throws -> String {
        let expected = format == .iso4 ? 16 : 8
        guard block.count == expected else {
            throw CryptoError(
                .invalidDataLength, "format \(format.rawValue) PIN block must be \(expected) bytes, got \(block.count)")
        }
        let clear: [UInt8]
        switch format {
        case .iso0, .iso3: clear = Bytes.xor(block, try panField(pan))
        case .iso1, .iso4: clear = block
        }
        let nibbles = unpack(Array(clear.prefix(8)))
        guard nibbles[0] == format.rawValue else {
            throw CryptoError(.malformedPINBlock, "control field does not match format \(format.rawValue)")
        }
        let n = Int(nibbles[1])
        guard (minPINLength...maxPINLength).contains(n) else {
            throw CryptoError(.malformedPINBlock, "PIN length field out of range 4...12")
        }
        let pinNibbles = nibbles[2..<(2 + n)]
        guard pinNibbles.allSatisfy({ $0 <= 9 }) else {
            throw CryptoError(.malformedPINBlock, "PIN field contains a non-decimal digit")
        }
        let fill = nibbles[(2 + n)...]
        let fillOK: Bool
        switch format {
        case .iso0: fillOK = fill.allSatisfy { $0 == 0xF }
        case .iso1: fillOK = true
        case .iso3: fillOK = fill.allSatisfy { $0 >= 0xA }
        case .iso4: fillOK = fill.allSatisfy { $0 == 0xA }
        }
        guard fillOK else {
            throw CryptoError(.malformedPINBlock, "fill nibbles invalid for format \(format.rawValue)")
        }
        return String(decoding: pinNibbles.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
    }

    // MARK: Format 4 plain data

    /// The two 16-byte clear fields of an ISO 9564-1:2017 format 4 block (AES input). `description` is redacted.
    package struct Format4Fields: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// `4 N PIN A…A` (8 bytes) ‖ 8 random bytes.
        package let pinField: [UInt8]
        /// `M` ‖ PAN digits (left-justified) ‖ `0…0`, M = max(0, PAN length − 12).
        package let panField: [UInt8]

        package var description: String { "PINBlock.Format4Fields(<redacted>)" }
        package var debugDescription: String { description }
        package var customMirror: Mirror { Mirror(self, children: ["fields": "<redacted>"]) }
    }

    /// Both clear fields of a format 4 block.
    package static func format4Fields(pin: String, pan: String, randomBytes: [UInt8]) throws -> Format4Fields {
        Format4Fields(
            pinField: try encode(pin: pin, pan: pan, format: .iso4, randomBytes: randomBytes),
            panField: try format4PANField(pan: pan)
        )
    }

    /// Format 4 PAN field (16 bytes): nibble M = PAN length − 12 (0 when shorter; a PAN shorter than 12 digits is
    /// right-justified in 12 digits with leading zeros), then the PAN, then zero nibbles.
    package static func format4PANField(pan: String) throws -> [UInt8] {
        var digits = try panDigits(pan)
        let m = max(0, digits.count - 12)
        if digits.count < 12 { digits = [UInt8](repeating: 0, count: 12 - digits.count) + digits }
        var nibbles: [UInt8] = [UInt8(m)] + digits
        nibbles += [UInt8](repeating: 0, count: 32 - nibbles.count)
        return pack(nibbles)
    }

    // MARK: TDES encipherment (formats 0, 1, 3)

    /// Builds a clear PIN block and enciphers it with TDES-ECB under `key` (normally the DUKPT PIN variant key,
    /// 16 bytes). Throws `.unsupported` for format 4 (AES only).
    package static func encrypt(
        pin: String, pan: String?, format: PINBlockFormat, randomBytes: [UInt8] = [], key: [UInt8]
    ) throws -> [UInt8] {
        try rejectFormat4(format)
        return try encrypt(clearBlock: encode(pin: pin, pan: pan, format: format, randomBytes: randomBytes), key: key)
    }

    /// Deciphers an 8-byte encrypted PIN block and returns the PIN. Throws `.unsupported` for format 4.
    package static func decrypt(block: [UInt8], pan: String?, format: PINBlockFormat, key: [UInt8]) throws -> String {
        try rejectFormat4(format)
        return try decode(block: decrypt(encryptedBlock: block, key: key), pan: pan, format: format)
    }

    /// TDES-ECB of an 8-byte clear PIN block under a 16-byte key.
    package static func encrypt(clearBlock: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try checkBlockAndKey(clearBlock, key)
        return try TDES.encryptECB(key: key, data: clearBlock)
    }

    /// TDES-ECB decryption of an 8-byte encrypted PIN block under a 16-byte key.
    package static func decrypt(encryptedBlock: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try checkBlockAndKey(encryptedBlock, key)
        return try TDES.decryptECB(key: key, data: encryptedBlock)
    }

    // MARK: - Internal

    private static func rejectFormat4(_ format: PINBlockFormat) throws {
        if format == .iso4 {
            throw CryptoError(.unsupported, "ISO 9564 format 4 is AES-only; TDES encipherment is not supported")
        }
    }

    private static func checkBlockAndKey(_ block: [UInt8], _ key: [UInt8]) throws {
        guard key.count == 16 else {
            throw CryptoError(.invalidKeyLength, "PIN key must be 16 bytes, got \(key.count)")
        }
        guard block.count == 8 else {
            throw CryptoError(.invalidDataLength, "PIN block must be 8 bytes, got \(block.count)")
        }
    }

    static func pinDigits(_ pin: String) throws -> [UInt8] {
        let utf8 = Array(pin.utf8)
        guard (minPINLength...maxPINLength).contains(utf8.count),
            utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw CryptoError(.invalidPIN, "PIN must be 4 to 12 decimal digits") }
        return utf8.map { $0 - UInt8(ascii: "0") }
    }

    static func panDigits(_ pan: String?) throws -> [UInt8] {
        guard let pan else { throw CryptoError(.invalidPAN, "this PIN block format needs a PAN") }
        let utf8 = Array(pan.utf8)
        guard (2...19).contains(utf8.count), utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw CryptoError(.invalidPAN, "PAN must be 2 to 19 decimal digits") }
        return utf8.map { $0 - UInt8(ascii: "0") }
    }

    /// Formats 0/3 PAN field: `0000` + the 12 rightmost PAN digits excluding the check digit (zero-padded on the left).
    static func panField(_ pan: String?) throws -> [UInt8] {
        var digits = try panDigits(pan)
        digits.removeLast()
        let take = Array(digits.suffix(12))
        return pack([UInt8](repeating: 0, count: 16 - take.count) + take)
    }

    static func pack(_ nibbles: [UInt8]) -> [UInt8] {
        precondition(nibbles.count % 2 == 0)
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    static func unpack(_ bytes: [UInt8]) -> [UInt8] {
        bytes.flatMap { [$0 >> 4, $0 & 0x0F] }
    }
}
