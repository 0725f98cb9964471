import Foundation
import Testing
import UCubePayment

@testable import UCubeCLI

#if canImport(FoundationXML)
import FoundationXML
import UCubeRuntime
#endif

/// `ucube test SUITE` through the built binary: the shipped suite passes on the simulator, a wrong expectation fails
/// with exit 17 and says expected against got, JUnit output is XML a CI server reads, a bad suite file is refused
/// with exit 65 naming the case and field, and a suite's card image served by `simulate --suite` runs over TCP.
@Suite(.serialized) struct TestSuiteEndToEndTests {
    static var shippedSuite: URL {
        UCubeSandbox.binary.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Suites/payments.json")
    }

    static func sandbox() throws -> UCubeSandbox {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        return sandbox
    }

    /// Writes `json` as a suite file in the sandbox.
    static func write(_ json: String, in sandbox: UCubeSandbox, name: String = "suite.json") throws -> String {
        let url = sandbox.directory.appendingPathComponent(name)
        try Data(json.utf8).write(to: url)
        return url.path
    }

    static func shippedCases() throws -> [[String: Any]] {
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: shippedSuite)) as? [String: Any])
        return try #require(root["cases"] as? [[String: Any]])
    }

    @Test func shippedSuitePassesOnTheSimulator() async throws {
        let sandbox = try Self.sandbox()
        let run = try await sandbox.run(["--device", "sim", "test", Self.shippedSuite.path], timeout: .seconds(120))
        #expect(run.status == 0, "exit \(run.status): \(run.stderr.suffix(500))")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let cases = try Self.shippedCases()
        #expect(cases.count >= 30)
        #expect(lines.first == "TAP version 13")
        #expect(lines.contains("1..\(cases.count)"))
        #expect(lines.filter { $0.hasPrefix("ok ") }.count == cases.count)
        #expect(!lines.contains { $0.hasPrefix("not ok") })
    }

    /// Every final status the engine can reach appears in the shipped suite. ERROR_SHUTTING_DOWN is the one no
    /// terminal answer maps to (PaymentStatus: "no answer maps here yet").
    @Test func shippedSuiteCoversEveryReachableStatus() throws {
        let statuses = Set(
            try Self.shippedCases().compactMap { ($0["expect"] as? [String: Any])?["status"] as? String })
        let reachable = PaymentStatus.allCases.filter { $0 != .errorShuttingDown }.map(\.name)
        #expect(
            Set(reachable).subtracting(statuses).isEmpty, "missing: \(Set(reachable).subtracting(statuses).sorted())")
    }

    static let wrongExpectation = """
        {"name": "wrong", "cases": [
          {"name": "right", "card": "visa-contact", "request": {"amount": "10.00"}, "expect": {"status": "APPROVED"}},
          {"name": "wrong status & tvr <1>", "card": "declined-aac", "request": {"amount": "10.00"},
           "expect": {"status": "APPROVED", "tvr": "0000040000", "cryptogram": "TC"}}
        ]}
        """

    @Test func aWrongExpectationFailsWithExpectedAndGot() async throws {
        let sandbox = try Self.sandbox()
        let path = try Self.write(Self.wrongExpectation, in: sandbox)
        let run = try await sandbox.run(["--device", "sim", "test", path])
        #expect(run.status == 17, "exit \(run.status): \(run.stderr)")
        #expect(run.stdout.contains("ok 1 - right\n"))
        #expect(run.stdout.contains("not ok 2 - wrong status & tvr <1>\n"))
        #expect(
            run.stdout.contains(
                #"message: "status: expected APPROVED, got DECLINED; tvr: expected 0000040000, got 0000000000; cryptogram: expected TC, got AAC""#
            ))
        let diagnostic = try #require(run.stdout.components(separatedBy: "not ok 2").last)
        #expect(diagnostic.contains("  expected:\n    status: \"APPROVED\"\n    tvr: \"0000040000\""))
        #expect(diagnostic.contains("  got:\n    status: \"DECLINED\"\n    tvr: \"0000000000\""))
        #expect(run.stderr.contains("1 of 2 cases failed: wrong status & tvr <1>"))
    }

    @Test func junitIsWellFormedWithTheRightCounts() async throws {
        let sandbox = try Self.sandbox()
        let path = try Self.write(Self.wrongExpectation, in: sandbox)
        let report = sandbox.directory.appendingPathComponent("report.xml")
        let run = try await sandbox.run(["--device", "sim", "test", path, "--format", "junit", "--output", report.path])
        #expect(run.status == 17)
        #expect(run.stdout.isEmpty)
        let document = try XMLDocument(contentsOf: report)
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suite = try #require(root.elements(forName: "testsuite").first)
        #expect(suite.attribute(forName: "tests")?.stringValue == "2")
        #expect(suite.attribute(forName: "failures")?.stringValue == "1")
        let cases = suite.elements(forName: "testcase")
        #expect(cases.map { $0.attribute(forName: "name")?.stringValue } == ["right", "wrong status & tvr <1>"])
        #expect(cases.allSatisfy { Double($0.attribute(forName: "time")?.stringValue ?? "") != nil })
        #expect(cases[0].elements(forName: "failure").isEmpty)
        let failure = try #require(cases[1].elements(forName: "failure").first)
        #expect(
            failure.attribute(forName: "message")?.stringValue?.hasPrefix("status: expected APPROVED, got DECLINED")
                == true)
        #expect(failure.stringValue?.contains("got tvr: 0000000000") == true)
    }

    @Test(arguments: [
        (
            #"{"name": "x", "cases": [{"name": "a", "card": "visa-contact", "request": {"amount": "10"}, "expect": {"status": "APPROVD"}}]}"#,
            #"cases[0] ("a").expect.status: 'APPROVD' is not a payment status"#
        ),
        (
            #"{"name": "x", "cases": [{"name": "a", "card": "visa-contact", "request": {"amount": "10"}, "expext": {}}]}"#,
            #"cases[0] ("a").expext: unknown field"#
        ),
        (
            #"{"name": "x", "cases": [{"name": "b", "card": "nope", "request": {"amount": "1"}, "expect": {"status": "ERROR"}}]}"#,
            #"cases[0] ("b").card: 'nope' is neither a card image"#
        ),
        (
            #"{"name": "x", "cases": [{"name": "c", "card": "visa-contact", "request": {"amount": "1.234"}, "expect": {"status": "ERROR"}}]}"#,
            #"cases[0] ("c").request.amount:"#
        ),
        (
            #"{"name": "x", "cards": {"k": {"interfaces": ["chip"], "pan": "4761739001010010", "expiry": "2512", "applications": []}}, "cases": [{"name": "d", "card": "k", "request": {"amount": "1"}, "expect": {"status": "ERROR"}}]}"#,
            "cards.k.interfaces: 'chip' is not an interface"
        ),
        (#"{"name": "x", "cases": []"#, "not valid JSON"),
    ])
    func aBadSuiteIsADataError(_ json: String, _ message: String) async throws {
        let sandbox = try Self.sandbox()
        let path = try Self.write(json, in: sandbox)
        let run = try await sandbox.run(["--device", "sim", "--json", "test", path])
        #expect(run.status == 65, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.contains(#""code":"bad-suite""#))
    }

    /// A name from the suite reaches TAP, JUnit and stderr as one line, or the suite is refused: a newline in the
    /// suite's name would have started a TAP line of its own ("Bail out!" ends a TAP consumer's run).
    @Test(arguments: [
        #"{"name": "shop\nBail out! injected", "cases": [{"name": "a", "card": "visa-contact", "request": {"amount": "10"}, "expect": {"status": "APPROVED"}}]}"#,
        #"{"name": "shop\u2028x", "cases": [{"name": "a", "card": "visa-contact", "request": {"amount": "10"}, "expect": {"status": "APPROVED"}}]}"#,
        #"{"name": "x", "cases": [{"name": "a\u001b[2J", "card": "visa-contact", "request": {"amount": "10"}, "expect": {"status": "APPROVED"}}]}"#,
        #"{"name": "x", "cases": [{"name": "a\tb", "card": "visa-contact", "request": {"amount": "10"}, "expect": {"status": "APPROVED"}}]}"#,
        #"{"name": "x", "cases": [{"name": "a", "card": "visa-contact", "request": {"amount": "10"}, "expect": {"status": "APPROVED"}, "instruction": "insert\nok 2 - forged"}]}"#,
        #"{"name": "x", "cards": {"k\r": {"interfaces": ["contact"], "pan": "5413330089020094", "expiry": "2711", "applications": [{"aid": "A0000000041010", "label": "MASTERCARD"}]}}, "cases": [{"name": "a", "card": "k\r", "request": {"amount": "10"}, "expect": {"status": "APPROVED"}}]}"#,
    ])
    func aControlCharacterInALabelIsRefused(_ json: String) async throws {
        let sandbox = try Self.sandbox()
        let path = try Self.write(json, in: sandbox)
        let run = try await sandbox.run(["--device", "sim", "--json", "test", path])
        #expect(run.status == 65, "exit \(run.status): \(run.stderr)")
        #expect(run.stdout.contains(#""code":"bad-suite""#), "\(run.stdout)")
        let tap = try await sandbox.run(["--device", "sim", "test", path])
        #expect(tap.status == 65)
        #expect(!tap.stdout.contains("Bail out!") && !tap.stdout.contains("TAP version"), "\(tap.stdout)")
    }

    @Test(arguments: [
        ("shop", true), ("caf\u{E9} #1 \"x\" <y>", true), ("a\nb", false), ("a\r", false), ("\u{1B}[31m", false),
        ("a\u{85}b", false), ("a\u{2029}", false), ("a\u{7F}", false),
    ])
    func oneLine(_ text: String, _ holds: Bool) {
        #expect(OneLine.holds(text) == holds)
    }

    @Test func aSuiteCardImageServedOverTCPRuns() async throws {
        let sandbox = try Self.sandbox()
        let suite = """
            {"name": "tcp", "cards": {"late-pin": {"interfaces": ["contact"], "pan": "5413330089020094", "expiry": "2711",
              "applications": [{"aid": "A0000000041010", "label": "MASTERCARD"}], "cvm": "online-pin"}},
             "cases": [{"name": "served", "card": "late-pin", "request": {"amount": "5.00"},
               "expect": {"status": "APPROVED", "tvr": "0000040000", "cvmResult": "420300", "cryptogram": "TC"},
               "instruction": "insert test card 7"}]}
            """
        let path = try Self.write(suite, in: sandbox)
        // Simulators this `test` cannot steer (their steering sockets are in another runtime directory): the card
        // served is the one `--suite-card` gives, and the operator's instruction is printed.
        let runtime = sandbox.environment["XDG_RUNTIME_DIR"]
        sandbox.environment["XDG_RUNTIME_DIR"] = sandbox.directory.appendingPathComponent("elsewhere").path
        let (simulator, port) = try await sandbox.startSimulator(["--suite", path, "--suite-card", "late-pin"])
        let (plain, plainPort) = try await sandbox.startSimulator([])
        defer { plain.terminate() }
        sandbox.environment["XDG_RUNTIME_DIR"] = runtime
        let run = try await sandbox.run(["--device", "tcp://127.0.0.1:\(port)", "test", path, "--unattended"])
        simulator.terminate()
        _ = await simulator.exit()
        #expect(run.status == 0, "exit \(run.status): \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("ok 1 - served\n"))
        #expect(run.stderr.contains("case 1/1 served: insert test card 7"))
        // The default card of a TCP simulator is not this one: the same case fails there, so the image was served.
        let other = try await sandbox.run(["--device", "tcp://127.0.0.1:\(plainPort)", "test", path, "--unattended"])
        #expect(other.status == 17)
        // A simulator this user's `test` can steer is given the case's card: the same case passes, unattended.
        let (steered, steeredPort) = try await sandbox.startSimulator([])
        defer { steered.terminate() }
        let passed = try await sandbox.run(["--device", "tcp://127.0.0.1:\(steeredPort)", "test", path])
        #expect(passed.status == 0, "\(passed.stdout) \(passed.stderr)")
        #expect(!passed.stderr.contains("insert test card 7"), "no operator is asked: \(passed.stderr)")
        #expect(passed.stderr.contains("case 1/1 served: the simulator presents 'late-pin' (steered)"))
    }

    @Test func anUnknownCaseIsAUsageError() async throws {
        let sandbox = try Self.sandbox()
        let run = try await sandbox.run(["--device", "sim", "test", Self.shippedSuite.path, "--case", "no such case"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("no case 'no such case'"))
    }
}
