import Foundation
import Testing

/// Runs the built `ucube` binary as a user would, with its own state directories, and captures what it prints.
/// The binary is `.build/debug/ucube` beside this package (`swift test` builds it), or `$UCUBE_BINARY`.
struct UCubeRun {
    let status: Int32
    let stdout: String
    let stderr: String
}

final class UCubeSandbox: @unchecked Sendable {
    let directory: URL
    var environment: [String: String]

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["UCUBE_BINARY"] { return URL(fileURLWithPath: path) }
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent(".build/debug/ucube")
    }

    /// Held while a child is launched, and while a pipe is made and its ends marked close-on-exec (`Pipe.cloexec`).
    /// Every launch of the test process takes it (`start`; tmux's `posix_spawn` too): a child started in between would
    /// keep another test's pipe open for its whole life, and that test would wait for the end of its output. A tmux
    /// server started so kept a `pay`'s stdout open past the 60 s the test gave it.
    static let launching = NSLock()

    /// Starts `process`, one launch at a time in this test process (see `launch`).
    static func start(_ process: Process) throws { try launching.withLock { try process.run() } }

    /// Runs Debian's `python3 ARGS…` to its end, off the cooperative pool: its status and its stdout and stderr
    /// together. `environment` nil: this process's.
    static func python3(_ arguments: [String], environment: [String: String]? = nil) async throws -> (
        status: Int32, output: String
    ) {
        try await blocking { () throws -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = arguments
            if let environment { process.environment = environment }
            let out = Pipe.cloexec()
            process.standardOutput = out
            process.standardError = out
            try start(process)
            let data = out.fileHandleForReading.readAllRetryingInterrupts()
            return (process.waitForEnd().status, String(decoding: data, as: UTF8.self))
        }
    }

    init() throws {
        // A test that writes to a child's stdin after the child has exited gets EPIPE, not a SIGPIPE that would end the
        // whole test run with no word of which test it was.
        signal(SIGPIPE, SIG_IGN)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["UCUBE_SIM_HOME"] = directory.appendingPathComponent("sim").path
        env["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
        env["UCUBE_TMS_SIM_HOME"] = directory.appendingPathComponent("tms-sim").path
        for name in [
            "UCUBE_DEVICE", "UCUBE_TMS_URL", "UCUBE_TMS_CA", "UCUBE_AUTHORIZE", "UCUBE_AUTHORIZE_CA",
            "UCUBE_AUTHORIZE_CERT", "UCUBE_AUTHORIZE_KEY", "UCUBE_AUTHORIZE_TOKEN", "UCUBE_AUTHORIZE_TOKEN_FILE",
        ] {
            env.removeValue(forKey: name)
        }
        environment = env
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Runs `ucube ARGS…` to completion (at most `timeout`), with `stdin` closed. The waiting happens on a Dispatch
    /// thread, never on the (2-thread) cooperative pool, so tests running beside it keep going.
    func run(_ arguments: [String], timeout: Duration = SafetyNet.process) async throws -> UCubeRun {
        try await blocking { try self.runBlocking(arguments, timeout: timeout) }
    }

    func run(_ line: String, timeout: Duration = SafetyNet.process) async throws -> UCubeRun {
        try await run(line.split(separator: " ").map(String.init), timeout: timeout)
    }

    /// Launches `ucube ARGS…` in this sandbox's environment with stdin closed. `fileSizeLimit`: under
    /// `ulimit -f KiB` (bash's unit), as a full disk is met.
    private func launch(
        _ arguments: [String], stdout: Any, stderr: Any, stdin: Any = FileHandle.nullDevice, fileSizeLimit: Int? = nil
    ) throws -> Process {
        let process = Process()
        if let fileSizeLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments =
                ["-c", "ulimit -f \(fileSizeLimit) && exec \"$0\" \"$@\"", Self.binary.path] + arguments
        } else {
            process.executableURL = Self.binary
            process.arguments = arguments
        }
        process.environment = environment
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        // One launch at a time: swift-corelibs-foundation's Process.run is not safe to call from many threads at
        // once (a CI run crashed in its memcpy while the card-data replay tests launched dozens of children).
        try Self.start(process)
        return process
    }

    /// `run` with standard input read from `stdinFile`.
    func run(_ arguments: [String], stdinFile: URL, timeout: Duration = SafetyNet.process) async throws -> UCubeRun {
        try await blocking {
            try self.runBlocking(arguments, timeout: timeout, stdin: FileHandle(forReadingFrom: stdinFile))
        }
    }

    /// `run` under `ulimit -f KiB`: files written past that size fail with EFBIG, as on a full disk.
    func run(_ arguments: [String], fileSizeLimit: Int, timeout: Duration = SafetyNet.process) async throws -> UCubeRun
    {
        try await blocking { try self.runBlocking(arguments, timeout: timeout, fileSizeLimit: fileSizeLimit) }
    }

    private func runBlocking(
        _ arguments: [String], timeout: Duration, stdin: Any = FileHandle.nullDevice, fileSizeLimit: Int? = nil
    ) throws -> UCubeRun {
        let out = Pipe.cloexec(), err = Pipe.cloexec()
        let process = try launch(arguments, stdout: out, stderr: err, stdin: stdin, fileSizeLimit: fileSizeLimit)
        // Read both pipes while the process runs, so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        Thread {
            outData = out.fileHandleForReading.readAllRetryingInterrupts(); group.leave()
        }.start()
        group.enter()
        Thread {
            errData = err.fileHandleForReading.readAllRetryingInterrupts(); group.leave()
        }.start()
        let seconds = Double(timeout.components.seconds)
        if group.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            Issue.record("ucube \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return UCubeRun(
            status: process.waitForEnd().status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `ucube ARGS…` with stdout sent to `stdout` (a device such as /dev/full, or a pipe nobody reads) and
    /// stderr captured; `signalled` says the process was killed by a signal (`status` is then the signal).
    func run(
        _ arguments: [String], stdout: FileHandle, timeout: Duration = SafetyNet.process
    ) async throws -> (run: UCubeRun, signalled: Bool) {
        try await blocking {
            let err = Pipe.cloexec()
            let process = try self.launch(arguments, stdout: stdout, stderr: err)
            let group = DispatchGroup()
            nonisolated(unsafe) var errData = Data()
            group.enter()
            Thread {
                errData = err.fileHandleForReading.readAllRetryingInterrupts(); group.leave()
            }.start()
            if group.wait(timeout: .now() + Double(timeout.components.seconds)) == .timedOut {
                process.terminate()
                Issue.record("ucube \(arguments.joined(separator: " ")) did not finish within \(timeout)")
            }
            let end = process.waitForEnd()
            let run = UCubeRun(status: end.status, stdout: "", stderr: String(decoding: errData, as: UTF8.self))
            return (run, end.signalled)
        }
    }

    /// Starts `ucube ARGS…` in the background; the caller terminates it.
    func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let out = Pipe.cloexec()
        return (try launch(arguments, stdout: out, stderr: FileHandle.nullDevice), out)
    }

    /// Starts `ucube ARGS…` in the background with stdout and stderr captured; the caller terminates it. `stdin`:
    /// a pipe the test writes the answers to prompts into (stdin is closed otherwise).
    func startCapturing(_ arguments: [String], stdin: Pipe? = nil) throws -> (
        process: Process, stdout: Pipe, stderr: Pipe
    ) {
        let out = Pipe.cloexec(), err = Pipe.cloexec()
        return (try launch(arguments, stdout: out, stderr: err, stdin: stdin ?? FileHandle.nullDevice), out, err)
    }

    /// Starts `ucube ARGS…` with stdin a pseudo-terminal (a person at a terminal, as `isatty(0)` sees it) and stdout
    /// and stderr captured. The caller keeps `master` open while the child runs (a closed master ends the child's
    /// input) and closes both ends after.
    func startOnATerminal(_ arguments: [String]) throws -> (
        process: Process, stdout: Pipe, stderr: Pipe, master: Int32, slave: Int32
    ) {
        var master: Int32 = -1, slave: Int32 = -1
        // Under the launch lock, so no other child inherits the pair before it is marked close-on-exec.
        try Self.launching.withLock {
            guard openpty(&master, &slave, nil, nil, nil) == 0 else {
                throw SandboxError(message: "openpty: \(String(cString: strerror(errno)))")
            }
            for fd in [master, slave] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        let out = Pipe.cloexec(), err = Pipe.cloexec()
        let process = try launch(
            arguments, stdout: out, stderr: err, stdin: FileHandle(fileDescriptor: slave, closeOnDealloc: false))
        return (process, out, err, master, slave)
    }

    /// Reads `pipe` until what was read contains `text`, the pipe closes, or `within` has passed; returns everything
    /// read. The deadline is a safety net against a hang, never a way to synchronise: reaching it is a test failure.
    static func readUntil(_ pipe: Pipe, contains text: String, within: Duration = SafetyNet.process) async -> String {
        let (read, timedOut) = await blocking { readUntilBlocking(pipe, contains: text, within: within) }
        if timedOut { Issue.record("waited \(within) for \(text.debugDescription); read so far: \(read)") }
        return read
    }

    /// Everything until the pipe closes (the writer exited), bounded by `within`.
    static func readToEnd(_ pipe: Pipe, within: Duration = SafetyNet.process) async -> String {
        let (read, timedOut) = await blocking { readUntilBlocking(pipe, contains: nil, within: within) }
        if timedOut { Issue.record("the pipe stayed open for \(within); read so far: \(read)") }
        return read
    }

    private static func readUntilBlocking(_ pipe: Pipe, contains text: String?, within: Duration) -> (
        String, timedOut: Bool
    ) {
        var seen = Data()
        let fd = pipe.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + within
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while text.map({ !String(decoding: seen, as: UTF8.self).contains($0) }) ?? true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (String(decoding: seen, as: UTF8.self), true) }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(min(left.components.seconds * 1000 + 1, 1000)))
            if polled < 0 && errno == EINTR { continue }
            if polled <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            seen.append(contentsOf: buffer[..<n])
        }
        return (String(decoding: seen, as: UTF8.self), false)
    }

    /// `ucube simulate --listen 127.0.0.1:0` in the background; returns it and the port it printed.
    func startSimulator(_ extra: [String] = []) async throws -> (Process, Int) {
        try await blocking { try self.startSimulatorBlocking(extra) }
    }

    private func startSimulatorBlocking(_ extra: [String]) throws -> (Process, Int) {
        let (process, out) = try start(
            ["simulate", "--listen", "127.0.0.1:0", "--state-dir", directory.appendingPathComponent("tcp-sim").path]
                + extra)
        var line = Data()
        let handle = out.fileHandleForReading
        while !line.contains(0x0A) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let portText = text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines),
            let port = Int(portText)
        else {
            process.terminate()
            throw SandboxError(message: "simulator printed no port: \(text)")
        }
        return (process, port)
    }
}

struct SandboxError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Runs blocking work (process waits, pipe reads) on a thread of its own and awaits it. Not on Dispatch's global
/// queue: its workers are few (about one a core), and tests that each hold one in a long read would starve the rest.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// How a child process ended: its exit code, or the signal that ended it.
struct ChildExit: Equatable {
    let status: Int32
    let signalled: Bool
}

extension Process {
    /// Waits, off the cooperative pool, until the process has ended; returns its exit code (or its signal).
    func exit() async -> Int32 { await ended().status }

    /// How the process ended, once it has.
    func ended() async -> ChildExit { await blocking { [self] in self.waitForEnd() } }

    /// Blocks until the process has ended, and says how, without relying on Foundation's own notice of it.
    /// Foundation learns that a child exited when a socket the child inherited closes, and a process another test
    /// starts at the same moment can inherit that socket too (swift-corelibs-foundation issue 4795): then
    /// `waitUntilExit` waits for that other process as well, seen here as a killed payment that took 90 s to "end".
    /// `waitid` with `WNOWAIT` asks the kernel instead, and leaves the child for Foundation to reap.
    func waitForEnd() -> ChildExit {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 {
            if errno == EINTR { continue }
            // Foundation reaped it first: its own record is then complete.
            waitUntilExit()
            return ChildExit(status: terminationStatus, signalled: terminationReason == .uncaughtSignal)
        }
        return ChildExit(status: info._sifields._sigchld.si_status, signalled: info.si_code != Int32(CLD_EXITED))
    }
}

extension Pipe {
    /// A pipe whose two ends are closed on exec. Tests start processes in parallel, and a child started while another
    /// test's pipe is open would otherwise inherit its write end and hold it open for its whole life: the reader
    /// then waits for an end-of-file long after the process it belongs to has exited. The ends a child is given as
    /// its stdin, stdout or stderr are dup2'ed, which clears the flag on those copies.
    ///
    /// The pipe is made and marked while no child is launched (`UCubeSandbox.launching`): between `pipe(2)` and the
    /// `fcntl`, a child launched by another test inherited the write end. A fresh-machine run saw it: `ucube rpc
    /// rtc-get --help` exited at once, and its test still waited 60 s for an end-of-file that a long-lived child
    /// (a simulator) held back.
    static func cloexec() -> Pipe {
        UCubeSandbox.launching.withLock {
            let pipe = Pipe()
            for fd in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
                _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
            }
            return pipe
        }
    }
}

extension FileHandle {
    /// Everything up to end of file, a read(2) at a time, retrying EINTR. Foundation's `readDataToEndOfFile` traps on
    /// EINTR (a `try!` inside it), and the SIGCHLD handler libdispatch installs for `Process` interrupts reads on
    /// other threads whenever a child ends: with many children at once, a test process crashed that way.
    func readAllRetryingInterrupts() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}

/// How long a test waits for a child that is expected to finish: a safety net against a hang, never a way to
/// synchronise, and far above any command's own time in a debug build under the full suite's load on two cores (the
/// slowest, a shell script of every command's help, took 103 s beside stress-ng and two builds; issue 36).
enum SafetyNet {
    static let process: Duration = .seconds(900)
}
