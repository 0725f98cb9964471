/// The bit tables of EMV data objects, one per tag, each with the source it was read from. The wording follows the
/// books; the bits were cross-checked against openemv/emv-utils (`emv-decode`), which the issue names as the model.
/// Where a book reserves a bit for another specification, the meaning says whose it is.
package enum EMVBitTables {
    /// 95 Terminal Verification Results: EMV 4.4 Book 3 Annex C5 Table 46.
    package static let tvr = BitTable(
        name: "Terminal Verification Results",
        source: "EMV 4.4 Book 3 Annex C5 Table 46",
        length: 5,
        bits: [
            BitMeaning(1, 8, "Offline data authentication was not performed"),
            BitMeaning(1, 7, "SDA failed"),
            BitMeaning(1, 6, "ICC data missing"),
            BitMeaning(1, 5, "Card appears on terminal exception file"),
            BitMeaning(1, 4, "DDA failed"),
            BitMeaning(1, 3, "CDA failed"),
            BitMeaning(1, 2, "SDA selected"),
            BitMeaning(1, 1, "XDA selected"),
            BitMeaning(2, 8, "ICC and terminal have different application versions"),
            BitMeaning(2, 7, "Expired application"),
            BitMeaning(2, 6, "Application not yet effective"),
            BitMeaning(2, 5, "Requested service not allowed for card product"),
            BitMeaning(2, 4, "New card"),
            BitMeaning(2, 2, "Biometric performed and successful"),
            BitMeaning(2, 1, "Biometric template format not supported"),
            BitMeaning(3, 8, "Cardholder verification was not successful"),
            BitMeaning(3, 7, "Unrecognised CVM"),
            BitMeaning(3, 6, "PIN Try Limit exceeded"),
            BitMeaning(3, 5, "PIN entry required and PIN pad not present or not working"),
            BitMeaning(3, 4, "PIN entry required, PIN pad present, but PIN was not entered"),
            BitMeaning(3, 3, "Online CVM captured (EMV 4.3: Online PIN entered)"),
            BitMeaning(3, 2, "Biometric required but Biometric capture device not working"),
            BitMeaning(
                3, 1, "Biometric required, Biometric capture device present, but Biometric Subtype entry was bypassed"),
            BitMeaning(4, 8, "Transaction exceeds floor limit"),
            BitMeaning(4, 7, "Lower consecutive offline limit exceeded"),
            BitMeaning(4, 6, "Upper consecutive offline limit exceeded"),
            BitMeaning(4, 5, "Transaction selected randomly for online processing"),
            BitMeaning(4, 4, "Merchant forced transaction online"),
            BitMeaning(4, 3, "Biometric Try Limit exceeded"),
            BitMeaning(4, 2, "A selected Biometric Type not supported"),
            BitMeaning(4, 1, "XDA signature verification failed"),
            BitMeaning(5, 8, "Default TDOL used"),
            BitMeaning(5, 7, "Issuer authentication failed"),
            BitMeaning(5, 6, "Script processing failed before final GENERATE AC"),
            BitMeaning(5, 5, "Script processing failed after final GENERATE AC"),
            BitMeaning(5, 4, "Reserved for use by the EMV Contactless Specifications"),
            BitMeaning(5, 3, "CA ECC key missing"),
            BitMeaning(5, 2, "ECC key recovery failed"),
            BitMeaning(5, 1, "Reserved for use by the EMV Contactless Specifications"),
        ])

    /// 9B Transaction Status Information: EMV 4.4 Book 3 Annex C6 Table 47.
    package static let tsi = BitTable(
        name: "Transaction Status Information",
        source: "EMV 4.4 Book 3 Annex C6 Table 47",
        length: 2,
        bits: [
            BitMeaning(1, 8, "Offline data authentication was performed"),
            BitMeaning(1, 7, "Cardholder verification was performed"),
            BitMeaning(1, 6, "Card risk management was performed"),
            BitMeaning(1, 5, "Issuer authentication was performed"),
            BitMeaning(1, 4, "Terminal risk management was performed"),
            BitMeaning(1, 3, "Script processing was performed"),
        ])

    /// 82 Application Interchange Profile: EMV 4.4 Book 3 Annex C1 Table 41 (byte 1); byte 1 bit 2 and byte 2 are
    /// left by Book 3 to the contactless specifications, and are named here as EMV Contactless Book C-2 v2.11
    /// Annex A.1.16 defines them (other kernels may read them otherwise).
    package static let aip = BitTable(
        name: "Application Interchange Profile",
        source: "EMV 4.4 Book 3 Annex C1 Table 41; byte 1 bit 2 and byte 2: EMV Contactless Book C-2 Annex A.1.16",
        length: 2,
        bits: [
            BitMeaning(1, 8, "XDA supported"),
            BitMeaning(1, 7, "SDA supported"),
            BitMeaning(1, 6, "DDA supported"),
            BitMeaning(1, 5, "Cardholder verification is supported"),
            BitMeaning(1, 4, "Terminal risk management is to be performed"),
            BitMeaning(1, 3, "Issuer authentication is supported"),
            BitMeaning(1, 2, "On device cardholder verification is supported (Book C-2)"),
            BitMeaning(1, 1, "CDA supported"),
            BitMeaning(2, 8, "EMV mode is supported (Book C-2)"),
            BitMeaning(2, 7, "Mobile phone (Book C-2)"),
            BitMeaning(2, 6, "Contactless transaction (Book C-2)"),
            BitMeaning(2, 1, "Relay Resistance Protocol is supported (Book C-2)"),
        ])

    /// 9F07 Application Usage Control: EMV 4.4 Book 3 Annex C2 Table 42.
    package static let auc = BitTable(
        name: "Application Usage Control",
        source: "EMV 4.4 Book 3 Annex C2 Table 42",
        length: 2,
        bits: [
            BitMeaning(1, 8, "Valid for domestic cash transactions"),
            BitMeaning(1, 7, "Valid for international cash transactions"),
            BitMeaning(1, 6, "Valid for domestic goods"),
            BitMeaning(1, 5, "Valid for international goods"),
            BitMeaning(1, 4, "Valid for domestic services"),
            BitMeaning(1, 3, "Valid for international services"),
            BitMeaning(1, 2, "Valid at ATMs"),
            BitMeaning(1, 1, "Valid at terminals other than ATMs"),
            BitMeaning(2, 8, "Domestic cashback allowed"),
            BitMeaning(2, 7, "International cashback allowed"),
        ])

    /// 9F27 Cryptogram Information Data: EMV 4.4 Book 3 §6.5.5.4 Table 15. The cryptogram types are
    /// `CryptogramType`'s (spec §7.6).
    package static let cid = BitTable(
        name: "Cryptogram Information Data",
        source: "EMV 4.4 Book 3 §6.5.5.4 Table 15",
        length: 1,
        bits: [BitMeaning(1, 4, "Advice required")],
        fields: [
            BitField(1, bits: 8, 7, "cryptogram type", cryptogramTypes, otherwise: "RFU"),
            BitField(1, bits: 6, 5, "payment system-specific cryptogram", showsZero: false),
            BitField(
                1, bits: 3, 1, "reason/advice code",
                [1: "Service not allowed", 2: "PIN Try Limit exceeded", 3: "Issuer authentication failed"],
                otherwise: "RFU", showsZero: false),
        ])

    /// Bits 8–7 of a CID (or of a CVR's GENERATE AC fields) by `CryptogramType`, with Book 3's full names.
    static let cryptogramTypes: [UInt8: String] = {
        let long: [CryptogramType: String] = [
            .aac: "Application Authentication Cryptogram", .tc: "Transaction Certificate",
            .arqc: "Authorisation Request Cryptogram",
        ]
        var out: [UInt8: String] = [:]
        for type in CryptogramType.allCases {
            out[type.rawValue >> 6] = "\(type.name.uppercased()) (\(long[type]!))"
        }
        return out
    }()

    /// 9F33 Terminal Capabilities: EMV 4.4 Book 4 Annex A2 Tables 25–27.
    package static let terminalCapabilities = BitTable(
        name: "Terminal Capabilities",
        source: "EMV 4.4 Book 4 Annex A2 Tables 25-27",
        length: 3,
        bits: [
            BitMeaning(1, 8, "Card data input: Manual key entry"),
            BitMeaning(1, 7, "Card data input: Magnetic stripe"),
            BitMeaning(1, 6, "Card data input: IC with contacts"),
            BitMeaning(2, 8, "CVM: Plaintext PIN for ICC verification"),
            BitMeaning(2, 7, "CVM: Enciphered PIN for online verification"),
            BitMeaning(2, 6, "CVM: Signature (paper)"),
            BitMeaning(2, 5, "CVM: Enciphered PIN for offline verification (RSA ODE)"),
            BitMeaning(2, 4, "CVM: No CVM required"),
            BitMeaning(2, 3, "CVM: Online Biometric"),
            BitMeaning(2, 2, "CVM: Offline Biometric"),
            BitMeaning(2, 1, "CVM: Enciphered PIN for offline verification (ECC ODE)"),
            BitMeaning(3, 8, "Security: SDA"),
            BitMeaning(3, 7, "Security: DDA"),
            BitMeaning(3, 6, "Security: Card capture"),
            BitMeaning(3, 4, "Security: CDA"),
            BitMeaning(3, 3, "Security: XDA"),
        ])

    /// 9F40 Additional Terminal Capabilities: EMV 4.4 Book 4 Annex A3 Tables 28–32.
    package static let additionalTerminalCapabilities = BitTable(
        name: "Additional Terminal Capabilities",
        source: "EMV 4.4 Book 4 Annex A3 Tables 28-32",
        length: 5,
        bits: [
            BitMeaning(1, 8, "Transaction type: Cash"),
            BitMeaning(1, 7, "Transaction type: Goods"),
            BitMeaning(1, 6, "Transaction type: Services"),
            BitMeaning(1, 5, "Transaction type: Cashback"),
            BitMeaning(1, 4, "Transaction type: Inquiry"),
            BitMeaning(1, 3, "Transaction type: Transfer"),
            BitMeaning(1, 2, "Transaction type: Payment"),
            BitMeaning(1, 1, "Transaction type: Administrative"),
            BitMeaning(2, 8, "Transaction type: Cash deposit"),
            BitMeaning(3, 8, "Terminal data input: Numeric keys"),
            BitMeaning(3, 7, "Terminal data input: Alphabetic and special characters keys"),
            BitMeaning(3, 6, "Terminal data input: Command keys"),
            BitMeaning(3, 5, "Terminal data input: Function keys"),
            BitMeaning(4, 8, "Terminal data output: Print or electronic, attendant"),
            BitMeaning(4, 7, "Terminal data output: Print or electronic, cardholder"),
            BitMeaning(4, 6, "Terminal data output: Display, attendant"),
            BitMeaning(4, 5, "Terminal data output: Display, cardholder"),
            BitMeaning(4, 2, "Terminal data output: Code table 10"),
            BitMeaning(4, 1, "Terminal data output: Code table 9"),
        ] + (1...8).map { BitMeaning(5, $0, "Terminal data output: Code table \($0)") })

    /// 9F66 Terminal Transaction Qualifiers: EMV Contactless Book A v2.11 §5.7 Table 5-4 and Book C-3 v2.11
    /// Annex A.2. Bits only one kernel book defines say which (C-6, C-7); elsewhere they are RFU.
    package static let ttq = BitTable(
        name: "Terminal Transaction Qualifiers",
        source: "EMV Contactless Book A v2.11 §5.7 Table 5-4; Book C-3 v2.11 Annex A.2",
        length: 4,
        bits: [
            BitMeaning(1, 8, "Mag-stripe mode supported"),
            BitMeaning(1, 6, "EMV mode supported"),
            BitMeaning(1, 5, "EMV contact chip supported"),
            BitMeaning(1, 4, "Offline-only reader"),
            BitMeaning(1, 3, "Online PIN supported"),
            BitMeaning(1, 2, "Signature supported"),
            BitMeaning(1, 1, "Offline Data Authentication for Online Authorizations supported"),
            BitMeaning(2, 8, "Online cryptogram required"),
            BitMeaning(2, 7, "CVM required"),
            BitMeaning(2, 6, "(Contact Chip) Offline PIN supported"),
            BitMeaning(2, 4, "Fast Mode supported (Book C-6)"),
            BitMeaning(2, 3, "Transit terminal (Book C-6)"),
            BitMeaning(3, 8, "Issuer Update Processing supported"),
            BitMeaning(3, 7, "Consumer Device CVM supported"),
            BitMeaning(3, 6, "Consumer Device CVM for transit MCC supported (Book C-6)"),
            BitMeaning(3, 4, "Consumer Device CVM required (Book C-6)"),
            BitMeaning(4, 8, "fDDA v1.0 supported (Book C-7)"),
        ])

    /// 9F6C Card Transaction Qualifiers: EMV Contactless Book C-3 v2.11 Annex A.2.
    package static let ctq = BitTable(
        name: "Card Transaction Qualifiers",
        source: "EMV Contactless Book C-3 v2.11 Annex A.2",
        length: 2,
        bits: [
            BitMeaning(1, 8, "Online PIN Required"),
            BitMeaning(1, 7, "Signature Required"),
            BitMeaning(1, 6, "Go Online if Offline Data Authentication Fails and Reader is online capable"),
            BitMeaning(1, 5, "Switch Interface if Offline Data Authentication fails and Reader supports contact chip"),
            BitMeaning(1, 4, "Go Online if Application Expired"),
            BitMeaning(1, 3, "Switch Interface for Cash Transactions"),
            BitMeaning(1, 2, "Switch Interface for Cashback Transactions"),
            BitMeaning(1, 1, "Not valid for contactless ATM transactions"),
            BitMeaning(2, 8, "Consumer Device CVM Performed"),
            BitMeaning(2, 7, "Card supports Issuer Update Processing at the POS"),
        ])

    /// 9F1D Terminal Risk Management Data as Mastercard defines it: EMV Contactless Book C-2 v2.11 Annex A.1.161
    /// (8 bytes; bytes 5–8 RFU). Other schemes may use 9F1D for their own data. Byte 1 bit 8 ("Restart supported")
    /// is not in every version of Book C-2: it is named as emv-utils reads the M/Chip Requirements (2023), unchecked.
    package static let terminalRiskManagementData = BitTable(
        name: "Terminal Risk Management Data",
        source: "EMV Contactless Book C-2 v2.11 Annex A.1.161",
        length: 8,
        bits: [
            BitMeaning(1, 8, "Restart supported (unchecked: M/Chip Requirements 2023)"),
            BitMeaning(1, 7, "Enciphered PIN verified online (Contactless)"),
            BitMeaning(1, 6, "Signature (paper) (Contactless)"),
            BitMeaning(1, 5, "Enciphered PIN verification performed by ICC (Contactless)"),
            BitMeaning(1, 4, "No CVM required (Contactless)"),
            BitMeaning(1, 3, "CDCVM (Contactless)"),
            BitMeaning(1, 2, "Plaintext PIN verification performed by ICC (Contactless)"),
            BitMeaning(1, 1, "Present and Hold supported"),
            BitMeaning(2, 8, "CVM Limit exceeded"),
            BitMeaning(2, 7, "Enciphered PIN verified online (Contact)"),
            BitMeaning(2, 6, "Signature (paper) (Contact)"),
            BitMeaning(2, 5, "Enciphered PIN verification performed by ICC (Contact)"),
            BitMeaning(2, 4, "No CVM required (Contact)"),
            BitMeaning(2, 3, "CDCVM (Contact)"),
            BitMeaning(2, 2, "Plaintext PIN verification performed by ICC (Contact)"),
            BitMeaning(3, 8, "Mag-stripe mode contactless transactions not supported"),
            BitMeaning(3, 7, "EMV mode contactless transactions not supported"),
            BitMeaning(3, 6, "CDCVM without CDA supported"),
            BitMeaning(4, 8, "CDCVM bypass requested"),
            BitMeaning(4, 7, "SCA exempt"),
        ])
}
