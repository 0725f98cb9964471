/// The fleet run's limits, in one place.
package enum FleetChoices {
    package static let maximumParallel = 256
    /// Terminals in one run (a devices file longer than this is a mistake, not a fleet).
    package static let maximumDevices = 4096
    /// A devices file or a run file is read only up to this size.
    package static let maximumFileSize = 4 << 20
    /// A shard's JSON lines, for `ucube fleet-merge`: every event of up to 4096 terminals (mdm-update's progress too).
    package static let maximumReportSize = 256 << 20
    /// The options that change how a run goes, not what it does: left out of the run file's key, so the same command
    /// with another `--parallel` resumes the same run. The ones that take a value come first.
    package static let controlOptionsWithValue: Set<String> = ["--parallel", "--max-failures", "--junit", "--run-file"]
    package static let controlFlags: Set<String> = ["--restart", "--json"]
}
