import ArgumentParser
import Foundation
import UCubePayment
import UCubeSupport

/// `--since` and `--until`: the period `history` and `history totals` cover, by when each payment started.
struct HistoryPeriodOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only the payments started at TIME or later (inclusive). TIME: \(HistoryTime.forms).",
            valueName: "time"),
        completion: .list(HistoryTime.words))
    var since: String?

    @Option(
        help: ArgumentHelp(
            "Only the payments started before TIME (exclusive), in the same forms: `--since yesterday --until today` is yesterday, and a payment at midnight counts in the day it opens.",
            valueName: "time"),
        completion: .list(HistoryTime.words))
    var until: String?

    func validate() throws { _ = try period(now: Date(), timeZone: .current) }

    /// The period in milliseconds since the epoch, `today` and a time without an offset read in `timeZone`.
    func period(now: Date, timeZone: TimeZone) throws -> (since: Int64?, until: Int64?) {
        try Self.period(since: since, until: until, now: now, timeZone: timeZone)
    }

    /// The period `since` and `until` give; a usage error when either is no TIME, or the period is empty.
    static func period(
        since: String?, until: String?, now: Date, timeZone: TimeZone
    ) throws -> (since: Int64?, until: Int64?) {
        let nowMilliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let localOffset = { (second: Int64) in timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(second)))
        }
        func read(_ text: String?, _ option: String) throws -> Int64? {
            guard let text else { return nil }
            guard let time = HistoryTime.milliseconds(text, now: nowMilliseconds, localOffset: localOffset) else {
                throw ValidationError("\(option): \"\(text)\" is not a time: give \(HistoryTime.forms)")
            }
            return time
        }
        let start = try read(since, "--since"), end = try read(until, "--until")
        if let start, let end, start >= end {
            throw ValidationError(
                "--since \(since ?? "") is not before --until \(until ?? ""): the period would be empty")
        }
        return (start, end)
    }
}

/// The TIME of `--since` and `--until`, read as a moment: a pure function of the text, the moment now and the local
/// time zone's offsets.
enum HistoryTime {
    /// The forms TIME takes, as help and errors name them.
    static let forms =
        "an ISO 8601 date (2026-11-28, from its local midnight) or date and time (2026-11-28T10:00:00Z, 2026-11-28T10:00+01:00; without an offset, local time), today or yesterday (from local midnight)"

    /// The words TIME takes besides ISO 8601's forms.
    static let words = ["today", "yesterday"]

    /// The moment `text` names, in milliseconds since the epoch; nil when it names none. `now`: milliseconds since
    /// the epoch; `localOffset(t)`: the local offset, seconds east of UTC, in force at the UTC second `t`.
    static func milliseconds(_ text: String, now: Int64, localOffset: (Int64) -> Int) -> Int64? {
        switch text.lowercased() {
        case "today": return midnight(daysBefore: 0, now: now, localOffset: localOffset)
        case "yesterday": return midnight(daysBefore: 1, now: now, localOffset: localOffset)
        default: return ISO8601Time(text)?.millisecondsSinceEpoch(localOffset: localOffset)
        }
    }

    /// The local midnight that opens the day `days` before the local day of `now`.
    static func midnight(daysBefore days: Int64, now: Int64, localOffset: (Int64) -> Int) -> Int64 {
        let second = now >= 0 ? now / 1000 : (now - 999) / 1000
        let local = UTCTime(secondsSinceEpoch: second + Int64(localOffset(second)) - days * 86_400)
        return ISO8601Time(year: local.year, month: local.month, day: local.day)
            .millisecondsSinceEpoch(localOffset: localOffset)
    }
}

/// `history --status`'s values: repeated, or separated by commas.
enum HistoryStatusWords {
    /// The selectors `words` name; a usage error naming the first word that is none.
    static func selectors(_ words: [String]) throws -> Set<StatusSelector> {
        var selectors = Set<StatusSelector>()
        for word in words.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let trimmed = word.trimmingCharacters(in: .whitespaces)
            guard let selector = StatusSelector(parsing: trimmed) else {
                throw ValidationError(
                    "--status: \"\(trimmed)\" is not a status: give \(StatusSelector.allNames.joined(separator: ", ")) (any case)"
                )
            }
            selectors.insert(selector)
        }
        return selectors
    }
}
