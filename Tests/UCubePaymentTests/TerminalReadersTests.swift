import Testing
import UCubeProtocol

@testable import UCubePayment

/// Readers chosen as the SDKs choose them, from GetInfo (spec §7.1 D1 and ED rows), so that a classic uCube's
/// magstripe reader works without `--readers`.
@Suite struct TerminalReadersTests {
    @Test(
        arguments: [
            // D1, ED, readers (nil: the caller's stand)
            ([6, 0, 0, 54], 3, [CardReader.icc, .nfc] as [CardReader]?),  // a uCube Touch, "6.0.0.54"
            ([6, 0, 0, 54], nil, [.icc, .nfc]),
            ([65, 1, 0, 0], nil, [.icc, .nfc]),  // "65.1.0.0" also begins with 6
            ([4, 2, 0, 10], 0, [.msr, .icc]),  // a uCube without an NFC module
            ([4, 2, 0, 10], 2, [.msr, .icc]),  // its NFC module not ready yet
            ([4, 2, 0, 10], 3, [.msr, .icc, .nfc]),  // ready
            ([200, 0, 0, 1], 3, [.msr, .icc, .nfc]),  // printed "-56…" (signed bytes): a uCube
            ([7, 0, 0, 1], 3, nil),  // YT-Key
            ([70, 0, 0, 1], 3, nil),  // YT-SOM
        ] as [([UInt8], Int?, [CardReader]?)])
    func readersFromTheFirmwareAndTheNFCModule(d1: [UInt8], ed: Int?, expected: [CardReader]?) {
        #expect(TerminalReaders.readers(firmware: FirmwareVersion(d1), nfcModuleState: ed) == expected)
    }

    @Test func noFirmwareVersionLeavesTheCallersReaders() {
        #expect(TerminalReaders.readers(firmware: nil, nfcModuleState: 3) == nil)
    }

    /// In the machine: a classic uCube with no NFC module gets WaitCard with MSR and ICC, although the request said
    /// ICC and NFC, because the request left the choice to the terminal.
    @Test func aClassicUCubeWaitsWithMagstripeAndChip() {
        var request = Fixture.request()
        request.readersFromTerminal = true
        var m = PaymentStateMachine(request: request)
        _ = m.start()
        _ = m.responseReceived(Fixture.cancelAllOK)
        _ = m.responseReceived(Fixture.exitOK)
        let classic = TerminalResponse.ok(
            GetInfo.self, DeviceInfo(tlvs: [TLV(Tag(0xD1), [4, 2, 0, 10]), TLV(Tag(0xED), [0])]))
        _ = m.responseReceived(classic)
        #expect(
            m.responseReceived(Fixture.enterOK)
                == .send(.waitCard(WaitCard(readers: [.msr, .icc], timeoutSeconds: 30))))
        #expect(m.context.request.readers == [.msr, .icc])
    }

    /// A request that names its readers keeps them, whatever the terminal is.
    @Test func namedReadersStand() {
        var m = PaymentStateMachine(request: Fixture.request(readers: [.icc]))
        _ = m.start()
        _ = m.responseReceived(Fixture.cancelAllOK)
        _ = m.responseReceived(Fixture.exitOK)
        let classic = TerminalResponse.ok(
            GetInfo.self, DeviceInfo(tlvs: [TLV(Tag(0xD1), [4, 2, 0, 10]), TLV(Tag(0xED), [3])]))
        _ = m.responseReceived(classic)
        #expect(m.responseReceived(Fixture.enterOK) == .send(.waitCard(WaitCard(readers: [.icc], timeoutSeconds: 30))))
    }
}

/// A contact card's PIN is entered inside TransactionProcess (no state of its own): when 9F34 says a PIN was entered,
/// that time is the `pin` phase (issue 25: "pay's timings have no PIN phase, even for an online-PIN card").
/// CVM codes from EMV Book 3 Annex C3 (Table 39): 01 plaintext offline PIN, 02 enciphered online PIN, 1E signature,
/// 1F no CVM; result byte 02 successful, 00 unknown, 01 failed.
@Suite struct PINPhaseTests {
    @Test(
        arguments: [
            ([0x42, 0x03, 0x00], true),  // online PIN (apply next if unsuccessful), result unknown
            ([0x01, 0x03, 0x02], true),  // plaintext offline PIN, successful
            ([0x01, 0x03, 0x01], false),  // offline PIN failed
            ([0x1E, 0x03, 0x00], false),  // signature
            ([0x1F, 0x03, 0x02], false),  // no CVM
        ] as [([UInt8], Bool)])
    func pinEnteredFromCVMResults(cvm: [UInt8], expected: Bool) {
        #expect(PaymentTimings.pinEntered(cvmResults: cvm) == expected)
    }

    @Test func transactionProcessCountsAsPINWhenAPINWasEntered() {
        let states: [(PaymentState, Double)] = [
            (.smcInitTransaction, 0), (.smcProcessTransaction, 1), (.authorization, 6),
        ]
        let withPIN = PaymentTimings(states: states, end: 7, pinInProcess: true)
        #expect(withPIN.seconds[.pin] == 5 && withPIN.seconds[.cardRead] == 1)
        let without = PaymentTimings(states: states, end: 7)
        #expect(without.seconds[.pin] == nil && without.seconds[.cardRead] == 6)
    }
}
