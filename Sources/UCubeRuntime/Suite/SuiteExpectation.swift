import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// What a case expects: the final status, and optionally TVR (95), TSI (9B), CVM results (9F34) and the cryptogram
/// type (9F27).
package struct SuiteExpectation: Decodable {
    package let status: PaymentStatus
    package let tvr: [UInt8]?
    package let tsi: [UInt8]?
    package let cvmResult: [UInt8]?
    package let cryptogram: CryptogramType?

    package enum CodingKeys: String, CodingKey, CaseIterable { case status, tvr, tsi, cvmResult, cryptogram }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let word = try c.decode(String.self, forKey: .status)
        guard let status = PaymentStatus(rawValue: word.uppercased()) else {
            throw c.invalid(
                .status,
                "'\(word)' is not a payment status: \(PaymentStatus.allCases.map(\.name).joined(separator: ", "))")
        }
        self.status = status
        tvr = try c.hex(.tvr, count: 5...5)
        tsi = try c.hex(.tsi, count: 2...2)
        cvmResult = try c.hex(.cvmResult, count: 3...3)
        if let word = try c.decodeIfPresent(String.self, forKey: .cryptogram) {
            guard let type = CryptogramType(name: word) else {
                throw c.invalid(.cryptogram, "'\(word)' is not ARQC, TC or AAC")
            }
            cryptogram = type
        } else {
            cryptogram = nil
        }
    }
}
