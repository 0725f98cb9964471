/// What a fleet run tells as it goes (`FleetRun.run`): the executable renders it as text lines and a table, or JSON
/// lines (`FleetReporter`). Every call comes with the device it is about, from the terminals' tasks at once.
package protocol FleetRunReporting: Sendable {
    /// A terminal's work starts.
    func started(_ device: String)
    /// An event of a terminal's command (an item, a case, its result or failure, a line of its output).
    func event(_ device: String, _ event: FleetEvent)
    /// Text a terminal's command writes on stderr.
    func stderr(_ device: String, _ text: String)
    /// A terminal's verdict, as it ends.
    func ended(_ verdict: FleetVerdict)
    /// The terminals an earlier run of the same work finished, which this one leaves alone.
    func resuming(done: [FleetVerdict], runFile: String)
    /// Something the operator should know that is not a terminal's (a run file that cannot be written).
    func warn(_ message: String)
    /// How the run file was found (replaced, of other work).
    func note(_ message: String)
    /// Every terminal's verdict, in report order, and the run's length.
    func summary(_ verdicts: [FleetVerdict], seconds: Double)
}
