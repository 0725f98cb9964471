import ArgumentParser
import UCubeRuntime

/// A ucube command: ArgumentParser reads its words into its options, and the dispatcher (`UCube.main`, the shell's
/// line loop) resolves its settings into a `CommandContext` and calls `run(in:)`.
protocol UCubeCommand: AsyncParsableCommand {
    /// The global options as the line gave them.
    var globals: GlobalOptions { get }

    /// Runs the command with the settings resolved at dispatch.
    func run(in context: CommandContext) async throws
}

extension UCubeCommand {
    /// ArgumentParser's entry point. ucube's dispatchers never call it: they call `run(in:)`. Any other caller
    /// (ArgumentParser's own `main`, a test) runs the command as a top-level command line would, never as inside a
    /// shell: its settings resolved from the line and this process's own inputs (environment, devices.json, stdin).
    func run() async throws {
        try await run(in: CommandContext.atDispatch(globals.values, session: nil))
    }
}
