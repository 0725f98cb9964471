@testable import UCubeCrypto

/// Hex literal → bytes (traps on a malformed literal, which would be a bug in the test itself).
func h(_ s: String) -> [UInt8] { CryptoHex.literal(s) }

/// Bytes → uppercase hex, for readable `#expect` failure messages.
func hx(_ b: [UInt8]) -> String { CryptoHex.encode(b) }

/// Runs `body` and returns the CryptoError code it threw, or nil if it did not throw a CryptoError.
func thrownCode<T>(_ body: () throws -> T) -> CryptoError.Code? {
    do {
        _ = try body()
        return nil
    } catch let e as CryptoError {
        return e.code
    } catch {
        return nil
    }
}
