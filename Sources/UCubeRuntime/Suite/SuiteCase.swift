import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// One case: the card, the payment request, the expected outcome, and what the operator of a real terminal does.
package struct SuiteCase: Decodable {
    package let name: String
    package let card: String
    package let request: SuiteRequest
    package let expect: SuiteExpectation
    /// For a real terminal: "insert test card 3"; default: present the card the case names.
    package let instruction: String

    package enum CodingKeys: String, CodingKey, CaseIterable { case name, card, request, expect, instruction }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        guard !name.isEmpty, OneLine.holds(name) else {
            throw c.invalid(.name, "a case name is one non-empty line, without control characters")
        }
        card = try c.decode(String.self, forKey: .card)
        request = try c.decode(SuiteRequest.self, forKey: .request)
        expect = try c.decode(SuiteExpectation.self, forKey: .expect)
        instruction = try c.decodeIfPresent(String.self, forKey: .instruction) ?? "present the test card '\(card)'"
        // Printed on stderr as one line before the case runs on a real terminal.
        guard OneLine.holds(instruction) else {
            throw c.invalid(.instruction, "an instruction is one line, without control characters")
        }
    }
}
