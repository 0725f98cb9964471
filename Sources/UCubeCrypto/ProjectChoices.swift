/// Every PROJECT CHOICE crypto constant of the uCube driver/simulator, in one place.
///
/// None of these come from YouTransactor sources (which do not document the algorithms); they are the standard
/// choices fixed by the project in ucube-protocol.md §12.2 (KSN-format record) and §12.3 (DUKPT, variants, SRED,
/// MAC, PIN). Changing any value here changes the simulator's wire behaviour.
package enum CryptoChoices {
    // MARK: DUKPT (§12.3)

    /// Test BDK `0123456789ABCDEFFEDCBA9876543210` (the public ANSI X9.24-1 test key), used for both PIN and data keys.
    package static let testBDK: [UInt8] = CryptoHex.literal("0123456789ABCDEFFEDCBA9876543210")

    /// Initial KSN `FFFF9876543210E00000` (the public X9.24-1 test KSN), for both the PIN and the data DUKPT key.
    package static let initialKSNBytes: [UInt8] = CryptoHex.literal("FFFF9876543210E00000")

    /// `initialKSNBytes` as a `KSN`.
    package static let initialKSN = KSN(unchecked: initialKSNBytes)

    /// DUKPT key index of the PIN key (IPEK) in tag CD / RKI (§12.1).
    package static let pinKeyIndex: UInt8 = 0
    /// DUKPT key index of the data (SRED) key (IDEK) in tag CD / RKI (§12.1).
    package static let dataKeyIndex: UInt8 = 1

    // MARK: X9.24-1:2009 variant masks (§12.3), each applied to both 8-byte halves of the current key

    package static let pinVariantMask: [UInt8] = CryptoHex.literal("00000000000000FF")
    package static let macRequestVariantMask: [UInt8] = CryptoHex.literal("000000000000FF00")
    package static let macResponseVariantMask: [UInt8] = CryptoHex.literal("00000000FF000000")
    package static let dataRequestVariantMask: [UInt8] = CryptoHex.literal("0000000000FF0000")
    package static let dataResponseVariantMask: [UInt8] = CryptoHex.literal("000000FF00000000")

    // MARK: SRED / ciphered outputs (§12.3)

    /// SRED and SIGNED_CIPHERED outputs: TDES-CBC with an all-zero IV ...
    package static let sredIV: [UInt8] = [UInt8](repeating: 0, count: 8)
    /// ... after padding the plaintext with 0x00 to a multiple of 8 bytes ...
    package static let sredPadByte: UInt8 = 0x00
    /// ... under the data-response encryption key of the data DUKPT key.
    package static let sredKeyVariant: DUKPT.KeyVariant = .dataResponse

    // MARK: MAC (§12.3)

    /// Secured-frame MAC: ISO 9797-1 MAC algorithm 3 (retail MAC), padding method 1, truncated to the 4 leftmost bytes.
    package static let macLength = 4
    /// MAC key for terminal → host responses.
    package static let responseMACVariant: DUKPT.KeyVariant = .macResponse
    /// MAC key for host/HSM → terminal (SIGNED) inputs.
    package static let requestMACVariant: DUKPT.KeyVariant = .macRequest

    // MARK: PIN (§12.3)

    /// Default ISO 9564-1 PIN block format (1, 3 and 4 selectable), enciphered with the DUKPT PIN variant (TDES-ECB).
    package static let defaultPINBlockFormat: PINBlockFormat = .iso0

    // MARK: EMV application cryptograms (§12.4)

    /// The **test** issuer master key (IMK) for application cryptograms, `0123456789ABCDEFFEDCBA9876543210`: public on
    /// purpose, like the test BDK (the same value: the classic test key, also the IMK of pyemv's published examples),
    /// never a real issuer's. Every simulated card's ICC master key is derived from it (EMV Book 2 A1.4.1 option A),
    /// and a host simulator checks ARQCs and makes ARPCs with it (`EMVIssuer`).
    package static let testIssuerMasterKey: [UInt8] = CryptoHex.literal("0123456789ABCDEFFEDCBA9876543210")

    // MARK: KSN-format record, tag CD (§12.2)

    /// Simulator value of tag CD: for key index 0 (PIN) and 1 (data): KSI 40 bits `FFFF987654`, KSN 80 bits
    /// `FFFF9876543210E00000`, TSC 21 bits `000000`, each record ended by 0xFF.
    package static let ksnFormatRecord: [UInt8] = CryptoHex.literal(
        "00 00 28 FFFF987654 01 50 FFFF9876543210E00000 03 15 000000 FF"
            + " 01 00 28 FFFF987654 01 50 FFFF9876543210E00000 03 15 000000 FF"
    )
}

// MARK: - Code signing of simulated firmware images (FirmwareImageChoices in UCubeProtocol)

extension CryptoChoices {
    /// PROJECT CHOICE (spec §5.2 0x5160/0x5161; real images are signed by YouTransactor with a scheme not in sources):
    /// the published **test** vendor code-signing key, ECDSA P-256 (`openssl ecparam -name prime256v1 -genkey
    /// -noout`). Like the X9.24 test BDK it is public on purpose: anyone can sign images for the simulator, never for
    /// a real terminal. Images are signed ECDSA/SHA-256 over the whole image, DER (`CodeSigning`).
    package static let testCodeSigningPrivateKeyPEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIDvM2t19cBmAvP4olzow9LzkGd48Nppx3gMXobbZtWO6oAoGCCqGSM49
        AwEHoUQDQgAE9tRYWa4yoepStBuzHC3Eir/tuARMby8bnR9RUMGGfRSfRAelHSk/
        iCbloOdXxS2ryayEs2iShfAGzzb05yugrg==
        -----END EC PRIVATE KEY-----

        """

    /// The public half of `testCodeSigningPrivateKeyPEM`: what the simulated terminal verifies images against.
    package static let testCodeSigningPublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE9tRYWa4yoepStBuzHC3Eir/tuARM
        by8bnR9RUMGGfRSfRAelHSk/iCbloOdXxS2ryayEs2iShfAGzzb05yugrg==
        -----END PUBLIC KEY-----

        """
}
