import Foundation
import Testing

@testable import UCubeCLI

/// The summary's timings and expiry date, written without `String(format:)` (issue 27), read as `%.2f` and `%02d`
/// wrote them.
@Suite struct PaymentSummaryFormatTests {
    @Test func twoDigitsAsPrintfWritesThem() {
        for value in [-12, -5, 0, 1, 9, 10, 12, 99, 100, 2031] {
            #expect(PaymentSummary.twoDigits(value) == String(format: "%02d", value), "\(value)")
        }
    }

    @Test func twoDecimalsAsPrintfWritesThem() {
        var values: [Double] = [0, 0.004, 0.005, 0.015, 0.125, 0.135, 0.995, 1, 1.5, 2.675, 9.999, 12.345, 123.456]
        values += (0..<2_000).map { Double($0) * 0.00731 }
        for value in values {
            #expect(PaymentSummary.twoDecimals(value) == String(format: "%.2f", value), "\(value)")
        }
    }
}
