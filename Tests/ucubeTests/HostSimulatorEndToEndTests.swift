import Foundation
import Testing

/// A payment a host decides, end to end (issue 37): `ucube pay` on the built-in simulator's cards, whose cryptograms
/// are real, against `ucube simulate --host` (docs/host-simulator.md), which deciphers the SRED data, verifies the ARQC
/// and answers with an ARPC the card checks; through the https form (`--authorize https://…`) and the exec form (an
/// exec hook that forwards to it: docs/examples/forward-to-host.py). Every request an exec hook forwards is validated
/// against docs/authorization-request.schema.json.
@Suite struct HostSimulatorEndToEndTests {
    /// A running `ucube simulate --host 127.0.0.1:0` of a sandbox: its URL, its CA file and its log.
    struct Host {
        let process: Process
        let url: String
        let ca: String
        let log: URL

        /// The log's entries (JSON Lines, masked).
        func entries() throws -> [[String: Any]] {
            try HostAuthorizationEndToEndTests.documents(log)
        }

        func reversals(_ requestID: String) throws -> [[String: Any]] {
            try entries().filter { $0["type"] as? String == "reversal" && $0["requestId"] as? String == requestID }
        }
    }

    static func sandbox() throws -> UCubeSandbox {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        return sandbox
    }

    /// Starts the host simulator with `faults` and reads the address and CA it prints.
    static func startHost(_ sandbox: UCubeSandbox, faults: [String] = []) async throws -> Host {
        let log = sandbox.directory.appendingPathComponent("host-\(UUID().uuidString).jsonl")
        let (process, out, _) = try sandbox.startCapturing(
            ["simulate", "--host", "127.0.0.1:0", "--host-log", log.path] + faults.flatMap { ["--host-fault", $0] })
        let text = await UCubeSandbox.readUntil(out, contains: "export ")
        // `export UCUBE_AUTHORIZE=URL UCUBE_AUTHORIZE_CA=FILE` (the sandbox's paths need no quoting).
        let line = text.split(separator: "\n").first { $0.hasPrefix("export ") } ?? ""
        var values: [String: String] = [:]
        for word in line.split(separator: " ").dropFirst() {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard let url = values["UCUBE_AUTHORIZE"], let ca = values["UCUBE_AUTHORIZE_CA"] else {
            process.terminate()
            throw SandboxError(message: "simulate --host printed no export line: \(text)")
        }
        return Host(process: process, url: url, ca: ca, log: log)
    }

    /// `pay AMOUNT` with the visa-contact card (online ARQC, real cryptograms) through `authorize`, as JSON.
    static func pay(
        _ sandbox: UCubeSandbox, _ amount: String, authorize: [String], requestID: String, card: String = "visa-contact"
    ) async throws -> (UCubeRun, [String: Any]) {
        let run = try await sandbox.run(
            [
                "--device", "sim", "--json", "pay", amount, "--currency", "EUR", "--card", card, "--request-id",
                requestID,
            ]
                + authorize)
        return (run, try HostAuthorizationEndToEndTests.json(run))
    }

    static func https(_ host: Host, timeout: Int = 30) -> [String] {
        ["--authorize", host.url, "--authorize-ca", host.ca, "--authorize-timeout", String(timeout)]
    }

    /// An exec hook that keeps each request in `requests.jsonl`, lets `change` (Python, on the parsed document `d`)
    /// alter it, and forwards it with docs/examples/forward-to-host.py.
    static func forwardingHook(_ sandbox: UCubeSandbox, host: Host, change: String = "pass") throws -> (
        [String], requests: URL
    ) {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let forward = root.appendingPathComponent("docs/examples/forward-to-host.py")
        let requests = sandbox.directory.appendingPathComponent("requests.jsonl")
        let script = sandbox.directory.appendingPathComponent("forward.sh")
        let text = """
            #!/bin/sh
            request=$(cat)
            printf '%s\\n' "$request" >> '\(requests.path)'
            printf '%s' "$request" | python3 -c '
            import json, sys
            d = json.load(sys.stdin)
            if d.get("type") == "authorization":
                \(change)
            json.dump(d, sys.stdout)
            ' | python3 '\(forward.path)'

            """
        try text.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        sandbox.environment["UCUBE_HOST_URL"] = host.url
        sandbox.environment["UCUBE_AUTHORIZE_CA"] = host.ca
        return (["--authorize", "exec:" + script.path], requests)
    }

    // MARK: The https form

    /// The host's amount rules decide; the card checks the ARPC of each answer (an approval it accepts ends APPROVED).
    @Test(arguments: [
        ("12.50", "approve", "00", "APPROVED", Int32(0)),
        ("12.05", "decline", "05", "DECLINED", Int32(10)),
        ("12.51", "decline", "51", "DECLINED", Int32(10)),
    ])
    func theHostDecidesOverHTTPS(amount: String, decision: String, code: String, status: String, exit: Int32)
        async throws
    {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox)
        defer { host.process.terminate() }
        let id = "https-\(amount)"
        let (run, result) = try await Self.pay(sandbox, amount, authorize: Self.https(host), requestID: id)
        #expect(run.status == exit, "\(run.stderr)")
        #expect(result["status"] as? String == status, "\(result)")
        let answer = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(answer["decision"] as? String == decision)
        #expect(answer["responseCode"] as? String == code)
        #expect((answer["hostReference"] as? String)?.hasPrefix("HS") == true, "\(answer)")
        // What the host saw: the request, its ARQC valid, the PAN masked; and no reversal (nothing to undo).
        let seen = try host.entries().filter { $0["requestId"] as? String == id }
        #expect(seen.count == 1, "\(seen)")
        #expect(seen.first?["arqc"] as? String == "valid", "\(seen)")
        #expect(seen.first?["maskedPan"] as? String == "476173******0010")
        // The journal keeps both decisions.
        let entry = try HostAuthorizationEndToEndTests.json(
            try await sandbox.run(["--json", "history", "show", id]))
        #expect(entry["hostDecision"] as? String == decision)
        #expect(entry["status"] as? String == status)
    }

    /// Each way a host fails is "unable to go online" (8A 98): the card decides with the terminal's default action
    /// codes (this card declines), and the outcome names the cause.
    @Test(arguments: [
        ([String](), "12.12", "timeout"),
        (["status:500"], "12.50", "http-status"),
        (["status:503"], "12.50", "http-status"),
        (["malformed"], "12.50", "malformed-answer"),
        (["timeout"], "12.50", "timeout"),
    ])
    func eachUnableCauseOverHTTPSEndsAsEMVSays(faults: [String], amount: String, code: String) async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox, faults: faults)
        defer { host.process.terminate() }
        // The host never answers a timeout case: 2 s is the verdict's whole wait, whatever the machine's speed.
        let (run, result) = try await Self.pay(
            sandbox, amount, authorize: Self.https(host, timeout: 2), requestID: "unable-\(code)-\(faults.count)")
        let answer = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(answer["decision"] as? String == "unable")
        #expect(answer["responseCode"] as? String == "98")
        #expect(answer["problemCode"] as? String == code, "\(answer)")
        #expect(result["status"] as? String == "DECLINED", "\(run.stderr)")
        #expect(run.status == 10)
    }

    /// A host whose certificate the payment does not trust (no --authorize-ca, and the simulator's CA is no system CA)
    /// is unreachable, and said so with what to do.
    @Test func anUntrustedHostIsUnreachable() async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox)
        defer { host.process.terminate() }
        let (_, result) = try await Self.pay(
            sandbox, "12.50", authorize: ["--authorize", host.url], requestID: "untrusted")
        let answer = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(answer["problemCode"] as? String == "unreachable")
        #expect((answer["problem"] as? String)?.contains("--authorize-ca") == true, "\(answer)")
        #expect(try host.entries().isEmpty)
    }

    /// The host's ARPC is wrong: the card declines at the second GENERATE AC, and the host gets exactly one reversal of
    /// its approval, acknowledged; later commands send no other.
    @Test func aWrongARPCMakesTheCardDeclineAndTheHostGetsOneReversal() async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox, faults: ["wrong-arpc"])
        defer { host.process.terminate() }
        let (run, result) = try await Self.pay(sandbox, "12.50", authorize: Self.https(host), requestID: "wrong-arpc")
        #expect(run.status == 10, "\(run.stderr)")
        #expect(result["status"] as? String == "DECLINED")
        let answer = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(answer["decision"] as? String == "approve")
        #expect(answer["reversal"] as? String == "acknowledged", "\(answer)")
        #expect(try host.reversals("wrong-arpc").count == 1)
        _ = try await sandbox.run(["history"])
        #expect(try host.reversals("wrong-arpc").count == 1)
        let entry = try HostAuthorizationEndToEndTests.json(
            try await sandbox.run(["--json", "history", "show", "wrong-arpc"]))
        let reversal = try #require(entry["reversal"] as? [String: Any], "\(entry)")
        #expect(reversal["acknowledged"] as? Bool == true)
    }

    /// A card that declines at the second GENERATE AC whatever the host says: one reversal of the approval.
    @Test func aCardThatDeclinesAfterTheApprovalIsReversedOnce() async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox)
        defer { host.process.terminate() }
        let (_, result) = try await Self.pay(
            sandbox, "12.50", authorize: Self.https(host), requestID: "second-ac", card: "declines-second-ac")
        #expect(result["status"] as? String == "DECLINED")
        #expect(try host.reversals("second-ac").count == 1)
    }

    /// The terminal's own hook (`connect --authorize`, devices.json) is the payment's when its line gives none.
    @Test func aTerminalRemembersItsHost() async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox)
        defer { host.process.terminate() }
        let connect = try await sandbox.run([
            "connect", "sim", "--authorize", host.url, "--authorize-ca", host.ca,
        ])
        #expect(connect.status == 0, "\(connect.stderr)")
        let (run, result) = try await Self.pay(sandbox, "12.51", authorize: [], requestID: "remembered")
        #expect(run.status == 10, "\(run.stderr)")
        let answer = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(answer["responseCode"] as? String == "51")
    }

    /// A suite case's `"authorize": "host"` asks the terminal's hook (here $UCUBE_AUTHORIZE and its CA), and the
    /// host's decisions are the cases' outcomes.
    @Test func aSuiteCaseAsksTheTerminalsHost() async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox)
        defer { host.process.terminate() }
        sandbox.environment["UCUBE_AUTHORIZE"] = host.url
        sandbox.environment["UCUBE_AUTHORIZE_CA"] = host.ca
        let suite = sandbox.directory.appendingPathComponent("host-suite.json")
        try """
        {"name": "host", "cases": [
          {"name": "host approves", "card": "visa-contact", "request": {"amount": "12.50", "authorize": "host"},
           "expect": {"status": "APPROVED"}},
          {"name": "host declines 51", "card": "visa-contact", "request": {"amount": "12.51", "authorize": "host"},
           "expect": {"status": "DECLINED"}}
        ]}
        """.write(to: suite, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["--device", "sim", "test", suite.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("ok 1 - host approves\n"))
        #expect(run.stdout.contains("ok 2 - host declines 51\n"))
        let decisions = try host.entries().compactMap { $0["responseCode"] as? String }
        #expect(decisions == ["00", "51"], "\(decisions)")
    }

    // MARK: The exec form

    /// The docs' exec hook forwards to the host simulator: it approves, and every request is valid against the
    /// schema; a hook that flips one bit of 9F26 on the way gets a decline (the ARQC does not verify).
    @Test func theExecFormForwardsAndAFlippedCryptogramBitIsDeclined() async throws {
        let sandbox = try Self.sandbox()
        let host = try await Self.startHost(sandbox)
        defer { host.process.terminate() }
        let (plain, requests) = try Self.forwardingHook(sandbox, host: host)
        let (run, result) = try await Self.pay(sandbox, "12.50", authorize: plain, requestID: "exec-forward")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(result["status"] as? String == "APPROVED")
        try await HostAuthorizationEndToEndTests.validateRequests(requests)

        let flipping = try Self.sandbox()
        let (flipped, flippedRequests) = try Self.forwardingHook(
            flipping, host: host,
            change: #"a = bytearray.fromhex(d["emv"]["9F26"]); a[0] ^= 1; d["emv"]["9F26"] = a.hex().upper()"#)
        let (declinedRun, declined) = try await Self.pay(flipping, "12.50", authorize: flipped, requestID: "exec-flip")
        #expect(declinedRun.status == 10, "\(declinedRun.stderr)")
        #expect(declined["status"] as? String == "DECLINED")
        let answer = try #require(declined["host"] as? [String: Any], "\(declined)")
        #expect(answer["decision"] as? String == "decline")
        let seen = try host.entries().filter { $0["requestId"] as? String == "exec-flip" }
        #expect(seen.first?["arqc"] as? String == "invalid", "\(seen)")
        try await HostAuthorizationEndToEndTests.validateRequests(flippedRequests)
    }
}
