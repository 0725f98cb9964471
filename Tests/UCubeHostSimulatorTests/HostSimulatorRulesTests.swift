import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeHostSimulator

/// The host's pure decisions: the amount rules, the card check, the fault words, and the docs' table.
@Suite struct HostSimulatorRulesTests {
    private static func authorization(_ body: [UInt8]) throws -> HostRequest.Authorization {
        guard case .authorization(let request) = try HostRequest.parse(body) else {
            throw CocoaError(.coderInvalidValue)
        }
        return request
    }

    private static func decide(_ body: [UInt8]) throws -> HostDecision {
        let request = try authorization(body)
        let card = HostAuthorizer.checkCard(
            request, bdk: CryptoChoices.testBDK, issuerMasterKey: CryptoChoices.testIssuerMasterKey)
        return HostAuthorizer.decide(request, card: card)
    }

    @Test(arguments: HostAmountRule.table)
    func eachAmountRuleDecides(_ rule: HostAmountRule) throws {
        let amount = UInt64(1200 + rule.cents)
        let decision = try Self.decide(try TestCard.request(amount: amount))
        switch rule.outcome {
        case .decline(let code):
            #expect(decision.outcome == .answer(.decline, code))
            let tag91 = try #require(decision.issuerAuthenticationData)
            #expect(try TestCard.verifies(Hex.encode(tag91), amount: amount, arc: code))
        case .unable(let code):
            #expect(decision.outcome == .answer(.unable, code))
            #expect(decision.issuerAuthenticationData == nil)
        case .noAnswer:
            #expect(decision.outcome == .noAnswer)
        }
        #expect(HostAmountRule.rule(forAmount: UInt64(100 * 7 + rule.cents)) == rule)
    }

    @Test func otherAmountsApproveWithAnARPCTheCardAccepts() throws {
        let ruled = Set(HostAmountRule.table.map(\.cents))
        for cents in 0..<100 where !ruled.contains(cents) {
            #expect(HostAmountRule.rule(forAmount: UInt64(4200 + cents)) == nil)
        }
        let decision = try Self.decide(try TestCard.request(amount: 1250))
        #expect(decision.outcome == .answer(.approve, "00"))
        let tag91 = try #require(decision.issuerAuthenticationData)
        #expect(try TestCard.verifies(Hex.encode(tag91), arc: "00"))
    }

    @Test func aFlippedARQCBitDeclinesWithTheCryptogramCode() throws {
        let decision = try Self.decide(try TestCard.request { $0[0x9F26]![7] ^= 0x01 })
        #expect(decision.outcome == .answer(.decline, HostSimulatorChoices.cryptogramResponseCode))
        #expect(decision.message.contains("ARQC"))
    }

    @Test func cardDataThatIsNotTheMaskedPANsDeclines() throws {
        let other = try Self.decide(try TestCard.request(sred: try TestCard.sredData(pan: "5413330089020011")))
        #expect(other.outcome == .answer(.decline, HostSimulatorChoices.cardDataResponseCode))
        let garbage = try Self.decide(try TestCard.request(sred: "00112233445566778899AABBCCDDEEFF"))
        #expect(garbage.outcome == .answer(.decline, HostSimulatorChoices.cardDataResponseCode))
        let masked = try Self.decide(try TestCard.request(maskedPAN: "476173******0011"))
        #expect(masked.outcome == .answer(.decline, HostSimulatorChoices.cardDataResponseCode))
    }

    @Test func thePANComesFrom5AOrTrack2OrASwipesBlock() throws {
        let pan = TestCard.pan
        #expect(HostAuthorizer.pan(inSREDPlaintext: TLV(Tag(0x5A), try Hex.decode(pan)).encoded + [0, 0]) == pan)
        let track2 = TLV(Tag(0x57), try Hex.decode(pan + "D2512201")).encoded
        #expect(HostAuthorizer.pan(inSREDPlaintext: track2) == pan)
        let track1 = TLV(Tag(0x56), Array("B\(pan)^CARDHOLDER/TEST^2512201".utf8)).encoded
        #expect(HostAuthorizer.pan(inSREDPlaintext: TLV(Tag(0xDF62), track1 + track2).encoded) == pan)
        #expect(HostAuthorizer.pan(inSREDPlaintext: [0x9F, 0x02, 0x01, 0x00]) == nil)
        #expect(HostAuthorizer.matches(pan: pan, masked: TestCard.maskedPAN))
        #expect(!HostAuthorizer.matches(pan: pan, masked: "476173*****0010"))
    }

    @Test func documentsThatAreNotRequestsAreRefused() {
        for body in [
            "not json", "[1]", #"{"type":"refund"}"#, #"{"type":"authorization","requestId":"x"}"#,
            #"{"type":"authorization","requestId":"x","amount":1,"emv":{"ZZ":"00"}}"#, #"{"type":"reversal"}"#,
        ] {
            #expect(throws: HostRequest.Invalid.self) { try HostRequest.parse(Array(body.utf8)) }
        }
    }

    @Test func faultsParseAndRefuseWithClearErrors() throws {
        #expect(
            try HostFault.parse("status:500,malformed:2,timeout,wrong-arpc:3,no-ack") == [
                .init(fault: .status(500), times: 1), .init(fault: .malformed, times: 2),
                .init(fault: .timeout, times: 1), .init(fault: .wrongARPC, times: 3),
                .init(fault: .noAcknowledgement, times: 1),
            ])
        #expect(try HostFault.parse("status:503:4") == [.init(fault: .status(503), times: 4)])
        for bad in ["status", "status:200", "status:abc", "slow", "timeout:0", "timeout:x", "no-ack:1:2"] {
            #expect(throws: (any Error).self) { try HostFault.parse(bad) }
        }
        #expect(HostFault.wrongARPC.acts(on: .authorization(hasIssuerData: true)))
        #expect(!HostFault.wrongARPC.acts(on: .authorization(hasIssuerData: false)))
        #expect(!HostFault.noAcknowledgement.acts(on: .authorization(hasIssuerData: true)))
        #expect(HostFault.noAcknowledgement.acts(on: .reversal))
    }

    /// docs/host-simulator.md shows the table the code decides by, row for row.
    @Test func theDocsShowTheAmountRulesTable() throws {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/host-simulator.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        let rows = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| .") }
        #expect(rows == HostAmountRule.markdownRows)
    }
}
