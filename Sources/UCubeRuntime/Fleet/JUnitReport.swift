import Foundation
import UCubeLog

/// JUnit XML, for fleet runs and `ucube test`. A fleet run's verdicts, the format GitLab, Jenkins and most CI systems read: one `testsuite` for
/// the run, a `testcase` per terminal (classname the device), or per item for mdm-update (classname the device, name
/// the item). A terminal never started is `skipped`; one done in an earlier run of the same command passes, saying so.
package enum JUnitReport {
    package struct Case: Equatable {
        package let classname: String
        package let name: String
        package let seconds: Double
        package enum Outcome: Equatable {
            case passed(note: String?)
            /// `detail`: the failure's text when it says more than its one-line message.
            case failed(type: String, message: String, detail: String? = nil)
            case skipped(message: String)
        }
        package let outcome: Outcome

        package init(classname: String, name: String, seconds: Double, outcome: Outcome) {
            self.classname = classname
            self.name = name
            self.seconds = seconds
            self.outcome = outcome
        }
    }

    /// The test cases of `verdicts`, in their order (`FleetVerdict.reportOrder`). Messages are scrubbed as the `end`
    /// events' are, so a report merged from those events (`ucube fleet-merge`) is the same.
    package static func cases(command: String, verdicts: [FleetVerdict]) -> [Case] {
        verdicts.flatMap { verdict -> [Case] in
            let note = verdict.earlier ? "done in an earlier run of this command (run file)" : nil
            switch verdict.result {
            case .notStarted:
                return [
                    Case(
                        classname: verdict.device, name: command, seconds: 0,
                        outcome: .skipped(
                            message: "not started: " + (verdict.message.map(LogScrubber.scrub) ?? "the run ended first")
                        ))
                ]
            case .ok, .failed:
                var cases = verdict.items.map { item in
                    Case(
                        classname: verdict.device, name: item.item, seconds: item.seconds ?? 0,
                        outcome: item.succeeded
                            ? .passed(note: note)
                            : item.notRun
                                ? .skipped(message: item.error ?? "not run")
                                : .failed(type: item.result, message: item.error ?? "not installed (\(item.result))"))
                }
                let itemsExplainFailure = cases.contains { if case .failed = $0.outcome { true } else { false } }
                if verdict.result == .failed && !itemsExplainFailure {
                    cases.append(
                        Case(
                            classname: verdict.device, name: command, seconds: verdict.seconds,
                            outcome: .failed(
                                type: verdict.code ?? verdict.exitName,
                                message: verdict.message.map(LogScrubber.scrub) ?? "exit \(verdict.exit)")))
                } else if cases.isEmpty {
                    cases.append(
                        Case(
                            classname: verdict.device, name: command, seconds: verdict.seconds,
                            outcome: .passed(note: note)))
                }
                return cases
            }
        }
    }

    /// The XML document of a fleet run: one testsuite, or for `test` (a suite per terminal) a testsuite per terminal,
    /// named after it.
    package static func xml(command: String, verdicts: [FleetVerdict], timestamp: Date, seconds: Double) -> String {
        guard command == "test" else {
            return document(
                name: "ucube \(command)", cases: cases(command: command, verdicts: verdicts), timestamp: timestamp,
                seconds: seconds)
        }
        let suites = verdicts.map { verdict in
            Suite(name: verdict.device, cases: cases(command: command, verdicts: [verdict]), seconds: verdict.seconds)
        }
        return document(name: "ucube \(command)", suites: suites, timestamp: timestamp, seconds: seconds)
    }

    /// One `testsuite`.
    package struct Suite {
        package let name: String
        package let cases: [Case]
        package let seconds: Double
    }

    /// A JUnit document: `testsuites` holding one `testsuite` named `name` with `cases` (fleet runs, `ucube test`).
    package static func document(name: String, cases: [Case], timestamp: Date, seconds: Double) -> String {
        document(
            name: name, suites: [Suite(name: name, cases: cases, seconds: seconds)], timestamp: timestamp,
            seconds: seconds)
    }

    /// A JUnit document: `testsuites` named `name` holding `suites`.
    package static func document(name: String, suites: [Suite], timestamp: Date, seconds: Double) -> String {
        let stamp = ISO8601DateFormatter().string(from: timestamp)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"\(escape(name))\" \(counts(suites.flatMap(\.cases), seconds: seconds))>\n"
        for suite in suites {
            out +=
                "  <testsuite name=\"\(escape(suite.name))\" \(counts(suite.cases, seconds: suite.seconds)) timestamp=\"\(stamp)\">\n"
            out += testcases(suite.cases)
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    private static func counts(_ cases: [Case], seconds: Double) -> String {
        let failures = cases.filter { if case .failed = $0.outcome { true } else { false } }.count
        let skipped = cases.filter { if case .skipped = $0.outcome { true } else { false } }.count
        return
            "tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(time(seconds))\""
    }

    private static func testcases(_ cases: [Case]) -> String {
        var out = ""
        for testCase in cases {
            let open =
                "    <testcase classname=\"\(escape(testCase.classname))\" name=\"\(escape(testCase.name))\" time=\"\(time(testCase.seconds))\""
            switch testCase.outcome {
            case .passed(let note):
                if let note {
                    out += open + ">\n      <system-out>\(escape(note))</system-out>\n    </testcase>\n"
                } else {
                    out += open + "/>\n"
                }
            case .failed(let type, let message, let detail):
                out +=
                    open
                    + ">\n      <failure type=\"\(escape(type))\" message=\"\(escape(message))\">\(escape(detail ?? message))</failure>\n    </testcase>\n"
            case .skipped(let message):
                out += open + ">\n      <skipped message=\"\(escape(message))\"/>\n    </testcase>\n"
            }
        }
        return out
    }

    /// Text for an XML attribute or element: the five entities escaped, tab and newline as character references (an
    /// attribute keeps them), and characters XML 1.0 cannot carry (other C0 controls, U+FFFE, U+FFFF) replaced by
    /// U+FFFD.
    package static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}
