import Foundation
import UCubeSupport

/// ISO 8601 in UTC with milliseconds, "2025-01-01T12:00:00.000Z": the journal's, the events' and the history's
/// times (`UTCTime`). Not Foundation's ISO 8601 format style: its first use costs 2.7 M instructions to set up
/// (issue 27), on every payment, for a fixed layout.
package enum UTCTimestamp {
    package static func string(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        let millis = Int(((interval - whole) * 1000).rounded(.down))
        return UTCTime(secondsSinceEpoch: Int64(whole), millisecond: millis).iso8601
    }
}
