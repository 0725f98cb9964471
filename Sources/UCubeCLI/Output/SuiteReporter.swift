import UCubeLog
import UCubeRuntime

/// A suite run (`SuiteRun`) as `ucube test` shows it while it goes: TAP streamed on stdout, a line per case on stderr
/// (when the report goes to a file or is JUnit), or a `case` event of its terminal in a fleet run (docs/fleet.md).
struct SuiteReporter: SuiteRunReporting {
    enum Mode {
        /// TAP 13 on stdout, a line per case as it ends: a run killed or timed out still says how far it got.
        case tap
        /// "ok 3 - name" on stderr; the report is written at the end.
        case stderr
        /// A `case` event per case, for the fleet's report.
        case fleet
    }

    let mode: Mode

    func started(suite name: String, count: Int) {
        if mode == .tap { Console.out(SuiteReport.tapHeader(count: count, suite: name)) }
    }

    func unreachable(_ failure: CLIFailure) {
        if mode == .tap { Console.out("Bail out! \(LogScrubber.scrub(OneLine.flattened(failure.message)))\n") }
    }

    func note(_ line: String) { StandardError.write(line) }

    func ended(_ result: SuiteResult, number: Int) {
        switch mode {
        case .fleet:
            DeviceOutput.current?.report(
                .testCase(
                    FleetVerdict.Item(
                        item: result.suiteCase.name,
                        result: result.notRun != nil ? "not-run" : result.passed ? "passed" : "failed",
                        error: result.passed ? nil : LogScrubber.scrub(result.notRun ?? SuiteReport.summary(result)),
                        seconds: result.seconds)))
        case .tap:
            Console.out(SuiteReport.tapEntry(result, number: number))
        case .stderr:
            if result.notRun == nil {
                StandardError.write("\(result.passed ? "ok" : "not ok") \(number) - \(result.suiteCase.name)")
            }
        }
    }
}
