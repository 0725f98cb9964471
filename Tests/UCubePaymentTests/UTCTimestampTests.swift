import Foundation
import Testing

@testable import UCubePayment

/// The journal's times, written by hand from `gmtime_r` (issue 27), are the ISO 8601 text Foundation's format style
/// wrote: "2025-01-01T12:00:00.000Z".
@Suite struct UTCTimestampTests {
    @Test(arguments: [0.0, 1_735_732_800.0, 1_735_732_800.123, 951_782_400.5, 4_102_444_799.999, 1_700_000_000.007])
    func theSameTextAsFoundationsFormatStyle(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let foundation = date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        #expect(PaymentEngine.timestamp(date) == foundation)
    }

    @Test func aKnownTime() {
        #expect(PaymentEngine.timestamp(Date(timeIntervalSince1970: 1_735_732_800.25)) == "2025-01-01T12:00:00.250Z")
        #expect(PaymentEngine.timestamp(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }
}
