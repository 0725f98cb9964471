import Foundation
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeRuntime

/// TAP 13 and JUnit XML renderings of a suite's results. Every free text (names, reasons) goes through the log's
/// card-data scrubber first.
enum SuiteReport {
    static func expectedFields(_ e: SuiteExpectation) -> [(String, String)] {
        var out = [("status", e.status.name)]
        if let tvr = e.tvr { out.append(("tvr", Hex.encode(tvr))) }
        if let tsi = e.tsi { out.append(("tsi", Hex.encode(tsi))) }
        if let cvm = e.cvmResult { out.append(("cvmResult", Hex.encode(cvm))) }
        if let type = e.cryptogram { out.append(("cryptogram", type.name.uppercased())) }
        return out
    }

    static func gotFields(_ o: SuiteObservation) -> [(String, String)] {
        func hex(_ bytes: [UInt8]?) -> String { bytes.map { Hex.encode($0) } ?? "none" }
        return [
            ("status", o.status?.name ?? "none"), ("tvr", hex(o.tvr)), ("tsi", hex(o.tsi)),
            ("cvmResult", hex(o.cvmResult)),
            ("cryptogram", o.cryptogram?.name.uppercased() ?? "none"),
        ]
    }

    /// "status: expected APPROVED, got DECLINED; tvr: …", or "interrupted: …" for the case a stop cut short.
    static func summary(_ result: SuiteResult) -> String {
        let mismatches = result.mismatches.map { "\($0.field): expected \($0.expected), got \($0.got)" }
        return ((result.interrupted ? ["interrupted: the run was stopped during this case"] : []) + mismatches)
            .joined(separator: "; ")
    }

    static func tap(_ results: [SuiteResult], suite: String) -> String {
        tapHeader(count: results.count, suite: suite)
            + results.enumerated().map { tapEntry($1, number: $0 + 1) }.joined()
            + tapFooter(results)
    }

    /// TAP's version, plan and suite name: what a stream of entries starts with.
    static func tapHeader(count: Int, suite: String) -> String {
        "TAP version 13\n1..\(count)\n# suite: \(LogScrubber.scrub(suite))\n"
    }

    /// One case's TAP line, with a YAML block of expected against got when it failed.
    static func tapEntry(_ result: SuiteResult, number: Int) -> String {
        // '#' starts a directive in TAP: escaped in the description.
        let name = LogScrubber.scrub(result.suiteCase.name).replacingOccurrences(of: "#", with: "\\#")
        if let reason = result.notRun {
            return
                "ok \(number) - \(name) # SKIP \(LogScrubber.scrub(reason).replacingOccurrences(of: "#", with: "\\#"))\n"
        }
        var lines = ["\(result.passed ? "ok" : "not ok") \(number) - \(name)"]
        if !result.passed {
            lines.append("  ---")
            lines.append("  message: \(JSONOutput.quote(LogScrubber.scrub(summary(result))))")
            lines.append("  card: \(JSONOutput.quote(result.suiteCase.card))")
            lines.append("  expected:")
            for (key, value) in expectedFields(result.suiteCase.expect) {
                lines.append("    \(key): \(JSONOutput.quote(value))")
            }
            lines.append("  got:")
            for (key, value) in gotFields(result.observation) { lines.append("    \(key): \(JSONOutput.quote(value))") }
            if let reason = result.observation.reason {
                lines.append("  reason: \(JSONOutput.quote(LogScrubber.scrub(reason)))")
            }
            lines.append("  duration_ms: \(Int(result.seconds * 1000))")
            lines.append("  ...")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func tapFooter(_ results: [SuiteResult]) -> String {
        let failed = results.filter { !$0.passed && $0.notRun == nil }.count
        let skipped = results.filter { $0.notRun != nil }.count
        return "# pass \(results.count - failed - skipped)\n# fail \(failed)\n"
            + (skipped > 0 ? "# skip \(skipped)\n" : "")
    }

    static func junit(_ results: [SuiteResult], suite: String, timestamp: Date) -> String {
        let name = LogScrubber.scrub(suite)
        let cases = results.map { result in
            var body = ["card: \(result.suiteCase.card)"]
            body += expectedFields(result.suiteCase.expect).map { "expected \($0.0): \($0.1)" }
            body += gotFields(result.observation).map { "got \($0.0): \($0.1)" }
            if let reason = result.observation.reason { body.append("reason: \(reason)") }
            let outcome: JUnitReport.Case.Outcome =
                if let reason = result.notRun {
                    .skipped(message: LogScrubber.scrub(reason))
                } else if result.passed {
                    .passed(note: nil)
                } else {
                    .failed(
                        type: result.interrupted ? "interrupted" : "mismatch",
                        message: LogScrubber.scrub(summary(result)),
                        detail: LogScrubber.scrub(body.joined(separator: "\n")))
                }
            return JUnitReport.Case(
                classname: name, name: LogScrubber.scrub(result.suiteCase.name), seconds: result.seconds,
                outcome: outcome)
        }
        return JUnitReport.document(
            name: name, cases: cases, timestamp: timestamp, seconds: results.reduce(0) { $0 + $1.seconds })
    }
}
