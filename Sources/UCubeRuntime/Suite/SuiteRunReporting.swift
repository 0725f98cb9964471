/// What a suite run tells as it goes (`SuiteRun`). The command line renders it: TAP streamed on stdout, a line per
/// case on stderr, or a fleet run's `case` events. Called in order, from the run's task.
package protocol SuiteRunReporting: Sendable {
    /// The run starts: `count` cases of the suite `name`.
    func started(suite name: String, count: Int)
    /// The terminal cannot be reached: the run ends with `failure` before its first case.
    func unreachable(_ failure: CLIFailure)
    /// A line for the operator (a case's instruction, the card a steered simulator presents).
    func note(_ line: String)
    /// Case `number` (from 1) ended, passed, failed or not run.
    func ended(_ result: SuiteResult, number: Int)
}
