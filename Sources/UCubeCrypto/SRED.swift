/// SRED blob / SIGNED_CIPHERED output encryption (spec §12.3 PROJECT CHOICE).
///
/// Plaintext (the TLV of the requested tags, or a single bare value) is padded with 0x00 to a multiple of 8 bytes and
/// encrypted with TDES-CBC, IV = 0, under the data-response encryption key of the data DUKPT key at the current SRED
/// KSN. An empty plaintext encrypts to an empty ciphertext.
///
/// `decrypt` returns the **padded** plaintext: trailing zero padding cannot be told apart from trailing zero data, so
/// callers parse the TLV and ignore what follows it.
package enum SRED {
    /// Encrypts under an explicit 16-byte key (normally `DUKPT.sessionKey(…, variant: .dataResponse)`).
    package static func encrypt(plaintext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try checkKey(key)
        return try TDES.encryptCBC(key: key, iv: CryptoChoices.sredIV, data: pad(plaintext))
    }

    /// Decrypts under an explicit 16-byte key; returns the zero-padded plaintext. Throws `.invalidDataLength` when the
    /// ciphertext is not a multiple of 8 bytes.
    package static func decrypt(ciphertext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try checkKey(key)
        return try TDES.decryptCBC(key: key, iv: CryptoChoices.sredIV, data: ciphertext)
    }

    /// Host/simulator convenience: key = data-response encryption key derived from `bdk` at `ksn`.
    package static func encrypt(plaintext: [UInt8], bdk: [UInt8], ksn: KSN) throws -> [UInt8] {
        try encrypt(
            plaintext: plaintext, key: DUKPT.sessionKey(bdk: bdk, ksn: ksn, variant: CryptoChoices.sredKeyVariant))
    }

    /// Host convenience: key = data-response encryption key derived from `bdk` at `ksn`.
    package static func decrypt(ciphertext: [UInt8], bdk: [UInt8], ksn: KSN) throws -> [UInt8] {
        try decrypt(
            ciphertext: ciphertext, key: DUKPT.sessionKey(bdk: bdk, ksn: ksn, variant: CryptoChoices.sredKeyVariant))
    }

    /// Zero padding to a multiple of 8 (empty stays empty).
    static func pad(_ data: [UInt8]) -> [UInt8] {
        let rem = data.count % 8
        return rem == 0 ? data : data + [UInt8](repeating: CryptoChoices.sredPadByte, count: 8 - rem)
    }

    private static func checkKey(_ key: [UInt8]) throws {
        guard key.count == 16 else {
            throw CryptoError(.invalidKeyLength, "SRED key must be 16 bytes, got \(key.count)")
        }
    }
}
