/// EMV application cryptograms (ARQC, TC, AAC) and issuer authentication (ARPC method 1), as EMV 4.4 Book 2 §8 and
/// Annex A1 define them, on `TDES` and `RetailMAC` (OpenSSL): pure functions, keys and data in, bytes out.
///
/// The chain, each link a function here:
/// 1. the issuer master key (IMK) gives each card its ICC master key MK (`iccMasterKey`, Annex A1.4.1 option A,
///    from the PAN and PAN sequence number);
/// 2. MK and the transaction's ATC give the session key SK_AC (`sessionKey`, Annex A1.3.1 common session key
///    derivation);
/// 3. SK_AC MACs the cryptogram's data (`dataList`, one table for the card and the issuer) with ISO/IEC 9797-1 MAC
///    algorithm 3 and padding method 2 (`cryptogram`, §8.1.2 and Annex A1.2.1);
/// 4. the issuer answers an ARQC with ARPC method 1 under the same SK_AC, sent as tag 91 = ARPC ‖ ARC
///    (`issuerAuthenticationData`, §8.2.1), which the card checks at the second GENERATE AC
///    (`verifyIssuerAuthenticationData`). `EMVIssuer` puts 1–4 together for a host.
///
/// No key, PAN or cryptogram appears in a thrown error's reason.
package enum EMVApplicationCryptogram {
    // MARK: Keys

    /// The ICC master key of the card with `pan` and `panSequenceNumber` (EMV Book 2 Annex A1.4.1, option A).
    ///
    /// Y is the rightmost 16 digits of PAN ‖ PSN ("00" when the card has no PSN), zeros on the left when there are
    /// fewer, as 8 BCD bytes; MK = TDES(IMK)[Y] ‖ TDES(IMK)[Y ⊕ FF…FF], each byte then set to odd parity.
    /// - Parameters:
    ///   - issuerMasterKey: the IMK for application cryptograms, 16 bytes.
    ///   - pan: the PAN's digits (5A without its F padding, or ISO 8583 field 2), 1 to 19 of them.
    ///   - panSequenceNumber: 5F34, one byte of two BCD digits (01 = "01"); `nil` when the card has none.
    /// - Throws: `invalidKeyLength`, or `invalidPAN` for a PAN that is not 1–19 digits or a PSN that is not BCD.
    package static func iccMasterKey(issuerMasterKey: [UInt8], pan: String, panSequenceNumber: UInt8?) throws
        -> [UInt8]
    {
        guard issuerMasterKey.count == 16 else {
            throw CryptoError(.invalidKeyLength, "an issuer master key is 16 bytes, got \(issuerMasterKey.count)")
        }
        let panDigits = pan.utf8.map { $0 &- UInt8(ascii: "0") }
        guard (1...19).contains(panDigits.count), panDigits.allSatisfy({ $0 <= 9 }) else {
            throw CryptoError(.invalidPAN, "a PAN is 1 to 19 decimal digits (\(panDigits.count) characters given)")
        }
        let psn = panSequenceNumber ?? 0x00
        guard psn >> 4 <= 9, psn & 0x0F <= 9 else {
            throw CryptoError(.invalidPAN, "a PAN sequence number (5F34) is two BCD digits")
        }
        let digits = (panDigits + [psn >> 4, psn & 0x0F]).suffix(16)
        let padded = [UInt8](repeating: 0, count: 16 - digits.count) + digits
        let y = stride(from: 0, to: 16, by: 2).map { padded[$0] << 4 | padded[$0 + 1] }
        let z = try TDES.encryptECB(key: issuerMasterKey, data: y + y.map { ~$0 })
        return oddParity(z)
    }

    /// The session key of `masterKey` for the 8-byte diversification value `r` (EMV Book 2 Annex A1.3.1, common
    /// session key derivation): SK = TDES(MK)[R with its third byte F0] ‖ TDES(MK)[R with its third byte 0F], each
    /// byte set to odd parity.
    /// - Throws: `invalidKeyLength` unless `masterKey` is 16 bytes, `invalidDataLength` unless `r` is 8.
    package static func sessionKey(masterKey: [UInt8], diversification r: [UInt8]) throws -> [UInt8] {
        guard masterKey.count == 16 else {
            throw CryptoError(.invalidKeyLength, "an ICC master key is 16 bytes, got \(masterKey.count)")
        }
        guard r.count == 8 else {
            throw CryptoError(.invalidDataLength, "a diversification value is 8 bytes, got \(r.count)")
        }
        var left = r, right = r
        left[2] = 0xF0
        right[2] = 0x0F
        return oddParity(try TDES.encryptECB(key: masterKey, data: left + right))
    }

    /// SK_AC, the application cryptogram's session key of the transaction with `atc` (EMV Book 2 §8.1.2): the common
    /// session key of `masterKey` for R = ATC ‖ 00 00 00 00 00 00.
    /// - Throws: `invalidKeyLength`, or `invalidDataLength` unless `atc` is 2 bytes.
    package static func sessionKey(masterKey: [UInt8], atc: [UInt8]) throws -> [UInt8] {
        guard atc.count == 2 else { throw CryptoError(.invalidDataLength, "an ATC is 2 bytes, got \(atc.count)") }
        return try sessionKey(masterKey: masterKey, diversification: atc + [UInt8](repeating: 0, count: 6))
    }

    // MARK: The cryptogram's data

    /// One element of the cryptogram's data: the bytes of one data object, fitted to a fixed length.
    package struct DataElement: Sendable, Hashable {
        /// How a value of another length is fitted (EMV Book 3 §5.4, the rules for a data object list).
        package enum Format: Sendable, Hashable {
            /// Format n: a longer value loses its leftmost bytes, a shorter one gets leading zero bytes.
            case numeric
            /// Format b: a longer value loses its rightmost bytes, a shorter one gets trailing zero bytes.
            case binary
        }

        /// The data object the element comes from.
        package let tag: UInt32
        /// Where the element starts in the data object's value (0 but for the CVR, which starts at 9F10's 4th byte).
        package let offset: Int
        /// The element's length in bytes.
        package let length: Int
        package let format: Format
        /// The data element's name, for documentation and test messages.
        package let name: String

        init(_ tag: UInt32, offset: Int = 0, _ length: Int, _ format: Format, _ name: String) {
            self.tag = tag
            self.offset = offset
            self.length = length
            self.format = format
            self.name = name
        }

        /// This element's bytes from `value`, the data object's whole value: `length` bytes from `offset`, fitted by
        /// `format`; an absent data object, or one too short to reach `offset`, gives zeros (EMV Book 3 §5.4 a, b).
        package func bytes(from value: [UInt8]?) -> [UInt8] {
            let part = Array((value ?? []).dropFirst(offset))
            let fill = [UInt8](repeating: 0, count: max(0, length - part.count))
            switch format {
            case .numeric: return part.count >= length ? Array(part.suffix(length)) : fill + part
            case .binary: return part.count >= length ? Array(part.prefix(length)) : part + fill
            }
        }
    }

    /// The cryptogram's data, in order: the minimum set EMV Book 2 §8.1.1 recommends (Table 26: amount authorised,
    /// amount other, terminal country code, TVR, transaction currency code, date, type, unpredictable number, AIP,
    /// ATC), then the card verification results: 9F10 bytes 4–7, the CVR with its length byte in the Visa VSDC IAD
    /// layout the simulated cards use (VCPS 2.2 Appendix M; `IssuerApplicationData.visaCVR` in UCubeProtocol), 37 bytes in all. The
    /// card and the issuer both build the data from this table, and from nothing else.
    package static let dataList: [DataElement] = [
        DataElement(0x9F02, 6, .numeric, "Amount, Authorised"),
        DataElement(0x9F03, 6, .numeric, "Amount, Other"),
        DataElement(0x9F1A, 2, .numeric, "Terminal Country Code"),
        DataElement(0x95, 5, .binary, "Terminal Verification Results"),
        DataElement(0x5F2A, 2, .numeric, "Transaction Currency Code"),
        DataElement(0x9A, 3, .numeric, "Transaction Date"),
        DataElement(0x9C, 1, .numeric, "Transaction Type"),
        DataElement(0x9F37, 4, .binary, "Unpredictable Number"),
        DataElement(0x82, 2, .binary, "Application Interchange Profile"),
        DataElement(0x9F36, 2, .binary, "Application Transaction Counter"),
        DataElement(0x9F10, offset: 3, 4, .binary, "Card Verification Results (9F10 bytes 4-7)"),
    ]

    /// The data objects `dataList` reads, each once, in order.
    package static var dataTags: [UInt32] {
        dataList.map(\.tag).reduce(into: []) { tags, tag in if !tags.contains(tag) { tags.append(tag) } }
    }

    /// The bytes the cryptogram is the MAC of: each element of `dataList`, in order, from `data` (tag → value, as
    /// the card knows them, or as the terminal sent them in the authorisation request's field 55).
    package static func input(_ data: [UInt32: [UInt8]]) -> [UInt8] {
        dataList.flatMap { $0.bytes(from: data[$0.tag]) }
    }

    /// The ATC the session key is derived from: 9F36 of `data`, fitted as `dataList` fits it (absent: 00 00).
    package static func atc(_ data: [UInt32: [UInt8]]) -> [UInt8] {
        atcElement.bytes(from: data[0x9F36])
    }

    /// The ATC's entry of `dataList`.
    private static let atcElement = dataList.first { $0.tag == 0x9F36 }!

    // MARK: The cryptogram

    /// The 8-byte application cryptogram (9F26: ARQC, TC or AAC alike) of `data` under `sessionKey` (EMV Book 2
    /// §8.1.2, Annex A1.2.1): ISO/IEC 9797-1 MAC algorithm 3 (single-DES CBC, triple-DES last block) with padding
    /// method 2 over `input(data)`.
    /// - Throws: `invalidKeyLength` unless `sessionKey` is 16 bytes.
    package static func cryptogram(sessionKey: [UInt8], data: [UInt32: [UInt8]]) throws -> [UInt8] {
        try RetailMAC.compute(key: sessionKey, data: input(data), padding: .method2)
    }

    /// The card's cryptogram in one step: SK_AC from `masterKey` (the card's ICC master key) and the ATC of `data`,
    /// then the cryptogram of `data` under it.
    package static func cryptogram(masterKey: [UInt8], data: [UInt32: [UInt8]]) throws -> [UInt8] {
        try cryptogram(sessionKey: sessionKey(masterKey: masterKey, atc: atc(data)), data: data)
    }

    // MARK: Issuer authentication, ARPC method 1

    /// The ARPC of method 1 (EMV Book 2 §8.2.1): ARPC = TDES(SK_AC)[ARQC ⊕ (ARC ‖ 00 00 00 00 00 00)].
    /// - Parameters:
    ///   - arqc: the card's ARQC (9F26), 8 bytes.
    ///   - arc: the authorisation response code, 2 bytes ("00" = 30 30).
    /// - Throws: `invalidKeyLength`, or `invalidDataLength` for an ARQC that is not 8 bytes or an ARC that is not 2.
    package static func arpc(sessionKey: [UInt8], arqc: [UInt8], arc: [UInt8]) throws -> [UInt8] {
        guard arqc.count == 8 else { throw CryptoError(.invalidDataLength, "an ARQC is 8 bytes, got \(arqc.count)") }
        guard arc.count == 2 else { throw CryptoError(.invalidDataLength, "an ARC is 2 bytes, got \(arc.count)") }
        return try TDES.encryptECB(key: sessionKey, data: Bytes.xor(arqc, arc + [UInt8](repeating: 0, count: 6)))
    }

    /// Tag 91 of ARPC method 1 (EMV Book 2 §8.2.1): the ARPC (8 bytes) ‖ the ARC it was computed for (2 bytes).
    package static func issuerAuthenticationData(sessionKey: [UInt8], arqc: [UInt8], arc: [UInt8]) throws -> [UInt8] {
        try arpc(sessionKey: sessionKey, arqc: arqc, arc: arc) + arc
    }

    /// What a card finds when it checks tag 91 against the ARQC it sent.
    package enum IssuerAuthentication: Sendable, Hashable {
        /// The ARPC is the one SK_AC gives for the ARQC and the ARC 91 carries: the issuer answered `arc`.
        case passed(arc: [UInt8])
        /// The ARPC does not verify, or 91 is not the 10 bytes of method 1 (ARPC ‖ ARC).
        case failed
    }

    /// The card's check of tag 91 (EMV Book 2 §8.2.1, method 1): `data` must be ARPC ‖ ARC, with the ARPC that
    /// `sessionKey` gives for `arqc` and that ARC. Compared in constant time.
    /// - Throws: `invalidKeyLength`, or `invalidDataLength` for an ARQC that is not 8 bytes.
    package static func verifyIssuerAuthenticationData(_ data: [UInt8], sessionKey: [UInt8], arqc: [UInt8]) throws
        -> IssuerAuthentication
    {
        guard arqc.count == 8 else { throw CryptoError(.invalidDataLength, "an ARQC is 8 bytes, got \(arqc.count)") }
        guard data.count == 10 else { return .failed }
        let arc = Array(data[8..<10])
        let expected = try arpc(sessionKey: sessionKey, arqc: arqc, arc: arc)
        return Bytes.constantTimeEqual(expected, Array(data[0..<8])) ? .passed(arc: arc) : .failed
    }

    // MARK: Parity

    /// `key` with the low bit of each byte set so that the byte has an odd number of 1 bits (the DES key parity).
    static func oddParity(_ key: [UInt8]) -> [UInt8] {
        key.map { $0.nonzeroBitCount % 2 == 1 ? $0 : $0 ^ 0x01 }
    }
}

/// The issuer's side of an online EMV authorisation, for a host or acquirer simulator: from the issuer master key and
/// the request (PAN, PAN sequence number, field 55's EMV data), check the card's ARQC and answer it with tag 91 (EMV
/// Book 2 §8.1 and §8.2.1). The same table (`EMVApplicationCryptogram.dataList`) the card MACs is read from the
/// request, so a simulated card's ARQC verifies here exactly when the request carries the data the terminal read.
///
/// ```swift
/// let check = try EMVIssuer.checkARQC(
///     issuerMasterKey: CryptoChoices.testIssuerMasterKey, pan: pan, panSequenceNumber: 0x01, emvData: field55)
/// let arc: [UInt8] = check.isValid ? Array("00".utf8) : Array("05".utf8)
/// let tag91 = try check.issuerAuthenticationData(arc: arc)
/// ```
package enum EMVIssuer {
    /// The issuer's check of one ARQC. Holds the transaction's session key, which `description` never shows.
    package struct ARQCCheck: Sendable, Hashable, CustomStringConvertible {
        /// The ARQC the request carried (9F26).
        package let arqc: [UInt8]
        /// The ARQC is the cryptogram the card with this PAN and PSN computes from the request's data.
        package let isValid: Bool
        /// SK_AC of the transaction (from the IMK, PAN, PSN and the request's ATC).
        let sessionKey: [UInt8]

        /// Tag 91 answering this ARQC with `arc` (2 bytes, "00" = 30 30): ARPC method 1 ‖ ARC. A host computes it
        /// whatever `isValid` says; a card that sent another ARQC finds the ARPC wrong and declines.
        /// - Throws: `invalidDataLength` unless `arc` is 2 bytes.
        package func issuerAuthenticationData(arc: [UInt8]) throws -> [UInt8] {
            try EMVApplicationCryptogram.issuerAuthenticationData(sessionKey: sessionKey, arqc: arqc, arc: arc)
        }

        package var description: String { "ARQCCheck(isValid: \(isValid))" }
    }

    /// Checks the ARQC of an authorisation request.
    /// - Parameters:
    ///   - issuerMasterKey: the IMK for application cryptograms, 16 bytes (the simulator's is
    ///     `CryptoChoices.testIssuerMasterKey`).
    ///   - pan: the PAN's digits (ISO 8583 field 2, or 5A without its F padding).
    ///   - panSequenceNumber: 5F34 (or field 23) as one byte of two BCD digits; `nil` when the card has none.
    ///   - emvData: the request's EMV data, tag → value (field 55): 9F26, the ARQC, is required (8 bytes); the
    ///     elements of `EMVApplicationCryptogram.dataList` are read from it as the card reads them (absent: zeros).
    /// - Throws: `invalidKeyLength`, `invalidPAN`, or `invalidEMVData` when 9F26 is absent or not 8 bytes.
    package static func checkARQC(
        issuerMasterKey: [UInt8],
        pan: String,
        panSequenceNumber: UInt8?,
        emvData: [UInt32: [UInt8]]
    ) throws -> ARQCCheck {
        guard let arqc = emvData[0x9F26], arqc.count == 8 else {
            throw CryptoError(.invalidEMVData, "the request's EMV data has no 8-byte ARQC (9F26)")
        }
        let masterKey = try EMVApplicationCryptogram.iccMasterKey(
            issuerMasterKey: issuerMasterKey, pan: pan, panSequenceNumber: panSequenceNumber)
        let sessionKey = try EMVApplicationCryptogram.sessionKey(
            masterKey: masterKey, atc: EMVApplicationCryptogram.atc(emvData))
        let expected = try EMVApplicationCryptogram.cryptogram(sessionKey: sessionKey, data: emvData)
        return ARQCCheck(arqc: arqc, isValid: Bytes.constantTimeEqual(expected, arqc), sessionKey: sessionKey)
    }
}
