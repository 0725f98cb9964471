import Testing
import UCubeCrypto

/// ECDSA P-256 / SHA-256 image signatures under the published test code-signing key.
@Suite struct CodeSigningTests {
    static let image: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test func signatureVerifiesAndIsDER() throws {
        let signature = try CodeSigning.sign(Self.image)
        #expect(signature.first == 0x30)  // DER SEQUENCE
        #expect((68...72).contains(signature.count))
        #expect(try CodeSigning.verify(signature: signature, of: Self.image))
    }

    @Test(arguments: [0, 13, 5_000, 9_999])
    func aFlippedImageByteIsRefused(index: Int) throws {
        let signature = try CodeSigning.sign(Self.image)
        var tampered = Self.image
        tampered[index] ^= 0x01
        #expect(try !CodeSigning.verify(signature: signature, of: tampered))
    }

    @Test func aFlippedSignatureByteOrGarbageIsRefused() throws {
        var signature = try CodeSigning.sign(Self.image)
        signature[signature.count - 1] ^= 0x01
        #expect(try !CodeSigning.verify(signature: signature, of: Self.image))
        #expect(try !CodeSigning.verify(signature: [], of: Self.image))
        #expect(try !CodeSigning.verify(signature: [UInt8](repeating: 0x30, count: 300), of: Self.image))
    }

    @Test func streamingBlocksEqualsOneShot() throws {
        let signer = try CodeSigning.Signer()
        for start in stride(from: 0, to: Self.image.count, by: 2040) {
            try signer.update(Self.image[start..<min(start + 2040, Self.image.count)])
        }
        let signature = try signer.finish()
        let verifier = try CodeSigning.Verifier(signature: signature)
        for start in stride(from: 0, to: Self.image.count, by: 777) {
            try verifier.update(Self.image[start..<min(start + 777, Self.image.count)])
        }
        #expect(verifier.byteCount == Self.image.count)
        #expect(verifier.finish())
        #expect(!verifier.finish())  // once only
        // A missing last byte does not verify.
        #expect(try !CodeSigning.verify(signature: signature, of: Array(Self.image.dropLast())))
    }

    @Test func anotherKeyDoesNotVerify() throws {
        // The public key of another P-256 key pair (generated with openssl for this test).
        let otherPublicKey = """
            -----BEGIN PUBLIC KEY-----
            MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE1vkux04RLjo8AnL3UvfTUu2e3bVM
            /Ge1dTH1ZPbFk+yyzhD+1ETe9YK/3Mxq3q9KkH6DvpF4xmCSaEypwCWjlw==
            -----END PUBLIC KEY-----
            """
        let signature = try CodeSigning.sign(Self.image)
        #expect(try !CodeSigning.verify(signature: signature, of: Self.image, publicKeyPEM: otherPublicKey))
        #expect(throws: CryptoError(.openSSLFailure, "")) {
            _ = try CodeSigning.Verifier(signature: signature, publicKeyPEM: "not a key")
        }
    }
}
