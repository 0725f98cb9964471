/// `GET /v1/history`'s and `/v1/history/totals`'s query, as `ucube history`'s options: `since`, `until`, `status`
/// and `device` (each repeatable where `history`'s is), `last`, and whether the totals are asked.
package struct ServeHistoryQuery: Sendable, Equatable {
    package var since: String?
    package var until: String?
    package var statuses: [String]
    package var devices: [String]
    package var last: Int?
    package var totals: Bool

    package init(
        since: String?, until: String?, statuses: [String], devices: [String], last: Int?, totals: Bool
    ) {
        self.since = since
        self.until = until
        self.statuses = statuses
        self.devices = devices
        self.last = last
        self.totals = totals
    }
}
