/// Minimal hex helpers (internal; uppercase output). Kept local so this module needs nothing beyond the standard
/// library and libcrypto.
enum CryptoHex {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        var out = String.UnicodeScalarView()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(out)
    }

    /// Parses hex (either case); spaces are ignored. Throws `.invalidHex` on odd length or a non-hex character.
    static func decode(_ text: String) throws -> [UInt8] {
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(c - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(c - UInt8(ascii: "A") + 10)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: " "): continue
            default: throw CryptoError(.invalidHex, "non-hex character in hex string")
            }
        }
        guard nibbles.count % 2 == 0 else { throw CryptoError(.invalidHex, "hex string has an odd number of digits") }
        var out: [UInt8] = []
        out.reserveCapacity(nibbles.count / 2)
        var i = 0
        while i < nibbles.count {
            out.append(nibbles[i] << 4 | nibbles[i + 1])
            i += 2
        }
        return out
    }

    /// For compile-time-known literals only (project constants); traps on a malformed literal.
    static func literal(_ text: String) -> [UInt8] {
        do { return try decode(text) } catch { preconditionFailure("malformed hex literal in UCubeCrypto") }
    }
}

enum Bytes {
    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        precondition(a.count == b.count)
        var out = a
        for i in out.indices { out[i] ^= b[i] }
        return out
    }

    /// Constant-time equality for equal-length inputs (length itself is not secret).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
