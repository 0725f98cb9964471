import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// Issue 39, the smaller items: text from outside the process reaches no terminal raw, a time scale that would
/// overflow is refused, and a TMS simulator others can reach is warned about.
@Suite struct UntrustedTextTests {
    @Test func controlCharactersAreEscapedAndTheRestKept() {
        #expect(VisibleText.escaped("tcp://bench-1:5000") == "tcp://bench-1:5000")
        #expect(VisibleText.escaped("a\u{1B}[2Jb") == "a\\x1B[2Jb")
        #expect(VisibleText.escaped("x\u{7F}\u{9B}y\u{0}") == "x\\x7F\\x9By\\x00")
        #expect(VisibleText.escaped("evil\u{202E}txt.exe") == "evil\\u{202E}txt.exe")
        #expect(VisibleText.escaped("two\nlines") == "two\\x0Alines")
        #expect(VisibleText.escaped("two\nlines", keepingNewlines: true) == "two\nlines")
        #expect(VisibleText.escaped("café ☕") == "café ☕")
        let once = VisibleText.escaped("\u{1B}]0;title\u{7}")
        #expect(VisibleText.escaped(once) == once, "escaping is idempotent")
        // JSON output: C0, DEL and C1 (CSI is U+009B) as \u escapes, so that a reader that prints a value is safe.
        #expect(JSONOutput.quote("a\u{1B}b\u{7F}c\u{9B}d") == #""a\u001bb\u007fc\u009bd""#)
    }

    /// The merged table of a report whose device names hold escape sequences: one line a terminal, no ESC.
    @Test func theFleetTableEscapesNames() {
        let verdicts = [
            FleetVerdict.ok("tcp://h:1\u{1B}[2J", seconds: 1),
            FleetVerdict.failed(
                "tcp://h:2\r\u{1B}[31mFAKE", CLIFailure(ExitCodes.timeout, "no\u{1B}[0m answer"), seconds: 1),
        ]
        let table = FleetReporter.table(verdicts)
        #expect(!table.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D }, "\(table)")
        #expect(table.split(separator: "\n").count == 3, "\(table)")
        #expect(table.contains("tcp://h:1\\x1B[2J"))
    }

    /// Issue 39: a devices file line with escape sequences (a window title, a cleared screen) reached the terminal
    /// and the table raw. Its terminal fails (no such device), and every line that names it shows it escaped.
    @Test func aDevicesFileNameReachesTheScreenEscaped() async throws {
        let sandbox = try UCubeSandbox()
        let devices = sandbox.directory.appendingPathComponent("devices.txt")
        try Data("tcp://127.0.0.1:1\nbogus\u{1B}]0;pwned\u{7}\u{1B}[2J\n".utf8).write(to: devices)
        let run = try await sandbox.run(["info", "--devices", devices.path])
        #expect(run.status == 18, "\(run.stderr)")
        let both = run.stdout + run.stderr
        #expect(!both.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(both)")
        #expect(run.stdout.contains("bogus\\x1B]0;pwned\\x07\\x1B[2J  FAILED"), "\(run.stdout)")
    }

    /// Issue 39: UCUBE_SIM_TIME_SCALE=1e300 crashed a payment mid-way (the first wait it multiplied overflowed).
    @Test(arguments: ["1e300", "inf", "nan", "-1", "fast"])
    func anImpossibleTimeScaleIsRefused(_ scale: String) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = scale
        let run = try await sandbox.run(["--device", "sim", "pay", "10"])
        #expect(run.status == 64, "\(scale): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("UCUBE_SIM_TIME_SCALE '\(scale)' is not a time scale"), "\(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"), "\(run.stderr)")
    }

    @Test func aTMSOthersCanReachIsWarnedAbout() async throws {
        let sandbox = try UCubeSandbox()
        let run = try sandbox.startCapturing(["simulate", "--tms", "0.0.0.0:0"])
        defer { run.process.terminate() }
        let warning = await UCubeSandbox.readUntil(run.stderr, contains: "kept)")
        #expect(
            warning.contains("warning: the TMS simulator listens on 0.0.0.0, not a loopback address"), "\(warning)")
        #expect(warning.contains("upload logs") && warning.contains("MiB in all are kept"), "\(warning)")
    }
}
