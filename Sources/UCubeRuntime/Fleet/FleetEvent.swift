import Foundation
import UCubeTMS

/// What one terminal's command tells its fleet run, as a value (docs/fleet.md). A command that runs for a fleet
/// (`DeviceOutput`) hands its result, its failure and its event lines to the run as these; the run writes them with
/// the device (a JSON line with `--json`, else a text line) and makes the terminal's verdict from them (its items,
/// its summary line, its hint). Nothing the command printed is read back.
package enum FleetEvent: Sendable {
    /// mdm-update: one item's verdict (`{"event":"item",…}`).
    case item(UpdateVerdict)
    /// mdm-update's end (`{"event":"done","installed":2,"failed":0}`); `optional`: nothing was chosen, and this many
    /// optional items were proposed.
    case updateDone(installed: Int, failed: Int, optional: Int?)
    /// test: one case of the suite, a test case of the terminal's testsuite in the JUnit report.
    case testCase(FleetVerdict.Item)
    /// The command's result: its JSON form (`JSONOutput.print`'s document, with its `version`), and what the run's
    /// summary says of it.
    case result(JSONOutput.Value, FleetSummary)
    /// The command's failure, as its `--json` error object says it (a shell script's failing line).
    case failure(ErrorObject.Body)
    /// A line of text the command wrote on stdout.
    case output(String)

    /// The event's line with `--json` (the run adds the device and the time).
    package var json: JSONOutput.Value {
        switch self {
        case .item(let verdict):
            // The verdict's own keys, after `event` (UpdateVerdict's encoding).
            let keys = (try? JSONOutput.tree(verdict)).flatMap { value -> [(String, JSONOutput.Value)]? in
                if case .object(let fields) = value { return fields }
                return nil
            }
            return .object([("event", .string("item"))] + (keys ?? []))
        case .updateDone(let installed, let failed, let optional):
            var fields: [(String, JSONOutput.Value)] = [
                ("event", .string("done")), ("installed", .number(String(installed))),
                ("failed", .number(String(failed))),
            ]
            if let optional { fields.append(("optional", .number(String(optional)))) }
            return .object(fields)
        case .testCase(let verdict):
            return .object([
                ("event", .string("case")), ("case", .string(verdict.item)), ("result", .string(verdict.result)),
                ("error", verdict.error.map { .string($0) } ?? .null),
                ("seconds", .number(String(format: "%.3f", verdict.seconds ?? 0))),
            ])
        case .result(let value, _):
            return .object([("event", .string("result")), ("result", value)])
        case .failure(let body):
            let value = (try? JSONOutput.tree(body)) ?? .null
            return .object([("event", .string("error")), ("error", value)])
        case .output(let text):
            return .object([("event", .string("output")), ("text", .string(text))])
        }
    }

    /// The event's line in text (without the device), or nil when text says nothing of it: the terminal's `end`
    /// line, its summary row and its hint tell the result and the failure.
    package var text: String? {
        switch self {
        case .item(let verdict):
            return "\(verdict.change): \(Self.word(verdict.result.rawValue))\(verdict.error.map { ": \($0)" } ?? "")"
        case .testCase(let verdict):
            return "\(verdict.item): \(Self.word(verdict.result))\(verdict.error.map { ": \($0)" } ?? "")"
        case .output(let line):
            return line
        case .updateDone, .result, .failure:
            return nil
        }
    }

    private static func word(_ result: String) -> String { result == "failed" ? "FAILED" : result }
}

/// What a fleet run's summary says of a terminal's result: its line in the table ("serial 202401001, firmware
/// 6.0.0.54") and what to do (diagnose's hints).
package struct FleetSummary: Sendable, Equatable {
    package var detail: String? = nil
    package var hint: String? = nil

    package init(detail: String? = nil, hint: String? = nil) {
        self.detail = detail
        self.hint = hint
    }
}

/// A command's result that a fleet run's summary can tell in a line: `JSONOutput.print` hands the run the value's
/// `fleetSummary` with its JSON form (`FleetEvent.result`). A result that is not one says nothing in the summary.
package protocol FleetSummarised {
    var fleetSummary: FleetSummary { get }
}

extension UpdateVerdict {
    /// "firmware 6.0.0.54 → 6.0.2.0": what the item changes, as text says it.
    package var change: String { "\(item) \(from ?? "—") → \(to ?? "?")" }
}
