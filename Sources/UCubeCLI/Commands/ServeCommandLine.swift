import ArgumentParser
import Foundation
import UCubePayment
import UCubeRuntime

/// What `ucube serve` (UCubeRuntime's `ServeAPI` and `ServePayments`) takes from the command line: an order checked by
/// `pay`'s own parser, and the journal's query read with `history`'s own words. One table per fact: the API accepts
/// exactly what the commands accept, with their messages.
enum ServeCommandLine {
    /// An order's words (`ServePayments`) parsed as `pay`'s command line.
    @Sendable static func parsePayment(_ words: [String]) -> Result<any PaymentWords, PaymentWordsRefused> {
        do {
            return .success(try UCube.Pay.parse(words))
        } catch {
            return .failure(PaymentWordsRefused(UCube.Pay.message(for: error)))
        }
    }

    /// `GET /v1/history` and `/v1/history/totals`: the journal's payments (or their totals) that `history` with the
    /// same options shows.
    @Sendable static func history(_ query: ServeHistoryQuery) async -> ServeResponse {
        do {
            let period = try HistoryPeriodOptions.period(
                since: query.since, until: query.until, now: Date(), timeZone: .current)
            let filter = HistoryFilter(
                since: period.since, until: period.until,
                statuses: query.totals ? [] : try HistoryStatusWords.selectors(query.statuses),
                devices: try UCube.History.journalDevices(query.devices))
            let entries = filter.apply(try await UCube.History.entries())
            if query.totals { return .json(200, TotalsReport(PaymentTotals(entries), filter: filter)) }
            let shown = query.last.map { Array(entries.suffix($0)) } ?? entries
            return .json(200, ["payments": shown])
        } catch let error as ValidationError {
            return .error(ServeError(400, "invalid-query", error.message.replacingOccurrences(of: "--", with: "")))
        } catch let failure as CLIFailure {
            let status = failure.exit.code == ExitCodes.usage.code ? 400 : 500
            return .error(ServeError(status, failure.code, failure.message))
        } catch {
            return .error(ServeError(500, "journal", "\(error)"))
        }
    }
}
