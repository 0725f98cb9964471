import Foundation
import Testing

/// `ucube test` as a script and an operator rely on it (issue 25, items 2, 4, 5): a signal or `ucube cancel` stops the
/// whole run with its report still written and readable; a report on stdout gets no JSON appended; a terminal that
/// cannot be reached bails out before the first case, with the link's exit code.
@Suite struct TestRunStopTests {
    /// Three cases: an approval, one that waits two minutes for a card, another approval.
    static func suite(_ sandbox: UCubeSandbox) throws -> String {
        let path = sandbox.directory.appendingPathComponent("stop.json").path
        let json = """
            {"name": "stop", "cases": [
              {"name": "first", "card": "visa-contact", "request": {"amount": "1.00"}, "expect": {"status": "APPROVED"}},
              {"name": "waits", "card": "card-timeout", "request": {"amount": "2.00", "cardTimeout": 120},
               "expect": {"status": "CARD_WAIT_FAILED"}},
              {"name": "third", "card": "visa-contact", "request": {"amount": "3.00"}, "expect": {"status": "APPROVED"}}
            ]}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A JUnit document Python's own XML parser reads: each case's outcome, by name.
    static func junitOutcomes(_ path: String) throws -> [String: String] {
        let script = """
            import sys, xml.dom.minidom
            doc = xml.dom.minidom.parse(sys.argv[1])
            for c in doc.getElementsByTagName("testcase"):
                kind = "failure" if c.getElementsByTagName("failure") else "skipped" if c.getElementsByTagName("skipped") else "passed"
                detail = c.getElementsByTagName("failure")[0].getAttribute("type") if kind == "failure" else ""
                print(c.getAttribute("name") + "=" + kind + ((":" + detail) if detail else ""))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let out = Pipe.cloexec()
        process.standardOutput = out
        try UCubeSandbox.start(process)
        let text = String(decoding: out.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the JUnit report does not parse")
        return Dictionary(
            uniqueKeysWithValues: text.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            })
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalStopsTheWholeRunAndTheReportIsWritten(signal: Int32) async throws {
        let sandbox = try UCubeSandbox()
        let suite = try Self.suite(sandbox)
        let report = sandbox.directory.appendingPathComponent("r.xml").path
        let run = try sandbox.startCapturing([
            "--device", "sim", "test", suite, "--format", "junit", "--output", report,
        ])
        // "ok 1 - first" on stderr: the second case is now waiting for its card.
        let seen = await UCubeSandbox.readUntil(run.stderr, contains: "ok 1 - first")
        #expect(seen.contains("ok 1 - first"))
        kill(run.process.processIdentifier, signal)
        #expect(await run.process.exit() == 11)
        let outcomes = try Self.junitOutcomes(report)
        #expect(outcomes["first"] == "passed")
        #expect(outcomes["waits"] == "failure:interrupted" || outcomes["waits"] == "skipped", "\(outcomes)")
        #expect(outcomes["third"] == "skipped", "\(outcomes)")
    }

    /// TAP on stdout, stopped by `ucube cancel` during the card wait: `prove` reads it, and the rest is SKIP.
    @Test func cancelStopsTheRunAndTAPStaysValid() async throws {
        let sandbox = try UCubeSandbox()
        let suite = try Self.suite(sandbox)
        let (server, port) = try await sandbox.startSimulator(["--card", "card-timeout"])
        defer { server.terminate() }
        let device = "tcp://127.0.0.1:\(port)"
        let run = try sandbox.startCapturing([
            "--device", device, "test", suite, "--unattended", "--case", "waits", "--case", "third",
        ])
        let seen = await UCubeSandbox.readUntil(run.stderr, contains: "case 1/2 waits")
        #expect(seen.contains("case 1/2"))
        // The payment holds the terminal once its card wait is under way; cancel until it is reached.
        var cancelled = false
        for _ in 0..<100 where !cancelled {
            let cancel = try await sandbox.run(["--device", device, "cancel"])
            cancelled = cancel.status == 0 && cancel.stdout.contains("cancelling")
            if !cancelled { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(cancelled)
        #expect(await run.process.exit() == 11)
        let tap = await UCubeSandbox.readToEnd(run.stdout)
        #expect(tap.contains("ok 2 - third # SKIP"), "\(tap)")
        let file = sandbox.directory.appendingPathComponent("stopped.tap")
        try Data(tap.utf8).write(to: file)
        let prove = Process()
        prove.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        prove.arguments = [
            "perl", "-MTAP::Parser", "-e",
            "my $p = TAP::Parser->new({source => $ARGV[0]}); while (my $r = $p->next) {}; print $p->is_good_plan ? \"plan ok\\n\" : \"bad plan\\n\"; print 'failed ', scalar($p->failed), \"\\n\"; print 'skipped ', scalar($p->skipped), \"\\n\";",
            file.path,
        ]
        let out = Pipe.cloexec()
        prove.standardOutput = out
        try UCubeSandbox.start(prove)
        let verdict = String(decoding: out.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
        prove.waitUntilExit()
        #expect(
            verdict.contains("plan ok") && verdict.contains("failed 1") && verdict.contains("skipped 1"), "\(verdict)")
    }

    /// `--json` with the report on stdout: the JUnit document is all there is, even for a failing run.
    @Test func jsonAppendsNothingToAReportOnStdout() async throws {
        let sandbox = try UCubeSandbox()
        let path = sandbox.directory.appendingPathComponent("fail.json").path
        try Data(
            #"{"name":"f","cases":[{"name":"wrong","card":"visa-contact","request":{"amount":"1.00"},"expect":{"status":"DECLINED"}}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: path))
        let run = try await sandbox.run(["--json", "--device", "sim", "test", path, "--format", "junit"])
        #expect(run.status == 17)
        let report = sandbox.directory.appendingPathComponent("stdout.xml")
        try Data(run.stdout.utf8).write(to: report)
        #expect(try Self.junitOutcomes(report.path)["wrong"] == "failure:mismatch")
        #expect(!run.stdout.contains("\"error\""), "\(run.stdout)")
    }

    /// A terminal that does not answer: one link error, TAP's Bail out!, the link's exit code; no case is run.
    @Test func anUnreachableTerminalBailsOutBeforeTheFirstCase() async throws {
        let sandbox = try UCubeSandbox()
        let suite = try Self.suite(sandbox)
        let (listener, port) = try FakeTerminal.listenOnLoopback()  // accepts, never answers
        defer { close(listener) }
        let run = try await sandbox.run([
            "--device", "tcp://127.0.0.1:\(port)", "--rpc-timeout", "1", "test", suite, "--unattended",
        ])
        #expect(run.status == 4 || run.status == 5, "\(run.status) \(run.stderr)")
        #expect(run.stdout.contains("Bail out!"), "\(run.stdout)")
        #expect(!run.stdout.contains("ok 1"), "\(run.stdout)")
        #expect(!run.stderr.contains("case 1/3"), "\(run.stderr)")
    }
}
