/// ISO/IEC 9797-1 MAC algorithm 3 ("retail MAC", ANSI X9.19) with padding method 1 or 2, DES block cipher.
///
/// Key K1‖K2 (16 bytes). The data is padded to a multiple of 8 bytes (`Padding`); CBC single-DES under K1 with a
/// zero IV over all blocks; the last output block is then decrypted with K2 and encrypted with K1. All DES operations
/// go through `TDES` (OpenSSL EVP).
///
/// Spec §12.3 MAC PROJECT CHOICE: the secured-frame MAC is `mac4` (the 4 leftmost bytes) keyed with the DUKPT
/// MAC-response variant (terminal → host) or MAC-request variant (host → terminal).
package enum RetailMAC {
    /// How the data is filled to whole 8-byte blocks before the MAC (ISO/IEC 9797-1 §6.3).
    package enum Padding: Sendable, Hashable {
        /// Padding method 1: zero bytes to a multiple of 8; an empty input becomes one zero block. The secured
        /// frames' MAC (spec §12.3).
        case method1
        /// Padding method 2: one 0x80 byte, then zero bytes to a multiple of 8 (always at least one byte added).
        /// The EMV application cryptogram's MAC (EMV Book 2 Annex A1.2.1).
        case method2
    }

    /// Full 8-byte MAC of `data` padded by `padding` (padding method 1 unless told).
    package static func compute(key: [UInt8], data: [UInt8], padding: Padding = .method1) throws -> [UInt8] {
        guard key.count == 16 else {
            throw CryptoError(.invalidKeyLength, "retail MAC key must be 16 bytes, got \(key.count)")
        }
        let k1 = Array(key[0..<8]), k2 = Array(key[8..<16])
        let padded = padding == .method1 ? pad(data) : padMethod2(data)
        let cbc = try TDES.encryptCBC(key: k1, iv: CryptoChoices.sredIV, data: padded)
        let last = Array(cbc[(cbc.count - 8)...])
        return try TDES.encryptECB(key: k1, data: TDES.decryptECB(key: k2, data: last))
    }

    /// The 4 leftmost bytes of `compute` (spec §12.3 secured-frame MAC).
    package static func mac4(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        Array(try compute(key: key, data: data).prefix(CryptoChoices.macLength))
    }

    /// Checks a 4-byte (truncated) or 8-byte MAC in constant time. Any other MAC length returns false.
    package static func verify(mac: [UInt8], key: [UInt8], data: [UInt8]) throws -> Bool {
        let full = try compute(key: key, data: data)
        guard mac.count == 4 || mac.count == 8 else { return false }
        return Bytes.constantTimeEqual(Array(full.prefix(mac.count)), mac)
    }

    /// ISO 9797-1 padding method 1: append zero bytes to a multiple of 8; empty input → one zero block.
    static func pad(_ data: [UInt8]) -> [UInt8] {
        if data.isEmpty { return [UInt8](repeating: 0, count: 8) }
        let rem = data.count % 8
        return rem == 0 ? data : data + [UInt8](repeating: 0, count: 8 - rem)
    }

    /// ISO 9797-1 padding method 2: append 0x80, then zero bytes to a multiple of 8.
    static func padMethod2(_ data: [UInt8]) -> [UInt8] {
        let marked = data + [0x80]
        let rem = marked.count % 8
        return rem == 0 ? marked : marked + [UInt8](repeating: 0, count: 8 - rem)
    }
}
