import Foundation
import Testing

/// End of day (issue 37, item 6): `history --since/--until/--status/--device` and `history totals`, run as a user
/// runs them, over payments the built-in simulator took and over a journal written by hand.
@Suite struct HistoryTotalsEndToEndTests {
    static func journalURL(_ sandbox: UCubeSandbox) -> URL {
        sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl")
    }

    /// The journal's records, each a JSON object.
    static func records(_ sandbox: UCubeSandbox) throws -> [[String: Any]] {
        let text = try String(contentsOf: journalURL(sandbox), encoding: .utf8)
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Appends lines to the journal, as another writer of it (the host layer's reversal records) would.
    static func append(_ lines: [String], to sandbox: UCubeSandbox) throws {
        let url = journalURL(sandbox)
        let directory = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        if !FileManager.default.fileExists(atPath: url.path) {
            #expect(
                FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]))
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8))
        try handle.close()
    }

    static func json(_ run: UCubeRun) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    static func list(_ run: UCubeRun) throws -> [[String: Any]] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run.stdout)")
    }

    /// The totals, computed from the journal's records here, independently of ucube's reading: each payment by its
    /// request id, counted by its reversal, else its resolution, else its outcome's status; keyed by
    /// "CURRENCY TYPE simulated?" and status, each `[count, amount]`.
    static func expectedTotals(_ records: [[String: Any]]) -> (groups: [String: [String: [Int]]], others: [String: Int])
    {
        var order: [String] = []
        var start: [String: [String: Any]] = [:]
        var status: [String: String] = [:]
        var resolved: [String: String] = [:]
        var reversed = Set<String>()
        for record in records {
            guard let id = record["requestID"] as? String else { continue }
            switch record["kind"] as? String {
            case "start":
                order.append(id)
                start[id] = record
                status[id] = "unknown"
            case "outcome": status[id] = record["status"] as? String
            case "resolution": resolved[id] = record["status"] as? String
            case "reversal": reversed.insert(id)
            default: continue
            }
        }
        var groups: [String: [String: [Int]]] = [:]
        var others: [String: Int] = [:]
        for id in order {
            let counted = reversed.contains(id) ? "reversed" : (resolved[id] ?? status[id] ?? "unknown")
            guard ["APPROVED", "DECLINED", "reversed"].contains(counted) else {
                others[counted, default: 0] += 1
                continue
            }
            let s = start[id] ?? [:]
            let key =
                "\(s["currency"] as? String ?? "?") \(s["type"] as? String ?? "?") \(s["simulated"] as? Bool ?? false)"
            let sum = groups[key, default: [:]][counted.lowercased(), default: [0, 0]]
            groups[key, default: [:]][counted.lowercased()] = [sum[0] + 1, sum[1] + (s["amount"] as? Int ?? 0)]
        }
        return (groups, others)
    }

    /// The same shape from `history totals --json`, for the groups' non-empty sums.
    static func reportedTotals(_ json: [String: Any]) -> (groups: [String: [String: [Int]]], others: [String: Int]) {
        var groups: [String: [String: [Int]]] = [:]
        for group in json["groups"] as? [[String: Any]] ?? [] {
            let key =
                "\(group["currency"] as? String ?? "?") \(group["type"] as? String ?? "?") \(group["simulated"] as? Bool ?? false)"
            for bucket in ["approved", "declined", "reversed"] {
                guard let sum = group[bucket] as? [String: Int], let count = sum["count"], count > 0 else { continue }
                groups[key, default: [:]][bucket] = [count, sum["amount"] ?? -1]
            }
        }
        let others = (json["others"] as? [String: Any])?["statuses"] as? [String: Int] ?? [:]
        return (groups, others)
    }

    @Test func totalsOfSimulatedPaymentsMatchTheJournal() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let before = Date().addingTimeInterval(-1)
        let payments: [(arguments: [String], exit: Int32)] = [
            (["pay", "12.50", "--currency", "EUR", "--authorize", "approve", "--request-id", "eur-1"], 0),
            (["pay", "7.25", "--currency", "EUR", "--authorize", "approve", "--request-id", "eur-2"], 0),
            (["pay", "5", "--currency", "EUR", "--authorize", "decline", "--request-id", "eur-3"], 10),
            (["pay", "1250", "--currency", "JPY", "--authorize", "approve", "--request-id", "jpy-1"], 0),
            (
                [
                    "pay", "3", "--currency", "EUR", "--type", "refund", "--authorize", "approve", "--request-id",
                    "ref-1",
                ], 0
            ),
        ]
        for payment in payments {
            let run = try await sandbox.run(["--device", "sim"] + payment.arguments)
            #expect(run.status == payment.exit, "\(payment.arguments): \(run.stderr)")
        }
        // The host layer reversed eur-2's authorisation and the host has not acknowledged it yet.
        try Self.append(
            [
                #"{"kind":"reversal","requestID":"eur-2","time":"\#(Self.iso(Date()))","hostReference":"H42","reason":"no answer from the card","acknowledged":false}"#
            ], to: sandbox)

        let totals = try await sandbox.run(["--json", "history", "totals"])
        #expect(totals.status == 0, "\(totals.stderr)")
        let json = try Self.json(totals)
        #expect(json["version"] as? Int == 1)
        let expected = Self.expectedTotals(try Self.records(sandbox))
        let reported = Self.reportedTotals(json)
        #expect(reported.groups == expected.groups, "\(totals.stdout)")
        #expect(reported.others == expected.others, "\(totals.stdout)")
        #expect(json["payments"] as? Int == payments.count)
        // What was taken, spelled out: simulated, per currency and type; eur-2 reversed, not approved.
        #expect(
            expected.groups == [
                "EUR purchase true": ["approved": [1, 1250], "declined": [1, 500], "reversed": [1, 725]],
                "EUR refund true": ["approved": [1, 300]],
                "JPY purchase true": ["approved": [1, 1250]],
            ])
        let eur = try #require((json["groups"] as? [[String: Any]])?.first)
        #expect((eur["reversalsOwed"] as? [String: Int]) == ["count": 1, "amount": 725])

        // The list agrees with the totals, status by status.
        for (status, count) in [("approved", 3), ("declined", 1), ("reversed", 1), ("approved,declined,reversed", 5)] {
            let listed = try await sandbox.run(["--json", "history", "--status", status])
            #expect(try Self.list(listed).count == count, "\(status): \(listed.stdout)")
        }
        let text = try await sandbox.run(["history", "totals"])
        #expect(
            text.stdout.split(separator: "\n").map(String.init) == [
                "EUR purchase (simulated): approved 1 12.50 EUR, declined 1 5.00 EUR, reversed 1 7.25 EUR (owed 1 7.25 EUR)",
                "EUR refund (simulated): approved 1 3.00 EUR, declined 0 0.00 EUR, reversed 0 0.00 EUR",
                "JPY purchase (simulated): approved 1 1250 JPY, declined 0 0 JPY, reversed 0 0 JPY",
                "other: 0",
                "payments: 5",
            ], "\(text.stdout)")
        let listed = try await sandbox.run(["history", "--status", "reversed"])
        #expect(listed.stdout.contains("APPROVED (reversal owed) (simulated)") && listed.stdout.contains("eur-2"))

        // The period and the device select the same payments in the list and the totals.
        let after = Date().addingTimeInterval(1)
        let periods: [([String], Int)] = [
            (["--since", Self.iso(before), "--until", Self.iso(after)], 5),
            (["--since", "yesterday"], 5),
            (["--until", Self.iso(before)], 0),
            (["--since", Self.iso(after)], 0),
            (["--device", "sim"], 5),
            (["--device", "simulator", "--since", Self.iso(before)], 5),
            (["--device", "tcp://127.0.0.1:5999"], 0),
        ]
        for (options, count) in periods {
            let run = try await sandbox.run(["--json", "history", "totals"] + options)
            #expect(try Self.json(run)["payments"] as? Int == count, "\(options): \(run.stdout) \(run.stderr)")
            let list = try await sandbox.run(["--json", "history"] + options)
            #expect(try Self.list(list).count == count, "\(options): \(list.stdout) \(list.stderr)")
        }
        let none = try await sandbox.run(["history", "--since", Self.iso(after)])
        #expect(none.status == 0 && none.stdout == "no payments match\n", "\(none.stdout)")
    }

    /// ISO 8601 UTC with milliseconds, as the journal writes its times.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test(arguments: [
        ["history", "--since", "2026-13-01"],
        ["history", "--until", "soon"],
        ["history", "totals", "--since", "2026-11-28T10:00+1"],
        ["history", "totals", "--since", "2026-11-29", "--until", "2026-11-28"],
        ["history", "--since", "2026-11-28T10:00:00Z", "--until", "2026-11-28T10:00:00Z"],
        ["history", "--status", "maybe"],
        ["history", "--status", "approved,"],
        ["history", "list", "--status", "approved", "--status", "reversd"],
        ["history", "--device", "no-such-terminal"],
        ["history", "totals", "--device", "tcp://"],
    ])
    func anInvalidValueIsAUsageError(arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
        let option = arguments.first { $0.hasPrefix("--") } ?? ""
        #expect(
            run.stderr.contains(option) || run.stderr.contains("unknown device") || run.stderr.contains("bad address"),
            "\(arguments): \(run.stderr)")
    }

    /// A date is a local day: in Kolkata (UTC+05:30, no summer time) 28 November runs from 18:30 UTC on the 27th.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Asia/Kolkata")))
    func aDateIsADayInLocalTime() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["TZ"] = "Asia/Kolkata"
        func payment(_ id: String, _ time: String, _ status: String, amount: Int = 100, device: String = "sim")
            -> [String]
        {
            [
                #"{"kind":"start","requestID":"\#(id)","time":"\#(time)","amount":\#(amount),"currency":"EUR","type":"purchase","device":"\#(device)"}"#,
                #"{"kind":"outcome","requestID":"\#(id)","time":"\#(time)","status":"\#(status)"}"#,
            ]
        }
        try Self.append(
            payment("day-before", "2026-11-27T18:29:59.999Z", "APPROVED")
                + payment("first", "2026-11-27T18:30:00.000Z", "APPROVED", amount: 1250)
                + payment("declined", "2026-11-28T09:00:00.000Z", "DECLINED", amount: 5)
                + payment("other-terminal", "2026-11-28T10:00:00.000Z", "APPROVED", device: "tcp://10.1.2.3:5000")
                + payment("cancelled", "2026-11-28T11:00:00.000Z", "CANCELLED")
                + [
                    #"{"kind":"start","requestID":"lost","time":"2026-11-28T12:00:00.000Z","amount":800,"currency":"EUR","type":"purchase","device":"sim"}"#,
                    #"{"kind":"resolution","requestID":"lost","time":"2026-11-28T13:00:00.000Z","status":"APPROVED","note":"acquirer"}"#,
                    #"{"kind":"start","requestID":"open","time":"2026-11-28T14:00:00.000Z","amount":900,"currency":"EUR","type":"purchase","device":"sim"}"#,
                ]
                + payment("last", "2026-11-28T18:29:59.999Z", "APPROVED", amount: 1)
                + payment("day-after", "2026-11-28T18:30:00.000Z", "APPROVED"),
            to: sandbox)

        let day = ["--since", "2026-11-28", "--until", "2026-11-29"]
        let listed = try await sandbox.run(["--json", "history"] + day)
        #expect(
            try Self.list(listed).compactMap { $0["requestID"] as? String } == [
                "first", "declined", "other-terminal", "cancelled", "lost", "open", "last",
            ], "\(listed.stdout)")
        // The same day as offsets: the bounds are the same moments.
        let offsets = try await sandbox.run([
            "--json", "history", "--since", "2026-11-28T00:00+05:30", "--until", "2026-11-28T18:30:00Z",
        ])
        #expect(offsets.stdout == listed.stdout)
        let unresolved = try await sandbox.run(["--json", "history", "--status", "unresolved"] + day)
        #expect(try Self.list(unresolved).compactMap { $0["requestID"] as? String } == ["open"])

        let totals = try await sandbox.run(["history", "totals", "--device", "sim"] + day)
        #expect(
            totals.stdout.split(separator: "\n").map(String.init) == [
                // Local time for people (TZ=Asia/Kolkata), UTC in the JSON below.
                "period: from 2026-11-28 00:00:00 +05:30 (inclusive) to 2026-11-29 00:00:00 +05:30 (exclusive)",
                "devices: sim",
                "EUR purchase: approved 3 20.51 EUR, declined 1 0.05 EUR, reversed 0 0.00 EUR",
                "other: 2 (CANCELLED 1, unknown 1)",
                "payments: 6",
            ], "\(totals.stdout)")
        let json = try Self.json(try await sandbox.run(["--json", "history", "totals"] + day))
        #expect(json["payments"] as? Int == 7 && json["since"] as? String == "2026-11-27T18:30:00.000Z")
    }
}
