import CLibCrypto
import UCubeProtocol

/// ECDSA P-256 / SHA-256 signatures of firmware images, DER-encoded, on OpenSSL EVP (`FirmwareImageChoices`,
/// `CryptoChoices.testCodeSigningPrivateKeyPEM`). Both directions stream: the image is fed block by block, so
/// neither side ever holds a whole image.
package enum CodeSigning {
    /// Signs `data` in one call (small images, tests).
    package static func sign(
        _ data: [UInt8], privateKeyPEM: String = CryptoChoices.testCodeSigningPrivateKeyPEM
    ) throws(CryptoError) -> [UInt8] {
        let signer = try Signer(privateKeyPEM: privateKeyPEM)
        try signer.update(data)
        return try signer.finish()
    }

    /// Verifies a DER signature of `data` in one call.
    package static func verify(
        signature: [UInt8], of data: [UInt8], publicKeyPEM: String = CryptoChoices.testCodeSigningPublicKeyPEM
    ) throws(CryptoError) -> Bool {
        let verifier = try Verifier(signature: signature, publicKeyPEM: publicKeyPEM)
        try verifier.update(data)
        return verifier.finish()
    }

    /// A streaming signer: `update` with each chunk, then `finish` once for the DER signature.
    ///
    /// `@unchecked Sendable`: it wraps an `EVP_MD_CTX`; its owner (one task or actor) calls it serially.
    package final class Signer: @unchecked Sendable {
        private let digest: DigestContext

        package init(privateKeyPEM: String = CryptoChoices.testCodeSigningPrivateKeyPEM) throws(CryptoError) {
            digest = try DigestContext(
                keyPEM: privateKeyPEM, isPrivate: true, what: "signer", step: "EVP_DigestSignInit"
            ) {
                EVP_DigestSignInit($0, nil, EVP_sha256(), nil, $1)
            }
        }

        package func update(_ bytes: some Collection<UInt8>) throws(CryptoError) {
            try digest.update(bytes, step: "EVP_DigestSignUpdate") { EVP_DigestSignUpdate($0, $1, $2) }
        }

        /// The DER signature (ECDSA-Sig-Value) of everything fed so far.
        package func finish() throws(CryptoError) -> [UInt8] {
            try digest.finish()
            var length = 0
            guard EVP_DigestSignFinal(digest.context, nil, &length) == 1 else {
                throw CodeSigning.openSSLError("EVP_DigestSignFinal (length)")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSignFinal(digest.context, &signature, &length) == 1 else {
                throw CodeSigning.openSSLError("EVP_DigestSignFinal")
            }
            return Array(signature.prefix(length))
        }
    }

    /// A streaming verifier: made with the signature announced first (InstallForLoad), fed each Load block with
    /// `update`, asked once with `finish`.
    ///
    /// `@unchecked Sendable`: it wraps an `EVP_MD_CTX`; its owner (the simulator actor) calls it serially.
    package final class Verifier: @unchecked Sendable {
        private let digest: DigestContext
        private let signature: [UInt8]
        /// Bytes fed so far.
        package private(set) var byteCount = 0

        package init(
            signature: [UInt8], publicKeyPEM: String = CryptoChoices.testCodeSigningPublicKeyPEM
        ) throws(CryptoError) {
            self.signature = signature
            digest = try DigestContext(
                keyPEM: publicKeyPEM, isPrivate: false, what: "verifier", step: "EVP_DigestVerifyInit"
            ) {
                EVP_DigestVerifyInit($0, nil, EVP_sha256(), nil, $1)
            }
        }

        package func update(_ bytes: some Collection<UInt8>) throws(CryptoError) {
            try digest.update(bytes, step: "EVP_DigestVerifyUpdate") { EVP_DigestVerifyUpdate($0, $1, $2) }
            byteCount += bytes.count
        }

        /// True only when the signature is a well-formed DER ECDSA signature of exactly the bytes fed, under the key.
        package func finish() -> Bool {
            guard (try? digest.finish()) != nil else { return false }
            let result = EVP_DigestVerifyFinal(digest.context, signature, signature.count)
            ERR_clear_error()
            return result == 1
        }
    }

    /// The key and `EVP_MD_CTX` a signer or verifier owns, freed together; `finish` may be reached once.
    private final class DigestContext {
        let key: OpaquePointer
        let context: OpaquePointer
        private let what: String
        private var finished = false

        init(
            keyPEM: String, isPrivate: Bool, what: String, step: String,
            initialise: (OpaquePointer, OpaquePointer) -> Int32
        ) throws(CryptoError) {
            self.what = what
            key = try CodeSigning.readKey(pem: keyPEM, isPrivate: isPrivate)
            guard let context = EVP_MD_CTX_new() else {
                EVP_PKEY_free(key)
                throw CodeSigning.openSSLError("EVP_MD_CTX_new")
            }
            self.context = context
            guard initialise(context, key) == 1 else { throw CodeSigning.openSSLError(step) }
        }

        deinit {
            EVP_MD_CTX_free(context)
            EVP_PKEY_free(key)
        }

        func update(
            _ bytes: some Collection<UInt8>, step: String, _ feed: (OpaquePointer, UnsafeRawPointer?, Int) -> Int32
        ) throws(CryptoError) {
            guard !finished else { throw CryptoError(.unsupported, "the \(what) has already finished") }
            let ok =
                bytes.withContiguousStorageIfAvailable { feed(context, $0.baseAddress, $0.count) }
                ?? Array(bytes).withUnsafeBytes { feed(context, $0.baseAddress, $0.count) }
            guard ok == 1 else { throw CodeSigning.openSSLError(step) }
        }

        func finish() throws(CryptoError) {
            guard !finished else { throw CryptoError(.unsupported, "the \(what) has already finished") }
            finished = true
        }
    }

    // MARK: - libcrypto helpers

    static func readKey(pem: String, isPrivate: Bool) throws(CryptoError) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return isPrivate ? PEM_read_bio_PrivateKey(bio, nil, nil, nil) : PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else {
            ERR_clear_error()
            throw CryptoError(
                .openSSLFailure, "cannot read the code-signing \(isPrivate ? "private" : "public") key PEM")
        }
        return key
    }

    static func openSSLError(_ step: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        return CryptoError(.openSSLFailure, "\(step) failed (libcrypto error 0x\(String(code, radix: 16)))")
    }
}
