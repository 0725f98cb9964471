import Foundation
import Testing
import UCubeLog
import UCubeRuntime

@testable import UCubeCLI

/// `CommandContext.resolve`: each setting from the first source that gives it, in the documented order (issue 26,
/// item 3): the line's option, the shell's `set`, `$UCUBE_DEVICE`, the device remembered by `ucube connect`, then the
/// defaults (the simulator, 10 s).
@Suite struct CommandContextTests {
    /// Resolves with every source given explicitly; `remembered` counts how often devices.json would be read.
    private static func resolve(
        _ options: GlobalOptionValues = GlobalOptionValues(), shell: ShellSettings? = nil,
        environment: [String: String] = [:], remembered: String? = nil, asked: Counter = Counter()
    ) -> CommandContext {
        CommandContext.resolve(
            options, shell: shell, session: nil, environment: { environment[$0] },
            rememberedDefault: {
                asked.count += 1
                return remembered
            }, stdinIsTerminal: false)
    }

    final class Counter { var count = 0 }

    private static func shell(device: String? = nil, timeout: Double? = nil, json: Bool = false, trace: Bool = false)
        -> ShellSettings
    {
        var settings = ShellSettings()
        settings.device = device
        settings.timeout = timeout
        settings.json = json
        settings.trace = trace
        return settings
    }

    @Test func theOptionNamesTheDeviceBeforeEverythingElse() {
        let asked = Counter()
        let context = Self.resolve(
            GlobalOptionValues(devices: ["tcp://a:1", "tcp://b:2"]), shell: Self.shell(device: "tcp://shell:3"),
            environment: ["UCUBE_DEVICE": "tcp://env:4"], remembered: "tcp://remembered:5", asked: asked)
        #expect(context.namedDevice == "tcp://b:2")
        #expect(context.deviceAddress == "tcp://b:2")
        #expect(context.givenDevices == ["tcp://a:1", "tcp://b:2"])
        #expect(asked.count == 0, "devices.json is read only when nothing before it names a device")
    }

    @Test func thenTheShellThenTheEnvironmentThenTheRememberedDefault() {
        let env = ["UCUBE_DEVICE": "tcp://env:4"]
        #expect(
            Self.resolve(shell: Self.shell(device: "tcp://shell:3"), environment: env, remembered: "r").namedDevice
                == "tcp://shell:3")
        #expect(Self.resolve(shell: Self.shell(), environment: env, remembered: "r").namedDevice == "tcp://env:4")
        let asked = Counter()
        #expect(
            Self.resolve(shell: Self.shell(), remembered: "tcp://remembered:5", asked: asked).namedDevice
                == "tcp://remembered:5")
        #expect(asked.count == 1)
    }

    @Test func noSourceNamesNoDeviceAndTheSimulatorStandsIn() {
        let context = Self.resolve(environment: ["OTHER": "x"])
        #expect(context.namedDevice == nil)
        #expect(context.deviceAddress == "sim")
        #expect(context.givenDevices.isEmpty)
    }

    @Test func timeoutFromTheOptionThenTheShellThenTenSeconds() {
        #expect(
            Self.resolve(GlobalOptionValues(rpcTimeout: 2.5), shell: Self.shell(timeout: 7)).timeout
                == .milliseconds(2500))
        #expect(Self.resolve(shell: Self.shell(timeout: 7)).timeout == .seconds(7))
        #expect(Self.resolve(shell: Self.shell()).timeout == .seconds(10))
        #expect(Self.resolve().timeout == .seconds(10))
    }

    @Test(arguments: [(false, false, false), (true, false, true), (false, true, true), (true, true, true)])
    func jsonAndTraceFromTheFlagOrTheShell(flag: Bool, shell: Bool, expected: Bool) {
        let context = Self.resolve(
            GlobalOptionValues(json: flag, trace: flag), shell: Self.shell(json: shell, trace: shell))
        #expect(context.json == expected)
        #expect(context.trace == expected)
    }

    @Test func logLevelsFromTheOptionThenTheShellAndOnlyTheOptionMirrorsToStderr() throws {
        var settings = ShellSettings()
        settings.logLevels = try LogLevels(parsing: "warning")
        let fromOption = Self.resolve(GlobalOptionValues(logLevel: "rpc=trace,info"), shell: settings)
        #expect(fromOption.logLevels == (try LogLevels(parsing: "rpc=trace,info")))
        #expect(fromOption.mirrorsLogToStderr)
        let fromShell = Self.resolve(shell: settings)
        #expect(fromShell.logLevels == settings.logLevels)
        #expect(!fromShell.mirrorsLogToStderr)
        #expect(Self.resolve().logLevels == LogLevels())
    }

    /// `-v` is `--log-level debug` copied to stderr, before the shell's level; a `--log-level` on the line wins. `-q`
    /// is the line's, and a fleet run's terminals keep it.
    @Test func verboseIsTheDebugLogOnStderrAndQuietIsTheLines() throws {
        var settings = ShellSettings()
        settings.logLevels = try LogLevels(parsing: "warning")
        let verbose = Self.resolve(GlobalOptionValues(verbose: true), shell: settings)
        #expect(verbose.logLevels == (try LogLevels(parsing: "debug")))
        #expect(verbose.mirrorsLogToStderr && !verbose.quiet)
        let both = Self.resolve(GlobalOptionValues(logLevel: "rpc=trace,info", verbose: true))
        #expect(both.logLevels == (try LogLevels(parsing: "rpc=trace,info")))
        let quiet = Self.resolve(GlobalOptionValues(quiet: true))
        #expect(quiet.quiet && !quiet.mirrorsLogToStderr && quiet.logLevels == LogLevels())
        #expect(quiet.single("sim", json: true).quiet)
        #expect(!Self.resolve().quiet)
        #expect(throws: (any Error).self) { try GlobalOptionValues(quiet: true, verbose: true).validate() }
    }

    @Test func recordAndFastAreTheLines() {
        let context = Self.resolve(GlobalOptionValues(record: "/tmp/r.jsonl", fast: true))
        #expect(context.record == "/tmp/r.jsonl")
        #expect(context.fast)
        #expect(Self.resolve().record == nil)
    }

    @Test func promptsNeedTheShellOrATerminal() {
        #expect(Self.resolve().prompts == nil)
        #expect(!Self.resolve().isInteractive)
        let tty = CommandContext.resolve(
            GlobalOptionValues(), shell: nil, session: nil, environment: { _ in nil }, rememberedDefault: { nil },
            stdinIsTerminal: true)
        guard case .standardInput = tty.prompts else {
            Issue.record("a terminal on stdin answers prompts")
            return
        }
        let session = ShellSession(settings: ShellSettings())
        let inShell = CommandContext.resolve(
            GlobalOptionValues(), shell: session.settings, session: session, environment: { _ in nil },
            rememberedDefault: { nil }, stdinIsTerminal: false)
        guard case .shell(let found) = inShell.prompts else {
            Issue.record("the shell answers prompts")
            return
        }
        #expect(found === session)
    }

    /// A fleet run's terminal: its one device, named, and JSON when the run reads events; the rest of the parent's.
    @Test func aFleetTerminalsContextIsTheParentsForOneDevice() {
        let parent = Self.resolve(
            GlobalOptionValues(devices: ["tcp://a:1", "tcp://b:2"], trace: true, rpcTimeout: 3))
        let one = parent.single("tcp://a:1", json: true)
        #expect(one.givenDevices == ["tcp://a:1"])
        #expect(one.namedDevice == "tcp://a:1")
        #expect(one.json)
        #expect(one.trace)
        #expect(one.timeout == .seconds(3))
        #expect(!parent.single("tcp://a:1", json: false).json)
    }
}

/// The shell resolves each line's context when it dispatches the line: the line's options over the session's `set`
/// values over `$UCUBE_DEVICE`, and `set` alone shows the device a line naming none would use.
@Suite struct ShellLineContextTests {
    @Test func eachLineResolvesItsOwnSettings() async throws {
        let sandbox = try UCubeSandbox()
        // Nothing listens there: a line that used it would fail with exit 5.
        sandbox.environment["UCUBE_DEVICE"] = "tcp://127.0.0.1:1"
        let run = try await sandbox.run(
            ["shell"], input: "set\ninfo --device sim --json\nset device sim\nset json on\nset\ninfo\n")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "device tcp://127.0.0.1:1" }.count == 1, "\(run.stdout)")
        #expect(lines.filter { $0 == "device sim" }.count == 2, "\(run.stdout)")
        // Both `info`s printed JSON, one document a line (the shell's stdout is JSON lines, docs/json.md): the first
        // by its flag, the second by `set json on`.
        let documents = lines.filter { $0.hasPrefix("{") }
        #expect(documents.filter { $0.contains(#""command":"get-info""#) }.count == 2, "\(run.stdout)")
        for document in documents {
            #expect((try? JSONSerialization.jsonObject(with: Data(document.utf8))) is [String: Any], "\(document)")
        }
    }
}
