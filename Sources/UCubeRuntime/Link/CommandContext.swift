import Foundation
import UCubeLog
import UCubeSimulator

/// Every setting a command reads, resolved once when the command is dispatched (`UCube.main`, `CommonLines`, the
/// shell's line loop) and passed to it (`UCubeCommand.run(in:)`). Nothing below the dispatcher reads the shell, the
/// environment or devices.json for these settings: what a command does depends on this value and its own options.
package struct CommandContext: Sendable {
    /// `--device` as given, every time it was (several: a fleet run; a command that drives one terminal refuses them).
    package let givenDevices: [String]
    /// The terminal named by `--device` (its last), else the shell's `set device`, else `$UCUBE_DEVICE`, else the
    /// default remembered by `ucube connect`; nil: none was named, and the built-in simulator stands in
    /// (`Connection.open` says so on stderr).
    package let namedDevice: String?
    /// `--json`, or the shell's `set json on`.
    package let json: Bool
    /// `--trace`, or the shell's `set trace on`.
    package let trace: Bool
    /// `--record FILE`.
    package let record: String?
    /// `--fast` (a replay answers at once).
    package let fast: Bool
    /// The RPC timeout: `--rpc-timeout`, else the shell's `set timeout`, else 10 s.
    package let timeout: Duration
    /// `--log-level`, else the shell's `set log-level`, else the default levels.
    package let logLevels: LogLevels
    /// Whether the log is copied to stderr (`--log-level` or `-v` was given).
    package let mirrorsLogToStderr: Bool
    /// `-q`/`--quiet`: the result and errors only, no progress or notices (`Console.isQuiet`).
    package var quiet = false
    /// The shell this command runs in (`ucube shell`), with its one link and its prompt; nil on the command line.
    package let shell: (any CommandShell)?
    /// Whether stdin is a terminal.
    package let stdinIsTerminal: Bool
    /// The shell's `set authorize`, else `$UCUBE_AUTHORIZE`.
    package var authorizeSetting: String? = nil
    /// Whether `authorizeSetting` is the shell's (it then comes before a terminal's own hook).
    package var authorizeSettingIsShell = false
    /// A remembered terminal's hook, by the name or address a command names it with (devices.json, read when asked).
    package var rememberedHook: @Sendable (String) -> RememberedHook? = { _ in nil }

    /// The settings every dispatcher resolves; the shell's and the terminals' hooks are set after.
    package init(
        givenDevices: [String], namedDevice: String?, json: Bool, trace: Bool, record: String?, fast: Bool,
        timeout: Duration, logLevels: LogLevels, mirrorsLogToStderr: Bool, shell: (any CommandShell)?,
        stdinIsTerminal: Bool
    ) {
        self.givenDevices = givenDevices
        self.namedDevice = namedDevice
        self.json = json
        self.trace = trace
        self.record = record
        self.fast = fast
        self.timeout = timeout
        self.logLevels = logLevels
        self.mirrorsLogToStderr = mirrorsLogToStderr
        self.shell = shell
        self.stdinIsTerminal = stdinIsTerminal
    }

    /// The authorisation of a payment on `device` whose line gives no --authorize (docs/authorization.md, "Where a
    /// hook is set"): the shell's `set authorize`, else the terminal's own hook in devices.json (with its CA file), else
    /// `$UCUBE_AUTHORIZE`, else approve.
    package func defaultAuthorization(for device: String) -> RememberedHook {
        if authorizeSettingIsShell, let authorizeSetting { return RememberedHook(word: authorizeSetting, ca: nil) }
        if let own = rememberedHook(device) { return own }
        return RememberedHook(word: authorizeSetting ?? "approve", ca: nil)
    }

    /// The device string: the named device, else the simulator.
    package var deviceAddress: String { namedDevice ?? "sim" }

    /// A person (or, in `ucube shell`, the script's next lines) can answer prompts.
    package var isInteractive: Bool { shell != nil || stdinIsTerminal }

    /// Where a prompt reads its answer; nil: nobody can answer one.
    package var prompts: PromptSource? {
        if let shell { return .shell(shell) }
        return stdinIsTerminal ? .standardInput : nil
    }

    /// The RPC timeout the shell's `set timeout` and a line's `--rpc-timeout` leave unsaid.
    package static let defaultTimeout: Duration = .seconds(10)

    /// This context for one terminal of a fleet run: `device` only, and JSON when `json` (the run reads the command's
    /// JSON events).
    package func single(_ device: String, json: Bool) -> CommandContext {
        var context = CommandContext(
            givenDevices: [device], namedDevice: device, json: self.json || json, trace: trace, record: record,
            fast: fast, timeout: timeout, logLevels: logLevels, mirrorsLogToStderr: mirrorsLogToStderr, shell: shell,
            stdinIsTerminal: stdinIsTerminal)
        context.authorizeSetting = authorizeSetting
        context.authorizeSettingIsShell = authorizeSettingIsShell
        context.rememberedHook = rememberedHook
        context.quiet = quiet
        return context
    }
}

/// Where a prompt's answer comes from: the shell's prompt inside `ucube shell`, else stdin (a terminal).
package enum PromptSource: Sendable {
    case shell(any CommandShell)
    case standardInput
}
