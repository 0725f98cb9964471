import Foundation
import Testing

/// `pay --authorize exec:PROGRAM` (docs/authorization.md) against the built-in simulator: each hook here is a shell
/// script that records every document it gets, one a line, and answers as the test says. Every request the hooks get
/// is validated against docs/authorization-request.schema.json by an independent validator (Python's `jsonschema`).
@Suite struct HostAuthorizationEndToEndTests {
    /// A sandbox whose simulator runs fast, and a hook script in it: `body` is the shell that answers (the request is in
    /// "$request"); every document the hook gets is appended to `requests.jsonl`.
    static func sandbox(hook body: String) throws -> (UCubeSandbox, hook: String, log: URL) {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let log = sandbox.directory.appendingPathComponent("requests.jsonl")
        let script = sandbox.directory.appendingPathComponent("hook.sh")
        let text = """
            #!/bin/sh
            request=$(cat)
            printf '%s\\n' "$request" >> '\(log.path)'
            case "$request" in
            *'"type":"reversal"'*) echo '{"acknowledged": true}'; exit 0 ;;
            esac
            \(body)

            """
        try text.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return (sandbox, "exec:" + script.path, log)
    }

    /// The documents the hook got, parsed.
    static func documents(_ log: URL) throws -> [[String: Any]] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Every authorisation request in `log` is valid against the schema (python3-jsonschema, an independent
    /// validator of JSON Schema 2020-12).
    static func validateRequests(_ log: URL) async throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let schema = root.appendingPathComponent("docs/authorization-request.schema.json")
        let check = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            count = 0
            for line in open(sys.argv[2]):
                document = json.loads(line)
                if document.get("type") != "authorization":
                    continue
                errors = sorted(validator.iter_errors(document), key=str)
                if errors:
                    print("invalid request:", [e.message for e in errors], line)
                    sys.exit(1)
                count += 1
            print(count, "valid")
            """
        let result = try await UCubeSandbox.python3(["-c", check, schema.path, log.path])
        #expect(result.0 == 0, "\(result.1)")
        #expect(!result.1.hasPrefix("0 valid"), "no request was validated: \(result.1)")
    }

    /// The JSON result: the whole output (a journalled payment is printed as a document), else its last line (a
    /// payment's result follows any error line).
    static func json(_ run: UCubeRun) throws -> [String: Any] {
        if let whole = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] {
            return whole
        }
        let line = try #require(run.stdout.split(separator: "\n").last, "no output: \(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(object, "\(run.stdout)")
    }

    @Test func anApprovalIsTheHostsAndTheRequestCarriesWhatAHostChecks() async throws {
        let (sandbox, hook, log) = try Self.sandbox(
            hook: #"echo '{"decision": "approve", "hostReference": "AUTH-1"}'"#)
        let run = try await sandbox.run([
            "--device", "sim", "--json", "pay", "12.50", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook, "--request-id", "host-approve-1",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try Self.json(run)
        #expect(result["status"] as? String == "APPROVED")
        let host = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(host["decision"] as? String == "approve")
        #expect(host["hostReference"] as? String == "AUTH-1")
        let requests = try Self.documents(log)
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request["type"] as? String == "authorization")
        #expect(request["requestId"] as? String == "host-approve-1")
        #expect(request["amount"] as? Int == 1250)
        #expect(request["currency"] as? String == "EUR")
        let emv = try #require(request["emv"] as? [String: String])
        for tag in ["9F26", "9F27", "9F36", "9F37", "95", "9F02", "5F2A", "82"] {
            #expect(emv[tag] != nil, "\(tag) missing from \(emv)")
        }
        let sred = try #require(request["sred"] as? [String: String], "\(request)")
        #expect((sred["data"]?.count ?? 0) >= 16)
        // No clear PAN anywhere in what the host got: the simulator's card is 4761739001010119.
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(!text.contains("4761739001010119"))
        try await Self.validateRequests(log)
        // The journal keeps both decisions.
        let show = try await sandbox.run(["--json", "history", "show", "host-approve-1"])
        let entry = try Self.json(show)
        #expect(entry["hostDecision"] as? String == "approve")
        #expect(entry["status"] as? String == "APPROVED")
    }

    @Test func aDeclineCarriesItsResponseCode() async throws {
        let (sandbox, hook, log) = try Self.sandbox(hook: #"echo '{"decision": "decline", "responseCode": "51"}'"#)
        let run = try await sandbox.run([
            "--device", "sim", "--json", "pay", "30.00", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook,
        ])
        #expect(run.status == 10, "\(run.stderr)")
        let result = try Self.json(run)
        #expect(result["status"] as? String == "DECLINED")
        let host = try #require(result["host"] as? [String: Any])
        #expect(host["decision"] as? String == "decline")
        #expect(host["responseCode"] as? String == "51")
        // A decline owes no reversal.
        #expect(try Self.documents(log).filter { $0["type"] as? String == "reversal" }.isEmpty)
        try await Self.validateRequests(log)
    }

    /// Each way a host can fail is "unable to go online": 8A 98, the card decides (the simulated contact card
    /// declines), and the outcome names the cause.
    @Test(arguments: [
        ("sleep 30; echo '{\"decision\": \"approve\"}'", "timeout"),
        ("echo 'gateway down' >&2; exit 3", "bad-exit"),
        ("echo 'this is not json'", "malformed-answer"),
        ("echo '{\"decision\": \"approve\", \"responseCode\": \"05\"}'", "malformed-answer"),
        ("kill -9 $$", "killed"),
    ])
    func eachUnableCauseEndsAsEMVSays(body: String, code: String) async throws {
        let (sandbox, hook, log) = try Self.sandbox(hook: body)
        let run = try await sandbox.run([
            "--device", "sim", "--json", "pay", "8.00", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook, "--authorize-timeout", "1",
        ])
        let result = try Self.json(run)
        let host = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(host["decision"] as? String == "unable")
        #expect(host["responseCode"] as? String == "98")
        #expect(host["problemCode"] as? String == code, "\(host)")
        #expect(result["status"] as? String == "DECLINED", "\(result["status"] ?? "none"): \(run.stderr)")
        #expect(run.status == 10)
        #expect(run.stderr.contains("unable to go online"), "\(run.stderr)")
        try await Self.validateRequests(log)
    }

    /// The host approved, then the link dropped before the card's second GENERATE AC: the payment does not end
    /// APPROVED, and the host gets one reversal with the payment's request id and the host's reference.
    @Test func anApprovalThePaymentDoesNotKeepIsReversedOnce() async throws {
        let (sandbox, hook, log) = try Self.sandbox(
            hook: #"echo '{"decision": "approve", "hostReference": "AUTH-9"}'"#)
        // The simulator drops the link at the frame that carries the second GENERATE AC (TransactionFinalisation).
        sandbox.environment["UCUBE_SIM_FAULT"] = "drop@" + String(try await Self.finalisationFrame(hook: hook))
        let run = try await sandbox.run([
            "--device", "sim", "--json", "pay", "12.00", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook, "--request-id", "host-reverse-1",
        ])
        #expect(run.status != 0, "\(run.stdout)")
        let result = try Self.json(run)
        #expect(result["status"] as? String != "APPROVED")
        let host = try #require(result["host"] as? [String: Any], "\(result)")
        #expect(host["reversal"] as? String == "acknowledged", "\(host)")
        let reversals = try Self.documents(log).filter { $0["type"] as? String == "reversal" }
        #expect(reversals.count == 1)
        #expect(reversals.first?["requestId"] as? String == "host-reverse-1")
        #expect(reversals.first?["hostReference"] as? String == "AUTH-9")
        // Later commands send nothing more.
        _ = try await sandbox.run(["history"])
        #expect(try Self.documents(log).filter { $0["type"] as? String == "reversal" }.count == 1)
    }

    /// The position of TransactionFinalisation among the frames a fresh simulator gets for a contact payment with the
    /// host `hook`, from a trace of one such payment in a sandbox of its own.
    static func finalisationFrame(hook: String) async throws -> Int {
        let probe = try UCubeSandbox()
        probe.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let traced = try await probe.run([
            "--device", "sim", "--trace", "pay", "1.00", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook,
        ])
        // "> 02 00 …" is a frame sent, and the line under it names its command.
        var sent = 0
        for line in traced.stderr.split(separator: "\n") {
            if line.hasPrefix("> ") { sent += 1 }
            if line.contains("CMD") && line.contains("TransactionFinalisation") && sent > 0 { return sent }
        }
        Issue.record("no TransactionFinalisation in the trace: \(traced.stderr.suffix(2000))")
        return 1
    }

    /// The process dies (kill -9, from the hook itself, right after the host approved): the reversal is owed, the
    /// history lists it, and the next command that opens the journal sends it, exactly once.
    @Test func aKilledPaymentsReversalIsSentByTheNextCommandOnce() async throws {
        let (sandbox, hook, log) = try Self.sandbox(
            hook: """
                case "$request" in
                *'"requestId":"host-killed-1"'*)
                    echo '{"decision": "approve", "hostReference": "AUTH-K"}'
                    # ucube is the parent of the `sh -c` that runs this script: field 4 of its /proc stat.
                    read -r _ _ _ ucube _ < /proc/$PPID/stat
                    kill -9 "$ucube" ;;
                *) echo '{"decision": "approve"}' ;;
                esac
                """)
        let run = try await sandbox.run([
            "--device", "sim", "pay", "15.00", "--currency", "EUR", "--card", "visa-contact", "--authorize", hook,
            "--request-id", "host-killed-1",
        ])
        #expect(run.status == 9, "killed by SIGKILL: \(run.status) \(run.stderr)")
        #expect(try Self.documents(log).filter { $0["type"] as? String == "reversal" }.isEmpty)
        // The next command sends it; the one after sends nothing more.
        let history = try await sandbox.run(["history"])
        #expect(history.stderr.contains("reversal of host-killed-1 acknowledged"), "\(history.stderr)")
        _ = try await sandbox.run(["history"])
        _ = try await sandbox.run([
            "--device", "sim", "pay", "1.00", "--currency", "EUR", "--card", "visa-contact", "--authorize", hook,
        ])
        let reversals = try Self.documents(log).filter { $0["type"] as? String == "reversal" }
        #expect(reversals.count == 1, "\(reversals)")
        #expect(reversals.first?["requestId"] as? String == "host-killed-1")
    }

    /// A host that does not acknowledge the reversal: it stays owed, `history --unresolved` lists it, and each command
    /// that opens the journal tries again until the host acknowledges it; then it is listed no more.
    @Test func anUnacknowledgedReversalStaysOwedAndListed() async throws {
        let (sandbox, hook, log) = try Self.sandbox(
            hook: #"echo '{"decision": "approve", "hostReference": "AUTH-U"}'"#)
        let refuse = sandbox.directory.appendingPathComponent("refuse-reversals")
        try Data().write(to: refuse)
        // The reversal branch acknowledges unless the file says not to (the hook's own first lines answer it).
        let script = sandbox.directory.appendingPathComponent("hook.sh")
        let text = try String(contentsOf: script, encoding: .utf8).replacingOccurrences(
            of: #"*'"type":"reversal"'*) echo"#,
            with: #"*'"type":"reversal"'*) [ -e '\#(refuse.path)' ] && exit 1; echo"#)
        try text.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        sandbox.environment["UCUBE_SIM_FAULT"] = "drop@" + String(try await Self.finalisationFrame(hook: hook))
        let run = try await sandbox.run([
            "--device", "sim", "--json", "pay", "11.00", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook, "--request-id", "host-unacked-1",
        ])
        let host = try #require(try Self.json(run)["host"] as? [String: Any], "\(run.stdout)")
        #expect(host["reversal"] as? String == "owed", "\(host) \(run.stderr)")
        let listed = try await sandbox.run(["history", "--unresolved"])
        #expect(listed.stdout.contains("host-unacked-1"), "\(listed.stdout)")
        #expect(listed.stdout.contains("reversal owed"), "\(listed.stdout)")
        // The host comes back: the next command's reversal is acknowledged, and it is listed no more.
        try FileManager.default.removeItem(at: refuse)
        let again = try await sandbox.run(["history", "--unresolved"])
        #expect(again.stderr.contains("reversal of host-unacked-1 acknowledged"), "\(again.stderr)")
        #expect(!again.stdout.contains("host-unacked-1"), "\(again.stdout)")
        let reversals = try Self.documents(log).filter { $0["type"] as? String == "reversal" }
        // One refused at the payment's end, one refused by the first listing, one acknowledged.
        #expect(reversals.count == 3, "\(reversals.count)")
        #expect(Set(reversals.compactMap { $0["requestId"] as? String }) == ["host-unacked-1"])
    }

    /// A request id pays once: again, it prints the recorded outcome and takes no payment; at the same time, one pays
    /// and the other exits 7.
    @Test func aRequestIDPaysOnceEvenConcurrently() async throws {
        // The hook holds its answer while $UCUBE_TEST_HOLD names a file that does not exist yet.
        let (sandbox, hook, log) = try Self.sandbox(
            hook: #"while [ -n "$UCUBE_TEST_HOLD" ] && [ ! -e "$UCUBE_TEST_HOLD" ]; do sleep 0.05; done; "#
                + #"echo '{"decision": "approve"}'"#)
        let arguments = [
            "--device", "sim", "--json", "pay", "9.99", "--currency", "EUR", "--card", "visa-contact", "--authorize",
            hook, "--request-id", "once-1",
        ]
        let first = try await sandbox.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await sandbox.run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.json(again)["status"] as? String == "APPROVED")
        #expect(try Self.documents(log).count == 1, "the second run asked the host again")

        // Two at once, with a new id. The id is claimed before the link opens: the one that loses is refused for its
        // request id, not for the terminal (the JSON error's code says which). The winner waits at the host until the
        // loser has ended, so the two overlap however slow the machine is; then the host answers.
        let hold = sandbox.directory.appendingPathComponent("release")
        sandbox.environment["UCUBE_TEST_HOLD"] = hold.path
        let concurrent = Array(arguments.dropLast()) + ["once-2", "--authorize-timeout", "900"]
        let runs = try await withThrowingTaskGroup(of: UCubeRun.self) { group in
            group.addTask { try await sandbox.run(concurrent) }
            group.addTask { try await sandbox.run(concurrent) }
            let loser = try #require(try await group.next())
            _ = FileManager.default.createFile(atPath: hold.path, contents: nil)
            let winner = try #require(try await group.next())
            return [winner, loser]
        }
        #expect(runs.map(\.status) == [0, 7], "\(runs.map(\.stderr))")
        #expect(runs[1].stdout.contains(#""code":"request-id-running""#), "\(runs[1].stdout)")
        let journal = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl"), encoding: .utf8)
        let starts = journal.split(separator: "\n").filter {
            $0.contains(#""kind":"start""#) && $0.contains(#""requestID":"once-2""#)
        }
        #expect(starts.count == 1, "\(starts)")
    }
}
