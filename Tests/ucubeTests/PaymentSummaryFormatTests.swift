import Foundation
import Testing

@testable import UCubeCLI

/// The timings line's seconds, written without `String(format:)` (issue 27), read as `%.2f` wrote them.
@Suite struct PaymentSummaryFormatTests {
    @Test func twoDecimalsAsPrintfWritesThem() {
        var values: [Double] = [0, 0.004, 0.005, 0.015, 0.125, 0.135, 0.995, 1, 1.5, 2.675, 9.999, 12.345, 123.456]
        values += (0..<2_000).map { Double($0) * 0.00731 }
        for value in values {
            #expect(PaymentSummary.twoDecimals(value) == String(format: "%.2f", value), "\(value)")
        }
    }
}
