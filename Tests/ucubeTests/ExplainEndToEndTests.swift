import Foundation
import Testing
import UCubePayment
import UCubeProtocol
import UCubeRuntime

@testable import UCubeCLI

/// Issue 15 part 4: `decode`, the shell's `context` and `tlv` views and `pay --json` show the explanations of EMV
/// data objects (`Explainer`).
@Suite struct ExplainEndToEndTests {
    /// TVR (EMV 4.4 Book 3 Annex C5: ODA not performed, cardholder verification not successful), CID ARQC, CVM
    /// results (signature, unknown), a Visa IAD, terminal type 22, an amount with its currency, the NFC outcome.
    static let tlv =
        "95 05 8000800000 9F27 01 80 9F34 03 1E0300 9F10 07 06010A03A41000 9F35 01 22 "
        + "5F2A 02 0978 9F02 06 000000001250 DF72 02 3036"

    @Test func decodeExplainsEachFieldBelowItsValue() async throws {
        let run = try await UCubeSandbox().run(["decode", Self.tlv])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = [
            "95 terminalVerificationResults: 8000800000\n"
                + "  byte 1 bit 8: Offline data authentication was not performed\n"
                + "  byte 3 bit 8: Cardholder verification was not successful\n",
            "9F27 cryptogramInformationData: 80 (ARQC)\n"
                + "  byte 1 bits 8-7 = 10: cryptogram type: ARQC (Authorisation Request Cryptogram)\n",
            "  CVM performed 1E: Signature (paper); fail cardholder verification if this CVM is unsuccessful\n",
            "  layout: Visa (VSDC) IAD format 0\n",
            "  CVR byte 3 bit 5: New card\n",
            "9F35 terminalType: 22\n  operational control: Merchant\n",
            "  978: Euro (EUR), 2 decimals\n",
            "  12.50 EUR (Euro; 1250 minor units, 2 decimals)\n",
            "  byte 2 36: result: approved\n",
        ]
        for text in expected { #expect(run.stdout.contains(text), "\(text) not in:\n\(run.stdout)") }
    }

    @Test func decodeJSONCarriesTheExplanationsWithTheirSource() async throws {
        let run = try await UCubeSandbox().run(["--json", "decode", Self.tlv])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let fields = try #require(object["explanations"] as? [[String: Any]], "\(run.stdout)")
        #expect(
            fields.compactMap { $0["tag"] as? String } == [
                "95", "9F27", "9F34", "9F10", "9F35", "5F2A", "9F02", "DF72",
            ])
        let tvr = try #require(fields.first)
        #expect(tvr["name"] as? String == "terminalVerificationResults")
        #expect(tvr["value"] as? String == "8000800000")
        #expect(tvr["source"] as? String == "EMV 4.4 Book 3 Annex C5 Table 46")
        #expect(
            tvr["explanation"] as? [String] == [
                "byte 1 bit 8: Offline data authentication was not performed",
                "byte 3 bit 8: Cardholder verification was not successful",
            ])
    }

    /// The answer of a GetPlainTag frame has its TLV data explained too.
    @Test func decodeExplainsTheTLVOfAnAnswer() async throws {
        let frame = try ResponseFrame(
            sequence: 1, command: .getPlainTag, status: .success, data: [0x9F, 0x27, 0x01, 0x40]
        )
        .encoded()
        let run = try await UCubeSandbox().run(["decode", Hex.encode(frame, separator: " ")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                "  explained:\n    9F27 cryptogramInformationData: 40\n      byte 1 bits 8-7 = 01: cryptogram type: TC (Transaction Certificate)\n"
            ), "\(run.stdout)")
    }

    @Test func payJSONHasExplanations() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let run = try await sandbox.run(["--device", "sim", "--json", "pay", "10"])
        #expect(run.status == 0, "\(run.stderr.suffix(300))")
        let context = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(context["status"] as? String != nil, "the context's keys are still there")
        let fields = try #require(context["explanations"] as? [[String: Any]], "\(run.stdout)")
        let tvr = try #require(fields.first { $0["tag"] as? String == "95" }, "\(fields)")
        #expect(tvr["value"] as? String == context["tvr"] as? String)
        #expect(tvr["source"] as? String == "EMV 4.4 Book 3 Annex C5 Table 46")
        #expect(!(tvr["explanation"] as? [String] ?? []).isEmpty)
    }

    /// The shell's `context` view lists the explained objects below the summary; `tlv TAG` explains one.
    @Test func shellContextAndTLVViews() throws {
        var context = PaymentContext(request: PaymentRequest(amount: 1250, currency: .eur, requestID: "x"))
        context.tvr = [0x80, 0x00, 0x80, 0x00, 0x00]
        context.authorizationPlainTags = [
            try #require(SafeTLV(TLV(Tag(0x9F27), [0x80]))),
            try #require(SafeTLV(TLV(Tag(0x9F02), [0, 0, 0, 0, 0x12, 0x50]))),
        ]
        let lines = PaymentStepping.contextLines(context)
        let start = try #require(lines.firstIndex(of: "explained:"), "\(lines)")
        #expect(
            Array(lines[start...]) == [
                "explained:",
                "  9F27 cryptogramInformationData: 80",
                "    byte 1 bits 8-7 = 10: cryptogram type: ARQC (Authorisation Request Cryptogram)",
                "  9F02 amountAuthorised: 000000001250",
                "    12.50 EUR (Euro; 1250 minor units, 2 decimals)",
                "  95 terminalVerificationResults: 8000800000",
                "    byte 1 bit 8: Offline data authentication was not performed",
                "    byte 3 bit 8: Cardholder verification was not successful",
            ])
        #expect(
            PaymentStepping.tlvExplanation("9F27", in: context) == [
                "byte 1 bits 8-7 = 10: cryptogram type: ARQC (Authorisation Request Cryptogram)"
            ])
        #expect(PaymentStepping.tlvExplanation("cryptogramInformationData", in: context).count == 1)
        #expect(PaymentStepping.tlvExplanation("9F26", in: context).isEmpty)
        // The JSON of the context view: every key of the context, plus the explanations.
        let json = try JSONOutput.encode(PaymentContextJSON(context: context), pretty: false)
        #expect(json.contains("\"tvr\":\"8000800000\""), "\(json)")
        #expect(json.contains("\"explanations\":[{\"explanation\":[\"byte 1 bits 8-7 = 10"), "\(json)")
    }
}
