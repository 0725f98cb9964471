import Foundation
import Testing

/// `ucube shell` on a real terminal: tmux runs it, `send-keys` types, `capture-pane` reads the screen.
@Suite(.serialized) struct ShellTmuxTests {
    static let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// tmux, or a failure that says what is missing: a test that needs a tool never passes without it.
    static func requireTmux() throws -> String {
        guard let tmux else {
            throw SandboxError(message: "tmux is not installed: bash Scripts/setup.sh --test installs it")
        }
        return tmux
    }

    /// A tmux server of its own (socket in the sandbox) running `ucube shell` with the sandbox's XDG directories.
    final class Screen: @unchecked Sendable {
        let sandbox: UCubeSandbox
        let tmux: String
        let socket: String

        init(sandbox: UCubeSandbox, tmux: String) {
            self.sandbox = sandbox
            self.tmux = tmux
            socket = sandbox.directory.appendingPathComponent("tmux.sock").path
        }

        /// Runs one tmux command with posix_spawn and waitpid. Its output goes to a file, not a pipe: the server a
        /// command starts would keep a pipe (and Foundation's exit watch) open forever.
        @discardableResult
        func command(_ arguments: [String]) throws -> String {
            let output = sandbox.directory.appendingPathComponent("tmux-\(UUID().uuidString).out").path
            defer { try? FileManager.default.removeItem(atPath: output) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let argv = ([tmux, "-S", socket] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let envp = sandbox.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = UCubeSandbox.launching.withLock { posix_spawn(&pid, tmux, &actions, nil, argv, envp) }
            guard spawned == 0 else { throw SandboxError(message: "cannot run tmux: \(spawned)") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }

        func start() throws { try start(["shell"]) }

        /// Runs `ucube ARGUMENTS…` on the tmux terminal (stdin, stdout and stderr all the terminal). `hold`: the
        /// window stays a minute after ucube ends, so its last screen can be read.
        func start(_ arguments: [String], hold: Bool = false) throws {
            let env = ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "UCUBE_SIM_HOME"].compactMap { key in
                sandbox.environment[key].map { "\(key)='\($0)'" }
            }
            let words = ([UCubeSandbox.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let line = "env \(env.joined(separator: " ")) \(words)" + (hold ? "; echo \"[exit $?]\"; sleep 60" : "")
            try command(["new-session", "-d", "-s", "ucube", "-x", "160", "-y", "50", line])
        }

        func keys(_ keys: String...) async throws {
            _ = try await blocking { try self.command(["send-keys", "-t", "ucube"] + keys) }
        }

        func screen() throws -> String { try command(["capture-pane", "-p", "-t", "ucube", "-S", "-500"]) }

        var isRunning: Bool { (try? command(["list-sessions"]))?.contains("ucube") == true }

        /// Polls the screen until it contains every text (at most `seconds`); returns the screen.
        func waitFor(_ texts: String..., seconds: Double = 15) async throws -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var last = ""
            while Date() < deadline {
                last = try await blocking { try self.screen() }
                if texts.allSatisfy(last.contains) { return last }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("the screen never showed \(texts):\n\(last)")
            return last
        }

        func waitForExit() async throws {
            for _ in 0..<100 where await blocking({ self.isRunning }) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(await blocking { !self.isRunning })
        }

        func stop() { _ = try? command(["kill-server"]) }
    }

    @Test func completionHistorySteppedPaymentAndCtrlC() async throws {
        let tmux = try Self.requireTmux()
        let sandbox = try UCubeSandbox()
        let screen = Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking { try screen.start() }
        _ = try await screen.waitFor("ucube>")

        // Completion follows the terminal's state: in a secure session `rpc get-` offers the four GetInfo-family
        // commands.
        try await screen.keys("rpc enter-secure-session", "Enter")
        _ = try await screen.waitFor("SRED KSN")
        try await screen.keys("rpc get-", "Tab", "Tab")
        _ = try await screen.waitFor("get-info", "get-key-info", "get-plain-tag", "get-secured-tag")
        try await screen.keys("C-u", "exit", "Enter")
        try await screen.waitForExit()

        // History survives a restart.
        try await blocking { try screen.start() }
        _ = try await screen.waitFor("ucube>")
        try await screen.keys("Up", "Up")
        _ = try await screen.waitFor("ucube> rpc enter-secure-session")
        try await screen.keys("C-u")

        // A stepped payment with two applications: the candidate list, the second one, the authorization
        // prompt, a decline.
        try await screen.keys("pay 10 --card mc-two-apps --select prompt --authorize prompt --step", "Enter")
        // The last process left a secure session open at a clean exit (`rpc enter-secure-session`): the payment closes
        // it, with no CancelAll first (spec §8.6).
        _ = try await screen.waitFor("START_EXIT_SECURE_SESSION: next ExitSecureSession", "ucube step>")
        try await screen.keys("next", "Enter")
        _ = try await screen.waitFor("GET_INFO: next GetInfo")
        try await screen.keys("continue", "Enter")
        _ = try await screen.waitFor(
            "1. A0000000041010 MASTERCARD (priority 1)", "2. A0000000043060 MAESTRO (priority 2)", "application 1")
        try await screen.keys("2", "Enter")
        _ = try await screen.waitFor("approve / decline / unable")
        try await screen.keys("decline", "Enter")
        _ = try await screen.waitFor("status: DECLINED", "payment DECLINED")

        // Ctrl-C while waiting for the card cancels the payment; the prompt comes back.
        _ = try await blocking { try screen.command(["clear-history", "-t", "ucube"]) }
        try await screen.keys("pay 10 --card card-timeout --card-timeout 60 --events", "Enter")
        _ = try await screen.waitFor("START_TRANSACTION")
        try await screen.keys("C-c")
        let after = try await screen.waitFor("CANCELLED", seconds: 20)
        #expect(after.contains("cancelling the payment"))
        try await screen.keys("set", "Enter")
        _ = try await screen.waitFor("trace off")
        try await screen.keys("C-d")
        try await screen.waitForExit()
    }

    /// A PAN typed at the prompt reaches the history file masked, as every file ucube writes (issue 38); the line is
    /// still recalled (masked) with Up.
    @Test func aPANTypedAtThePromptIsMaskedInTheHistoryFile() async throws {
        let tmux = try Self.requireTmux()
        let sandbox = try UCubeSandbox()
        let screen = Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking { try screen.start() }
        _ = try await screen.waitFor("ucube>")
        try await screen.keys("history show 4761739001010010", "Enter")
        _ = try await screen.waitFor("no payment 476173******0010")
        try await screen.keys("exit", "Enter")
        try await screen.waitForExit()
        let file = sandbox.directory.appendingPathComponent("state/ucube/history")
        let history = try String(contentsOf: file, encoding: .utf8)
        #expect(!history.contains("4761739001010010"), "\(history)")
        #expect(history.contains("history show 476173******0010"), "\(history)")
    }

    /// On a terminal, `read-card` and `display --wait-key` say what they wait for, with the seconds left (issue 25:
    /// they showed nothing while they waited); Ctrl-C ends each cleanly.
    @Test func readCardAndDisplayShowWhatTheyWaitFor() async throws {
        let tmux = try Self.requireTmux()
        let sandbox = try UCubeSandbox()
        let screen = Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking {
            try screen.start(
                ["--device", "sim", "read-card", "--card", "card-timeout", "--card-timeout", "60"], hold: true)
        }
        _ = try await screen.waitFor("a card (", "s left)")
        try await screen.keys("C-c")
        _ = try await screen.waitFor("[exit 11]")

        let other = try UCubeSandbox()  // a tmux server of its own
        let display = Screen(sandbox: other, tmux: tmux)
        defer { display.stop() }
        try await blocking {
            try display.start(["--device", "sim", "display", "hello", "--wait-key", "--timeout", "60"], hold: true)
        }
        _ = try await display.waitFor("Waiting for a key on the terminal (", "s left)")
        try await display.keys("C-c")
        _ = try await display.waitFor("[exit 11]")
    }

    /// A key typed right after Ctrl-C at the prompt starts the next line (issue 25: `exit` became `xit`).
    @Test func theFirstKeyAfterCtrlCIsKept() async throws {
        let tmux = try Self.requireTmux()
        let sandbox = try UCubeSandbox()
        let screen = Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking { try screen.start(["--device", "sim", "shell"]) }
        _ = try await screen.waitFor("ucube>")
        try await screen.keys("abc", "C-c", "exit")
        let shown = try await screen.waitFor("ucube> exit")
        #expect(!shown.contains("ucube> xit"), "\(shown)")
        try await screen.keys("Enter")
        try await screen.waitForExit()
    }

    /// On a terminal, a case whose operator never presses Enter still gets its TAP line (issue 25: an operator
    /// timeout wrote no `not ok` line, so the plan was broken).
    @Test func anOperatorTimeoutIsANotOkLine() async throws {
        let tmux = try Self.requireTmux()
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator()
        defer { server.terminate() }
        let suite = sandbox.directory.appendingPathComponent("one.json")
        try Data(
            #"{"name":"one","cases":[{"name":"waits for the operator","card":"visa-contact","request":{"amount":"1.00"},"expect":{"status":"APPROVED"}}]}"#
                .utf8
        )
        .write(to: suite)
        let screen = Screen(sandbox: sandbox, tmux: tmux)
        defer { screen.stop() }
        try await blocking {
            try screen.start(
                ["--device", "tcp://127.0.0.1:\(port)", "test", suite.path, "--operator-timeout", "1"], hold: true)
        }
        let shown = try await screen.waitFor("not ok 1 - waits for the operator", "[exit 17]")
        #expect(shown.contains("1..1"), "\(shown)")
        #expect(shown.contains("the operator did not answer within 1 s"), "\(shown)")
    }
}
