import Foundation
import Testing

/// Every JSON output of ucube (docs/json.md) run through the built binary against the simulator, and checked against
/// its JSON Schema in docs/schemas/ by an independent validator (python3-jsonschema, draft 2020-12,
/// Tests/json/check_output.py): its keys and types, its `version`, and its stream's one style (one document, or
/// JSON lines). An output that drifts from its schema (a key added, renamed or gone, a document where lines were
/// promised) fails here; a key meant to be added goes into the schema and docs/json.md with it.
@Suite struct JSONSchemaEndToEndTests {
    enum Style: String, Sendable { case document, lines }

    /// One command's JSON output: which schema it follows, how its stream is written, and on which stream.
    struct Output: Sendable, CustomTestStringConvertible {
        let schema: String
        let arguments: [String]
        var style: Style = .document
        var stderr = false
        var exit: Int32 = 0
        var environment: [String: String] = [:]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// The schemas this suite checks outputs against; every file of docs/schemas/ is one of them.
    static let checked: Set<String> = [
        "version", "error", "pay", "pay-events", "read-card", "rpc", "rpc-list", "display", "choose", "cancel",
        "locale", "history", "history-totals", "receipt", "decode", "simulate-cards", "simulate", "sim", "diagnose",
        "connect", "mdm-register", "mdm-update", "mdm-update-plan", "send-logs", "fleet", "run-file",
    ]

    /// Outputs of one command each, on the built-in simulator.
    static let oneShot: [Output] = [
        Output(schema: "version", arguments: ["--json", "--version"]),
        Output(schema: "error", arguments: ["--json", "pay", "abc"], exit: 64),
        Output(schema: "error", arguments: ["--device", "tcp://127.0.0.1:1", "--json", "info"], exit: 5),
        Output(schema: "pay", arguments: ["--device", "sim", "pay", "10", "--json", "--receipt"]),
        Output(
            schema: "pay", arguments: ["--device", "sim", "pay", "10", "--json", "--card", "declined-aac"], exit: 10),
        Output(
            schema: "pay",
            arguments: ["--device", "sim", "pay", "10", "--json", "--card", "visa-contactless-signature"]),
        Output(
            schema: "pay-events", arguments: ["--device", "sim", "pay", "10", "--events", "--card", "mc-online-pin"],
            style: .lines, stderr: true),
        Output(
            schema: "pay-events", arguments: ["--device", "sim", "pay", "10", "--events", "--card", "card-refused"],
            style: .lines, stderr: true, exit: 12),
        Output(
            schema: "read-card", arguments: ["--device", "sim", "read-card", "--json", "--card", "visa-contactless"]),
        Output(schema: "rpc", arguments: ["--device", "sim", "info", "--json"]),
        Output(schema: "rpc", arguments: ["--device", "sim", "rpc", "cancel-all", "--json"]),
        Output(schema: "rpc-list", arguments: ["--device", "sim", "rpc", "list", "--json"]),
        Output(
            schema: "display", arguments: ["--device", "sim", "display", "Press OK", "--wait-key", "--json"],
            environment: ["UCUBE_SIM_KEYS": "01"]),
        Output(
            schema: "choose", arguments: ["--device", "sim", "choose", "Coffee", "Tea", "--json"],
            environment: ["UCUBE_SIM_CHOICES": "2"]),
        Output(schema: "cancel", arguments: ["--device", "sim", "cancel", "--json"]),
        Output(schema: "locale", arguments: ["--device", "sim", "locale", "list", "--json"]),
        Output(schema: "locale", arguments: ["--device", "sim", "locale", "set", "fr", "--json"]),
        Output(schema: "decode", arguments: ["decode", "9F0206000000001000", "--json"]),
        Output(schema: "decode", arguments: ["decode", "0201", "--json"]),
        Output(
            schema: "decode",
            arguments: [
                "decode", "--json", root.appendingPathComponent("Tests/Fixtures/btsnoop/ucube-touch-h4.btsnoop").path,
            ]
        ),
        Output(schema: "simulate-cards", arguments: ["simulate", "--list-cards", "--json"]),
        Output(schema: "diagnose", arguments: ["--device", "sim", "diagnose", "--json"]),
    ]

    @Test(arguments: oneShot) func eachOutputMatchesItsSchema(_ output: Output) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        for (name, value) in output.environment { sandbox.environment[name] = value }
        let run = try await sandbox.run(output.arguments)
        #expect(run.status == output.exit, "exit \(run.status): \(run.stderr)")
        try await Self.check(output.stderr ? run.stderr : run.stdout, output.schema, output.style, in: sandbox)
    }

    /// A payment, then what the journal, the receipt file and the recording give back of it.
    @Test func aPaymentsJournalReceiptAndRecording() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let receiptFile = sandbox.directory.appendingPathComponent("receipt.json").path
        let recording = sandbox.directory.appendingPathComponent("pay.rec").path
        let pay = try await sandbox.run([
            "--device", "sim", "--record", recording, "pay", "12.50", "--json", "--receipt-file", receiptFile,
            "--request-id", "order-1",
        ])
        #expect(pay.status == 0, "\(pay.stderr)")
        try await Self.check(pay.stdout, "pay", .document, in: sandbox)
        try await Self.check(
            try String(contentsOfFile: receiptFile, encoding: .utf8), "receipt", .document, in: sandbox)
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(pay.stdout.utf8)) as? [String: Any])?["request"]
                .flatMap { ($0 as? [String: Any])?["requestID"] as? String })
        // The same request id again takes no payment: the journal's entry is the output.
        let again = try await sandbox.run(["--device", "sim", "pay", "12.50", "--json", "--request-id", "order-1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains(#""states""#), "no second payment: \(again.stdout)")
        try await Self.check(again.stdout, "pay", .document, in: sandbox)
        for (arguments, schema) in [
            (["history", "--json"], "history"), (["history", "show", id, "--json"], "history"),
            (["history", "show", id, "--receipt", "--json"], "receipt"),
            (["history", "totals", "--json"], "history-totals"),
            (["decode", recording, "--json"], "decode"),
        ] {
            let run = try await sandbox.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            try await Self.check(run.stdout, schema, .document, in: sandbox)
        }
    }

    /// `simulate --json` (a terminal, a TMS and a host, steered from stdin), then what the terminal and the TMS answer:
    /// `sim`, `connect`, `mdm-register`, `mdm-update` (its plan and its lines) and `send-logs`.
    @Test func theSimulatorsLinesAndTheTMSCommands() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let stdin = Pipe.cloexec()
        let (process, out, _) = try sandbox.startCapturing(
            [
                "--json", "simulate", "--listen", "127.0.0.1:0", "--tms", "127.0.0.1:0", "--host", "127.0.0.1:0",
                "--state-dir", sandbox.directory.appendingPathComponent("tcp-sim").path,
            ], stdin: stdin)
        defer { process.terminate() }
        var printed = ""
        while printed.split(separator: "\n").count < 3 {
            let more = await UCubeSandbox.readUntil(out, contains: "\n")
            guard !more.isEmpty else { break }
            printed += more
        }
        let announced = TMSEndToEndTests.events(printed)
        let device = try #require(announced.first { $0["event"] as? String == "listening" }?["device"] as? String)
        let tms = try #require(announced.first { $0["event"] as? String == "tms-listening" })
        sandbox.environment["UCUBE_TMS_URL"] = try #require(tms["url"] as? String)
        sandbox.environment["UCUBE_TMS_CA"] = try #require(tms["ca"] as? String)
        let host = try #require(announced.first { $0["event"] as? String == "host-listening" })
        // A steering line, and one it refuses: each answered with a line of its own, with its time.
        for line in [#"{"sim":["card","visa-contactless"]}"#, #"{"sim":"nonsense"}"#] {
            stdin.fileHandleForWriting.write(Data((line + "\n").utf8))
            printed += await UCubeSandbox.readUntil(out, contains: "\n")
        }
        let answers = TMSEndToEndTests.events(printed).filter { $0["event"] as? String == "sim" }
        #expect(answers.map { $0["ok"] as? Bool } == [true, false], "\(printed)")
        try await Self.check(printed, "simulate", .lines, in: sandbox)

        let bundle = sandbox.directory.appendingPathComponent("bundle.zip").path
        let outputs: [(arguments: [String], schema: String, style: Style)] = [
            (["--device", device, "--json", "sim", "status"], "sim", .document),
            (["--json", "connect", device], "connect", .document),
            (["--json", "connect", "--list"], "connect", .document),
            (["--json", "connect", "--forget", device], "connect", .document),
            (["--device", device, "--json", "mdm-register"], "mdm-register", .document),
            (["--device", device, "--json", "mdm-register", "--status"], "mdm-register", .document),
            (["--device", device, "--json", "mdm-update", "--plan", "--all"], "mdm-update-plan", .document),
            (["--device", device, "--json", "mdm-update", "--all"], "mdm-update", .lines),
            (["--device", device, "--json", "send-logs", "--output", bundle], "send-logs", .document),
            (["--device", device, "--json", "send-logs"], "send-logs", .document),
            (["--device", device, "--json", "mdm-register", "--unregister"], "mdm-register", .document),
        ]
        for output in outputs {
            let run = try await sandbox.run(output.arguments)
            #expect(run.status == 0, "\(output.arguments): \(run.stderr)")
            try await Self.check(run.stdout, output.schema, output.style, in: sandbox)
        }
        // A payment the host simulator decides: `pay --json` adds the host's decision (`host`).
        sandbox.environment["UCUBE_AUTHORIZE"] = try #require(host["url"] as? String)
        sandbox.environment["UCUBE_AUTHORIZE_CA"] = try #require(host["ca"] as? String)
        let pay = try await sandbox.run(["--device", "sim", "pay", "10", "--json"])
        #expect(pay.status == 0, "\(pay.stderr)")
        #expect(pay.stdout.contains(#""host""#), "\(pay.stdout)")
        try await Self.check(pay.stdout, "pay", .document, in: sandbox)
    }

    /// A fleet run's lines (`info`, `diagnose`, `test` over two simulated terminals), a failed run's and the run file
    /// it keeps, a shard's and `fleet-merge`'s, whose failed run ends with the error object; and the shell's results,
    /// one document a line.
    @Test func fleetRunsAndTheShellAreJSONLines() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let fleet = try await FleetRunEndToEndTests.startFleet(sandbox, count: 2)
        defer { fleet.process.terminate() }
        let suite = Self.root.appendingPathComponent("Suites/payments.json").path
        let runs: [(arguments: [String], exit: Int32)] = [
            (["--json", "info", "--devices", fleet.file], 0),
            (["--json", "diagnose", "--devices", fleet.file], 0),
            (["--json", "test", suite, "--devices", fleet.file, "--case", "contact online PIN"], 0),
        ]
        for (arguments, exit) in runs {
            let run = try await sandbox.run(arguments)
            #expect(run.status == exit, "\(arguments): \(run.stderr)")
            try await Self.check(run.stdout, "fleet", .lines, in: sandbox)
        }
        // A terminal that cannot be reached fails: the run file stays, its header and a verdict a line.
        let devices = sandbox.directory.appendingPathComponent("devices-and-one-more")
        let listed = try String(contentsOfFile: fleet.file, encoding: .utf8)
        try Data((listed + (listed.hasSuffix("\n") ? "" : "\n") + "tcp://127.0.0.1:1\n").utf8).write(to: devices)
        let runFile = sandbox.directory.appendingPathComponent("run.jsonl").path
        let failed = try await sandbox.run([
            "--json", "test", suite, "--devices", devices.path, "--case", "contact online PIN", "--run-file", runFile,
        ])
        #expect(failed.status == 18, "\(failed.stderr)")
        try await Self.check(failed.stdout, "fleet", .lines, in: sandbox)
        let kept = try String(contentsOfFile: runFile, encoding: .utf8)
        #expect(kept.split(separator: "\n").count == 4, "a header and three verdicts: \(kept)")
        try await Self.check(kept, "run-file", .lines, in: sandbox)

        let shard = try await sandbox.run(["--json", "info", "--devices", fleet.file, "--shard", "1/2"])
        #expect(shard.status == 0, "\(shard.stderr)")
        let report = sandbox.directory.appendingPathComponent("shard-1.jsonl")
        try Data(shard.stdout.utf8).write(to: report)
        let merged = try await sandbox.run(["--json", "fleet-merge", report.path])
        #expect(merged.status == 18, "shard 2 is missing: \(merged.stderr)")
        #expect(merged.stdout.split(separator: "\n").last?.hasPrefix(#"{"error":"#) == true, "\(merged.stdout)")
        try await Self.check(merged.stdout, "fleet", .lines, in: sandbox)

        let script = sandbox.directory.appendingPathComponent("script.ucube")
        try "info\nrpc get-info\n".write(to: script, atomically: true, encoding: .utf8)
        let shell = try await sandbox.run(["--device", "sim", "--json", "shell", "--script", script.path])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout.split(separator: "\n").count == 2, "\(shell.stdout)")
        try await Self.check(shell.stdout, "rpc", .lines, in: sandbox)
    }

    /// The check fails on drift: an added key, a missing `version`, an indented document where lines were promised.
    @Test func aDriftedOutputFailsItsSchema() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_CHOICES"] = "2"
        let run = try await sandbox.run(["--device", "sim", "choose", "Coffee", "Tea", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        try await Self.check(run.stdout, "choose", .document, in: sandbox)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        var drifted = object
        drifted["colour"] = "red"
        object.removeValue(forKey: "version")
        for (text, style) in [
            (try Self.text(drifted), Style.document), (try Self.text(object), .document), (run.stdout, .lines),
        ] {
            let (status, said) = try await Self.validate(text, "choose", style, in: sandbox)
            #expect(status == 1, "\(style) \(text) passed: \(said)")
        }
    }

    /// Every schema in docs/schemas/ is listed in docs/json.md and checked by this suite.
    @Test func everySchemaIsDocumentedAndChecked() throws {
        let directory = Self.root.appendingPathComponent("docs/schemas")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".schema.json")
        }
        let names = Set(files.map { String($0.dropLast(".schema.json".count)) })
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/json.md"), encoding: .utf8)
        for file in files { #expect(page.contains("schemas/\(file)"), "docs/json.md does not list \(file)") }
        // scan needs Bluetooth: its schema is the one no run here can check.
        #expect(names.subtracting(Self.checked) == ["scan"])
        #expect(Self.checked.isSubset(of: names))
    }

    // MARK: Checking

    static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// `text` matches docs/schemas/SCHEMA.schema.json, in `style`.
    static func check(_ text: String, _ schema: String, _ style: Style, in sandbox: UCubeSandbox) async throws {
        let (status, said) = try await validate(text, schema, style, in: sandbox)
        #expect(status == 0, "\(schema) (\(style)): \(said)")
        #expect(said.hasSuffix(" valid\n") && !said.hasPrefix("0 "), "\(said)")
    }

    /// Runs Tests/json/check_output.py on `text`: its exit status and what it said.
    static func validate(
        _ text: String, _ schema: String, _ style: Style, in sandbox: UCubeSandbox
    ) async throws -> (Int32, String) {
        let file = sandbox.directory.appendingPathComponent("output-\(UUID().uuidString.prefix(8)).json")
        try Data(text.utf8).write(to: file)
        let schemaPath = root.appendingPathComponent("docs/schemas/\(schema).schema.json").path
        let checker = root.appendingPathComponent("Tests/json/check_output.py").path
        let run = try await UCubeSandbox.python3([checker, schemaPath, style.rawValue, file.path])
        return (run.status, run.output)
    }
}
