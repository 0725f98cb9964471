import CLibCrypto
import NIOSSL

/// The per-terminal TLS client identity the TMS returns on register: a PKCS#12 keystore with password "gmxsas" holding
/// one private key and its certificate (spec §10.3). Only a validated keystore can be made.
package struct TMSIdentity: Hashable, Sendable {
    /// The keystore as received and stored.
    package let pkcs12: [UInt8]

    /// Validates `pkcs12` (it must open with the spec's password and hold a private key and its certificate).
    /// Throws `.malformedReply` naming `source` (a URL or a file) otherwise.
    package init(pkcs12: [UInt8], source: String) throws(TMSError) {
        if let problem = PKCS12Check.problem(pkcs12, password: TMSChoices.pkcs12Password) {
            throw TMSError(.malformedReply, "\(source): not a usable client identity: \(problem)")
        }
        do {
            _ = try NIOSSLPKCS12Bundle(buffer: pkcs12, passphrase: Array(TMSChoices.pkcs12Password.utf8))
        } catch {
            throw TMSError(.malformedReply, "\(source): the PKCS#12 keystore does not load in TLS (\(error))")
        }
        self.pkcs12 = pkcs12
    }

    /// When the client certificate (the first of the chain) stops being valid, in seconds since 1970; nil when the
    /// keystore does not load. `ucube diagnose` warns before it expires.
    package var certificateNotValidAfter: Int? {
        guard let certificate = try? bundle().certificateChain.first else { return nil }
        return Int(certificate.notValidAfter)
    }

    /// The certificate chain and key, for the TLS configuration.
    func bundle() throws(TMSError) -> NIOSSLPKCS12Bundle {
        do {
            return try NIOSSLPKCS12Bundle(buffer: pkcs12, passphrase: Array(TMSChoices.pkcs12Password.utf8))
        } catch {
            throw TMSError(.tls, "the client identity does not load (\(error))")
        }
    }
}

/// Checks a PKCS#12 with OpenSSL's libcrypto before NIOSSL sees it: NIOSSL's `NIOSSLPKCS12Bundle` traps
/// (`fatalError`) on a keystore that parses but holds no key or no matching certificate, so a hostile reply must not
/// reach it unchecked.
enum PKCS12Check {
    /// Loads OpenSSL's legacy provider next to the default one (`retain_fallbacks` = 1), so keystores encrypted with
    /// RC2-40 or 3DES (Java's older defaults) can be read; BoringSSL in NIOSSL reads them too.
    private static let legacyProvider: Bool = OSSL_PROVIDER_try_load(nil, "legacy", 1) != nil

    /// nil when the keystore opens with `password` and holds a private key with its certificate; else why not.
    static func problem(_ der: [UInt8], password: String) -> String? {
        _ = legacyProvider
        defer { ERR_clear_error() }
        guard !der.isEmpty else { return "empty body" }
        let p12: OpaquePointer? = der.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            return d2i_PKCS12(nil, &p, buf.count)
        }
        guard let p12 else { return "not a PKCS#12 (DER) keystore" }
        defer { PKCS12_free(p12) }
        guard PKCS12_verify_mac(p12, password, -1) == 1 else {
            return "the keystore does not open with the expected password (MAC check failed)"
        }
        var key: OpaquePointer?
        var cert: OpaquePointer?
        let ok = PKCS12_parse(p12, password, &key, &cert, nil)
        defer {
            if let key { EVP_PKEY_free(key) }
            if let cert { X509_free(cert) }
        }
        guard ok == 1 else { return "the keystore cannot be decrypted" }
        guard key != nil else { return "it holds no private key" }
        guard cert != nil else { return "it holds no certificate matching its private key" }
        return nil
    }
}
