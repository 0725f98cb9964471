import ArgumentParser
import Foundation
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeRuntime

/// Options every command takes, before or after the subcommand name: what the line says, nothing more. Values are
/// optional so the shell's `set …`, the environment and devices.json can fill what the line leaves out; that is
/// `CommandContext.resolve`'s work, at dispatch.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("device"),
        help: ArgumentHelp(
            "The terminal: sim (built-in simulator), tcp://HOST:PORT, serial:///dev/NAME, ble://ADDRESS|NAME, rfcomm://ADDRESS[/CHANNEL], replay:FILE (a recording), or a name remembered by `ucube connect`. Default: $UCUBE_DEVICE, else the remembered default, else sim. info, diagnose, mdm-register, mdm-update, send-logs, test and shell --script take it more than once: a fleet run.",
            valueName: "device"),
        completion: .custom { _, _, prefix in DeviceCompletion.words(prefix: prefix) })
    var devices: [String] = []

    @Flag(name: .customLong("json"), help: "Print results as JSON on stdout.")
    var jsonFlag = false

    @Flag(name: .customLong("trace"), help: "Hex-dump every frame sent and received on stderr.")
    var traceFlag = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Record the session into FILE: the command line and every frame both ways, timed, card data masked (docs/recording.md). Replay it with --device replay:FILE.",
            valueName: "file"))
    var record: String?

    @Flag(name: .customLong("fast"), help: "With --device replay:FILE, answer at once instead of at the recorded pace.")
    var fast = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds to wait for an ordinary answer (long commands use their own timeout).", valueName: "seconds"))
    var rpcTimeout: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log levels: LEVEL, or LAYER=LEVEL,…,LEVEL (layers connection, rpc, payment, mdm, api; levels trace, debug, info, notice, warning, error, critical). Also copies the log to stderr. Default: info, to $XDG_STATE_HOME/ucube/logs only.",
            valueName: "levels"))
    var logLevel: String?

    @Flag(
        name: [.customShort("q"), .customLong("quiet")],
        help: "Print only the result and errors (and warnings): no progress, no notices.")
    var quiet = false

    @Flag(
        name: [.customShort("v"), .customLong("verbose")],
        help: "Print more: the log at debug level copied to stderr (as --log-level debug), and each error's detail.")
    var verbose = false

    func validate() throws { try values.validate() }

    /// The parsed values, as a plain value.
    var values: GlobalOptionValues {
        GlobalOptionValues(
            devices: devices, json: jsonFlag, trace: traceFlag, record: record, fast: fast, rpcTimeout: rpcTimeout,
            logLevel: logLevel, quiet: quiet, verbose: verbose)
    }
}

/// What the global options of one line say, as plain values (`CommonLines` reads them without ArgumentParser).
struct GlobalOptionValues: Sendable, Equatable {
    var devices: [String] = []
    var json = false
    var trace = false
    var record: String? = nil
    var fast = false
    var rpcTimeout: Double? = nil
    var logLevel: String? = nil
    /// `-q`/`--quiet`.
    var quiet = false
    /// `-v`/`--verbose`.
    var verbose = false

    /// The log levels `-v` stands for when `--log-level` does not say.
    static let verboseLogLevel = "debug"

    func validate() throws {
        if quiet && verbose { throw ValidationError("-q/--quiet and -v/--verbose ask for opposites: give one") }
        if let t = rpcTimeout, !(t > 0 && t <= 3600) {
            throw ValidationError("--rpc-timeout must be between 0 and 3600 seconds")
        }
        if let logLevel {
            do {
                _ = try LogLevels(parsing: logLevel)
            } catch {
                throw ValidationError(error.reason)
            }
        }
    }
}

/// What a shell completes `--device` with: `sim`, the names `ucube connect` remembered, and `replay:` with the
/// recordings (`*.rec`) of the directory being typed.
enum DeviceCompletion {
    static func words(prefix: String) -> [String] {
        let replay = "replay:"
        if prefix.hasPrefix(replay) {
            let typed = String(prefix.dropFirst(replay.count))
            let slash = typed.lastIndex(of: "/")
            let directory = slash.map { String(typed[...$0]) } ?? ""
            let entries =
                (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
            return entries.filter { $0.hasSuffix(".rec") }.map { replay + directory + $0 }.filter {
                $0.hasPrefix(prefix)
            }
            .sorted()
        }
        let remembered = (try? RememberedDevices.load())?.map(\.name) ?? []
        return (["sim", replay] + remembered).filter { $0.hasPrefix(prefix) }
    }
}
