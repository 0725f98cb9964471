import CReadline
import Foundation
import Synchronization
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

/// Where the shell's lines come from: readline on a terminal, or plain lines from a script or a pipe.
protocol LineSource: AnyObject {
    /// Blocks its thread until a line (never call it on the cooperative pool).
    func readLine(prompt: String) -> LineRead
    /// Keeps a line the user typed in the history.
    func remember(_ line: String)
}

// MARK: - Ctrl-C

/// Set by the SIGINT handler; whoever is waiting (readline's getc, the shell waiting for a command) takes it.
let shellInterrupt = Atomic<Bool>(false)

/// Set by SIGTERM and SIGHUP (with `shellInterrupt`): the running command is cancelled as Ctrl-C would, then the
/// shell ends (`timeout`, a CI job's cancel, a closed terminal window).
let shellTerminate = Atomic<Bool>(false)

private func shellSIGINT(_ signal: Int32) {
    if signal != SIGINT { shellTerminate.store(true, ordering: .sequentiallyConsistent) }
    shellInterrupt.store(true, ordering: .sequentiallyConsistent)
}

/// SIGINT, SIGTERM and SIGHUP set flags and nothing else, without SA_RESTART, so a blocked read sees EINTR
/// (PLATFORM.md).
func installShellInterruptHandler() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = shellSIGINT
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    for signal in Interrupts.signals { sigaction(signal, &action, nil) }
}

// MARK: - Scripts and pipes

/// Lines from a script file, or from standard input when it is not a terminal: no prompt, no echo, no history.
final class PlainLineSource: LineSource {
    /// The longest line read from standard input, in bytes: a command line, even `rpc raw` with a whole frame's
    /// payload in hex, is a few kilobytes.
    static let maximumLineLength = 64 << 10
    /// The longest script file (`--script FILE`).
    static let maximumScriptSize = 16 << 20

    private var lines: [String]?
    /// A line was too long: its rest is still unread, so every later read refuses too.
    private var refused = false

    /// `lines`: a script's lines; `nil`: read standard input.
    init(lines: [String]?) { self.lines = lines }

    func readLine(prompt: String) -> LineRead {
        if lines != nil {
            guard !lines!.isEmpty else { return .end }
            return .line(lines!.removeFirst())
        }
        guard !refused else { return .tooLong }
        do {
            guard let line = try BoundedFile.readLine(limit: Self.maximumLineLength) else { return .end }
            return .line(line)
        } catch {
            refused = true
            return .tooLong
        }
    }

    func remember(_ line: String) {}
}

// MARK: - GNU readline

/// The session completion asks about; readline calls back synchronously on the shell's thread, inside `readline()`.
nonisolated(unsafe) private var completionSession: ShellSession?
nonisolated(unsafe) private var completionMatches: [String] = []
nonisolated(unsafe) private var completionIndex = 0
/// Ctrl-C arrived while `readline()` was reading: the line was cleared.
nonisolated(unsafe) private var readInterrupted = false

private func shellComplete(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    ucube_rl_set_attempted_completion_over(1)  // never fall back to file names
    let buffer = ucube_rl_line_buffer().map { Array(String(cString: $0).utf8) } ?? []
    let before = String(decoding: buffer.prefix(Int(max(0, start))), as: UTF8.self)
    // A completed word ends in the space readline appended: trim before matching (PLATFORM.md).
    let partial = (text.map { String(cString: $0) } ?? "").trimmingCharacters(in: .whitespaces)
    completionMatches = ShellCompletion.candidates(
        words: ShellWords.splitLeniently(before), partial: partial,
        state: completionSession?.completionState ?? CompletionState())
    guard !completionMatches.isEmpty else { return nil }
    return rl_completion_matches(text, shellCompletionGenerator)
}

private func shellCompletionGenerator(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    if state == 0 { completionIndex = 0 }
    guard completionIndex < completionMatches.count else { return nil }
    defer { completionIndex += 1 }
    return strdup(completionMatches[completionIndex])
}

/// Ctrl-C at the prompt: readline's terminal set-up turns ISIG off (`ucube_rl_read_ctrl_c_as_a_key`), so a typed
/// Ctrl-C arrives here as this byte, in order with the keys around it.
private let ctrlC: UInt8 = 0x03

/// Reads a byte, polling so that a SIGINT, SIGTERM or SIGHUP sent by another process is seen whichever thread it
/// landed on. A Ctrl-C, typed or sent, clears the line and ends it, so `readline()` returns at once
/// (`rl_signal_event_hook` alone would wait for the next key).
private func shellGetc(_ stream: UnsafeMutablePointer<FILE>?) -> Int32 {
    let fd = stream.map { fileno($0) } ?? 0
    func interrupted() -> Int32 {
        readInterrupted = true
        ucube_rl_clear_line()
        return 10
    }
    while true {
        if shellInterrupt.exchange(false, ordering: .sequentiallyConsistent) { return interrupted() }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, 100)
        if ready < 0 {
            if errno == EINTR { continue }
            return EOF
        }
        if ready == 0 { continue }
        var byte: UInt8 = 0
        let n = read(fd, &byte, 1)
        if n == 1 { return byte == ctrlC ? interrupted() : Int32(byte) }
        if n < 0 && errno == EINTR { continue }
        return EOF
    }
}

/// GNU readline: line editing, history in `$XDG_STATE_HOME/ucube/history`, completion from `ShellCompletion`.
final class ReadlineSource: LineSource {
    static let historyLimit: Int32 = 1000
    private let historyPath: String

    init(session: ShellSession, historyPath: String) {
        self.historyPath = historyPath
        completionSession = session
        ucube_rl_set_readline_name("ucube")
        ucube_rl_set_catch_signals(0)
        ucube_rl_set_getc(shellGetc)
        ucube_rl_read_ctrl_c_as_a_key()
        ucube_rl_set_completion(shellComplete)
        stifle_history(Self.historyLimit)
        try? Environment.ensureDirectory(PathText.directory(of: historyPath))
        if FileManager.default.fileExists(atPath: historyPath) {
            read_history(historyPath)
        } else {
            write_history(historyPath)
        }
    }

    func readLine(prompt: String) -> LineRead {
        readInterrupted = false
        guard let line = readline(prompt) else { return .end }
        defer { free(line) }
        if readInterrupted { return .interrupted }
        return .line(String(cString: line))
    }

    /// The line is kept masked, in memory and in the history file: a PAN typed at the prompt (`pay`, `rpc raw`)
    /// never reaches the disk in clear.
    func remember(_ line: String) {
        add_history(Masking.redactCardData(in: line))
        append_history(1, historyPath)
        history_truncate_file(historyPath, Self.historyLimit)
    }
}
