import Testing

@testable import UCubeProtocol

private typealias T = CommandTestSupport
/// The protocol's BER tag, not Swift Testing's `Tag`.
private typealias Tag = UCubeProtocol.Tag

/// TransactionInit, TransactionProcess, TransactionFinalisation, NFCStart/CompleteTransaction and the NFC outcome.
/// Expected bytes are built by hand from the spec §5.2 tables (tag order as listed there).
@Suite struct CommandTestsPayment {
    static let visaAID = T.bytes("A0 00 00 00 03 10 10")

    // MARK: TransactionInit

    @Test func transactionInitBytes() throws {
        let command = TransactionInit(
            aid: Self.visaAID,
            currencyCode: 978,
            exponent: 2,
            type: .purchase,
            amount: 1250,
            languages: ["en", "fr"],
            tipEnabled: false,
            date: T.bytes("24 02 29"),
            time: T.bytes("13 05 09"),
            requestedTags: [Tag(0x9F27), Tag(0x9F26), Tag(0x5F34)]
        )
        let expected = """
            84 07 A0 00 00 00 03 10 10
            5F 2A 02 09 78
            5F 36 01 02
            9C 01 00
            9F 02 06 00 00 00 00 12 50
            9F 39 01 09
            DF 2D 04 65 6E 66 72
            DF 50 01 00
            9A 03 24 02 29
            9F 21 03 13 05 09
            C1 06 9F 27 9F 26 5F 34
            """
        #expect(try command.encodePayload() == T.bytes(expected.spaced))
        #expect(try T.roundTrip(command) == command)
    }

    @Test func transactionInitCashbackOnlyForType09() throws {
        let command = TransactionInit(
            aid: Self.visaAID,
            currencyCode: 840,
            exponent: 2,
            type: .purchaseCashback,
            amount: 2000,
            cashback: 500
        )
        let expected = """
            84 07 A0 00 00 00 03 10 10  5F 2A 02 08 40  5F 36 01 02  9C 01 09
            9F 02 06 00 00 00 00 20 00  9F 03 06 00 00 00 00 05 00  9F 39 01 09
            """
        #expect(try command.encodePayload() == T.bytes(expected.spaced))
        #expect(try T.roundTrip(command) == command)
        var refund = command
        refund.type = .refund
        #expect(T.errorCode { _ = try refund.encodePayload() } == .invalidArgument)
    }

    @Test func transactionInitRefusals() {
        func code(_ change: (inout TransactionInit) -> Void) -> CommandError.Code? {
            var command = TransactionInit(aid: Self.visaAID, currencyCode: 978, exponent: 2, type: .purchase, amount: 1)
            change(&command)
            return T.errorCode { _ = try command.encodePayload() }
        }
        #expect(code { _ in } == nil)
        #expect(code { $0.aid = T.bytes("A0 00 00 00") } == .invalidArgument)
        #expect(code { $0.amount = 1_000_000_000_000 } == .invalidArgument)
        #expect(code { $0.currencyCode = 1000 } == .invalidArgument)
        #expect(code { $0.languages = ["EN"] } == .invalidArgument)
        #expect(code { $0.languages = ["eng"] } == .invalidArgument)
        #expect(code { $0.languages = ["en", "fr", "de", "it", "es", "nl", "pt"] } == .invalidArgument)
        #expect(code { $0.date = T.bytes("24 1A 01") } == .invalidArgument)
        #expect(code { $0.time = T.bytes("13 05") } == .invalidArgument)
        #expect(code { $0.requestedTags = [Tag(0x1F)] } == .invalidArgument)
        #expect(T.errorCode { _ = try TransactionInit(payload: T.bytes("5F 2A 02 09 78")) } == .malformed)
        #expect(T.errorCode { _ = try TransactionInit(payload: T.bytes("84 07 A0 00")) } == .malformed)
    }

    // MARK: TransactionProcess

    @Test func transactionProcessBytes() throws {
        let command = TransactionProcess(
            tvr: T.bytes("00 00 00 80 00"),
            transactionSequenceCounter: T.bytes("00 00 00 01"),
            applicationVersion: T.bytes("00 8C"),
            ddol: T.bytes("9F 37 04"),
            tdol: T.bytes("9F 02 06"),
            tacDefault: T.bytes("DC 40 00 A8 00"),
            tacDenial: T.bytes("00 10 00 00 00"),
            tacOnline: T.bytes("DC 40 04 F8 00"),
            pinFloorLimit: 0,
            signatureFloorLimit: 10_000,
            targetPercent: 20,
            threshold: 5000,
            maxTargetPercent: 50,
            requestedTags: [Tag(0x9F27), Tag(0x9F26), Tag(0x9F10)]
        )
        // 9F41 carries its length byte (04), unlike the SDK (spec §13).
        let expected = """
            95 05 00 00 00 80 00
            9F 41 04 00 00 00 01
            9F 09 02 00 8C
            D6 03 9F 37 04
            D7 03 9F 02 06
            D8 05 DC 40 00 A8 00
            D9 05 00 10 00 00 00
            DA 05 DC 40 04 F8 00
            DF 12 04 00 00 00 00
            DF 13 04 00 00 27 10
            DF 0D 01 14
            DF 0E 04 00 00 13 88
            DF 0F 01 32
            C1 06 9F 27 9F 26 9F 10
            """
        #expect(try command.encodePayload() == T.bytes(expected.spaced))
        #expect(try T.roundTrip(command) == command)
        #expect(command.responseTimeout == .seconds(65))

        let withDate = TransactionProcess(
            tvr: T.bytes("00 00 00 00 00"),
            date: T.bytes("24 02 29"),
            time: T.bytes("13 05 09"),
            pinSignatureFloorLimit: 0x0102_0304
        )
        #expect(
            try withDate.encodePayload()
                == T.bytes("95 05 00 00 00 00 00 9A 03 24 02 29 9F 21 03 13 05 09 DF 14 04 01 02 03 04")
        )
        #expect(try T.roundTrip(withDate) == withDate)
    }

    @Test func transactionProcessRefusals() {
        func code(_ change: (inout TransactionProcess) -> Void) -> CommandError.Code? {
            var command = TransactionProcess()
            change(&command)
            return T.errorCode { _ = try command.encodePayload() }
        }
        #expect(code { _ in } == nil)
        #expect(code { $0.tvr = [0, 0, 0, 0] } == .invalidArgument)
        #expect(code { $0.targetPercent = 100 } == .invalidArgument)
        #expect(
            code {
                $0.targetPercent = 50
                $0.maxTargetPercent = 40
            } == .invalidArgument
        )
        #expect(code { $0.transactionSequenceCounter = T.bytes("00 00 00 0A") } == .invalidArgument)
        #expect(code { $0.applicationVersion = [0x01] } == .invalidArgument)
        #expect(code { $0.tacDenial = [0, 0, 0, 0, 0, 0] } == .invalidArgument)
        #expect(code { $0.ddol = [UInt8](repeating: 0x9F, count: 2100) } == .tooLong)
        #expect(T.errorCode { _ = try TransactionProcess(payload: T.bytes("9F 41 04 00 00 00 01")) } == .malformed)
        #expect(T.errorCode { _ = try TransactionProcess(payload: T.bytes("95 04 00 00 00 00")) } == .malformed)
    }

    @Test(arguments: [(UInt8(0x80), CryptogramType.arqc), (0x40, .tc), (0x00, .aac), (0x81, .arqc)])
    func processResponseCryptogram(cid: UInt8, type: CryptogramType) throws {
        let response = try TLVResponse(status: .success, data: [0x9F, 0x27, 0x01, cid, 0x9F, 0x36, 0x02, 0x00, 0x01])
        #expect(response.cryptogram == type)
    }

    // MARK: TransactionFinalisation

    @Test func transactionFinalisationBytes() throws {
        // MP example authorisation data (spec §7.7): 8A "00", 91 08 01 00 01 00 01 00 02 01; scripts written with the
        // 81 length form and their correct tags 71/72, 8A written once (the SDK's bugs are not copied, spec §13).
        let command = TransactionFinalisation(
            authorisationStatus: .approved,
            authorisationResponseCode: Array("00".utf8),
            issuerAuthenticationData: T.bytes("01 00 01 00 01 00 02 01"),
            issuerScript1: T.bytes("9F 18 04 11 22 33 44"),
            issuerScript2: T.bytes("86 02 00 00"),
            requestedTags: [Tag(0x9F27), Tag(0x95)]
        )
        let expected = """
            DF 15 01 00
            DF 16 01 01
            8A 02 30 30
            91 08 01 00 01 00 01 00 02 01
            71 81 07 9F 18 04 11 22 33 44
            72 81 04 86 02 00 00
            C1 03 9F 27 95
            """
        #expect(try command.encodePayload() == T.bytes(expected.spaced))
        #expect(try T.roundTrip(command) == command)

        let minimal = TransactionFinalisation(
            forceFlag: TransactionFinalisation.voiceReferralAccepted,
            authorisationStatus: .unableToGoOnline,
            authorisationResponseCode: Array("98".utf8)
        )
        #expect(try minimal.encodePayload() == T.bytes("DF 15 01 59 DF 16 01 00 8A 02 39 38"))
        #expect(try T.roundTrip(minimal) == minimal)
    }

    @Test func transactionFinalisationRefusals() {
        let base = TransactionFinalisation(authorisationStatus: .declined, authorisationResponseCode: Array("05".utf8))
        func code(_ change: (inout TransactionFinalisation) -> Void) -> CommandError.Code? {
            var command = base
            change(&command)
            return T.errorCode { _ = try command.encodePayload() }
        }
        #expect(code { _ in } == nil)
        #expect(code { $0.authorisationResponseCode = Array("000".utf8) } == .invalidArgument)
        #expect(code { $0.issuerAuthenticationData = [1, 2, 3] } == .invalidArgument)
        #expect(code { $0.issuerScript1 = [UInt8](repeating: 0, count: 256) } == .invalidArgument)
        #expect(
            T.errorCode { _ = try TransactionFinalisation(payload: T.bytes("DF 16 01 07 8A 02 30 30")) } == .malformed
        )
        #expect(T.errorCode { _ = try TransactionFinalisation(payload: T.bytes("DF 16 01 01")) } == .malformed)
    }

    @Test(arguments: [
        ("00", AuthorisationStatus.approved), ("98", .unableToGoOnline), ("91", .unableToGoOnline), ("05", .declined),
        ("1A", .declined), ("70", .declined),
    ])
    func authorisationStatusFromResponseCode(code: String, status: AuthorisationStatus) {
        #expect(TransactionFinalisation.authorisationStatus(forResponseCode: Array(code.utf8)) == status)
    }

    @Test func technicalIssuePlaceholderIsDeclined() {
        #expect(TransactionFinalisation.authorisationStatus(forResponseCode: [0x60, 0x60]) == .declined)
    }

    @Test func finalisationStatusSevenApprovesEightDeclines() throws {
        #expect(TransactionFinalisation.successStatuses == [Status(7), Status(8)])
        let data = T.bytes("9F 27 01 40")
        let approved = try TransactionFinalisation.Response(status: Status(7), data: data)
        #expect(approved.approved)
        #expect(approved.cryptogram == .tc)
        #expect(approved.status == .finalisationApproved)
        let declined = try TransactionFinalisation.Response(status: Status(8), data: T.bytes("9F 27 01 00"))
        #expect(!declined.approved)
        #expect(declined.cryptogram == .aac)
        #expect(try T.roundTrip(declined, status: declined.status) == declined)
        #expect(T.errorCode { _ = try TransactionFinalisation.Response(status: .success, data: data) } == .malformed)
        // Through the registry: 7/8 decode, 0 and errors carry no data for this command.
        let viaRegistry = try CommandRegistry.decodeResponse(
            id: .transactionFinalisation,
            status: Status(7),
            data: data
        )
        #expect((viaRegistry as? TransactionFinalisation.Response)?.approved == true)
        #expect(try CommandRegistry.decodeResponse(id: .transactionFinalisation, status: .success, data: data) == nil)
        #expect(
            try CommandRegistry.decodeResponse(id: .transactionFinalisation, status: .emvNotAccepted, data: []) == nil
        )
    }

    // MARK: NFCStartTransaction

    static let merchantID = Array("MERCHANT0000001".utf8)

    @Test func nfcStartTransactionBytes() throws {
        let command = NFCStartTransaction(
            readers: [.icc, .nfc],
            cardWaitTimeout: 30,
            type: .purchase,
            currencyCode: 978,
            exponent: 2,
            amount: 1250,
            date: T.bytes("24 02 29"),
            time: T.bytes("13 05 09"),
            merchantCategoryCode: T.bytes("54 11"),
            merchantIdentifier: Self.merchantID,
            transactionCategoryCode: 0x52,
            merchantProprietaryData: T.bytes("01 02"),
            forceOnline: true,
            extraTLVs: [TLV(Tag(0xDF7A), [0x01])],
            requestedTags: [Tag(0x9F02), Tag(0x5F34)]
        )
        // DF70, DF71, DF52, 9C first; the merchant id under its real tag 9F16 (not the SDK's 9F15, spec §13).
        let expected = """
            DF 70 02 11 21
            DF 71 01 1E
            DF 52 01 00
            9C 01 00
            5F 2A 02 09 78
            5F 36 01 02
            9F 02 06 00 00 00 00 12 50
            9A 03 24 02 29
            9F 21 03 13 05 09
            9F 15 02 54 11
            9F 16 0F 4D 45 52 43 48 41 4E 54 30 30 30 30 30 30 31
            9F 53 01 52
            9F 7C 02 01 02
            DF 7F 01 01
            DF 7A 01 01
            C1 04 9F 02 5F 34
            """
        #expect(try command.encodePayload() == T.bytes(expected.spaced))
        #expect(try T.roundTrip(command) == command)
        #expect(command.responseTimeout == .seconds(35))
    }

    @Test func nfcStartTransactionCashbackAndBalances() throws {
        let command = NFCStartTransaction(
            readers: [.nfc],
            cardWaitTimeout: 60,
            amountOnTerminal: true,
            type: .purchaseCashback,
            currencyCode: 826,
            exponent: 2,
            amount: 0,
            cashback: 1000,
            balanceBefore: 5000,
            balanceAfter: 4000
        )
        let expected = """
            DF 70 01 21  DF 71 01 3C  DF 52 01 01  9C 01 09  5F 2A 02 08 26  5F 36 01 02
            9F 02 06 00 00 00 00 00 00  9F 03 06 00 00 00 00 10 00
            DF 04 06 00 00 00 00 50 00  DF 05 06 00 00 00 00 40 00  DF 7F 01 00
            """
        #expect(try command.encodePayload() == T.bytes(expected.spaced))
        #expect(try T.roundTrip(command) == command)
    }

    @Test func nfcStartTransactionRefusals() {
        let base = NFCStartTransaction(
            readers: [.icc, .nfc],
            cardWaitTimeout: 30,
            type: .purchase,
            currencyCode: 978,
            exponent: 2,
            amount: 100
        )
        func code(_ change: (inout NFCStartTransaction) -> Void) -> CommandError.Code? {
            var command = base
            change(&command)
            return T.errorCode { _ = try command.encodePayload() }
        }
        #expect(code { _ in } == nil)
        #expect(code { $0.readers = [] } == .invalidArgument)
        #expect(code { $0.cashback = 5 } == .invalidArgument)
        #expect(code { $0.merchantIdentifier = Array("SHORT".utf8) } == .invalidArgument)
        #expect(code { $0.merchantCategoryCode = T.bytes("5A 11") } == .invalidArgument)
        #expect(code { $0.merchantProprietaryData = [UInt8](repeating: 0, count: 21) } == .invalidArgument)
        #expect(code { $0.extraTLVs = [TLV(Tag(0x9F02), [0, 0, 0, 0, 0, 1])] } == .invalidArgument)
        #expect(code { $0.extraTLVs = [TLV(Tag(0xDF7A), [UInt8](repeating: 0, count: 2100))] } == .tooLong)
        #expect(code { $0.balanceAfter = 1_000_000_000_000 } == .invalidArgument)
    }

    @Test func nfcStartTransactionRequiresTheLeadingOrder() throws {
        let valid = NFCStartTransaction(
            readers: [.nfc],
            cardWaitTimeout: 30,
            type: .purchase,
            currencyCode: 978,
            exponent: 2,
            amount: 100
        )
        let tlvs = try TLVParser.parse(try valid.encodePayload())
        let swapped = [tlvs[3], tlvs[0], tlvs[1], tlvs[2]] + tlvs.dropFirst(4)
        #expect(T.errorCode { _ = try NFCStartTransaction(payload: swapped.encoded) } == .malformed)
    }

    @Test func nfcStartResponse() throws {
        let data = T.bytes("DF 70 01 21 DF 72 02 31 36 9F 02 06 00 00 00 00 12 50")
        let response = try NFCStartTransaction.Response(status: .success, data: data)
        #expect(response.activatedReader == .nfc)
        #expect(response.outcome == NFCOutcome(cvm: .receiptWithSignature, result: .approved))
        #expect(response.outcome?.signatureRequired == true)
        #expect(response[tag: Tag(0x9F02)] == T.bytes("00 00 00 00 12 50"))
        #expect(try T.roundTrip(response).encodeData() == data)
        let built = NFCStartTransaction.Response(
            activatedReader: .nfc,
            outcome: NFCOutcome(cvm: .receiptWithSignature, result: .approved),
            tlvs: [TLV(Tag(0x9F02), T.bytes("00 00 00 00 12 50")), TLV(Tag(0xDF72), [0, 0])]
        )
        #expect(built.encodeData() == data)

        let icc = try NFCStartTransaction.Response(status: .success, data: T.bytes("DF 70 01 11"))
        #expect(icc.activatedReader == .icc)
        #expect(icc.outcome == nil)
        // A DF72 that is not two bytes, an unknown reader: left for the payment layer to judge.
        let odd = try NFCStartTransaction.Response(status: .success, data: T.bytes("DF 70 01 99 DF 72 01 30"))
        #expect(odd.activatedReader == nil)
        #expect(odd.outcome == nil)
        #expect(
            T.errorCode { _ = try NFCStartTransaction.Response(status: .success, data: T.bytes("DF 70 05 11")) }
                == .malformed
        )
    }

    // MARK: NFCCompleteTransaction

    @Test func nfcCompleteTransactionBytes() throws {
        // The default ARC is the "technical issue" placeholder 60 60, applied to the field (spec §13).
        let command = NFCCompleteTransaction()
        #expect(try command.encodePayload() == T.bytes("DF 73 02 60 60"))
        #expect(try T.roundTrip(command) == command)
        let approved = NFCCompleteTransaction(
            authorisationResponseCode: Array("00".utf8),
            requestedTags: [Tag(0x9F27), Tag(0x9F26)]
        )
        #expect(try approved.encodePayload() == T.bytes("DF 73 02 30 30 C1 04 9F 27 9F 26"))
        #expect(try T.roundTrip(approved) == approved)
        #expect(try NFCCompleteTransaction(payload: []) == NFCCompleteTransaction())
        #expect(
            T.errorCode { _ = try NFCCompleteTransaction(authorisationResponseCode: [0x30]).encodePayload() }
                == .invalidArgument
        )
        #expect(T.errorCode { _ = try NFCCompleteTransaction(payload: T.bytes("DF 73 01 30")) } == .malformed)
    }

    @Test func nfcCompleteResponse() throws {
        let data = T.bytes("DF 72 02 30 37 9F 27 01 00")
        let response = try NFCCompleteTransaction.Response(status: .success, data: data)
        #expect(response.outcome?.result == .declined)
        #expect(response.outcome?.cvm == .receipt)
        #expect(try T.roundTrip(response).encodeData() == data)
        let built = NFCCompleteTransaction.Response(
            outcome: NFCOutcome(cvm: .receipt, result: .declined),
            tlvs: [TLV(Tag(0x9F27), [0x00])]
        )
        #expect(built.encodeData() == data)
    }

    // MARK: NFC outcome (spec §7.5)

    @Test(arguments: [
        ([UInt8(0x30), 0x36], NFCOutcome.CVM.receipt, NFCOutcome.Result.approved, false, false),
        ([0x31, 0x36], .receiptWithSignature, .approved, true, false),
        ([0x32, 0x37], .noReceipt, .declined, false, false),
        ([0x34, 0x3E], .onlinePIN, .onlineRequest, false, true),
        ([0x30, 0x31], .receipt, .tryAnotherInterface, false, false),
        ([0x32, 0x3A], .noReceipt, .cancelled, false, false),
        ([0x32, 0x3F], .noReceipt, .endApplication, false, false),
        ([0x32, 0x38], .noReceipt, .failed, false, false),
    ])
    func nfcOutcomeParsing(
        bytes: [UInt8],
        cvm: NFCOutcome.CVM,
        result: NFCOutcome.Result,
        signature: Bool,
        onlinePIN: Bool
    ) throws {
        let outcome = try NFCOutcome(bytes: bytes)
        #expect(outcome.cvm == cvm)
        #expect(outcome.result == result)
        #expect(outcome.signatureRequired == signature)
        #expect(outcome.onlinePINRequested == onlinePIN)
        #expect(outcome.bytes == bytes)
    }

    @Test func nfcOutcomeKeepsUnknownValues() throws {
        let outcome = try NFCOutcome(bytes: [0x39, 0x40])
        #expect(outcome.cvm == nil)
        #expect(outcome.result == nil)
        #expect(outcome.description == "unknown result 0x40, unknown CVM 0x39")
        #expect(T.errorCode { _ = try NFCOutcome(bytes: [0x30]) } == .malformed)
        #expect(T.errorCode { _ = try NFCOutcome(bytes: [0x30, 0x36, 0x00]) } == .malformed)
    }

    // MARK: Value enums

    @Test func valueEnumsHaveTheSpecValues() {
        #expect(CardReader.allCases.map(\.rawValue) == [0x11, 0x21, 0x41])
        #expect(TransactionType.allCases.map(\.rawValue) == [0x00, 0x01, 0x09, 0x12, 0x20, 0x31])
        #expect(EncryptionMethod.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(CryptogramType.allCases.map(\.rawValue) == [0x80, 0x40, 0x00])
        #expect(AuthorisationStatus.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(PINBlockFormatCode.allCases.map(\.rawValue) == [0, 1, 3, 4])
        #expect(TransactionType(name: "purchase-cashback") == .purchaseCashback)
        #expect(CardReader(name: "NFC") == .nfc)
        #expect(CardReader(name: "chip") == nil)
    }
}

extension NFCStartTransaction.Response {
    fileprivate subscript(tag tag: UCubeProtocol.Tag) -> [UInt8]? { tlvs[tag] }
}

extension String {
    /// Multi-line hex fixtures as one line.
    fileprivate var spaced: String { String(map { $0 == "\n" ? " " : $0 }) }
}
