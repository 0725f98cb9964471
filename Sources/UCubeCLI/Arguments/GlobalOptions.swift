import ArgumentParser
import UCubeLink
import UCubeLog
import UCubeProtocol

/// Options every command takes, before or after the subcommand name. Values are optional so the shell's `set …`,
/// the environment and the config file can fill what the line leaves out.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("device"),
        help: ArgumentHelp(
            "The terminal: sim (built-in simulator), tcp://HOST:PORT, serial:///dev/NAME, ble://ADDRESS|NAME, rfcomm://ADDRESS[/CHANNEL], replay:FILE (a recording), or a name remembered by `ucube connect`. Default: $UCUBE_DEVICE, else the remembered default, else sim. info, diagnose, mdm-register, mdm-update, send-logs, test and shell --script take it more than once: a fleet run.",
            valueName: "device"))
    var devices: [String] = []

    /// The one terminal `--device` names (a fleet run gives each of its terminals a copy naming one).
    var device: String? { devices.last }

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

    func validate() throws {
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

    /// These options for one terminal of a fleet run: `device` only, and JSON when `json` (the run reads the command's
    /// JSON events).
    func single(_ device: String, json: Bool) -> GlobalOptions {
        var one = self
        one.devices = [device]
        one.jsonFlag = jsonFlag || json
        return one
    }

    /// `--log-level` parsed (validated already), else the default levels.
    var logLevels: LogLevels { logLevel.flatMap { try? LogLevels(parsing: $0) } ?? LogLevels() }

    /// `--json`, or the shell's `set json on`.
    var json: Bool { jsonFlag || ShellSession.current?.settings.json == true }

    /// `--trace`, or the shell's `set trace on`.
    var trace: Bool { traceFlag || ShellSession.current?.settings.trace == true }

    /// The device string, from the option, then the shell's `set device`, then `$UCUBE_DEVICE`, then the default
    /// device remembered by `ucube connect`, then the simulator.
    var deviceAddress: String { namedDevice ?? "sim" }

    /// The device named by the option, the shell, `$UCUBE_DEVICE` or `ucube connect`; nil: none, and the built-in
    /// simulator stands in (`Connection.open` says so on stderr, every time).
    var namedDevice: String? {
        device ?? ShellSession.current?.settings.device ?? Environment.value("UCUBE_DEVICE")
            ?? RememberedDevices.defaultAddress
    }

    var timeout: Duration {
        guard let t = rpcTimeout ?? ShellSession.current?.settings.timeout else { return .seconds(10) }
        return .milliseconds(Int64(t * 1000))
    }
}
