import Foundation
import Testing

/// Issue 41, item 6: colour on a terminal (and only there), `-q`, `-v` and `-V`, and local time for people with UTC
/// in JSON, each through the built binary.
@Suite struct OutputModeEndToEndTests {
    /// An SGR escape code (a colour), as `TerminalColour` writes them.
    static let colourCode = #"\u{1B}\[[0-9;]*m"#

    static func hasColour(_ text: String) -> Bool { text.range(of: colourCode, options: .regularExpression) != nil }

    /// Runs `ucube ARGS…` with stdout on a pseudo-terminal (a person's terminal, as `isatty(1)` sees it), and stderr
    /// on the same terminal or, with `stderrOnTerminal: false`, a pipe; `environment` is laid over the sandbox's
    /// (a nil value removes the variable). Returns the exit code, what the terminal showed and what the pipe got.
    static func runOnATerminal(
        _ sandbox: UCubeSandbox, _ arguments: [String], environment: [String: String?],
        stderrOnTerminal: Bool = true
    ) async throws -> (status: Int32, shown: String, stderr: String) {
        try await blocking {
            var master: Int32 = -1, slave: Int32 = -1
            try UCubeSandbox.launching.withLock {
                guard openpty(&master, &slave, nil, nil, nil) == 0 else {
                    throw SandboxError(message: "openpty: \(String(cString: strerror(errno)))")
                }
                for fd in [master, slave] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            }
            defer { close(master) }
            let process = Process()
            process.executableURL = UCubeSandbox.binary
            process.arguments = arguments
            var env = sandbox.environment
            for (name, value) in environment { env[name] = value }
            process.environment = env
            let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
            let errPipe = Pipe.cloexec()
            process.standardOutput = terminal
            process.standardError = stderrOnTerminal ? terminal : errPipe
            process.standardInput = FileHandle.nullDevice
            try UCubeSandbox.start(process)
            // Only the child holds the terminal now: its last close ends the reads below (EIO).
            close(slave)
            nonisolated(unsafe) var errData = Data()
            let errRead = Thread { errData = errPipe.fileHandleForReading.readAllRetryingInterrupts() }
            if !stderrOnTerminal { errRead.start() }
            var shown = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                shown.append(contentsOf: buffer[..<n])
            }
            let end = process.waitForEnd()
            if !stderrOnTerminal { try? errPipe.fileHandleForWriting.close() }
            while !stderrOnTerminal && errRead.isExecuting { usleep(10_000) }
            return (end.status, String(decoding: shown, as: UTF8.self), String(decoding: errData, as: UTF8.self))
        }
    }

    // MARK: Colour

    @Test func aTerminalShowsStatusesInColourAndNothingElseKeepsIt() async throws {
        let sandbox = try UCubeSandbox()
        let colour: [String: String?] = ["TERM": "xterm-256color", "NO_COLOR": nil]
        let run = try await Self.runOnATerminal(sandbox, ["--device", "sim", "pay", "5"], environment: colour)
        #expect(run.status == 0, "\(run.shown)")
        #expect(run.shown.contains("status: \u{1B}[32mAPPROVED\u{1B}[0m"), "\(run.shown.debugDescription)")
        // The journal and the log never get a colour, whatever the terminal.
        for file in ["state/ucube/journal.jsonl", "state/ucube/logs/messages.log"] {
            let text = try String(contentsOf: sandbox.directory.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("\u{1B}"), "\(file): \(text)")
        }
        // An error and its hint on the terminal's stderr.
        let refused = try await Self.runOnATerminal(
            sandbox, ["--device", "tcp://127.0.0.1:1", "info"], environment: colour)
        #expect(refused.shown.contains("\u{1B}[1;31mucube: error:\u{1B}[0m"), "\(refused.shown.debugDescription)")
        #expect(refused.shown.contains("\u{1B}[2mhint: "), "\(refused.shown.debugDescription)")
    }

    /// `NO_COLOR` (any value but the empty string), `TERM=dumb` and a missing `TERM` turn colour off on a terminal.
    @Test(
        arguments: [
            ["TERM": "xterm", "NO_COLOR": "1"], ["TERM": "dumb", "NO_COLOR": nil], ["TERM": nil, "NO_COLOR": nil],
        ] as [[String: String?]])
    func colourIsOffWhenTheEnvironmentSaysSo(environment: [String: String?]) async throws {
        let run = try await Self.runOnATerminal(
            try UCubeSandbox(), ["--device", "sim", "pay", "5"], environment: environment)
        #expect(run.status == 0 && run.shown.contains("status: APPROVED"), "\(run.shown)")
        #expect(!Self.hasColour(run.shown), "\(run.shown.debugDescription)")
    }

    /// A pipe gets no colour, on either stream, though TERM names a colour terminal; nor does JSON on a terminal.
    @Test func aPipeAndJSONGetNoColour() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["TERM"] = "xterm-256color"
        sandbox.environment.removeValue(forKey: "NO_COLOR")
        let piped = try await sandbox.run(["--device", "sim", "pay", "5", "--authorize", "decline"])
        #expect(piped.stdout.contains("status: DECLINED") && piped.stderr.contains("ucube: error:"), "\(piped)")
        #expect(!Self.hasColour(piped.stdout + piped.stderr), "\(piped)")
        let json = try await Self.runOnATerminal(
            sandbox, ["--json", "--device", "sim", "pay", "5"], environment: [:], stderrOnTerminal: false)
        #expect(json.shown.contains(#""status": "APPROVED""#), "\(json.shown)")
        #expect(!Self.hasColour(json.shown), "\(json.shown.debugDescription)")
        let lines = try await Self.runOnATerminal(
            sandbox, ["--device", "sim", "--json", "history"], environment: [:], stderrOnTerminal: false)
        #expect(lines.shown.contains("APPROVED") && !Self.hasColour(lines.shown), "\(lines.shown.debugDescription)")
    }

    // MARK: -q, -v, -V

    /// `-q`: the result alone; no notice that the simulator stands in, no progress on a terminal.
    @Test func quietPrintsTheResultAlone() async throws {
        let sandbox = try UCubeSandbox()
        let loud = try await sandbox.run(["pay", "5"])
        #expect(loud.stderr.contains("using the built-in simulator"), "\(loud.stderr)")
        for quiet in ["-q", "--quiet"] {
            let run = try await sandbox.run([quiet, "pay", "5"])
            #expect(run.status == 0 && run.stdout.hasPrefix("status: APPROVED\n"), "\(run)")
            #expect(run.stderr.isEmpty, "\(quiet): \(run.stderr)")
        }
        // An error still shows, and a command's own option place: after the subcommand too.
        let failed = try await sandbox.run(["pay", "5", "-q", "--device", "tcp://127.0.0.1:1"])
        #expect(failed.status == 5 && failed.stderr.contains("ucube: error:"), "\(failed)")
        let terminal = try await Self.runOnATerminal(
            sandbox, ["--device", "sim", "pay", "5"], environment: ["NO_COLOR": "1"])
        #expect(terminal.shown.contains("Insert or tap a card"), "\(terminal.shown)")
        let quietTerminal = try await Self.runOnATerminal(
            sandbox, ["-q", "--device", "sim", "pay", "5"], environment: ["NO_COLOR": "1"])
        #expect(quietTerminal.shown.contains("status: APPROVED"), "\(quietTerminal.shown)")
        #expect(!quietTerminal.shown.contains("Insert or tap"), "\(quietTerminal.shown)")
    }

    /// `-q` in a CI log: an update's plain progress lines (and its "downloading …") are left out, its verdict is not.
    @Test func aQuietUpdateWritesNoProgressLines() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await TMSEndToEndTests.startTMS(sandbox)
        defer { tms.process.terminate() }
        sandbox.environment["UCUBE_TMS_URL"] = tms.url
        sandbox.environment["UCUBE_TMS_CA"] = tms.ca
        let register = try await sandbox.run("--device sim mdm-register")
        #expect(register.status == 0, "\(register.stderr)")
        let update = try await sandbox.run("-q --device sim mdm-update")
        #expect(update.status == 0 && update.stdout.contains(": installed"), "\(update)")
        #expect(update.stderr.isEmpty, "\(update.stderr)")
        let loud = try await sandbox.run("--device sim mdm-update --all")
        #expect(loud.stderr.contains("downloading ") && loud.stderr.contains("100%, "), "\(loud.stderr)")
    }

    /// `-v`: the log at debug level on stderr, results alone on stdout; `--log-level` wins; `-q -v` is refused.
    @Test func verboseCopiesTheDebugLogToStderr() async throws {
        let sandbox = try UCubeSandbox()
        let plain = try await sandbox.run(["--device", "sim", "info"])
        #expect(!plain.stderr.contains(" DEBUG "), "\(plain.stderr)")
        for verbose in ["-v", "--verbose"] {
            let run = try await sandbox.run([verbose, "--device", "sim", "info"])
            #expect(run.status == 0 && run.stdout == plain.stdout, "\(run)")
            #expect(run.stderr.contains(" DEBUG rpc: "), "\(verbose): \(run.stderr)")
        }
        let info = try await sandbox.run(["-v", "--log-level", "info", "--device", "sim", "info"])
        #expect(info.stderr.contains(" INFO ") && !info.stderr.contains(" DEBUG "), "\(info.stderr)")
        let both = try await sandbox.run(["-q", "-v", "--device", "sim", "info"])
        #expect(both.status == 64 && both.stderr.contains("-q/--quiet and -v/--verbose"), "\(both)")
    }

    @Test func capitalVIsTheVersion() async throws {
        let sandbox = try UCubeSandbox()
        let long = try await sandbox.run(["--version"])
        let short = try await sandbox.run(["-V"])
        #expect(short.status == 0 && !short.stdout.isEmpty && short.stdout == long.stdout, "\(short)")
        let json = try await sandbox.run(["--json", "-V"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["version"] is String, "\(json.stdout)")
        let help = try await sandbox.run(["--help"])
        for label in ["-q, --quiet", "-v, --verbose", "-V, --version"] {
            #expect(help.stdout.contains("\n  \(label) "), "\(label) not in the root help")
        }
    }

    /// The global short options take no letter a command uses: every command of the tree, as the parser dumps it,
    /// names each option once, and `-q` and `-v` are the global ones everywhere.
    @Test func noCommandReusesAShortOption() async throws {
        let dump = try await UCubeSandbox().run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var commands = [(root["command"] as? [String: Any]) ?? [:]]
        var checked = 0
        while let command = commands.popLast() {
            commands += (command["subcommands"] as? [[String: Any]]) ?? []
            let arguments = (command["arguments"] as? [[String: Any]]) ?? []
            var seen: [String: String] = [:]
            for argument in arguments {
                let names = (argument["names"] as? [[String: Any]]) ?? []
                let long = names.first { $0["kind"] as? String == "long" }?["name"] as? String ?? ""
                for name in names where name["kind"] as? String == "short" {
                    let letter = name["name"] as? String ?? ""
                    #expect(seen[letter] == nil, "\(command["commandName"] ?? ""): -\(letter) twice")
                    seen[letter] = long
                }
            }
            if arguments.contains(where: {
                ($0["names"] as? [[String: Any]])?.contains { $0["name"] as? String == "json" } == true
            }) {
                #expect(seen["q"] == "quiet" && seen["v"] == "verbose", "\(command["commandName"] ?? ""): \(seen)")
                checked += 1
            }
        }
        #expect(checked > 20)
    }

    // MARK: Local time

    /// One payment at 20:30:05 UTC on 28 November: the 29th, 02:00:05, in Kolkata (+05:30).
    static let journal = [
        #"{"kind":"start","requestID":"5B0C8E2A-0F1B-4F3C-9A77-2C1D3E4F5A6B","time":"2026-11-28T20:30:04.100Z","amount":1250,"currency":"EUR","type":"purchase","device":"sim"}"#,
        #"{"kind":"outcome","requestID":"5B0C8E2A-0F1B-4F3C-9A77-2C1D3E4F5A6B","time":"2026-11-28T20:30:05.963Z","status":"APPROVED","maskedPAN":"476173******0010","entryMode":"icc"}"#,
    ]

    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Asia/Kolkata")),
        arguments: [
            ("Asia/Kolkata", "2026-11-29 02:00:04 +05:30", "2026-11-29 02:00:05 +05:30"),
            ("UTC", "2026-11-28 20:30:04 +00:00", "2026-11-28 20:30:05 +00:00"),
        ])
    func peopleSeeLocalTimeAndJSONKeepsUTC(zone: String, started: String, finished: String) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["TZ"] = zone
        try HistoryTotalsEndToEndTests.append(Self.journal, to: sandbox)
        let list = try await sandbox.run(["history"])
        #expect(list.stdout.hasPrefix("\(started)  APPROVED  12.50 EUR"), "\(list.stdout)")
        let show = try await sandbox.run(["history", "show", "5B0C8E2A"])
        #expect(
            show.stdout.contains("started: \(started)\n") && show.stdout.contains("finished: \(finished)\n"),
            "\(show.stdout)")
        let receipt = try await sandbox.run(["history", "show", "5B0C8E2A", "--receipt"])
        #expect(receipt.stdout.contains("Date") && receipt.stdout.contains(finished), "\(receipt.stdout)")
        // JSON and files: UTC, as the journal has it, whatever the zone.
        let json = try await sandbox.run(["--json", "history", "show", "5B0C8E2A", "--receipt"])
        #expect(json.stdout.contains(#""time": "2026-11-28T20:30:05.963Z""#), "\(json.stdout)")
        let file = sandbox.directory.appendingPathComponent("receipt.json")
        _ = try await sandbox.run(["--json", "history", "show", "5B0C8E2A", "--receipt-file", file.path])
        #expect(try String(contentsOf: file, encoding: .utf8).contains("2026-11-28T20:30:05.963Z"))
        let entries = try await sandbox.run(["--json", "history"])
        #expect(entries.stdout.contains(#""startedAt": "2026-11-28T20:30:04.100Z""#), "\(entries.stdout)")
    }
}
