/// Where a tag appears: GetInfo's proprietary C1…FD tags mean something else inside payment commands (C1 there is
/// the requested-tag list). Lookups name the context.
package enum TagContext: String, Sendable, CaseIterable {
    /// GetInfo / SetInfoField responses (spec §7.1), top level.
    case getInfo
    /// Payment commands and responses: EMV Book 3 tags and the proprietary tags of spec §7.3–§7.8.
    case payment
    /// Inside GetInfo's E8 "NFC infos" template, where D1, A0, A2 and C4 mean NFC-module things (spec §7.1).
    case nfcInfo
}

/// How a tag's value is shown (see `TagValueFormatter`).
package enum TagFormat: String, Sendable, CaseIterable {
    /// Raw bytes, shown as hex.
    case binary
    /// EMV "n": packed BCD digits.
    case numeric
    /// EMV "cn": packed BCD digits, left-justified and padded with F.
    case compressedNumeric
    /// EMV "an" / "ans": printable ASCII.
    case alphanumeric
    /// Free text (ASCII, trailing NULs ignored).
    case text
    /// Four bytes printed "a.b.c.d" in decimal (spec §4 "Versions").
    case version
    /// GetInfo C3: five bytes big-endian divided by 4 (spec §4 "Serial number").
    case serialNumber
    /// Six-byte packed BCD amount in minor units (spec §4 "Amounts").
    case amount
    /// Two-byte BCD ISO 4217 numeric code (spec §4 "Currency").
    case currencyCode
    /// YYMMDD packed BCD (spec §4 "Dates").
    case date
    /// HHMMSS packed BCD (spec §4 "time").
    case time
    /// A constructed tag whose value is more TLV.
    case template
    /// Concatenated tag ids (C1 requested tags, 9F4A).
    case tagList
    /// Data object list: tag ‖ one-byte length pairs (EMV Book 3 §5.4).
    case dol
    /// GetInfo CD: DUKPT key descriptors (spec §12.2).
    case ksnFormats
    /// DF72: CVM/receipt byte and result byte (spec §7.5).
    case nfcOutcome
    /// GetInfo C4 (spec §7.2).
    case terminalState
    /// One byte, 0…100.
    case percent
    /// Big-endian unsigned number of seconds.
    case seconds
    /// 0x00 no, 0x01 yes.
    case yesNo
    /// Big-endian unsigned integer.
    case integer
    /// GetInfo C2: ASCII with spaces removed (spec §4 "Part number").
    case partNumber
    /// 9F27: the cryptogram type in bits 8–7 (spec §7.6, EMV Book 3 §6.5.5.4).
    case cryptogramInformation
    /// One byte (or a list of bytes) named by `TagValueNames`.
    case enumerated
    /// Application PAN, packed BCD padded with F: shown masked.
    case pan
    /// Track 1 data (ISO/IEC 7813 format B, ASCII): shown masked.
    case track1
    /// Track 2 equivalent data (packed BCD, separator nibble D): shown masked.
    case track2
    /// Two-letter ISO 639-1 codes concatenated ("fren").
    case languages
    /// ASCII locale names separated by 0x00 ("en\0fr\0") (PROJECT CHOICE, spec §5.2 "Locale commands").
    case localeList
    /// GetInfo DB key serial list id, with the known key names (spec §7.1).
    case kslID
    /// 8A / DF73: two ASCII characters with the meanings of spec §7.7.
    case authorisationResponseCode
}

/// One row of the tag dictionary.
package struct TagInfo: Sendable, Hashable {
    package let tag: Tag
    package let context: TagContext
    /// Identifier-style name for the CLI and JSON ("amountAuthorised"), unique across the whole dictionary.
    package let name: String
    /// Human title ("Amount, Authorised (Numeric)").
    package let title: String
    package let format: TagFormat
    /// PAN, track data and other cardholder data: shown masked, never in clear.
    package let isSensitive: Bool
    /// Where the name comes from ("EMV Book 3 Annex A1", "spec §7.1 A-Const", ...).
    package let source: String
}

/// The one table of tag names, formats and sensitivity; the CLI, completion, decoders and simulator read it.
package enum TagDictionary {
    /// Every known tag, in every context.
    package static let all: [TagInfo] = emvBook3 + emvContactless + proprietaryPayment + getInfo + nfcInfo

    private struct Key: Hashable {
        let tag: Tag
        let context: TagContext
    }

    private static let byKey: [Key: TagInfo] = Dictionary(
        all.map { (Key(tag: $0.tag, context: $0.context), $0) },
        uniquingKeysWith: { first, _ in first }
    )

    private static let byName: [String: TagInfo] = Dictionary(
        all.map { ($0.name.lowercased(), $0) },
        uniquingKeysWith: { first, _ in first }
    )

    /// The row for `tag` in `context`, or `nil` for a tag the dictionary does not know there.
    package static func info(for tag: Tag, context: TagContext) -> TagInfo? {
        byKey[Key(tag: tag, context: context)]
    }

    /// The row whose `name` matches, ignoring case ("amountauthorised" finds 9F02).
    package static func entry(named name: String) -> TagInfo? {
        byName[name.lowercased()]
    }

    /// Every row for `tag`, whatever its context (for `ucube decode` when the context is not known).
    package static func entries(for tag: Tag) -> [TagInfo] {
        TagContext.allCases.compactMap { info(for: tag, context: $0) }
    }

    /// The rows of one context, in table order.
    package static func entries(in context: TagContext) -> [TagInfo] {
        all.filter { $0.context == context }
    }

    /// The context of the children of `tag`: E8 in a GetInfo response holds NFC-module tags (spec §7.1).
    package static func context(inside tag: Tag, of context: TagContext) -> TagContext {
        if context == .getInfo && tag == Tag(0xE8) { return .nfcInfo }
        return context
    }
}

// MARK: - Rows

private func row(
    _ tag: UInt32,
    _ context: TagContext,
    _ name: String,
    _ title: String,
    _ format: TagFormat,
    sensitive: Bool = false,
    _ source: String
) -> TagInfo {
    TagInfo(
        tag: Tag(tag),
        context: context,
        name: name,
        title: title,
        format: format,
        isSensitive: sensitive,
        source: source
    )
}

private let book3 = "EMV Book 3 v4.3 Annex A1"

private func emv(
    _ tag: UInt32,
    _ name: String,
    _ title: String,
    _ format: TagFormat,
    sensitive: Bool = false
) -> TagInfo {
    row(tag, .payment, name, title, format, sensitive: sensitive, book3)
}

extension TagDictionary {
    /// EMV Book 3 Annex A1 "Data Elements Dictionary": official names.
    fileprivate static let emvBook3: [TagInfo] = [
        emv(0x42, "issuerIdentificationNumber", "Issuer Identification Number (IIN)", .numeric),
        emv(0x4F, "applicationIdentifierCard", "Application Identifier (AID) – card", .binary),
        emv(0x50, "applicationLabel", "Application Label", .alphanumeric),
        emv(0x57, "track2EquivalentData", "Track 2 Equivalent Data", .track2, sensitive: true),
        emv(0x5A, "applicationPAN", "Application Primary Account Number (PAN)", .pan, sensitive: true),
        emv(0x5F20, "cardholderName", "Cardholder Name", .alphanumeric, sensitive: true),
        // PCI DSS counts the expiry date as cardholder data; spec §5.2 lists it among the SRED tags.
        emv(0x5F24, "applicationExpirationDate", "Application Expiration Date", .date, sensitive: true),
        emv(0x5F25, "applicationEffectiveDate", "Application Effective Date", .date),
        emv(0x5F28, "issuerCountryCode", "Issuer Country Code", .numeric),
        emv(0x5F2A, "transactionCurrencyCode", "Transaction Currency Code", .currencyCode),
        emv(0x5F2D, "languagePreference", "Language Preference", .languages),
        // Service code: PCI DSS cardholder data and a SRED tag (spec §5.2 GetSecuredTagValue).
        emv(0x5F30, "serviceCode", "Service Code", .numeric, sensitive: true),
        emv(
            0x5F34,
            "applicationPANSequenceNumber",
            "Application Primary Account Number (PAN) Sequence Number",
            .numeric
        ),
        emv(0x5F36, "transactionCurrencyExponent", "Transaction Currency Exponent", .numeric),
        emv(0x5F50, "issuerURL", "Issuer URL", .alphanumeric),
        emv(0x5F53, "internationalBankAccountNumber", "International Bank Account Number (IBAN)", .binary),
        emv(0x5F54, "bankIdentifierCode", "Bank Identifier Code (BIC)", .alphanumeric),
        emv(0x5F55, "issuerCountryCodeAlpha2", "Issuer Country Code (alpha2 format)", .alphanumeric),
        emv(0x5F56, "issuerCountryCodeAlpha3", "Issuer Country Code (alpha3 format)", .alphanumeric),
        emv(0x61, "applicationTemplate", "Application Template", .template),
        emv(0x6F, "fileControlInformationTemplate", "File Control Information (FCI) Template", .template),
        emv(0x70, "readRecordResponseMessageTemplate", "READ RECORD Response Message Template", .template),
        emv(0x71, "issuerScriptTemplate1", "Issuer Script Template 1", .template),
        emv(0x72, "issuerScriptTemplate2", "Issuer Script Template 2", .template),
        emv(0x73, "directoryDiscretionaryTemplate", "Directory Discretionary Template", .template),
        emv(0x77, "responseMessageTemplateFormat2", "Response Message Template Format 2", .template),
        emv(0x80, "responseMessageTemplateFormat1", "Response Message Template Format 1", .binary),
        emv(0x81, "amountAuthorisedBinary", "Amount, Authorised (Binary)", .integer),
        emv(0x82, "applicationInterchangeProfile", "Application Interchange Profile", .binary),
        emv(0x83, "commandTemplate", "Command Template", .binary),
        emv(0x84, "dedicatedFileName", "Dedicated File (DF) Name", .binary),
        emv(0x86, "issuerScriptCommand", "Issuer Script Command", .binary),
        emv(0x87, "applicationPriorityIndicator", "Application Priority Indicator", .binary),
        emv(0x88, "shortFileIdentifier", "Short File Identifier (SFI)", .binary),
        emv(0x89, "authorisationCode", "Authorisation Code", .alphanumeric),
        emv(0x8A, "authorisationResponseCode", "Authorisation Response Code", .authorisationResponseCode),
        emv(0x8C, "cdol1", "Card Risk Management Data Object List 1 (CDOL1)", .dol),
        emv(0x8D, "cdol2", "Card Risk Management Data Object List 2 (CDOL2)", .dol),
        emv(0x8E, "cvmList", "Cardholder Verification Method (CVM) List", .binary),
        emv(0x8F, "caPublicKeyIndexCard", "Certification Authority Public Key Index – card", .binary),
        emv(0x90, "issuerPublicKeyCertificate", "Issuer Public Key Certificate", .binary),
        emv(0x91, "issuerAuthenticationData", "Issuer Authentication Data", .binary),
        emv(0x92, "issuerPublicKeyRemainder", "Issuer Public Key Remainder", .binary),
        emv(0x93, "signedStaticApplicationData", "Signed Static Application Data", .binary),
        emv(0x94, "applicationFileLocator", "Application File Locator (AFL)", .binary),
        emv(0x95, "terminalVerificationResults", "Terminal Verification Results", .binary),
        emv(0x97, "tdol", "Transaction Certificate Data Object List (TDOL)", .dol),
        emv(0x98, "tcHashValue", "Transaction Certificate (TC) Hash Value", .binary),
        emv(
            0x99,
            "transactionPINData",
            "Transaction Personal Identification Number (PIN) Data",
            .binary,
            sensitive: true
        ),
        emv(0x9A, "transactionDate", "Transaction Date", .date),
        emv(0x9B, "transactionStatusInformation", "Transaction Status Information", .binary),
        emv(0x9C, "transactionType", "Transaction Type", .enumerated),
        emv(0x9D, "ddfName", "Directory Definition File (DDF) Name", .binary),
        emv(0x9F01, "acquirerIdentifier", "Acquirer Identifier", .numeric),
        emv(0x9F02, "amountAuthorised", "Amount, Authorised (Numeric)", .amount),
        emv(0x9F03, "amountOther", "Amount, Other (Numeric)", .amount),
        emv(0x9F04, "amountOtherBinary", "Amount, Other (Binary)", .integer),
        emv(0x9F05, "applicationDiscretionaryData", "Application Discretionary Data", .binary),
        emv(0x9F06, "applicationIdentifierTerminal", "Application Identifier (AID) – terminal", .binary),
        emv(0x9F07, "applicationUsageControl", "Application Usage Control", .binary),
        emv(0x9F08, "applicationVersionNumberCard", "Application Version Number – card", .binary),
        emv(0x9F09, "applicationVersionNumberTerminal", "Application Version Number – terminal", .binary),
        row(
            0x9F0A,
            .payment,
            "applicationSelectionRegisteredProprietaryData",
            "Application Selection Registered Proprietary Data",
            .binary,
            "EMV Book 3 v4.4 Annex A1"
        ),
        emv(0x9F0B, "cardholderNameExtended", "Cardholder Name Extended", .alphanumeric, sensitive: true),
        emv(0x9F0D, "issuerActionCodeDefault", "Issuer Action Code – Default", .binary),
        emv(0x9F0E, "issuerActionCodeDenial", "Issuer Action Code – Denial", .binary),
        emv(0x9F0F, "issuerActionCodeOnline", "Issuer Action Code – Online", .binary),
        emv(0x9F10, "issuerApplicationData", "Issuer Application Data", .binary),
        emv(0x9F11, "issuerCodeTableIndex", "Issuer Code Table Index", .numeric),
        emv(0x9F12, "applicationPreferredName", "Application Preferred Name", .alphanumeric),
        emv(0x9F13, "lastOnlineATCRegister", "Last Online Application Transaction Counter (ATC) Register", .integer),
        emv(0x9F14, "lowerConsecutiveOfflineLimit", "Lower Consecutive Offline Limit", .integer),
        emv(0x9F15, "merchantCategoryCode", "Merchant Category Code", .numeric),
        emv(0x9F16, "merchantIdentifier", "Merchant Identifier", .alphanumeric),
        emv(0x9F17, "pinTryCounter", "Personal Identification Number (PIN) Try Counter", .integer),
        emv(0x9F18, "issuerScriptIdentifier", "Issuer Script Identifier", .binary),
        emv(0x9F1A, "terminalCountryCode", "Terminal Country Code", .numeric),
        emv(0x9F1B, "terminalFloorLimit", "Terminal Floor Limit", .integer),
        emv(0x9F1C, "terminalIdentification", "Terminal Identification", .alphanumeric),
        emv(0x9F1D, "terminalRiskManagementData", "Terminal Risk Management Data", .binary),
        emv(0x9F1E, "ifdSerialNumber", "Interface Device (IFD) Serial Number", .alphanumeric),
        emv(0x9F1F, "track1DiscretionaryData", "Track 1 Discretionary Data", .alphanumeric, sensitive: true),
        emv(0x9F20, "track2DiscretionaryData", "Track 2 Discretionary Data", .compressedNumeric, sensitive: true),
        emv(0x9F21, "transactionTime", "Transaction Time", .time),
        emv(0x9F22, "caPublicKeyIndexTerminal", "Certification Authority Public Key Index – terminal", .binary),
        emv(0x9F23, "upperConsecutiveOfflineLimit", "Upper Consecutive Offline Limit", .integer),
        emv(0x9F26, "applicationCryptogram", "Application Cryptogram", .binary),
        emv(0x9F27, "cryptogramInformationData", "Cryptogram Information Data", .cryptogramInformation),
        emv(
            0x9F2D,
            "iccPINEnciphermentPublicKeyCertificate",
            "ICC PIN Encipherment Public Key Certificate",
            .binary
        ),
        emv(0x9F2E, "iccPINEnciphermentPublicKeyExponent", "ICC PIN Encipherment Public Key Exponent", .binary),
        emv(0x9F2F, "iccPINEnciphermentPublicKeyRemainder", "ICC PIN Encipherment Public Key Remainder", .binary),
        emv(0x9F32, "issuerPublicKeyExponent", "Issuer Public Key Exponent", .binary),
        emv(0x9F33, "terminalCapabilities", "Terminal Capabilities", .binary),
        emv(0x9F34, "cvmResults", "Cardholder Verification Method (CVM) Results", .binary),
        emv(0x9F35, "terminalType", "Terminal Type", .numeric),
        emv(0x9F36, "applicationTransactionCounter", "Application Transaction Counter (ATC)", .integer),
        emv(0x9F37, "unpredictableNumber", "Unpredictable Number", .binary),
        emv(0x9F38, "pdol", "Processing Options Data Object List (PDOL)", .dol),
        emv(0x9F39, "posEntryMode", "Point-of-Service (POS) Entry Mode", .enumerated),
        emv(0x9F3A, "amountReferenceCurrency", "Amount, Reference Currency", .integer),
        emv(0x9F3B, "applicationReferenceCurrency", "Application Reference Currency", .numeric),
        emv(0x9F3C, "transactionReferenceCurrencyCode", "Transaction Reference Currency Code", .currencyCode),
        emv(0x9F3D, "transactionReferenceCurrencyExponent", "Transaction Reference Currency Exponent", .numeric),
        emv(0x9F40, "additionalTerminalCapabilities", "Additional Terminal Capabilities", .binary),
        emv(0x9F41, "transactionSequenceCounter", "Transaction Sequence Counter", .numeric),
        emv(0x9F42, "applicationCurrencyCode", "Application Currency Code", .currencyCode),
        emv(0x9F43, "applicationReferenceCurrencyExponent", "Application Reference Currency Exponent", .numeric),
        emv(0x9F44, "applicationCurrencyExponent", "Application Currency Exponent", .numeric),
        emv(0x9F45, "dataAuthenticationCode", "Data Authentication Code", .binary),
        emv(0x9F46, "iccPublicKeyCertificate", "ICC Public Key Certificate", .binary),
        emv(0x9F47, "iccPublicKeyExponent", "ICC Public Key Exponent", .binary),
        emv(0x9F48, "iccPublicKeyRemainder", "ICC Public Key Remainder", .binary),
        emv(0x9F49, "ddol", "Dynamic Data Authentication Data Object List (DDOL)", .dol),
        emv(0x9F4A, "staticDataAuthenticationTagList", "Static Data Authentication Tag List", .tagList),
        emv(0x9F4B, "signedDynamicApplicationData", "Signed Dynamic Application Data", .binary),
        emv(0x9F4C, "iccDynamicNumber", "ICC Dynamic Number", .binary),
        emv(0x9F4D, "logEntry", "Log Entry", .binary),
        emv(0x9F4E, "merchantNameAndLocation", "Merchant Name and Location", .alphanumeric),
        emv(0x9F4F, "logFormat", "Log Format", .dol),
        emv(0xA5, "fciProprietaryTemplate", "File Control Information (FCI) Proprietary Template", .template),
        emv(
            0xBF0C,
            "fciIssuerDiscretionaryData",
            "File Control Information (FCI) Issuer Discretionary Data",
            .template
        ),
    ]

    /// Contactless tags the uCube exchanges, with the kernel book that defines each.
    fileprivate static let emvContactless: [TagInfo] = [
        row(0x56, .payment, "track1Data", "Track 1 Data", .track1, sensitive: true, "EMV Contactless Book C-2 Annex A"),
        row(
            0x9F53,
            .payment,
            "transactionCategoryCode",
            "Transaction Category Code",
            .alphanumeric,
            "EMV Contactless Book C-2 Annex A"
        ),
        row(
            0x9F66,
            .payment,
            "terminalTransactionQualifiers",
            "Terminal Transaction Qualifiers (TTQ)",
            .binary,
            "EMV Contactless Book A §5.7 / Book C-3 Annex A"
        ),
        row(
            0x9F6B,
            .payment,
            "track2Data",
            "Track 2 Data",
            .track2,
            sensitive: true,
            "EMV Contactless Book C-2 Annex A"
        ),
        row(
            0x9F6C,
            .payment,
            "cardTransactionQualifiers",
            "Card Transaction Qualifiers (CTQ)",
            .binary,
            "EMV Contactless Book C-3 Annex A"
        ),
        row(
            0x9F6E,
            .payment,
            "formFactorIndicator",
            "Form Factor Indicator (FFI)",
            .binary,
            "EMV Contactless Book C-3 Annex A"
        ),
        row(
            0x9F7C,
            .payment,
            "merchantCustomData",
            "Merchant Custom Data",
            .binary,
            "EMV Contactless Book C-2 Annex A; spec §5.2 NFCStartTransaction"
        ),
    ]

    /// YouTransactor proprietary tags inside payment commands (spec §5.2, §7.3–§7.8).
    fileprivate static let proprietaryPayment: [TagInfo] = [
        row(
            0xC1,
            .payment,
            "requestedTagList",
            "Requested tag list",
            .tagList,
            "spec §4, §5.2 (A-Cmd:InitTransactionCommand)"
        ),
        row(
            0xC2,
            .payment,
            "candidateListOutputFormat",
            "Candidate list output format",
            .enumerated,
            "spec §5.2 BuildCandidateList (IS:Constants)"
        ),
        row(
            0xC3,
            .payment,
            "candidateListApplicationCount",
            "Candidate list number of applications",
            .integer,
            "spec §5.2 BuildCandidateList (IS:Constants)"
        ),
        row(
            0xD6,
            .payment,
            "defaultDDOL",
            "Default DDOL",
            .dol,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xD7,
            .payment,
            "defaultTDOL",
            "Default TDOL",
            .dol,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xD8,
            .payment,
            "terminalActionCodeDefault",
            "Terminal Action Code – Default",
            .binary,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xD9,
            .payment,
            "terminalActionCodeDenial",
            "Terminal Action Code – Denial",
            .binary,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDA,
            .payment,
            "terminalActionCodeOnline",
            "Terminal Action Code – Online",
            .binary,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        // DF04 is the balance before GENERATE AC in StartNFC and the blocked flag (1 byte) in the candidate list;
        // the amount renderer shows anything that is not 6 BCD bytes as hex.
        row(
            0xDF04,
            .payment,
            "balanceBeforeGenerateAC",
            "Balance before GENERATE AC / application blocked flag",
            .amount,
            "spec §5.2 NFCStartTransaction, BuildCandidateList (A-Cmd:StartNFCTransactionCommand, A-EMVApp)"
        ),
        row(
            0xDF05,
            .payment,
            "balanceAfterGenerateAC",
            "Balance after GENERATE AC",
            .amount,
            "spec §5.2 NFCStartTransaction (A-Cmd:StartNFCTransactionCommand)"
        ),
        row(
            0xDF0D,
            .payment,
            "randomSelectionTargetPercentage",
            "Target percentage for random selection",
            .integer,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDF0E,
            .payment,
            "randomSelectionThreshold",
            "Threshold value for biased random selection",
            .integer,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDF0F,
            .payment,
            "randomSelectionMaxTargetPercentage",
            "Maximum target percentage for biased random selection",
            .integer,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDF12,
            .payment,
            "pinFloorLimit",
            "PIN floor limit",
            .integer,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDF13,
            .payment,
            "signatureFloorLimit",
            "Signature floor limit",
            .integer,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDF14,
            .payment,
            "pinAndSignatureFloorLimit",
            "PIN and signature floor limit",
            .integer,
            "spec §5.2 TransactionProcess (A-Cmd:TransactionProcessCommand)"
        ),
        row(
            0xDF15,
            .payment,
            "finalisationForceFlag",
            "Finalisation force flag",
            .enumerated,
            "spec §5.2 TransactionFinalisation (A-Cmd:TransactionFinalizationCommand)"
        ),
        row(
            0xDF16,
            .payment,
            "authorisationStatus",
            "Authorisation status",
            .enumerated,
            "spec §5.2 TransactionFinalisation (A-Cmd:TransactionFinalizationCommand)"
        ),
        row(
            0xDF22,
            .payment,
            "selectionOptions",
            "Application selection options",
            .binary,
            "spec §5.2 BuildCandidateList (A-EMVApp)"
        ),
        row(
            0xDF2D,
            .payment,
            "preferredLanguages",
            "Preferred languages (ISO 639-1)",
            .languages,
            "spec §5.2 TransactionInitialization (A-Cmd:InitTransactionCommand)"
        ),
        row(
            0xDF30,
            .payment,
            "pinMinDigits",
            "PIN minimum digits",
            .integer,
            "spec §5.2 SimplifiedOnlinePIN (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(
            0xDF31,
            .payment,
            "pinMaxDigits",
            "PIN maximum digits",
            .integer,
            "spec §5.2 SimplifiedOnlinePIN (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(
            0xDF32,
            .payment,
            "pinFirstDigitTimeout",
            "PIN first-digit timeout",
            .seconds,
            "spec §5.2 SimplifiedOnlinePIN (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(
            0xDF33,
            .payment,
            "pinInterDigitTimeout",
            "PIN inter-digit timeout",
            .seconds,
            "spec §5.2 SimplifiedOnlinePIN (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(
            0xDF34,
            .payment,
            "pinGlobalTimeout",
            "PIN global timeout",
            .seconds,
            "spec §5.2 SimplifiedOnlinePIN (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(
            0xDF35,
            .payment,
            "pinCorrectionKeyMode",
            "PIN correction key mode",
            .enumerated,
            "spec §5.2 SimplifiedOnlinePIN, §7.3 (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(
            0xDF36,
            .payment,
            "pinDigitsPerLine",
            "PIN digits per line",
            .integer,
            "spec §5.2 SimplifiedOnlinePIN (A-Cmd:SimplifiedOnlinePINCommand)"
        ),
        row(0xDF37, .payment, "selectedLanguage", "Selected cardholder language", .languages, "spec §7.8"),
        // The PIN KSN and the *encrypted* PIN block are ciphertext-side data: shown as the terminal produced them.
        row(0xDF3E, .payment, "pinKSN", "PIN KSN", .binary, "spec §5.2 SimplifiedOnlinePIN (IS:Constants)"),
        row(
            0xDF3F,
            .payment,
            "encryptedPINBlock",
            "Encrypted PIN block",
            .binary,
            "spec §5.2 SimplifiedOnlinePIN (IS:Constants)"
        ),
        row(
            0xDF42,
            .payment,
            "transactionInitStatus",
            "Transaction initialisation status",
            .binary,
            "spec §5.2 TransactionInitialization (IS:Constants checkTransactionInitStatus)"
        ),
        row(
            0xDF50,
            .payment,
            "tipEnabled",
            "Internal TIP entry enabled",
            .yesNo,
            "spec §5.2 TransactionInitialization (A-Cmd:InitTransactionCommand)"
        ),
        row(
            0xDF52,
            .payment,
            "amountEnteredOnTerminal",
            "Amount entered on the terminal",
            .yesNo,
            "spec §5.2 NFCStartTransaction (A-Cmd:StartNFCTransactionCommand)"
        ),
        row(
            0xDF5A,
            .payment,
            "manualEntryData",
            "Manual PAN / CVV entry data",
            .binary,
            sensitive: true,
            "spec §5.2 GetSecuredTagValue (AR-sample:features.SdseSession)"
        ),
        row(
            0xDF60,
            .payment,
            "msrAction",
            "MSR action",
            .enumerated,
            "spec §7.4 (A-Const, F-sil, A-Pay:MSPaymentService)"
        ),
        row(0xDF61, .payment, "msrBIN", "MSR BIN", .compressedNumeric, "spec §7.4 (A-Const)"),
        row(
            0xDF62,
            .payment,
            "msrCardDataBlock",
            "MSR card data block",
            .binary,
            sensitive: true,
            "spec §7.4 (A-Const)"
        ),
        row(
            0xDF70,
            .payment,
            "readers",
            "Enabled / activated readers",
            .enumerated,
            "spec §5.2 NFCStartTransaction, §7.3 (A-Cmd:StartNFCTransactionCommand)"
        ),
        row(
            0xDF71,
            .payment,
            "cardWaitTimeout",
            "Card wait timeout",
            .seconds,
            "spec §5.2 NFCStartTransaction (A-Cmd:StartNFCTransactionCommand)"
        ),
        row(
            0xDF72,
            .payment,
            "nfcOutcome",
            "NFC outcome",
            .nfcOutcome,
            "spec §7.5 (AR-README, MP-README, A-Pay:NFCPaymentService)"
        ),
        row(
            0xDF73,
            .payment,
            "nfcAuthorisationResponseCode",
            "Authorisation response code for NFCCompleteTransaction",
            .authorisationResponseCode,
            "spec §5.2 NFCCompleteTransaction (A-Cmd:CompleteNFCTransactionCommand)"
        ),
        row(
            0xDF76,
            .payment,
            "scaSoftDeclinePIN",
            "SCA soft decline requiring PIN",
            .yesNo,
            "spec §7.7 (AR-sample:payment.authorization.AuthorizationOutcomes)"
        ),
        row(
            0xDF7F,
            .payment,
            "forceOnline",
            "Force online",
            .yesNo,
            "spec §5.2 NFCStartTransaction, §8.1 (A-Cmd:StartNFCTransactionCommand)"
        ),
        row(
            0xDFC302,
            .payment,
            "finalisationTagDFC302",
            "Proprietary tag requested at finalisation (meaning not in sources)",
            .binary,
            "spec §4, §7.8 (IS:PaymentViewController)"
        ),
        row(
            0xDF8129,
            .payment,
            "finalisationTagDF8129",
            "Proprietary tag requested at finalisation (meaning not in sources)",
            .binary,
            "spec §4, §7.8 (IS:PaymentViewController)"
        ),
    ]

    /// GetInfo tags (spec §7.1; A-Const, IS:Constants, A-DevInfos, AR-sample:MainActivity).
    fileprivate static let getInfo: [TagInfo] = [
        row(0xC1, .getInfo, "atmelSerialNumber", "Atmel serial number", .binary, "spec §7.1 (A-Const)"),
        row(0xC2, .getInfo, "terminalPartNumber", "Terminal part number", .partNumber, "spec §4, §7.1 (A-DevInfos)"),
        row(
            0xC3,
            .getInfo,
            "terminalSerialNumber",
            "Terminal serial number",
            .serialNumber,
            "spec §4, §7.1 (A-Tools, IS:Data)"
        ),
        row(0xC4, .getInfo, "terminalState", "Terminal state", .terminalState, "spec §7.1, §7.2 PROJECT CHOICE values"),
        row(0xC5, .getInfo, "batteryLevel", "Battery state", .percent, "spec §7.1 (A-DevInfos) PROJECT CHOICE percent"),
        row(0xC6, .getInfo, "powerOffTimeout", "Power-off timeout", .seconds, "spec §5.2 SetInfoField, §7.1 (A-Const)"),
        row(
            0xCB,
            .getInfo,
            "systemFailureLogL1",
            "System failure log record 1 (SVPP L1 logs)",
            .binary,
            "spec §7.1 (A-Const)"
        ),
        row(
            0xCC,
            .getInfo,
            "systemFailureLogL2",
            "System failure log record 2 (SVPP L2 logs)",
            .binary,
            "spec §7.1 (A-Const)"
        ),
        row(
            0xCD,
            .getInfo,
            "ksnFormats",
            "KSN formats (DUKPT key descriptors)",
            .ksnFormats,
            "spec §7.1, §12.2 (A-Dukpt)"
        ),
        row(
            0xCF,
            .getInfo,
            "enhancedSREDConfiguration",
            "Enhanced SRED configuration",
            .binary,
            "spec §7.1 (IS:Constants)"
        ),
        row(
            0xD1,
            .getInfo,
            "svppFirmwareVersion",
            "SVPP firmware version",
            .version,
            "spec §7.1 (A-Const, A-DevInfos)"
        ),
        row(0xD2, .getInfo, "svppChecksum", "SVPP checksum", .binary, "spec §7.1 (A-Const)"),
        row(0xD3, .getInfo, "pciPEDVersion", "PCI PED version", .version, "spec §7.1 (A-Const)"),
        row(0xD4, .getInfo, "pciPEDChecksum", "PCI PED checksum", .binary, "spec §7.1 (A-Const)"),
        row(0xD5, .getInfo, "emvL1Version", "EMV L1 version", .version, "spec §7.1 (A-Const)"),
        row(0xD6, .getInfo, "emvL1Checksum", "EMV L1 checksum", .binary, "spec §7.1 (A-Const)"),
        row(0xD7, .getInfo, "emvL2Version", "EMV L2 version", .version, "spec §7.1 (A-Const)"),
        row(0xD8, .getInfo, "emvL2Checksum", "EMV L2 checksum", .binary, "spec §7.1 (A-Const)"),
        row(0xD9, .getInfo, "bootLoaderVersion", "Boot loader version", .version, "spec §7.1 (A-Const)"),
        row(0xDA, .getInfo, "bootLoaderChecksum", "Boot loader checksum", .binary, "spec §7.1 (A-Const)"),
        row(0xDB, .getInfo, "kslID", "KSL id", .kslID, "spec §7.1 (AR-sample:MainActivity)"),
        row(
            0xE7,
            .getInfo,
            "nfcCardDetectConfiguration",
            "NFC card detect configuration",
            .binary,
            "spec §7.1 (IS:Constants)"
        ),
        row(0xE8, .getInfo, "nfcInfos", "NFC infos", .template, "spec §4, §7.1 (A-DevInfos, A-TLV parseYtBerMixedLen)"),
        row(0xE9, .getInfo, "usbCapability", "USB capability", .binary, "spec §7.1 (IS:Constants)"),
        row(0xEA, .getInfo, "emvICCConfigVersion", "EMV ICC configuration version", .version, "spec §7.1 (A-Const)"),
        row(0xEB, .getInfo, "emvNFCConfigVersion", "EMV NFC configuration version", .version, "spec §7.1 (A-Const)"),
        row(0xEC, .getInfo, "osVersion", "OS version", .version, "spec §7.1 (IS:Constants)"),
        row(
            0xED,
            .getInfo,
            "nfcModuleState",
            "mPOS (NFC) module state",
            .enumerated,
            "spec §7.1 (A-Pay:PaymentHelper)"
        ),
        row(
            0xA0,
            .getInfo,
            "emvL1ContactlessLibVersion",
            "EMV L1 contactless library version",
            .version,
            "spec §7.1 (IS:Constants)"
        ),
        row(0xA1, .getInfo, "tstLoopbackVersion", "TST loopback version", .version, "spec §7.1 (IS:Constants)"),
        row(0xA2, .getInfo, "agnosLibVersion", "Agnos library version", .version, "spec §7.1 (IS:Constants)"),
        row(0xA3, .getInfo, "aceLayerVersion", "ACE layer version", .version, "spec §7.1 (IS:Constants)"),
        row(0xA4, .getInfo, "gpiVersion", "GPI version", .version, "spec §7.1 (IS:Constants)"),
        row(0xA5, .getInfo, "emvL3Version", "EMV L3 version", .version, "spec §7.1 (IS:Constants)"),
        row(
            0xA6,
            .getInfo,
            "contactlessPaymentAppVersion",
            "Contactless payment application version",
            .version,
            "spec §7.1 (IS:Constants)"
        ),
        row(0xF0, .getInfo, "transactionConfig", "Transaction configuration", .binary, "spec §7.1 (IS:Constants)"),
        row(0xF1, .getInfo, "transactionData", "Transaction data", .binary, "spec §7.1 (IS:Constants)"),
        row(0xF3, .getInfo, "buildConfiguration", "Build configuration", .text, "spec §7.1 (IS:Constants)"),
        row(
            0xF4,
            .getInfo,
            "svppL2LogEndOfTransaction",
            "SVPP L2 log (end of transaction)",
            .binary,
            "spec §7.1, §8.1 (IS:Constants)"
        ),
        row(
            0xF5,
            .getInfo,
            "svppL2LogStartNFCFailure",
            "SVPP L2 log (after StartNFC failure)",
            .binary,
            "spec §7.1, §8.1 (IS:Constants)"
        ),
        row(
            0xF6,
            .getInfo,
            "supportedLocales",
            "Supported locale list",
            .localeList,
            "spec §5.2 Locale commands PROJECT CHOICE"
        ),
        row(
            0xF7,
            .getInfo,
            "merchantLocale",
            "Merchant interface locale",
            .text,
            "spec §5.2 Locale commands PROJECT CHOICE"
        ),
        row(
            0xFB,
            .getInfo,
            "chargingStatus",
            "Charging status",
            .enumerated,
            "spec §7.1 (IS:DeviceInfoTableViewController)"
        ),
        row(0xFC, .getInfo, "bleSpeedMode", "BLE speed mode", .enumerated, "spec §5.2 SetInfoField, §7.1 (A-Const)"),
        row(
            0xFD,
            .getInfo,
            "nonSecureFirmwareVersion",
            "Non-secure firmware version",
            .version,
            "spec §7.1 (IS:Constants)"
        ),
    ]

    /// Tags nested in GetInfo's E8 "NFC infos" (spec §7.1).
    fileprivate static let nfcInfo: [TagInfo] = [
        row(0xD1, .nfcInfo, "nfcFirmwareVersion", "NFC (ST) firmware version", .version, "spec §7.1 E8 (A-DevInfos)"),
        // "> 4 bytes, first 4 used": the version renderer reads the first four.
        row(
            0xA0,
            .nfcInfo,
            "nfcEMVL1ContactlessVersion",
            "EMV L1 contactless version (NFC module)",
            .version,
            "spec §7.1 E8 (A-DevInfos)"
        ),
        row(
            0xA2,
            .nfcInfo,
            "nfcEMVL2ContactlessVersion",
            "EMV L2 contactless version (NFC module)",
            .version,
            "spec §7.1 E8 (A-DevInfos)"
        ),
        row(
            0xC4,
            .nfcInfo,
            "nfcFirmwareState",
            "NFC firmware state",
            .binary,
            "spec §7.1 E8 (IS:Constants nfcFirmwareState)"
        ),
    ]
}
