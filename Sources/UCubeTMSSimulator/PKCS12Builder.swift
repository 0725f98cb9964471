import CLibCrypto

/// Builds the PKCS#12 keystore the TMS returns on register (spec §10.3) with libcrypto's `PKCS12_create`: password
/// and alias from `TMSSimulatorChoices`, one key entry (key + certificate), legacy PBE-SHA1-3DES and a SHA-1 MAC so
/// that BoringSSL (`NIOSSLPKCS12Bundle`) and Java keystores read it.
package enum PKCS12Builder {
    /// - Parameters:
    ///   - certificatePEM: the client certificate (PEM).
    ///   - privateKeyPEM: its private key (PKCS#8 or traditional PEM).
    /// - Returns: the DER of the PKCS#12.
    package static func build(
        certificatePEM: String,
        privateKeyPEM: String,
        password: String = TMSSimulatorChoices.pkcs12Password,
        alias: String = TMSSimulatorChoices.pkcs12Alias
    ) throws(TMSSimulatorError) -> [UInt8] {
        guard let certificate = readPEM(certificatePEM, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw TMSSimulatorError(.pki, "PKCS#12: the certificate PEM does not parse (\(lastError()))")
        }
        defer { X509_free(certificate) }
        guard let key = readPEM(privateKeyPEM, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw TMSSimulatorError(.pki, "PKCS#12: the private key PEM does not parse (\(lastError()))")
        }
        defer { EVP_PKEY_free(key) }
        guard X509_check_private_key(certificate, key) == 1 else {
            throw TMSSimulatorError(.pki, "PKCS#12: the private key does not match the certificate")
        }
        let algorithm = NID_pbe_WithSHA1And3_Key_TripleDES_CBC
        let iterations = TMSSimulatorChoices.pkcs12Iterations
        guard
            let p12 = PKCS12_create(
                password, alias, key, certificate, nil, algorithm, algorithm, iterations, iterations, 0)
        else {
            throw TMSSimulatorError(.pki, "PKCS12_create failed (\(lastError()))")
        }
        defer { PKCS12_free(p12) }
        let length = i2d_PKCS12(p12, nil)
        guard length > 0 else { throw TMSSimulatorError(.pki, "i2d_PKCS12 failed (\(lastError()))") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PKCS12(p12, &cursor)
        }
        guard written == length else { throw TMSSimulatorError(.pki, "i2d_PKCS12 wrote \(written) of \(length) bytes") }
        return der
    }

    private static func readPEM<T>(_ pem: String, _ read: (OpaquePointer) -> T?) -> T? {
        let bytes = Array(pem.utf8)
        return bytes.withUnsafeBytes { raw -> T? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }

    private static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no libcrypto error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
