import Foundation
import UCubeLog
import UCubeRuntime

/// Every setting a command reads, resolved once when the command is dispatched (`UCube.main`, `CommonLines`, the
/// shell's line loop) and passed to it (`UCubeCommand.run(in:)`). Nothing below the dispatcher reads the shell, the
/// environment or devices.json for these settings: what a command does depends on this value and its own options.
struct CommandContext: Sendable {
    /// `--device` as given, every time it was (several: a fleet run; a command that drives one terminal refuses them).
    let givenDevices: [String]
    /// The terminal named by `--device` (its last), else the shell's `set device`, else `$UCUBE_DEVICE`, else the
    /// default remembered by `ucube connect`; nil: none was named, and the built-in simulator stands in
    /// (`Connection.open` says so on stderr).
    let namedDevice: String?
    /// `--json`, or the shell's `set json on`.
    let json: Bool
    /// `--trace`, or the shell's `set trace on`.
    let trace: Bool
    /// `--record FILE`.
    let record: String?
    /// `--fast` (a replay answers at once).
    let fast: Bool
    /// The RPC timeout: `--rpc-timeout`, else the shell's `set timeout`, else 10 s.
    let timeout: Duration
    /// `--log-level`, else the shell's `set log-level`, else the default levels.
    let logLevels: LogLevels
    /// Whether the log is copied to stderr (`--log-level` or `-v` was given).
    let mirrorsLogToStderr: Bool
    /// `-q`/`--quiet`: the result and errors only, no progress or notices (`Console.isQuiet`).
    var quiet = false
    /// The shell this command runs in (`ucube shell`), with its one link and its prompt; nil on the command line.
    let shell: ShellSession?
    /// Whether stdin is a terminal.
    let stdinIsTerminal: Bool
    /// The shell's `set authorize`, else `$UCUBE_AUTHORIZE`.
    var authorizeSetting: String? = nil
    /// Whether `authorizeSetting` is the shell's (it then comes before a terminal's own hook).
    var authorizeSettingIsShell = false
    /// A remembered terminal's hook, by the name or address a command names it with (devices.json, read when asked).
    var rememberedHook: @Sendable (String) -> RememberedHook? = { _ in nil }

    /// The authorisation of a payment on `device` whose line gives no --authorize (docs/authorization.md, "Where a
    /// hook is set"): the shell's `set authorize`, else the terminal's own hook in devices.json (with its CA file), else
    /// `$UCUBE_AUTHORIZE`, else approve.
    func defaultAuthorization(for device: String) -> RememberedHook {
        if authorizeSettingIsShell, let authorizeSetting { return RememberedHook(word: authorizeSetting, ca: nil) }
        if let own = rememberedHook(device) { return own }
        return RememberedHook(word: authorizeSetting ?? "approve", ca: nil)
    }

    /// The device string: the named device, else the simulator.
    var deviceAddress: String { namedDevice ?? "sim" }

    /// A person (or, in `ucube shell`, the script's next lines) can answer prompts.
    var isInteractive: Bool { shell != nil || stdinIsTerminal }

    /// Where a prompt reads its answer; nil: nobody can answer one.
    var prompts: PromptSource? {
        if let shell { return .shell(shell) }
        return stdinIsTerminal ? .standardInput : nil
    }

    /// The RPC timeout the shell's `set timeout` and a line's `--rpc-timeout` leave unsaid.
    static let defaultTimeout: Duration = .seconds(10)

    /// Resolves the settings from their sources, in order: the line's options, then the shell's settings, then
    /// `environment` (`UCUBE_DEVICE`), then `rememberedDefault` (devices.json; asked only when nothing before named a
    /// device), then the simulator. A pure function of its inputs: tests call it directly.
    static func resolve(
        _ options: GlobalOptionValues, shell settings: ShellSettings?, session: ShellSession?,
        environment: (String) -> String?, rememberedDefault: () -> String?, stdinIsTerminal: Bool,
        rememberedHook: @escaping @Sendable (String) -> RememberedHook? = { _ in nil }
    ) -> CommandContext {
        let named = options.devices.last ?? settings?.device ?? environment("UCUBE_DEVICE") ?? rememberedDefault()
        let seconds = options.rpcTimeout ?? settings?.timeout
        var context = CommandContext(
            givenDevices: options.devices, namedDevice: named, json: options.json || settings?.json == true,
            trace: options.trace || settings?.trace == true, record: options.record, fast: options.fast,
            timeout: seconds.map { .milliseconds(Int64($0 * 1000)) } ?? defaultTimeout,
            logLevels: (options.logLevel ?? (options.verbose ? GlobalOptionValues.verboseLogLevel : nil))
                .flatMap { try? LogLevels(parsing: $0) } ?? settings?.logLevels ?? LogLevels(),
            mirrorsLogToStderr: options.logLevel != nil || options.verbose, shell: session,
            stdinIsTerminal: stdinIsTerminal)
        context.quiet = options.quiet
        context.authorizeSetting = settings?.authorize ?? environment(HostChoices.environmentVariable)
        context.authorizeSettingIsShell = settings?.authorize != nil
        context.rememberedHook = rememberedHook
        return context
    }

    /// `resolve` over this process's inputs: `session`'s settings, its environment, devices.json and fd 0. The
    /// dispatchers' one call.
    static func atDispatch(_ options: GlobalOptionValues, session: ShellSession?) -> CommandContext {
        resolve(
            options, shell: session?.settings, session: session, environment: Environment.value,
            rememberedDefault: { RememberedDevices.defaultAddress }, stdinIsTerminal: isatty(0) == 1,
            rememberedHook: { RememberedDevices.hook(for: $0) })
    }

    /// This context for one terminal of a fleet run: `device` only, and JSON when `json` (the run reads the command's
    /// JSON events).
    func single(_ device: String, json: Bool) -> CommandContext {
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
enum PromptSource: Sendable {
    case shell(ShellSession)
    case standardInput
}
