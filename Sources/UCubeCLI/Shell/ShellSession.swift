import ArgumentParser
import Foundation
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator

/// The shell's `set …` values. They apply to every line that does not say otherwise (`--json` on a line still
/// wins; the flags combine with `||`).
struct ShellSettings: Sendable, Equatable {
    enum Name: String, CaseIterable, Sendable {
        case trace, json, timeout, device, authorize
        case logLevel = "log-level"
    }

    var trace = false
    var json = false
    var timeout: Double?
    var device: String?
    /// `set authorize WORD`: the --authorize of every payment whose line gives none (a hook, approve, prompt …).
    var authorize: String?
    /// `set log-level LEVELS`: changes the levels of every logger of this process (`LogSystem.levels`).
    var logLevels: LogLevels?

    /// `set NAME VALUE`; returns the one-line confirmation or throws a usage error.
    mutating func apply(_ words: [String]) throws(CLIFailure) -> String {
        guard words.count == 2, let name = Name(rawValue: words[0]) else {
            throw CLIFailure(
                ExitCodes.usage,
                "usage: set trace on|off, set json on|off, set timeout SECONDS, set device DEVICE, set authorize WORD, set log-level LEVELS"
            )
        }
        let value = words[1]
        func onOff() throws(CLIFailure) -> Bool {
            switch value {
            case "on", "true", "yes", "1": return true
            case "off", "false", "no", "0": return false
            default: throw CLIFailure(ExitCodes.usage, "set \(name.rawValue): say on or off")
            }
        }
        switch name {
        case .trace: trace = try onOff()
        case .json: json = try onOff()
        case .timeout:
            guard let seconds = Double(value), seconds > 0, seconds <= 3600 else {
                throw CLIFailure(ExitCodes.usage, "set timeout: between 0 and 3600 seconds")
            }
            timeout = seconds
        case .device:
            do {
                _ = try DeviceAddress(parsing: value)
            } catch {
                throw CLIFailure(ExitCodes.usage, error.reason)
            }
            device = value
        case .authorize:
            do {
                _ = try PaymentTasks.authorization(value, field: "set authorize", prompts: .standardInput)
            } catch let error as UsageError {
                throw CLIFailure(ExitCodes.usage, error.message)
            } catch {
                throw CLIFailure(ExitCodes.usage, "set authorize: \(error)")
            }
            authorize = value
        case .logLevel:
            do {
                logLevels = try LogLevels(parsing: value)
            } catch {
                throw CLIFailure(ExitCodes.usage, "set log-level: \(error.reason)")
            }
            LogSystem.levels = logLevels
        }
        // `set device` has just named the device: the fallback is never shown.
        return lines(device: device ?? "sim").first { $0.hasPrefix(name.rawValue + " ") } ?? ""
    }

    /// What `set` alone shows; `device`: the terminal a line names none would use (its resolved context's).
    func lines(device: String) -> [String] {
        [
            "trace \(trace ? "on" : "off")",
            "json \(json ? "on" : "off")",
            "timeout \(timeout.map { "\($0)" } ?? "default (10)")",
            "device \(device)",
            "authorize \(authorize ?? "default (the terminal's, else $\(HostChoices.environmentVariable), else approve)")",
            "log-level \((logLevels ?? LogSystem.levels ?? LogLevels()).description)",
        ]
    }
}

/// A running shell: its settings, its one open link, and the way a running command reads a line at the shell's
/// prompt. Each line's command gets it in its `CommandContext` (`shell`), so `withConnection` and the prompts find
/// it.
final class ShellSession: CommandShell {
    /// The open link and what it was opened for.
    struct Link: Sendable {
        let connection: Connection
        let device: String
    }

    private struct State: Sendable {
        var settings = ShellSettings()
        var link: Link?
        var linkState: TerminalState?
        var stepping = false
        var interruptHandler: (@Sendable () -> Void)?
        var running: Task<Void, Never>?
        var mailbox: ShellMailbox?
    }

    private let state: Mutex<State>

    init(settings: ShellSettings) {
        state = Mutex(State(settings: settings))
    }

    var settings: ShellSettings { state.withLock { $0.settings } }

    /// `set NAME VALUE`.
    func applySetting(_ words: [String]) throws(CLIFailure) -> String {
        var settings = self.settings
        let message = try settings.apply(words)
        state.withLock { $0.settings = settings }
        return message
    }

    var completionState: CompletionState {
        state.withLock { CompletionState(linkState: $0.linkState, stepping: $0.stepping) }
    }

    func setStepping(_ on: Bool) { state.withLock { $0.stepping = on } }

    // MARK: - The link

    /// The shell's open link, opened (or reopened for another device, or for an explicit `--card`: a new simulated
    /// card is a new simulator) when needed. The RPC timeout and trace follow the line's context.
    func connection(_ context: CommandContext, card: CardScenario?) async throws -> Connection {
        let device = context.deviceAddress
        let existing = state.withLock { $0.link }
        let connection: Connection
        if let existing, existing.device == device, card == nil {
            connection = existing.connection
        } else {
            if let existing {
                state.withLock { $0.link = nil }
                await existing.connection.close()
            }
            connection = try await Connection.open(context, card: card, prepare: .asRecorded)
            state.withLock { $0.link = Link(connection: connection, device: device) }
        }
        await connection.client.configure(
            defaultTimeout: context.timeout, trace: connection.trace(printing: context.trace))
        return connection
    }

    /// After each command: a dropped link is reported and forgotten (the next command opens it again); otherwise
    /// its state (READY or SECURED) is noted for completion.
    func checkLink() async {
        guard let link = state.withLock({ $0.link }) else { return }
        if await link.connection.client.isConnected {
            let secured = await link.connection.client.isSecured
            state.withLock { $0.linkState = secured ? .secured : .ready }
        } else {
            StandardError.write(
                "ucube: the link to \(link.device) dropped; the next command (or `reconnect`) opens it again")
            state.withLock {
                $0.link = nil
                $0.linkState = nil
            }
            await link.connection.close()
        }
    }

    /// Closes the link (saving its session).
    func disconnect() async {
        let link = state.withLock { s in
            defer {
                s.link = nil
                s.linkState = nil
            }
            return s.link
        }
        if let link { await link.connection.close() }
    }

    // MARK: - The running command

    /// The command about to start reads its lines through `mailbox`. Set before its task starts: a command that asks
    /// for a line at once (a stepped payment's first pause) must find the mailbox, not the end of input.
    func commandStarting(mailbox: ShellMailbox) {
        state.withLock { $0.mailbox = mailbox }
    }

    /// The running command's task, for Ctrl-C.
    func commandStarted(_ task: Task<Void, Never>) {
        state.withLock { $0.running = task }
    }

    func commandFinished() {
        state.withLock {
            $0.running = nil
            $0.mailbox = nil
            $0.interruptHandler = nil
            $0.stepping = false
        }
    }

    /// What Ctrl-C does while `body` runs (a payment: its cancel rule); otherwise Ctrl-C cancels the command's task.
    func onInterrupt<T>(_ handler: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T {
        state.withLock { $0.interruptHandler = handler }
        defer { state.withLock { $0.interruptHandler = nil } }
        return try await body()
    }

    /// Ctrl-C while a command runs.
    func interrupt() {
        let (handler, task) = state.withLock { ($0.interruptHandler, $0.running) }
        if let handler {
            handler()
        } else {
            StandardError.write("ucube: interrupted")
            task?.cancel()
        }
    }

    /// Reads one line at the shell's prompt for the running command (a prompt answer, a step command).
    func readLine(prompt: String) async -> LineRead {
        guard let mailbox = state.withLock({ $0.mailbox }) else { return .end }
        return await withCheckedContinuation { continuation in
            mailbox.post(.read(prompt: prompt, reply: { continuation.resume(returning: $0) }))
        }
    }
}

/// How a running command talks to the shell's thread, the only one that reads input.
final class ShellMailbox: Sendable {
    enum Request: Sendable {
        case read(prompt: String, reply: @Sendable (LineRead) -> Void)
        case finished(Int32)
    }

    private let queue = Mutex<[Request]>([])
    private let signal = DispatchSemaphore(value: 0)

    func post(_ request: Request) {
        queue.withLock { $0.append(request) }
        signal.signal()
    }

    /// The next request, or `nil` after `timeout` seconds (so the shell can look at Ctrl-C).
    func next(timeout: Double) -> Request? {
        guard signal.wait(timeout: .now() + timeout) == .success else { return nil }
        return queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
