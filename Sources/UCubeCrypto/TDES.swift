import CLibCrypto

/// Triple-DES (and single DES) block operations, all performed by OpenSSL's EVP API.
///
/// * A 16-byte key is 2-key TDES (K1‖K2, EDE with K1 again as the third key): `EVP_des_ede_ecb()` /
///   `EVP_des_ede_cbc()` from OpenSSL 3's default provider.
/// * An 8-byte key K is single DES, computed as 2-key TDES with K‖K (E_K ∘ D_K ∘ E_K = E_K), so the legacy
///   provider is never needed.
/// * Data must be a whole number of 8-byte blocks (padding is disabled; callers pad explicitly). Empty data yields
///   empty output.
///
/// No key material ever appears in thrown errors.
package enum TDES {
    /// DES/TDES block size in bytes.
    package static let blockSize = 8

    package static func encryptECB(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        try run(mode: .ecb, key: key, iv: nil, data: data, encrypt: true)
    }

    package static func decryptECB(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        try run(mode: .ecb, key: key, iv: nil, data: data, encrypt: false)
    }

    package static func encryptCBC(key: [UInt8], iv: [UInt8], data: [UInt8]) throws -> [UInt8] {
        try run(mode: .cbc, key: key, iv: iv, data: data, encrypt: true)
    }

    package static func decryptCBC(key: [UInt8], iv: [UInt8], data: [UInt8]) throws -> [UInt8] {
        try run(mode: .cbc, key: key, iv: iv, data: data, encrypt: false)
    }

    // MARK: - Implementation

    private enum Mode { case ecb, cbc }

    private static func run(mode: Mode, key: [UInt8], iv: [UInt8]?, data: [UInt8], encrypt: Bool) throws -> [UInt8] {
        let fullKey: [UInt8]
        switch key.count {
        case 16: fullKey = key
        case 8: fullKey = key + key
        default:
            throw CryptoError(.invalidKeyLength, "TDES key must be 8 or 16 bytes, got \(key.count)")
        }
        if let iv, iv.count != blockSize {
            throw CryptoError(.invalidIVLength, "TDES IV must be 8 bytes, got \(iv.count)")
        }
        guard data.count % blockSize == 0 else {
            throw CryptoError(.invalidDataLength, "TDES data must be a multiple of 8 bytes, got \(data.count)")
        }
        if data.isEmpty { return [] }
        guard data.count <= Int(Int32.max) - blockSize else {
            throw CryptoError(.invalidDataLength, "TDES data too large")
        }

        guard let ctx = EVP_CIPHER_CTX_new() else { throw openSSLError("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }

        let cipher = mode == .ecb ? Self.ecb.cipher : Self.cbc.cipher
        guard cipher != nil else { throw openSSLError("EVP_CIPHER_fetch DES-EDE") }

        let initOK: Int32 = fullKey.withUnsafeBufferPointer { keyPtr in
            if let iv {
                return iv.withUnsafeBufferPointer { ivPtr in
                    EVP_CipherInit_ex(ctx, cipher, nil, keyPtr.baseAddress, ivPtr.baseAddress, encrypt ? 1 : 0)
                }
            }
            return EVP_CipherInit_ex(ctx, cipher, nil, keyPtr.baseAddress, nil, encrypt ? 1 : 0)
        }
        guard initOK == 1 else { throw openSSLError("EVP_CipherInit_ex") }
        guard EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 else { throw openSSLError("EVP_CIPHER_CTX_set_padding") }

        var out = [UInt8](repeating: 0, count: data.count + blockSize)
        var produced: Int32 = 0
        var finalLen: Int32 = 0
        let ok: Bool = out.withUnsafeMutableBufferPointer { outPtr in
            data.withUnsafeBufferPointer { inPtr in
                guard EVP_CipherUpdate(ctx, outPtr.baseAddress, &produced, inPtr.baseAddress, Int32(data.count)) == 1
                else { return false }
                return EVP_CipherFinal_ex(ctx, outPtr.baseAddress! + Int(produced), &finalLen) == 1
            }
        }
        guard ok else { throw openSSLError("EVP_CipherUpdate/Final") }
        let total = Int(produced) + Int(finalLen)
        guard total == data.count else {
            throw CryptoError(.openSSLFailure, "libcrypto produced \(total) bytes for \(data.count) input bytes")
        }
        return Array(out[0..<total])
    }

    /// A cipher fetched once from OpenSSL 3's default provider. `EVP_des_ede_ecb()` handed to `EVP_CipherInit_ex`
    /// makes libcrypto fetch the implementation again on every call (an implicit fetch: a search of the provider's
    /// method store, 6.2 M instructions over the 32 TDES calls of a payment, issue 27); an explicitly fetched one is
    /// used as it is. `@unchecked Sendable`: a fetched `EVP_CIPHER` is immutable and reference-counted, and OpenSSL
    /// allows one to be shared by every thread (openssl-threads(7)). Never freed: it lives as long as the process.
    private struct Fetched: @unchecked Sendable {
        let cipher: OpaquePointer?

        /// `name` from the default provider, or the legacy accessor's cipher when the fetch fails (no default
        /// provider loaded by the configuration): it fetches implicitly, as before.
        init(_ name: String, fallback: () -> OpaquePointer?) {
            cipher = EVP_CIPHER_fetch(nil, name, nil) ?? fallback()
        }
    }

    /// Fetched on first use, not at start-up (`ucube --version` loads no cipher).
    private static let ecb = Fetched("DES-EDE-ECB") { EVP_des_ede_ecb() }
    private static let cbc = Fetched("DES-EDE-CBC") { EVP_des_ede_cbc() }

    private static func openSSLError(_ step: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        return CryptoError(.openSSLFailure, "\(step) failed (libcrypto error 0x\(String(code, radix: 16)))")
    }
}
