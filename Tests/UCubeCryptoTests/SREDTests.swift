import Testing

@testable import UCubeCrypto

@Suite struct SREDTests {
    let ksn1 = h("FFFF9876543210E00001")
    // 5A 08 <PAN> 5F24 03 221231 9F02 06 000000001000 — 25 bytes, padded with 7 zero bytes.
    let tlv = h("5A084761739001010010" + "5F2403221231" + "9F0206000000001000")

    // Expected ciphertext computed with an independent Python implementation on `cryptography` 48: data-response
    // encryption key at counter 1 (AD7BFC8B06AD3A08A560B4105CF8D9E5, spec §12.3), TDES-CBC, IV 0, zero padding.
    @Test func knownAnswer() throws {
        let ksn = try KSN(bytes: ksn1)
        let c = try SRED.encrypt(plaintext: tlv, bdk: CryptoChoices.testBDK, ksn: ksn)
        #expect(hx(c) == "BD10A0E398F67BDBC78388834F50B45EA5955664ED40D6A46EFDFFC75E6C6C0F")
        let key = h("AD7BFC8B06AD3A08A560B4105CF8D9E5")
        #expect(try SRED.encrypt(plaintext: tlv, key: key) == c)
        // decrypt returns the zero-padded plaintext
        let p = try SRED.decrypt(ciphertext: c, bdk: CryptoChoices.testBDK, ksn: ksn)
        #expect(p == tlv + [UInt8](repeating: 0, count: 7))
        #expect(try SRED.decrypt(ciphertext: c, key: key) == p)
    }

    @Test func terminalEncryptsHostDecrypts() throws {
        var terminal = try DUKPTTerminal(bdk: CryptoChoices.testBDK, initialKSN: CryptoChoices.initialKSN)
        for length in [0, 1, 7, 8, 9, 16, 31] {
            let ksn = try terminal.advance()
            let plain = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
            let c = try SRED.encrypt(plaintext: plain, key: terminal.sessionKey(.dataResponse))
            #expect(c.count == (length + 7) / 8 * 8)
            let p = try SRED.decrypt(ciphertext: c, bdk: CryptoChoices.testBDK, ksn: ksn)
            #expect(Array(p.prefix(length)) == plain)
            #expect(p.dropFirst(length).allSatisfy { $0 == 0 })
        }
    }

    @Test func wrongKSNDoesNotDecrypt() throws {
        let c = try SRED.encrypt(plaintext: tlv, bdk: CryptoChoices.testBDK, ksn: KSN(bytes: ksn1))
        let p = try SRED.decrypt(ciphertext: c, bdk: CryptoChoices.testBDK, ksn: KSN(hex: "FFFF9876543210E00002"))
        #expect(Array(p.prefix(tlv.count)) != tlv)
    }

    @Test func badLengthsThrow() {
        #expect(
            thrownCode { try SRED.decrypt(ciphertext: [1, 2, 3], key: h("AD7BFC8B06AD3A08A560B4105CF8D9E5")) }
                == .invalidDataLength)
        #expect(thrownCode { try SRED.encrypt(plaintext: [1], key: h("AD7BFC8B06AD3A08")) } == .invalidKeyLength)
        #expect(
            thrownCode { try SRED.decrypt(ciphertext: [UInt8](repeating: 0, count: 8), key: []) } == .invalidKeyLength)
    }
}
