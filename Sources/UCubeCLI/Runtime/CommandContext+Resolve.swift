import Foundation
import UCubeLog
import UCubeRuntime

/// How the dispatchers (`UCube.main`, `CommonLines`, the shell's line loop) resolve a command's `CommandContext` from
/// the line's global options, the shell's settings, the environment and devices.json.
extension CommandContext {
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
}
