import UCubeProtocol

/// Hex for this module's errors and constants, on top of UCubeProtocol's `Hex`.
enum CryptoHex {
    static func encode(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    /// Parses hex (either case, spaces allowed); a malformed string throws `CryptoError(.invalidHex)`.
    static func decode(_ text: String) throws -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw CryptoError(.invalidHex, error.reason)
        }
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
