import Foundation
import Testing
import UCubeProtocol

@testable import UCubePayment

/// The authorisation hook's documents (docs/authorization.md), without a process: what an answer must be to be one,
/// and what a request never carries.
@Suite struct HostDocumentsTests {
    static func answer(_ text: String) throws(HostFailure) -> HostAnswer {
        try HostDocuments.answer(Array(text.utf8))
    }

    @Test func anApprovalWithIssuerDataAndScriptsIsWhatTheCardGets() throws {
        let answer = try Self.answer(
            #"{"decision":"approve","issuerAuthenticationData":"0102030405060708","issuerScripts":"7103860100","hostReference":"R-7"}"#
        )
        #expect(answer.decision == .approve)
        #expect(answer.response.arc == Array("00".utf8))
        #expect(answer.response.issuerAuthenticationData == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(answer.response.script71 == [0x86, 0x01, 0x00])
        #expect(answer.response.script72 == nil)
        #expect(answer.hostReference == "R-7")
    }

    @Test func eachDecisionHasItsDefaultResponseCode() throws {
        #expect(try Self.answer(#"{"decision":"approve"}"#).responseCode == "00")
        #expect(try Self.answer(#"{"decision":"decline"}"#).responseCode == "05")
        #expect(try Self.answer(#"{"decision":"unable"}"#).responseCode == "98")
        #expect(try Self.answer(#"{"decision":"decline","responseCode":"51"}"#).response.arc == Array("51".utf8))
    }

    /// Each of these is not an answer: the payment takes it as "unable to go online".
    @Test(arguments: [
        "", "[]", "null", "not json", #"{"decision":"maybe"}"#, #"{"responseCode":"00"}"#,
        #"{"decision":"approve","responseCode":"05"}"#, #"{"decision":"decline","responseCode":"00"}"#,
        #"{"decision":"approve","responseCode":"000"}"#, #"{"decision":"approve","responseCode":7}"#,
        #"{"decision":"approve","issuerAuthenticationData":"0102"}"#,
        #"{"decision":"approve","issuerAuthenticationData":"zz"}"#, #"{"decision":"approve","issuerScripts":"9F0100"}"#,
        #"{"decision":"approve","hostReference":""}"#,
    ])
    func malformedAnswersAreRefused(_ text: String) {
        #expect(throws: HostFailure.self) { try Self.answer(text) }
    }

    @Test func anAnswerOverItsLimitIsRefusedUnread() {
        let big =
            #"{"decision":"approve","x":""# + String(repeating: "a", count: HostDocuments.maximumAnswerSize) + #""}"#
        #expect(throws: HostFailure.self) { try Self.answer(big) }
    }

    @Test func onlyAnExplicitTrueAcknowledgesAReversal() {
        #expect(HostDocuments.acknowledged(Array(#"{"acknowledged": true}"#.utf8)))
        for text in [#"{"acknowledged": false}"#, #"{"acknowledged": "true"}"#, "{}", "true", ""] {
            #expect(!HostDocuments.acknowledged(Array(text.utf8)), "\(text)")
        }
    }

    /// The request carries what the terminal gave for field 55, never cardholder data, whatever the context holds.
    @Test func theRequestCarriesFieldFiftyFiveAndNoCardholderData() throws {
        var context = PaymentContext(
            request: PaymentRequest(amount: 1250, currency: .eur, requestID: "r-1"))
        context.maskedPAN = "476173******0119"
        context.authorizationPlainTags = [
            SafeTLV(TLV(Tag(0x9F26), [1, 2, 3, 4, 5, 6, 7, 8])), SafeTLV(TLV(Tag(0x9F36), [0, 7])),
            SafeTLV(TLV(Tag(0x95), [0, 0, 0, 0, 0])),
        ].compactMap { $0 }
        context.authorizationSecuredData = [UInt8](repeating: 0xAB, count: 16)
        context.sredKSN = [UInt8](repeating: 0xFF, count: 10)
        let request = AuthorizationRequest(
            entryMode: .icc, amount: 1250, currency: "EUR", cryptogram: .arqc, onlinePIN: false)
        let bytes = HostDocuments.request(
            request, context: context, terminal: HostDocuments.Terminal(device: "sim", serial: nil, firmware: "6.0"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["type"] as? String == "authorization")
        #expect(object["version"] as? Int == HostDocuments.version)
        #expect(object["requestId"] as? String == "r-1")
        #expect(object["maskedPan"] as? String == "476173******0119")
        let emv = try #require(object["emv"] as? [String: String])
        #expect(emv == ["9F26": "0102030405060708", "9F36": "0007", "95": "0000000000"])
        #expect((object["sred"] as? [String: String])?["data"] == String(repeating: "AB", count: 16))
        #expect(!HostDocuments.fieldFiftyFive.contains { [0x5A, 0x57, 0x5F24, 0x5F20].contains($0.rawValue) })
    }
}
