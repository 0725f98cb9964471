import ArgumentParser
import Foundation
import UCubeLink
import UCubeRuntime

/// How `mdm-register`, `mdm-update`, `send-logs`, `test` and `shell --script` run over several terminals: the
/// options of every fleet run (`FleetQueryOptions`) and the run file these commands resume from (docs/fleet.md).
struct FleetOptions: ParsableArguments {
    @OptionGroup var query: FleetQueryOptions

    @Option(
        help: ArgumentHelp(
            "Where a fleet run keeps each terminal's verdict, so that the same command run again retries only the terminals not yet done (deleted once all are). ucube creates it with a header line; a file that lacks it is refused (64) and left alone. Default: $XDG_STATE_HOME/ucube/runs/COMMAND-HASH.jsonl.",
            valueName: "file"),
        completion: .file())
    var runFile: String?

    @Flag(help: "In a fleet run, ignore the run file's verdicts and run every terminal again.")
    var restart = false

    /// The parsed values, as a plain value.
    var values: FleetOptionValues {
        var values = query.values
        values.runFile = runFile
        values.restart = restart
        return values
    }
}

/// How `info` and `diagnose`, which ask every terminal every time and keep no run file, run over several terminals:
/// the list (with a repeated `--device`), how many at once, when to stop, the JUnit report and the shard
/// (docs/fleet.md). Their help lists no `--run-file` or `--restart`, which they could only refuse.
struct FleetQueryOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A file of terminals, one device name or URL a line (blank lines and `#` comments skipped; `ucube simulate --fleet` writes one; `DEVICE @NAME` pins a terminal to the shard run with --shard-host NAME): a fleet run. Adds to --device.",
            valueName: "file"),
        completion: .file())
    var devices: String?

    @Option(
        help: ArgumentHelp(
            "In a fleet run, how many terminals are worked on at once, 1…\(FleetChoices.maximumParallel). Default: all of them; Bluetooth terminals still connect one at a time.",
            valueName: "n"))
    var parallel: Int?

    @Option(
        help: ArgumentHelp(
            "Write a JUnit XML report to FILE, for GitLab, Jenkins and other CI: a test case per terminal (per item for mdm-update; for test, a testsuite per terminal and a test case per case). A fleet run, even of one terminal; but test on one terminal, with no other fleet option, writes its suite's report (TAP stays on stdout).",
            valueName: "file"),
        completion: .file())
    var junit: String?

    @Option(
        help: ArgumentHelp(
            "In a fleet run, start no more terminals once N have failed; the running ones finish.", valueName: "n"))
    var maxFailures: Int?

    @Option(
        help: ArgumentHelp(
            "Run only the I-th of N parts of the terminals (1 ≤ I ≤ N): N CI jobs, one per part, drive the whole fleet; the parts are the same whatever the order of the devices file, and differ in size by at most one. Merge their --json output with `ucube fleet-merge`. A fleet run.",
            valueName: "i/n"))
    var shard: String?

    @Option(
        help: ArgumentHelp(
            "With --shard: this runner's name. The terminals pinned to it in the devices file (`DEVICE @NAME`) run here too; terminals pinned to other runners do not.",
            valueName: "name"))
    var shardHost: String?

    func validate() throws { try values.validate() }

    /// The parsed values, as a plain value (no run file: `FleetOptions` adds it).
    var values: FleetOptionValues {
        FleetOptionValues(
            devices: devices, parallel: parallel, junit: junit, maxFailures: maxFailures, shard: shard,
            shardHost: shardHost)
    }
}

extension FleetOptionValues {
    /// The command line's checks of the fleet options, as ArgumentParser's usage errors.
    func validate() throws {
        if let parallel, !(1...FleetChoices.maximumParallel).contains(parallel) {
            throw ValidationError("--parallel must be 1 to \(FleetChoices.maximumParallel)")
        }
        if let maxFailures, maxFailures < 1 { throw ValidationError("--max-failures must be at least 1") }
        if let shard, FleetShard.parse(shard) == nil {
            throw ValidationError(
                "--shard '\(shard)': expected I/N with 1 ≤ I ≤ N ≤ \(FleetChoices.maximumDevices), e.g. 2/4")
        }
        if let shardHost {
            guard shard != nil else {
                throw ValidationError("--shard-host names this runner among the shards: give --shard I/N too")
            }
            guard FleetShard.isValidHost(shardHost) else {
                throw ValidationError(
                    "--shard-host '\(shardHost)': letters, digits, '.', '_' and '-' only (at most 64)")
            }
        }
    }
}
