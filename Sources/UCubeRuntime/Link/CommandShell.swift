import UCubeSimulator

/// The shell a command runs in (`ucube shell`), as the command sees it: the shell's one link, the line a prompt
/// reads, what Ctrl-C does while a payment runs, and the shell's `set` for a payment's step prompt. The shell's own
/// loop, completion and settings are the executable's (`ShellSession`).
package protocol CommandShell: AnyObject, Sendable {
    /// The shell's open link for `context`'s device, opened or reopened when needed; it stays open after the command.
    func connection(_ context: CommandContext, card: CardScenario?) async throws -> Connection
    /// Runs `body` with `handler` as what Ctrl-C does (a payment's cancel rule).
    func onInterrupt<T>(_ handler: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T
    /// Whether a payment is being stepped through (`pay --step`): the shell's prompt then reads step commands.
    func setStepping(_ on: Bool)
    /// One line at the shell's prompt, for the running command (a prompt's answer, a step command).
    func readLine(prompt: String) async -> LineRead
    /// `set NAME VALUE` from inside a command (a step prompt); the one-line confirmation, or a usage error.
    func applySetting(_ words: [String]) throws(CLIFailure) -> String
}
