import Foundation
import Synchronization
import UCubeBluetooth
import UCubeLink
import UCubeLog
import UCubePayment
import UCubeProtocol
import UCubeSupport
import UCubeTMS
import UCubeTMSSimulator

/// Environment variables and XDG paths (docs/architecture.md: configuration under $XDG_CONFIG_HOME/ucube, state under
/// $XDG_STATE_HOME/ucube).
package enum Environment {
    /// The variable's value; `nil` when it is unset or empty. Read with `getenv`: `ProcessInfo.environment` copies
    /// the whole environment into a dictionary on every call, a measurable part of a short command's start.
    package static func value(_ name: String) -> String? {
        guard let v = getenv(name), v.pointee != 0 else { return nil }
        return String(cString: v)
    }

    /// The XDG rules over the process's environment.
    package static let xdg = XDGDirectories(lookup: { Environment.value($0) })

    /// $XDG_STATE_HOME/ucube (default ~/.local/state/ucube).
    package static var stateDirectory: String { (xdg.stateHome ?? NSHomeDirectory() + "/.local/state") + "/ucube" }

    /// $XDG_STATE_HOME/ucube/journal.jsonl: the payment journal.
    package static var journalPath: String { stateDirectory + "/journal.jsonl" }

    /// $XDG_STATE_HOME/ucube/logs: the log files (spec §11; `LogChoices.directoryName`).
    package static var logDirectory: String { stateDirectory + "/" + LogChoices.directoryName }

    /// $XDG_CONFIG_HOME/ucube (default ~/.config/ucube).
    package static var configDirectory: String { (xdg.configHome ?? NSHomeDirectory() + "/.config") + "/ucube" }

    /// $XDG_RUNTIME_DIR/ucube, else the state directory (runtime files: link sessions, control sockets).
    package static var runtimeDirectory: String {
        if let r = xdg.runtimeDirectory { return r + "/ucube" }
        return stateDirectory + "/run"
    }

    /// The device as a file-name part: letters and digits kept, everything else `_`.
    package static func fileKey(_ address: DeviceAddress) -> String { fileKey(address.description) }

    package static func fileKey(_ device: String) -> String {
        String(device.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// Where the built-in simulator keeps its device state: $UCUBE_SIM_HOME, else $XDG_STATE_HOME/ucube/simulator.
    package static var simulatorDirectory: String { value("UCUBE_SIM_HOME") ?? stateDirectory + "/simulator" }

    /// Where `ucube simulate --tms` keeps its CA, issued identities, received logs and default catalogue:
    /// $UCUBE_TMS_SIM_HOME, else $XDG_STATE_HOME/ucube/tms-simulator.
    package static var tmsSimulatorDirectory: String {
        value("UCUBE_TMS_SIM_HOME") ?? stateDirectory + "/tms-simulator"
    }

    /// An output file's directory must exist and be writable (73 otherwise, before any work): `--output`,
    /// `--receipt-file`.
    package static func checkOutputDirectory(of path: String, option: String) throws(CLIFailure) {
        let parent = PathText.directory(of: path)
        let directory = parent.isEmpty ? "." : parent
        var isDirectory: ObjCBool = false
        let problem: String?
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            problem = "the directory \(directory) does not exist"
        } else if !isDirectory.boolValue {
            problem = "\(directory) is not a directory"
        } else if access(directory, W_OK | X_OK) != 0 {
            problem = "the directory \(directory) is not writable"
        } else {
            problem = nil
        }
        if let problem {
            throw CLIFailure(
                ExitCodes.cannotCreate, "cannot create \(path): \(problem)", code: .cannotCreateOutput,
                hint: "create the directory first, or choose another \(option)")
        }
    }

    /// The umask ucube was started with (it runs with 077 for its own files): a report or receipt the user asked for
    /// is created with the mode the user's umask gives (`outputMode`), as any other tool's output would be.
    nonisolated(unsafe) package static var userUmask: mode_t = 0o022

    /// 0666 under the user's umask: the mode of a file created at the user's request (a receipt, a report).
    package static var outputMode: mode_t { 0o666 & ~userUmask }

    /// An output file can be written once the work is done: its directory exists and is writable, and the file is no
    /// symbolic link (73 otherwise, before any work).
    package static func checkOutputFile(_ path: String, option: String) throws(CLIFailure) {
        try checkOutputDirectory(of: path, option: option)
        do throws(PrivateFileError) {
            try PrivateFile.checkNotALink(path)
        } catch {
            throw CLIFailure.unsafePath(error)
        }
    }

    /// Writes a file the user asked for (a receipt, a report): never through a link, with the user's umask
    /// (`outputMode`); 73 naming `what` when it cannot be written.
    package static func writeOutput(_ text: String, to path: String, what: String) throws(CLIFailure) {
        do throws(PrivateFileError) {
            try PrivateFile.write(
                Array(Masking.redactCardData(in: text).utf8), to: path, mode: outputMode, kind: .output)
        } catch {
            if error.isRefusal { throw CLIFailure.unsafePath(error) }
            throw CLIFailure(
                ExitCodes.cannotCreate, "cannot write \(what) \(path): \(posixCause(error))", code: .cannotCreateOutput)
        }
    }

    /// Creates a directory ucube keeps state in (0700, with parents), and refuses one that another user owns or that
    /// others can write (`PrivateFile.ensureDirectory`).
    package static func ensureDirectory(_ path: String) throws(PrivateFileError) {
        try PrivateFile.ensureDirectory(path)
    }
}

// MARK: - The documented environment and files

extension Environment {
    /// A variable ucube reads: `ucube --help` and the man page's ENVIRONMENT list these.
    package struct Variable {
        package let name: String
        package let meaning: String
    }

    /// A file or directory ucube reads or writes: `ucube --help` and the man page's FILES list these.
    package struct File {
        package let path: String
        package let meaning: String
    }

    /// $UCUBE_INPUT_LIMIT: `BoundedFile.lowered`.
    package static let inputLimitVariable = "UCUBE_INPUT_LIMIT"

    /// Every variable the code reads (a test scans the sources for others).
    package static let variables: [Variable] = [
        Variable(
            name: "UCUBE_DEVICE", meaning: "the terminal when --device is not given (before the remembered default)"),
        Variable(name: TMSChoices.urlEnvironmentVariable, meaning: "the TMS base URL when --tms is not given"),
        Variable(
            name: TMSChoices.caEnvironmentVariable,
            meaning: "a PEM file of CA certificates to trust for the TMS when --tms-ca is not given"),
        Variable(
            name: BluetoothChoices.adapterEnvironmentVariable,
            meaning: "the Bluetooth adapter (e.g. hci1) instead of the first"),
        Variable(name: "UCUBE_SIM_HOME", meaning: "the built-in simulator's state directory"),
        Variable(
            name: "UCUBE_SIM_SEED", meaning: "the built-in simulator's seed for every random value (deterministic runs)"
        ),
        Variable(
            name: "UCUBE_SIM_TIME_SCALE", meaning: "the built-in simulator's delays are multiplied by this (0 = none)"),
        Variable(
            name: "UCUBE_SIM_FAULT",
            meaning:
                "faults the built-in simulator injects, as `simulate --fault`: drop@N, silent@N, reboot@N (frame positions), load-drop@K, refuse-image"
        ),
        Variable(
            name: "UCUBE_SIM_KEYS",
            meaning:
                "keys the built-in simulator's cardholder presses, one per display, as `simulate --keys`: hex codes, comma-separated"
        ),
        Variable(
            name: "UCUBE_SIM_CHOICES",
            meaning:
                "the built-in simulator's list-box answers, as `simulate --choices`: item numbers, abort or none, comma-separated"
        ),
        Variable(name: "UCUBE_TMS_SIM_HOME", meaning: "the state directory of `ucube simulate --tms`"),
        Variable(
            name: HostChoices.environmentVariable,
            meaning:
                "the issuer's answer when --authorize is not given: a word --authorize takes, e.g. exec:PROGRAM (a host; docs/authorization.md)"
        ),
        Variable(
            name: HostChoices.caVariable,
            meaning:
                "the https hook's CA file when --authorize-ca is not given: the only CAs the host's certificate may chain to"
        ),
        Variable(
            name: HostChoices.certificateVariable,
            meaning: "the https hook's PEM client certificate when --authorize-cert is not given"),
        Variable(
            name: HostChoices.keyVariable, meaning: "its PEM private key when --authorize-key is not given"),
        Variable(
            name: HostChoices.tokenFileVariable,
            meaning:
                "a file whose first line is the https hook's bearer token, when --authorize-token-file is not given"),
        Variable(
            name: HostChoices.tokenVariable,
            meaning:
                "the https hook's bearer token, when no token file is named (never an option: see docs/authorization.md)"
        ),
        Variable(
            name: inputLimitVariable,
            meaning:
                "lowers every input limit (standard input, files, FIFOs, the shell's lines, recordings) to this many bytes; never raises one (tests reach a limit with a few bytes)"
        ),
        Variable(name: "XDG_CONFIG_HOME", meaning: "configuration (default ~/.config)"),
        Variable(name: "XDG_STATE_HOME", meaning: "state: logs, journal, history, simulators (default ~/.local/state)"),
        Variable(
            name: "XDG_RUNTIME_DIR", meaning: "link sessions and control sockets (default $XDG_STATE_HOME/ucube/run)"),
        Variable(name: "HOME", meaning: "the base of the XDG defaults"),
        Variable(
            name: "NO_COLOR",
            meaning: "any value but the empty string: no colour on a terminal (no-color.org); TERM=dumb does the same"),
        Variable(
            name: "TZ",
            meaning:
                "the time zone of the times shown to people (history, receipts); JSON and files keep UTC (default: the system's zone)"
        ),
    ]

    package static let files: [File] = [
        File(path: "$XDG_CONFIG_HOME/ucube/" + TMSChoices.configFileName, meaning: "TMS settings: tms_url, tms_ca"),
        File(
            path: "$XDG_CONFIG_HOME/ucube/devices.json",
            meaning: "terminals remembered by `ucube connect`, and the default one"),
        File(
            path: "$XDG_CONFIG_HOME/ucube/tms/SERIAL.p12",
            meaning: "the TMS client identity of each terminal (mode 0600)"),
        File(
            path: "$XDG_STATE_HOME/ucube/journal.jsonl",
            meaning: "the payment journal (`ucube history`), never clear card data"),
        File(
            path: "$XDG_STATE_HOME/ucube/\(LogChoices.directoryName)/\(LogChoices.currentFileName)",
            meaning:
                "the log, rotated at \(LogChoices.rotationSize / 1_000_000) MB into \(LogChoices.rotatedFileName(1)) … \(LogChoices.rotatedFileName(LogChoices.rotatedFileCount))"
        ),
        File(path: "$XDG_STATE_HOME/ucube/history", meaning: "the shell's history"),
        File(
            path: "$XDG_STATE_HOME/ucube/runs/COMMAND-HASH.jsonl",
            meaning:
                "a fleet run's verdicts, a terminal a line, kept until every terminal is done: the same command run again retries only the others (--run-file, --restart)"
        ),
        File(
            path: "$XDG_STATE_HOME/ucube/downloads/",
            meaning: "binaries `ucube mdm-update` downloads, deleted after the run"),
        File(
            path: "$XDG_STATE_HOME/ucube/simulator/", meaning: "the built-in simulator's device state ($UCUBE_SIM_HOME)"
        ),
        File(
            path: "$XDG_STATE_HOME/ucube/tms-simulator/",
            meaning:
                "the TMS simulator's CA (\(TMSSimulatorChoices.caCertificateFileName)), issued identities, catalogue and received logs ($UCUBE_TMS_SIM_HOME)"
        ),
        File(
            path: "$XDG_RUNTIME_DIR/ucube/session-DEVICE",
            meaning: "each link's session: secured or not, the next SEQ, the terminal the last payment met"),
        File(
            path: "$XDG_RUNTIME_DIR/ucube/control-DEVICE.sock",
            meaning: "the socket through which `ucube cancel` reaches a running `ucube pay`"),
        File(
            path: "$XDG_RUNTIME_DIR/ucube/lock-DEVICE",
            meaning:
                "the lock one process holds while it uses the terminal (flock; released by the kernel when it ends)"),
    ]
}

/// Writes to stderr without going through `print` buffering on stdout.
package enum StandardError {
    /// `pay --events`: stderr is a stream of JSON lines until the command ends, so every other line written here
    /// (an error, a cancel's answer, a warning) goes out as a `message` event, never as text that would break it.
    private static let eventLines = Mutex(false)

    package static func setEventLines(_ on: Bool) { eventLines.withLock { $0 = on } }

    package static func write(_ text: String) {
        if let device = DeviceOutput.current {
            device.stderr(text)
            return
        }
        StatusLine.end()
        if eventLines.withLock({ $0 }) {
            for line in text.split(separator: "\n") {
                writeEvent(MessageEvent(text: String(line)))
            }
            return
        }
        RawOutput.stderr(text + "\n")
    }

    /// One event of `pay --events` as a JSON line on stderr, with its time.
    package static func writeEvent<E: Encodable>(_ event: E) {
        guard
            let line = try? JSONOutput.encode(
                TimedEvent(event: event, time: PaymentEngine.timestamp()), pretty: false, versioned: true)
        else { return }
        RawOutput.stderr(line + "\n")
    }

    /// `{"event":"message","text":"ucube: error: payment DECLINED","time":"…"}`.
    private struct MessageEvent: Encodable {
        let event = "message"
        let text: String
    }
}

/// An event with the time it was written (ISO 8601, UTC, milliseconds) beside its own fields.
package struct TimedEvent<E: Encodable>: Encodable {
    package let event: E
    package let time: String

    private enum Keys: String, CodingKey { case time }

    package func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(time, forKey: .time)
    }
}

/// Text as it is (no newline added, no `--events` wrapping) to a standard stream, through `Console`: stdout as
/// `Console.out`; stderr to the fleet run's terminal when there is one, else `Console.err`.
package enum RawOutput {
    package static func stderr(_ text: String) {
        if let device = DeviceOutput.current {
            device.stderr(text)
        } else {
            Console.err(text)
        }
    }

    package static func stdout(_ text: String) { Console.out(text) }
}
