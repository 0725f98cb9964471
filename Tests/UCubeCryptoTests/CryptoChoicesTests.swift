import Testing

@testable import UCubeCrypto

@Suite struct CryptoChoicesTests {
    // Source: spec §12.3 (BDK, initial KSN, variant masks, MAC length) and §12.2 (tag CD record).
    @Test func constantsMatchSpec() {
        #expect(hx(CryptoChoices.testBDK) == "0123456789ABCDEFFEDCBA9876543210")
        #expect(CryptoChoices.initialKSN.description == "FFFF9876543210E00000")
        #expect(hx(DUKPT.KeyVariant.pin.mask) == "00000000000000FF")
        #expect(hx(DUKPT.KeyVariant.macRequest.mask) == "000000000000FF00")
        #expect(hx(DUKPT.KeyVariant.macResponse.mask) == "00000000FF000000")
        #expect(hx(DUKPT.KeyVariant.dataRequest.mask) == "0000000000FF0000")
        #expect(hx(DUKPT.KeyVariant.dataResponse.mask) == "000000FF00000000")
        #expect(DUKPT.KeyVariant.allCases.filter(\.encryptsUnderItself) == [.dataRequest, .dataResponse])
        #expect(CryptoChoices.macLength == 4)
        #expect(CryptoChoices.sredIV == [UInt8](repeating: 0, count: 8))
        #expect(CryptoChoices.sredKeyVariant == .dataResponse)
        #expect(CryptoChoices.responseMACVariant == .macResponse)
        #expect(CryptoChoices.requestMACVariant == .macRequest)
        #expect(CryptoChoices.defaultPINBlockFormat == .iso0)
        // spec §12.4: the test issuer master key of the simulated cards' cryptograms.
        #expect(hx(CryptoChoices.testIssuerMasterKey) == "0123456789ABCDEFFEDCBA9876543210")
        // 00 | 00 28 FFFF987654 | 01 50 FFFF9876543210E00000 | 03 15 000000 | FF, then the same for key index 01
        let record = "00" + "0028FFFF987654" + "0150FFFF9876543210E00000" + "0315000000" + "FF"
        #expect(hx(CryptoChoices.ksnFormatRecord) == record + "01" + record.dropFirst(2))
    }
}
