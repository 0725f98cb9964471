import Testing

@testable import UCubeCrypto

@Suite struct TDESTests {
    // Classic DES validation vector (key 7CA110454A1A6E57, plaintext 01A1D6D039776742 → 690F5B0D9A26939B), from the
    // DES test set used e.g. by the node "des" test suites; re-checked with Python `cryptography` TripleDES(K‖K) ECB.
    @Test func singleDESKnownAnswer() throws {
        let c = try TDES.encryptECB(key: h("7CA110454A1A6E57"), data: h("01A1D6D039776742"))
        #expect(hx(c) == "690F5B0D9A26939B")
        #expect(hx(try TDES.decryptECB(key: h("7CA110454A1A6E57"), data: c)) == "01A1D6D039776742")
    }

    // 2-key TDES ECB: key 7CA110454A1A6E570131D9619DC1376E, two blocks. Expected value computed with Python
    // `cryptography` 48 (decrepit TripleDES, ECB); the same pair appears in public JS TDES test suites.
    @Test func twoKeyTDESECBKnownAnswer() throws {
        let key = h("7CA110454A1A6E570131D9619DC1376E")
        let p = h("01A1D6D0397767425CD54CA83DEF57DA")
        let c = try TDES.encryptECB(key: key, data: p)
        #expect(hx(c) == "B76FAB4FBDBDB76700FC5E0F15AD8A43")
        #expect(try TDES.decryptECB(key: key, data: c) == p)
    }

    // 2-key TDES CBC. Expected value computed with the openssl CLI:
    //   echo -n 000102…1617 | xxd -r -p | openssl enc -des-ede-cbc -K 0123456789ABCDEFFEDCBA9876543210 \
    //     -iv 0011223344556677 -nopad | xxd -p -u
    // and identically with Python `cryptography` TripleDES CBC.
    @Test func twoKeyTDESCBCKnownAnswer() throws {
        let key = h("0123456789ABCDEFFEDCBA9876543210")
        let iv = h("0011223344556677")
        let p = h("000102030405060708090A0B0C0D0E0F1011121314151617")
        let c = try TDES.encryptCBC(key: key, iv: iv, data: p)
        #expect(hx(c) == "818C0BF665CA88ED55296F9DBCE2AF507ECF0842795B0BEB")
        #expect(try TDES.decryptCBC(key: key, iv: iv, data: c) == p)
    }

    @Test func singleDESKeyEqualsDoubledKey() throws {
        let k = h("0123456789ABCDEF")
        let d = h("4E6F772069732074")
        #expect(try TDES.encryptECB(key: k, data: d) == TDES.encryptECB(key: k + k, data: d))
        #expect(try TDES.encryptECB(key: k, data: d) != TDES.encryptECB(key: k + h("FEDCBA9876543210"), data: d))
    }

    @Test func emptyDataGivesEmptyOutput() throws {
        #expect(try TDES.encryptECB(key: h("0123456789ABCDEF"), data: []) == [])
        #expect(try TDES.decryptCBC(key: h("0123456789ABCDEF"), iv: [UInt8](repeating: 0, count: 8), data: []) == [])
    }

    @Test(arguments: [0, 7, 9, 15, 24, 32])
    func badKeyLengthThrows(length: Int) {
        let key = [UInt8](repeating: 0x11, count: length)
        #expect(
            thrownCode { try TDES.encryptECB(key: key, data: [UInt8](repeating: 0, count: 8)) } == .invalidKeyLength)
        #expect(
            thrownCode { try TDES.decryptCBC(key: key, iv: [UInt8](repeating: 0, count: 8), data: []) }
                == .invalidKeyLength)
    }

    @Test(arguments: [1, 7, 9, 17])
    func badDataLengthThrows(length: Int) {
        let data = [UInt8](repeating: 0, count: length)
        #expect(thrownCode { try TDES.encryptECB(key: h("0123456789ABCDEF"), data: data) } == .invalidDataLength)
        #expect(
            thrownCode {
                try TDES.encryptCBC(key: h("0123456789ABCDEF"), iv: [UInt8](repeating: 0, count: 8), data: data)
            } == .invalidDataLength)
    }

    @Test func badIVLengthThrows() {
        #expect(
            thrownCode {
                try TDES.encryptCBC(key: h("0123456789ABCDEF"), iv: [0, 1, 2], data: [UInt8](repeating: 0, count: 8))
            } == .invalidIVLength)
    }

    @Test func errorEqualityComparesCodeOnly() {
        #expect(CryptoError(.invalidKSN, "a") == CryptoError(.invalidKSN, "b"))
        #expect(CryptoError(.invalidKSN, "a") != CryptoError(.invalidPIN, "a"))
    }
}
