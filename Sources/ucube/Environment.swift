import Foundation
import UCubeLog

/// Environment variables and XDG paths (ARCHITECTURE.md: configuration under $XDG_CONFIG_HOME/ucube, state under
/// $XDG_STATE_HOME/ucube).
enum Environment {
    /// The variable's value; `nil` when it is unset or empty. Read with `getenv`: `ProcessInfo.environment` copies
    /// the whole environment into a dictionary on every call, a measurable part of a short command's start.
    static func value(_ name: String) -> String? {
        guard let v = getenv(name), v.pointee != 0 else { return nil }
        return String(cString: v)
    }

    private static var home: String { value("HOME") ?? NSHomeDirectory() }

    /// $XDG_STATE_HOME/ucube (default ~/.local/state/ucube).
    static var stateDirectory: String { (value("XDG_STATE_HOME") ?? home + "/.local/state") + "/ucube" }

    /// $XDG_STATE_HOME/ucube/logs: the log files (spec §11; `LogChoices.directoryName`).
    static var logDirectory: String { stateDirectory + "/" + LogChoices.directoryName }

    /// $XDG_CONFIG_HOME/ucube (default ~/.config/ucube).
    static var configDirectory: String { (value("XDG_CONFIG_HOME") ?? home + "/.config") + "/ucube" }

    /// $XDG_RUNTIME_DIR/ucube, else the state directory (runtime files: link sessions, control sockets).
    static var runtimeDirectory: String {
        if let r = value("XDG_RUNTIME_DIR") { return r + "/ucube" }
        return stateDirectory + "/run"
    }

    /// Where the built-in simulator keeps its device state: $UCUBE_SIM_HOME, else $XDG_STATE_HOME/ucube/simulator.
    static var simulatorDirectory: String { value("UCUBE_SIM_HOME") ?? stateDirectory + "/simulator" }

    /// Where `ucube simulate --tms` keeps its CA, issued identities, received logs and default catalogue:
    /// $UCUBE_TMS_SIM_HOME, else $XDG_STATE_HOME/ucube/tms-simulator.
    static var tmsSimulatorDirectory: String { value("UCUBE_TMS_SIM_HOME") ?? stateDirectory + "/tms-simulator" }

    /// Creates a directory (and parents) with owner-only permissions.
    static func ensureDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}

/// Writes to stderr without going through `print` buffering on stdout.
enum StandardError {
    static func write(_ text: String) {
        RawOutput.write(text + "\n", to: STDERR_FILENO)
    }
}

/// Unbuffered writes to a standard stream (`StandardStream`: a closed reader loses the output, never traps).
enum RawOutput {
    static func write(_ text: String, to fd: Int32) { StandardStream.write(Array(text.utf8), to: fd) }

    static func stdout(_ text: String) { write(text, to: STDOUT_FILENO) }
}
