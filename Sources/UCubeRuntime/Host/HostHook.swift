import Foundation
import Synchronization
import UCubePayment
import UCubeSupport

/// Where an authorisation goes (docs/authorization.md): `exec:PROGRAM`, a program run with `sh -c` in the caller's
/// environment, which gets one JSON document on its standard input and answers one on its standard output; or
/// `https://HOST[:PORT]/PATH`, which gets the same document POSTed and answers it in the response body (`HTTPSHook`).
/// The transport only: the documents are `HostDocuments`', the decisions the payment's.
package enum HostHook: Sendable, Hashable {
    case exec(program: String)
    case https(HTTPSHook)

    /// The prefix that names an exec hook.
    package static let execPrefix = "exec:"
    /// The prefix that names an https hook.
    package static let httpsPrefix = "https://"
    /// The largest standard error kept from a hook, for the message that says what it did wrong.
    package static let maximumDiagnostics = 4096

    /// Whether `text` names a hook (it may still be a malformed one: `parse` says).
    package static func names(_ text: String) -> Bool {
        text.hasPrefix(execPrefix) || text.lowercased().hasPrefix(httpsPrefix) || text.lowercased().hasPrefix("http://")
    }

    /// The hook `text` names with the https hook's `files`, nil when `text` names none (approve, a code …); a usage
    /// error when it names one badly.
    package static func parse(_ text: String, files: HostTLSFiles = HostTLSFiles()) throws(HostHookError) -> HostHook? {
        if text.hasPrefix(execPrefix) {
            let program = String(text.dropFirst(execPrefix.count))
            guard !program.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw HostHookError("exec: needs a program, e.g. exec:./my-host.sh")
            }
            return .exec(program: program)
        }
        guard names(text) else { return nil }
        return .https(try HTTPSHook(url: text, files: files))
    }

    /// The hook as `--authorize` names it, and as the journal keeps it (never a token).
    package var spec: String {
        switch self {
        case .exec(let program): Self.execPrefix + program
        case .https(let host): host.url
        }
    }

    /// The files an https hook is reached with, as the journal keeps them; nil for an exec hook.
    package var files: HostTLSFiles? {
        if case .https(let host) = self { return host.files.nonEmpty }
        return nil
    }

    /// Sends `document` and returns the answer's bytes (at most `HostDocuments.maximumAnswerSize` + 1: the caller
    /// refuses a longer one), or why there is none.
    package func exchange(_ document: [UInt8], timeout: Duration) async throws(HostFailure) -> [UInt8] {
        switch self {
        case .exec(let program): try await Self.exchange(program: program, document, timeout: timeout)
        case .https(let host): try await host.exchange(document, timeout: timeout)
        }
    }

    /// An exec hook's exchange. The program runs in a process group of its own, killed whole at the deadline; the
    /// waiting happens on a thread of its own, never on the cooperative pool.
    private static func exchange(program: String, _ document: [UInt8], timeout: Duration) async throws(HostFailure)
        -> [UInt8]
    {
        let result: Result<[UInt8], HostFailure> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.run(program, input: document, timeout: timeout)) }.start()
        }
        return try result.get()
    }

    /// The blocking exchange: spawn, write, read both outputs until they end, wait.
    private static func run(_ program: String, input: [UInt8], timeout: Duration) -> Result<[UInt8], HostFailure> {
        let deadline = ContinuousClock.now + timeout
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        // The pipes are made close-on-exec and the child spawned under one lock: a hook another payment of this process
        // spawns in between would otherwise inherit them, and hold this one's output open.
        let made = spawning.withLock { _ in
            cloexecPipe(&stdinPipe) && cloexecPipe(&stdoutPipe) && cloexecPipe(&stderrPipe)
        }
        guard made else {
            closeAll(stdinPipe + stdoutPipe + stderrPipe)
            return .failure(.unreachable(ErrorNumber.text(errno)))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own: the deadline kills the shell and whatever it started. Default signal dispositions: the
        // child must not inherit ucube's ignored SIGPIPE or its blocked signals.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = ["/bin/sh", "-c", program]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = spawning.withLock { _ in posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ) }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard spawned == 0 else {
            closeAll([stdinPipe[1], stdoutPipe[0], stderrPipe[0]])
            return .failure(.unreachable("cannot start /bin/sh: \(ErrorNumber.text(spawned))"))
        }
        let exchange = PipeExchange(
            input: input, inputFD: stdinPipe[1], outputFD: stdoutPipe[0], errorFD: stderrPipe[0],
            outputLimit: HostDocuments.maximumAnswerSize + 1, errorLimit: maximumDiagnostics)
        let finished = exchange.run(until: deadline)
        if !finished { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // What the hook said on its standard error, through the masked door: its last line, for the person who
        // reads why the host gave no answer.
        let said = String(decoding: exchange.errors, as: UTF8.self).split(whereSeparator: \.isNewline).last
        if let said, status != 0 || !finished { StandardError.write("ucube: the hook said: \(said.prefix(300))") }
        guard finished else { return .failure(.timeout(seconds: Double(timeout.components.seconds))) }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = status & 0x7F
        if signal != 0 { return .failure(.killed(signal: signal)) }
        let code = (status >> 8) & 0xFF
        // A shell reports a command killed by signal N as 128 + N (the hook is usually a script the shell runs).
        if code > 128 && code < 128 + 65 { return .failure(.killed(signal: code - 128)) }
        guard code == 0 else { return .failure(.exited(code)) }
        return .success(exchange.output)
    }

    private static func closeAll(_ fds: [Int32]) { for fd in fds where fd >= 0 { close(fd) } }

    /// Held while a hook's pipes are made and while it is spawned.
    private static let spawning = Mutex(())

    /// `pipe(2)`, both ends close-on-exec (`pipe2` is not visible from Swift here).
    private static func cloexecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }
}

/// Writes a child's standard input and reads its standard output and error, all three non-blocking under one `poll`,
/// until both outputs end or the deadline passes. Each output is kept up to its limit; the rest is read and dropped,
/// so a child that writes too much still ends.
private final class PipeExchange {
    private var input: [UInt8]
    private var written = 0
    private var inputFD: Int32
    private var outputFD: Int32
    private var errorFD: Int32
    private let outputLimit: Int
    private let errorLimit: Int
    private(set) var output: [UInt8] = []
    private(set) var errors: [UInt8] = []

    init(input: [UInt8], inputFD: Int32, outputFD: Int32, errorFD: Int32, outputLimit: Int, errorLimit: Int) {
        self.input = input
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.errorFD = errorFD
        self.outputLimit = outputLimit
        self.errorLimit = errorLimit
        for fd in [inputFD, outputFD, errorFD] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit { for fd in [inputFD, outputFD, errorFD] where fd >= 0 { close(fd) } }

    /// True when both outputs ended before `deadline`.
    func run(until deadline: ContinuousClock.Instant) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while outputFD >= 0 || errorFD >= 0 {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var polled: [pollfd] = []
            if inputFD >= 0 { polled.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0)) }
            if outputFD >= 0 { polled.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
            if errorFD >= 0 { polled.append(pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0)) }
            let milliseconds = Int32(clamping: min(left.components.seconds * 1000 + 1, 1000))
            let ready = poll(&polled, nfds_t(polled.count), milliseconds)
            if ready < 0 && errno != EINTR { return false }
            guard ready > 0 else { continue }
            for entry in polled where entry.revents != 0 {
                if entry.fd == inputFD {
                    writeInput()
                } else {
                    read(entry.fd, into: &chunk)
                }
            }
        }
        return true
    }

    private func writeInput() {
        let count = input.withUnsafeBytes { buffer in
            Glibc.write(inputFD, buffer.baseAddress! + written, buffer.count - written)
        }
        if count > 0 { written += count }
        // All written, or the child closed its input (EPIPE: SIGPIPE is ignored): no more to send.
        if written >= input.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
            close(inputFD)
            inputFD = -1
        }
    }

    private func read(_ fd: Int32, into chunk: inout [UInt8]) {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            if fd == outputFD {
                output.append(contentsOf: chunk[..<min(count, max(0, outputLimit - output.count))])
            } else {
                errors.append(contentsOf: chunk[..<min(count, max(0, errorLimit - errors.count))])
            }
            return
        }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        close(fd)
        if fd == outputFD { outputFD = -1 } else { errorFD = -1 }
    }
}
