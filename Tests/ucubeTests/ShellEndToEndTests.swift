import Foundation
import Testing

extension UCubeSandbox {
    /// Runs `ucube ARGS…` with `input` on its standard input (a pipe: not a terminal).
    func run(_ arguments: [String], input: String, timeout: Duration = SafetyNet.process) async throws -> UCubeRun {
        try await blocking {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = arguments
            process.environment = self.environment
            let stdin = Pipe.cloexec(), out = Pipe.cloexec(), err = Pipe.cloexec()
            process.standardInput = stdin
            process.standardOutput = out
            process.standardError = err
            try UCubeSandbox.start(process)
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
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
            if group.wait(timeout: .now() + Double(timeout.components.seconds)) == .timedOut {
                process.terminate()
                Issue.record("ucube \(arguments) did not finish within \(timeout)")
            }
            return UCubeRun(
                status: process.waitForEnd().status, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData, as: UTF8.self))
        }
    }
}

/// `ucube shell` without a terminal: the same session as the tmux test, as a script on standard input.
@Suite struct ShellScriptTests {
    static let steppedPayment = """
        # a stepped payment with two applications: choose the second, decline
        pay 10 --card mc-two-apps --select prompt --authorize prompt --step
        next
        next
        context
        next
        continue
        2
        decline
        info
        """

    @Test func steppedTwoApplicationPaymentFromStandardInput() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["shell"], input: Self.steppedPayment)
        // The script stops at the failing payment with its exit code: 10, DECLINED; `info` never runs.
        #expect(run.status == 10, "\(run.stderr)")
        // The shell reset the terminal when it opened the link, so the payment starts from a known, idle terminal:
        // no CancelAll or ExitSecureSession a second time (spec §8.6).
        #expect(run.stdout.contains("GET_INFO: next GetInfo"))
        #expect(!run.stdout.contains("START_CANCEL_ALL"))
        #expect(run.stdout.contains("states: GET_INFO ENTER_SECURE_SESSION"), "\(run.stdout)")
        #expect(run.stderr.contains("1. A0000000041010 MASTERCARD (priority 1)"))
        #expect(run.stderr.contains("2. A0000000043060 MAESTRO (priority 2)"))
        #expect(run.stderr.contains("authorization: icc"))
        #expect(run.stdout.contains("status: DECLINED"))
        #expect(run.stdout.contains("application: A0000000043060 MAESTRO"))
        #expect(!run.stdout.contains("state: READY"), "the script must stop at the failing payment")
        #expect(!run.stdout.contains("ucube>"), "no prompt without a terminal")
    }

    @Test func keepGoingAndScriptFile() async throws {
        let sandbox = try UCubeSandbox()
        let script = sandbox.directory.appendingPathComponent("session.ucube")
        try "rpc no-such-command\nset json on\ninfo\n".write(to: script, atomically: true, encoding: .utf8)
        let stopped = try await sandbox.run(["shell", "--script", script.path])
        #expect(stopped.status == 64)
        #expect(!stopped.stdout.contains("json on"))
        let going = try await sandbox.run(["shell", "--script", script.path, "--keep-going"])
        #expect(going.status == 64)
        #expect(going.stdout.contains("json on"))
        #expect(going.stdout.contains("\"state\""), "info ran with the session's json setting: \(going.stdout)")
    }

    @Test func oneLinkAcrossCommands() async throws {
        // The secure session opened by one line is still open for the next: one link for the whole shell.
        let run = try await UCubeSandbox().run(
            ["shell"], input: "rpc enter-secure-session\nrpc get-plain-tag 9F02\nrpc exit-secure-session\n")
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func stepIsRefusedOutsideTheShell() async throws {
        let run = try await UCubeSandbox().run(["pay", "10", "--step"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--step works only inside `ucube shell`"))
    }
}

/// SIGTERM and SIGHUP reach a payment in `ucube shell` as Ctrl-C does (issue 25, item 2: "in every command that drives
/// a terminal"): the payment is cancelled and journalled CANCELLED, then the shell ends with exit 11.
@Suite struct ShellTerminationTests {
    @Test(arguments: [SIGTERM, SIGHUP])
    func aTerminatingSignalCancelsThePaymentThenEndsTheShell(signal: Int32) async throws {
        let sandbox = try UCubeSandbox()
        let input = Pipe.cloexec()
        let shell = try sandbox.startCapturing(["--device", "sim", "shell"], stdin: input)
        defer { kill(shell.process.processIdentifier, SIGKILL) }
        input.fileHandleForWriting.write(
            Data("pay 10 --card card-timeout --card-timeout 120 --events --request-id shell-term\n".utf8))
        let seen = await UCubeSandbox.readUntil(shell.stderr, contains: "START_TRANSACTION")
        #expect(seen.contains("START_TRANSACTION"))
        kill(shell.process.processIdentifier, signal)
        #expect(await shell.process.exit() == 11)
        let out = await UCubeSandbox.readToEnd(shell.stdout)
        #expect(out.contains("status: CANCELLED"), "\(out)")
        let history = try await sandbox.run(["--json", "history", "show", "shell-term"])
        #expect(
            history.stdout.contains("\"status\" : \"CANCELLED\"")
                || history.stdout.contains("\"status\": \"CANCELLED\""), "\(history.stdout)")
    }
}
