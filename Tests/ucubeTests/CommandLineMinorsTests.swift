import Foundation
import Testing

@testable import UCubeCLI

/// The command line's minors of issue 41, through the built binary where a user meets them.

/// `--junit FILE` is the one name for a JUnit report: on one terminal `test` writes the suite's report there and TAP
/// stays on stdout; the old `--format junit` still works, and says once what replaces it.
@Suite struct JUnitOptionTests {
    static func firstCase() throws -> String {
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: TestSuiteEndToEndTests.shippedSuite))
                as? [String: Any])
        let cases = try #require(root["cases"] as? [[String: Any]])
        return try #require(cases.first?["name"] as? String)
    }

    @Test func junitOnOneTerminalWritesTheSuiteReportBesidesTAP() async throws {
        let sandbox = try TestSuiteEndToEndTests.sandbox()
        let report = sandbox.directory.appendingPathComponent("report.xml")
        let name = try Self.firstCase()
        let run = try await sandbox.run([
            "--device", "sim", "test", TestSuiteEndToEndTests.shippedSuite.path, "--case", name, "--junit", report.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // TAP on stdout, as without --junit: not a fleet of one's table.
        #expect(run.stdout.hasPrefix("TAP version 13\n1..1\n"), "\(run.stdout)")
        #expect(run.stdout.contains("ok 1 - \(name)"), "\(run.stdout)")
        let xml = try String(contentsOf: report, encoding: .utf8)
        // The suite's testsuite (named after it), with the case: not a testsuite named after the device.
        #expect(xml.contains(#"<testsuite name="ucube payments" tests="1" failures="0""#), "\(xml)")
        #expect(xml.contains(#"name="\#(name)""#), "\(xml)")
        #expect(!run.stderr.contains("deprecated"), "\(run.stderr)")
    }

    @Test func formatJUnitStillWorksAndWarnsOnce() async throws {
        let sandbox = try TestSuiteEndToEndTests.sandbox()
        let report = sandbox.directory.appendingPathComponent("old.xml")
        let run = try await sandbox.run([
            "--device", "sim", "test", TestSuiteEndToEndTests.shippedSuite.path, "--case", try Self.firstCase(),
            "--format", "junit", "--output", report.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        #expect(try String(contentsOf: report, encoding: .utf8).contains("<testsuites"))
        #expect(
            run.stderr.components(separatedBy: "--format junit is deprecated").count == 2,
            "one warning: \(run.stderr)")
        #expect(run.stderr.contains("--junit FILE"), "\(run.stderr)")
    }

    @Test func bothSpellingsAtOnceAreAUsageError() async throws {
        let sandbox = try TestSuiteEndToEndTests.sandbox()
        let run = try await sandbox.run([
            "--device", "sim", "test", TestSuiteEndToEndTests.shippedSuite.path, "--format", "junit", "--junit",
            sandbox.directory.appendingPathComponent("r.xml").path,
        ])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("drop the deprecated --format junit"), "\(run.stderr)")
    }
}

/// A command lists only the options it takes: `info` and `diagnose` keep no run file, so their help has no
/// `--run-file` or `--restart`; the commands that resume have both.
@Suite struct OptionGroupHelpTests {
    @Test(arguments: [["info"], ["diagnose"]])
    func readOnlyFleetCommandsListNoRunFileOptions(_ command: [String]) async throws {
        let run = try await UCubeSandbox().run(command + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("--devices <file>"), "\(run.stdout)")
        #expect(!run.stdout.contains("--run-file"), "\(run.stdout)")
        #expect(!run.stdout.contains("--restart"), "\(run.stdout)")
    }

    @Test(arguments: [["mdm-update"], ["mdm-register"], ["send-logs"], ["test"], ["shell"]])
    func resumingCommandsListThem(_ command: [String]) async throws {
        let run = try await UCubeSandbox().run(command + ["--help"])
        #expect(run.stdout.contains("--run-file <file>"), "\(run.stdout)")
        #expect(run.stdout.contains("--restart"), "\(run.stdout)")
    }
}

/// A command's options written before its name are its own (`ucube --tms URL mdm-update`), or a usage error that
/// says whose they are not; the root's options still come first as before.
@Suite struct LeadingOptionsTests {
    @Test func optionsBeforeTheCommandMoveAfterIt() throws {
        #expect(
            try LeadingOptions.moved(["--tms", "https://tms.example", "--json", "mdm-update", "--device", "sim"])
                == ["--json", "mdm-update", "--tms", "https://tms.example", "--device", "sim"])
        #expect(
            try LeadingOptions.moved(["--tms=https://tms.example", "mdm-update"]) == [
                "mdm-update", "--tms=https://tms.example",
            ])
        // A command of two words: after both.
        #expect(
            try LeadingOptions.moved(["--restart", "--devices", "d.txt", "mdm-update", "x"])
                == ["mdm-update", "--restart", "--devices", "d.txt", "x"])
        // Nothing to move: the root's own options, or a line that starts with its command.
        #expect(try LeadingOptions.moved(["--device", "sim", "--json", "info"]) == nil)
        #expect(try LeadingOptions.moved(["info", "--tms", "x"]) == nil)
    }

    @Test func tmsBeforeTheCommandIsTheCommands() async throws {
        let sandbox = try UCubeSandbox()
        // Plain http to a host that is not loopback is refused when the settings are read: --tms reached mdm-update.
        let run = try await sandbox.run(["--tms", "http://tms.example", "mdm-update", "--device", "sim"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("refusing plain http to tms.example"), "\(run.stderr)")
        #expect(!run.stderr.contains("unknown command"), "\(run.stderr)")
    }

    @Test func anOptionTheCommandDoesNotTakeSaysSo() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--tms", "https://tms.example", "info"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("unknown option '--tms' for `ucube info`"), "\(run.stderr)")
        let typo = try await sandbox.run(["--parallell", "2", "info"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("did you mean '--parallel'?"), "\(typo.stderr)")
    }

    @Test func jsonFirstStillWorks() async throws {
        let run = try await UCubeSandbox().run(["--json", "--device", "sim", "info"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""serialNumber""#), "\(run.stdout)")
    }
}

/// config.json: a syntax error says where (file:line:column), and a key ucube does not read is warned about, with
/// the known key it is nearest to.
@Suite struct ConfigFileTests {
    static func write(_ text: String, in sandbox: UCubeSandbox) throws {
        let directory = sandbox.directory.appendingPathComponent("config/ucube")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("config.json"))
    }

    @Test func aSyntaxErrorSaysWhere() async throws {
        let sandbox = try UCubeSandbox()
        try Self.write("{\n  \"tms_url\": \"https://tms.example\",\n  \"tms_ca\": oops\n}\n", in: sandbox)
        let run = try await sandbox.run(["mdm-update", "--device", "sim"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("config.json:3:13: not valid JSON"), "\(run.stderr)")
    }

    @Test func anUnknownKeyIsWarnedAboutWithTheNearestKnownOne() async throws {
        let sandbox = try UCubeSandbox()
        try Self.write(#"{"tms_url": "http://tms.example", "tms-ca": "ca.pem"}"#, in: sandbox)
        let run = try await sandbox.run(["mdm-update", "--device", "sim"])
        // The URL was read (and refused: plain http), the misspelt key said once.
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("refusing plain http"), "\(run.stderr)")
        #expect(
            run.stderr.components(separatedBy: #"unknown key "tms-ca" (did you mean "tms_ca"?)"#).count == 2,
            "\(run.stderr)")
    }

    @Test func warningsNameEachKey() {
        let lines = TMSOptions.unknownKeyWarnings(["tms_urls", "proxy"], path: "/c/config.json")
        #expect(lines.count == 2)
        #expect(lines[0].contains(#""tms_urls" (did you mean "tms_url"?)"#), "\(lines[0])")
        #expect(!lines[1].contains("did you mean"), "\(lines[1])")
    }
}

/// A shell completes `test --case` with the cases of the suite on the line, `simulate --suite-card` with the suite's
/// cards and cases, and `history resolve --status` with the outcomes (issue 41).
@Suite struct SuiteCompletionTests {
    static let suite = TestSuiteEndToEndTests.shippedSuite.path

    @Test func caseCompletesWithTheSuitesCases() async throws {
        let names = try TestSuiteEndToEndTests.shippedCases().compactMap { $0["name"] as? String }
        // As the completion scripts ask: the words of the line, the index of the word completed, the cursor in it.
        let run = try await UCubeSandbox().run([
            "---completion", "test", "--", "--case", "4", "0", "ucube", "test", Self.suite, "--case", "",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == names, "\(run.stdout)")
        #expect(!names.isEmpty)
        let prefixed = SuiteCompletion.caseNames(
            ["ucube", "test", "'\(Self.suite)'", "--case", "contact o"], index: 4, prefix: "contact o")
        #expect(!prefixed.isEmpty && prefixed.allSatisfy { $0.hasPrefix("contact o") }, "\(prefixed)")
        // No suite on the line yet: nothing.
        #expect(SuiteCompletion.caseNames(["ucube", "test", "--case", ""], index: 3, prefix: "").isEmpty)
    }

    @Test func suiteCardCompletesWithTheSuitesCardsAndCases() throws {
        let cases = try TestSuiteEndToEndTests.shippedCases().compactMap { $0["name"] as? String }
        let words = SuiteCompletion.suiteCards(
            ["ucube", "simulate", "--suite", Self.suite, "--suite-card", ""], prefix: "")
        #expect(Set(cases).isSubset(of: Set(words)), "\(words)")
    }

    @Test func simCompletesCardsAndSuiteCases() async throws {
        let run = try await UCubeSandbox().run([
            "---completion", "sim", "--", "positional@1", "3", "0", "ucube", "sim", "card", "",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").contains("visa-contactless"), "\(run.stdout)")
        let cases = try TestSuiteEndToEndTests.shippedCases().compactMap { $0["name"] as? String }
        let words = SuiteCompletion.simValues(["ucube", "sim", "suite", Self.suite, ""], index: 4, prefix: "")
        #expect(Set(cases).isSubset(of: Set(words)), "\(words)")
        let directory = TestSuiteEndToEndTests.shippedSuite.deletingLastPathComponent().path + "/"
        #expect(
            SuiteCompletion.simValues(["ucube", "sim", "suite", directory], index: 3, prefix: directory).contains(
                Self.suite), "\(Self.suite)")
        #expect(SuiteCompletion.simValues(["ucube", "sim", "pin", ""], index: 3, prefix: "").isEmpty)
    }

    @Test func resolveStatusCompletesWithTheOutcomes() {
        let status = CommandSpec.of(UCube.History.Resolve.self).option(named: "--status")
        #expect(status?.values.contains("approved") == true, "\(String(describing: status?.values))")
        #expect(status?.values.contains("declined") == true)
    }

    @Test func wordsAreUnquoted() {
        #expect(SuiteCompletion.unquoted(#"'my suite.json'"#) == "my suite.json")
        #expect(SuiteCompletion.unquoted(#"my\ suite.json"#) == "my suite.json")
        #expect(SuiteCompletion.unquoted(#""a\"b".json"#) == #"a"b.json"#)
    }
}

/// A fleet `diagnose` says what to do for each terminal, as one-terminal `diagnose` does on its `hint:` lines: in the
/// `end` event's `hint` and on a `DEVICE: hint:` line.
@Suite struct FleetHintTests {
    /// Two addresses where nothing listens: port 1 (tcpmux) and 9 (discard) on loopback.
    static let devices = ["--device", "tcp://127.0.0.1:1", "--device", "tcp://127.0.0.1:9"]

    @Test func diagnoseEndEventsCarryTheHints() async throws {
        let run = try await UCubeSandbox().run(["--json", "diagnose"] + Self.devices)
        #expect(run.status == 18, "\(run.stderr)")
        let ends = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "end" }
        #expect(ends.count == 2, "\(run.stdout)")
        for end in ends {
            let hint = end["hint"] as? String ?? ""
            #expect(hint.contains("running at that address"), "\(end)")
        }
    }

    @Test func diagnoseTextHasAHintLinePerTerminal() async throws {
        let run = try await UCubeSandbox().run(["diagnose"] + Self.devices)
        #expect(run.status == 18, "\(run.stderr)")
        for device in ["tcp://127.0.0.1:1", "tcp://127.0.0.1:9"] {
            #expect(run.stdout.contains("\(device): hint: is `ucube simulate --listen"), "\(run.stdout)")
        }
    }
}
