import Testing

@testable import UCubeCrypto

@Suite struct RetailMACTests {
    // Source: BouncyCastle ISO9797Alg3MacTest (bc-java core/src/test/java/org/bouncycastle/crypto/test/
    // ISO9797Alg3MacTest.java): key 7CA110454A1A6E570131D9619DC1376E, input ASCII "Hello World !!!!" (16 bytes,
    // no padding needed) → F09B856213BAB83B. Also reproduced with Python `cryptography`.
    @Test func bouncyCastleVector() throws {
        let mac = try RetailMAC.compute(
            key: h("7CA110454A1A6E570131D9619DC1376E"), data: Array("Hello World !!!!".utf8))
        #expect(hx(mac) == "F09B856213BAB83B")
    }

    // Source: ICAO Doc 9303 part 11, Appendix D.3 (BAC mutual authentication): K_MAC 7962D9ECE03D1ACD4C76089DCE131543,
    // E_IFD 72C29C…92F2 → M_IFD 5F1448EEA8AD90A7. ICAO uses padding method 2, so the 0x80 00… block is appended here
    // explicitly (padding method 1 then adds nothing). Also reproduced with Python `cryptography`.
    @Test func icao9303Vector() throws {
        let data = h("72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2" + "8000000000000000")
        #expect(hx(try RetailMAC.compute(key: h("7962D9ECE03D1ACD4C76089DCE131543"), data: data)) == "5F1448EEA8AD90A7")
    }

    // The same ICAO vector with padding method 2 done by `compute` (EMV Book 2 A1.2.1 uses it for cryptograms): the
    // 80 00… block is appended by the MAC, not by the caller; a message of whole blocks gets a whole block more.
    @Test func paddingMethodTwoIsTheICAOVector() throws {
        let data = h("72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2")
        let key = h("7962D9ECE03D1ACD4C76089DCE131543")
        #expect(hx(try RetailMAC.compute(key: key, data: data, padding: .method2)) == "5F1448EEA8AD90A7")
        #expect(RetailMAC.padMethod2([]) == h("8000000000000000"))
        #expect(RetailMAC.padMethod2(h("01020304050607")) == h("0102030405060780"))
        #expect(RetailMAC.padMethod2(h("0102030405060708")) == h("01020304050607088000000000000000"))
        #expect(
            try RetailMAC.compute(key: key, data: data) != RetailMAC.compute(key: key, data: data, padding: .method2))
    }

    // Padding method 1 cases. Expected values computed with an independent Python implementation on `cryptography` 48
    // (TripleDES with K‖K for single DES): CBC-DES(K1) over zero-padded data, then D(K2), E(K1).
    @Test func paddingMethodOneVectors() throws {
        let key = h("0123456789ABCDEFFEDCBA9876543210")
        // empty input = one zero block
        #expect(hx(try RetailMAC.compute(key: key, data: [])) == "08D7B4FB629D0885")
        #expect(
            try RetailMAC.compute(key: key, data: [])
                == RetailMAC.compute(key: key, data: [UInt8](repeating: 0, count: 8)))
        // 24 bytes, no padding
        #expect(hx(try RetailMAC.compute(key: key, data: Array("Now is the time for all ".utf8))) == "A1C72E74EA3FA9B6")
        // 22 bytes, two zero bytes of padding
        #expect(hx(try RetailMAC.compute(key: key, data: Array("Now is the time for it".utf8))) == "2E2B1428CC78254F")
    }

    // Secured-frame MAC as the simulator will use it (spec §12.3): 4 leftmost bytes, MAC-response variant of the
    // counter-1 key, over SEQ‖CMD‖crypto header‖STATUS‖DATA. Expected full MAC computed with Python (see above).
    @Test func mac4UnderDUKPTResponseKey() throws {
        let key = try DUKPT.sessionKey(
            bdk: CryptoChoices.testBDK, ksn: h("FFFF9876543210E00001"), variant: .macResponse)
        let frame = h("0150257F0000BD10A0E398F67BDBC78388834F50B45E")
        #expect(hx(try RetailMAC.compute(key: key, data: frame)) == "20BF91B3B9B0162C")
        #expect(hx(try RetailMAC.mac4(key: key, data: frame)) == "20BF91B3")
        #expect(try RetailMAC.verify(mac: h("20BF91B3"), key: key, data: frame))
        #expect(try RetailMAC.verify(mac: h("20BF91B3B9B0162C"), key: key, data: frame))
        #expect(try !RetailMAC.verify(mac: h("20BF91B4"), key: key, data: frame))
        #expect(try !RetailMAC.verify(mac: h("20BF91"), key: key, data: frame))
        var tampered = frame
        tampered[5] ^= 1
        #expect(try !RetailMAC.verify(mac: h("20BF91B3"), key: key, data: tampered))
    }

    @Test func macRequestVariantVector() throws {
        // Python-computed: MAC-request variant at counter 1 over 01 5001 7F.
        let key = try DUKPT.sessionKey(bdk: CryptoChoices.testBDK, ksn: h("FFFF9876543210E00001"), variant: .macRequest)
        #expect(hx(try RetailMAC.compute(key: key, data: h("0150017F"))) == "078469EFF87F813B")
    }

    @Test func badKeyLengthThrows() {
        #expect(thrownCode { try RetailMAC.compute(key: h("0123456789ABCDEF"), data: []) } == .invalidKeyLength)
        #expect(
            thrownCode { try RetailMAC.mac4(key: [UInt8](repeating: 1, count: 24), data: [1]) } == .invalidKeyLength)
    }
}
