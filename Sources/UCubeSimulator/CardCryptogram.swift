import UCubeCrypto
import UCubeProtocol

/// What a simulated card decides and computes at a GENERATE AC, as pure functions (spec §12.4): its keys, the card
/// verification results it reports in 9F10, the second GENERATE AC's decision, and the cryptogram itself. The
/// simulator's answers (`TerminalSimulator+Payment.swift`) only gather the data and store what comes back.
enum CardCryptogram {
    /// The card's ICC master key: derived from the one test issuer master key
    /// (`CryptoChoices.testIssuerMasterKey`) and the card's own PAN and PAN sequence number (EMV Book 2 A1.4.1
    /// option A), as an issuer personalises a card. A data object a card image overrides (5A, 5F34) does not
    /// change it: the card keeps the key it was given.
    static func masterKey(_ card: CardProfile) throws -> [UInt8] {
        try EMVApplicationCryptogram.iccMasterKey(
            issuerMasterKey: CryptoChoices.testIssuerMasterKey, pan: card.pan,
            panSequenceNumber: card.panSequenceNumber)
    }

    /// The 9F26 of the data objects `data` (the values the terminal reports, `EMVApplicationCryptogram.dataTags`),
    /// under the session key of `card`'s master key and the ATC in `data`.
    static func cryptogram(_ card: CardProfile, data: [UInt32: [UInt8]]) throws -> [UInt8] {
        try EMVApplicationCryptogram.cryptogram(masterKey: masterKey(card), data: data)
    }

    /// The ARC a card approves with at the second GENERATE AC: "00" (spec §7.7).
    static let approvedARC = SimulatorChoices.approvedARC

    /// The card's answer to the second GENERATE AC.
    struct SecondGenerateAC: Sendable, Equatable {
        /// TC (approved) or AAC (declined).
        let cryptogram: CryptogramType
        /// Issuer authentication was performed and failed (Visa CVR byte 2 bit 4).
        let issuerAuthenticationFailed: Bool
    }

    /// The second GENERATE AC's decision (spec §12.4), from the terminal's 8A `arc` and what the card found of the
    /// 91 that came with it (`nil`: none came). A card that `declines` answers AAC whatever comes; a 91 whose ARPC
    /// does not verify, or verifies for another ARC than the terminal's 8A, declines and is an issuer-authentication
    /// failure; otherwise TC exactly when 8A is "00" (spec §5.2 0x5513).
    static func secondGenerateAC(
        arc: [UInt8],
        issuerAuthentication: EMVApplicationCryptogram.IssuerAuthentication?,
        declines: Bool
    ) -> SecondGenerateAC {
        let authenticationFailed: Bool
        switch issuerAuthentication {
        case nil: authenticationFailed = false
        case .passed(let authenticated): authenticationFailed = authenticated != arc
        case .failed: authenticationFailed = true
        }
        let approved = !declines && !authenticationFailed && arc == approvedARC
        return SecondGenerateAC(cryptogram: approved ? .tc : .aac, issuerAuthenticationFailed: authenticationFailed)
    }

    /// `iad` with the card verification results of this transaction, when it has the Visa VSDC layout the simulated
    /// cards use (byte 1 = 06, byte 4 = 03, the CVR's length; `IssuerApplicationData.visaCVR`): CVR byte 2 (IAD
    /// byte 5) bits 6-5 = the first GENERATE AC's cryptogram (00 AAC, 01 TC, 10 ARQC), bits 8-7 = the second's
    /// (10 when there was none), bit 4 = issuer authentication performed and failed; its bits 3-1 are kept. Any
    /// other layout (a card image's own 9F10) comes back as it is.
    static func issuerApplicationData(
        _ iad: [UInt8],
        first: CryptogramType,
        second: SecondGenerateAC? = nil
    ) -> [UInt8] {
        guard iad.count >= 7, iad[0] == 0x06, iad[3] == 0x03 else { return iad }
        func code(_ type: CryptogramType) -> UInt8 {
            switch type {
            case .aac: 0b00
            case .tc: 0b01
            case .arqc: 0b10
            }
        }
        var out = iad
        var byte = out[4] & 0b0000_0111
        byte |= (second.map { code($0.cryptogram) } ?? 0b10) << 6
        byte |= code(first) << 4
        if second?.issuerAuthenticationFailed == true { byte |= 0b0000_1000 }
        out[4] = byte
        return out
    }
}
