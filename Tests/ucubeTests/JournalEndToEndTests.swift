import Foundation
import Testing
import UCubePayment

/// No outcome is ever lost (issue 16): `pay` is killed after every command of a contact and a contactless flow, and
/// the journal keeps the payment, as unknown, with the last command known to have reached the terminal; no payment
/// ever shows two outcomes. Then an operator resolves it, keeping the original records.
///
/// Each run stops the simulator's answers at host frame k (its `silent@k` fault over TCP) and kills `pay` once the
/// simulator says frame k arrived: command k has reached the terminal and has no answer (killed before its answer),
/// and command k-1 has its answer, journalled before frame k was sent (killed after its answer).
@Suite(.serialized) struct JournalEndToEndTests {
    /// `ucube simulate --listen` with `card` (and `fault`), and the device to reach it.
    static func simulator(_ sandbox: UCubeSandbox, card: String, fault: String?) async throws -> (Process, Pipe, String)
    {
        let state = sandbox.directory.appendingPathComponent("tcp-sim").path
        let (process, out, err) = try sandbox.startCapturing(
            ["simulate", "--listen", "127.0.0.1:0", "--state-dir", state, "--card", card]
                + (fault.map { ["--fault", $0] } ?? []))
        let line = await UCubeSandbox.readUntil(out, contains: "\n")
        guard
            let port = line.split(separator: ":").last.flatMap({
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            })
        else {
            process.terminate()
            throw SandboxError(message: "simulator printed no port: \(line)")
        }
        return (process, err, "tcp://127.0.0.1:\(port)")
    }

    /// The journal's records of one payment, by kind.
    static func records(_ sandbox: UCubeSandbox, id: String) throws -> [String: Int] {
        let url = sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var kinds: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                record["requestID"] as? String == id, let kind = record["kind"] as? String
            else { continue }
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    /// The commands `pay` sends, in order, from its `--trace` ("  SEQ 01 CMD 0x5001 GetInfo LEN 1").
    static func commands(inTrace trace: String) -> [String] {
        let lines = trace.split(separator: "\n")
        return lines.indices.compactMap { index -> String? in
            guard lines[index].hasPrefix("> "), index + 1 < lines.count else { return nil }
            let words = lines[index + 1].split(separator: " ")
            guard let cmd = words.firstIndex(of: "CMD"), cmd + 2 < words.count else { return nil }
            return String(words[cmd + 2])
        }
    }

    @Test(arguments: ["visa-contact", "mc-contactless-online"])
    func killedAfterEveryCommandThePaymentStaysWithOneOutcomeAtMost(card: String) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let pay = ["--trace", "--rpc-timeout", "20", "pay", "7", "--authorize", "approve"]

        let (clean, _, device) = try await Self.simulator(sandbox, card: card, fault: nil)
        let full = try await sandbox.run(["--device", device] + pay + ["--request-id", "clean"])
        clean.terminate()
        _ = await clean.exit()
        #expect(full.status == 0, "\(full.stderr)")
        let sent = Self.commands(inTrace: full.stderr)
        let cleanRecords = try Self.records(sandbox, id: "clean")
        // The link's own resynchronisation (a new session file: CancelAll, ExitSecureSession) comes before the
        // payment's first command; the payment journals a step for each of its own.
        let steps = try #require(cleanRecords["step"])
        let before = sent.count - steps
        // A given request id is claimed before the link opens (docs/authorization.md, "Request ids").
        #expect(cleanRecords == ["claim": 1, "start": 1, "step": steps, "outcome": 1])
        #expect(steps >= 8 && (0...2).contains(before), "\(sent), \(steps) steps")

        for k in 1...sent.count {
            let id = "killed-at-\(k)"
            let (server, stderr, device) = try await Self.simulator(sandbox, card: card, fault: "silent@\(k)")
            let (process, _, _) = try sandbox.startCapturing(["--device", device] + pay + ["--request-id", id])
            let said = await UCubeSandbox.readUntil(stderr, contains: "silent@\(k)")
            #expect(said.contains("silent@\(k)"), "frame \(k): \(said)")
            kill(process.processIdentifier, SIGKILL)
            _ = await process.exit()
            server.terminate()
            _ = await server.exit()

            // Killed before the payment's first command: it never began. Else it is there, once, with no outcome, and
            // the step of every command of it answered before frame k.
            var records = try Self.records(sandbox, id: id)
            #expect(records.removeValue(forKey: "claim") == 1, "frame \(k): the request id was claimed first")
            guard k > before else {
                #expect(records.isEmpty, "frame \(k): \(records)")
                continue
            }
            #expect(records == ["start": 1, "step": k - 1 - before].filter { $0.value > 0 }, "frame \(k)")
            let unresolved = try await sandbox.run(["--json", "history", "--unresolved"])
            let entries =
                (try JSONSerialization.jsonObject(with: Data(unresolved.stdout.utf8)) as? [[String: Any]]) ?? []
            let entry = try #require(
                entries.first { $0["requestID"] as? String == id }, "frame \(k): \(unresolved.stdout)")
            #expect(entry["status"] as? String == "unknown")
            #expect(entry["lastCommand"] as? String == (k - 1 > before ? sent[k - 2] : nil), "frame \(k): \(entry)")
        }

        // Every payment listed once; the clean one with its outcome, every killed one unknown.
        let history = try await sandbox.run(["--json", "history"])
        let all = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]]) ?? []
        #expect(all.count == steps + 1, "\(history.stdout)")
        #expect(all.filter { $0["status"] as? String == "unknown" }.count == steps)
        // Never two outcomes for one payment.
        for id in ["clean"] + (1...sent.count).map({ "killed-at-\($0)" }) {
            #expect(try Self.records(sandbox, id: id)["outcome", default: 0] <= 1, "\(id)")
        }
    }

    @Test func anOperatorResolvesAnUnknownPaymentAndTheRecordsStay() async throws {
        let sandbox = try UCubeSandbox()
        let (process, _, err) = try sandbox.startCapturing(
            ["pay", "7", "--card", "card-timeout", "--card-timeout", "20", "--request-id", "lost-one", "--events"])
        _ = await UCubeSandbox.readUntil(err, contains: "START_TRANSACTION")
        kill(process.processIdentifier, SIGKILL)
        _ = await process.exit()
        #expect(try await sandbox.run(["pay", "3", "--request-id", "fine-one"]).status == 0)

        let listed = try await sandbox.run(["history", "--unresolved"])
        #expect(listed.stdout.contains("lost-one") && !listed.stdout.contains("fine-one"), "\(listed.stdout)")
        #expect(listed.stdout.contains("last: "), "\(listed.stdout)")

        #expect(try await sandbox.run(["history", "resolve", "fine-one", "--status", "declined"]).status == 64)
        #expect(try await sandbox.run(["history", "resolve", "lost-one", "--status", "maybe"]).status == 64)
        let resolved = try await sandbox.run([
            "--json", "history", "resolve", "lost", "--status", "declined", "--note", "acquirer: no such authorisation",
        ])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout.contains("\"status\": \"DECLINED\""), "\(resolved.stdout)")
        #expect(try await sandbox.run(["history", "resolve", "lost-one", "--status", "approved"]).status == 64)
        #expect(try await sandbox.run(["history", "--unresolved"]).stdout.contains("no unresolved payments"))
        // The original records stay: a start without an outcome, then the resolution.
        let kept = try Self.records(sandbox, id: "lost-one")
        #expect(kept["start"] == 1 && kept["resolution"] == 1 && kept["outcome"] == nil, "\(kept)")
        let shown = try await sandbox.run(["history", "show", "lost-one"])
        #expect(
            shown.stdout.contains("status: unknown") && shown.stdout.contains("resolved: DECLINED"), "\(shown.stdout)")
    }

    @Test func receiptsFromPayAndFromTheJournalAgree() async throws {
        let sandbox = try UCubeSandbox()
        let file = sandbox.directory.appendingPathComponent("receipt.txt")
        let pay = try await sandbox.run([
            "pay", "12.50", "--card", "visa-contactless-signature", "--request-id", "r1", "--receipt", "--receipt-file",
            file.path,
        ])
        #expect(pay.status == 0, "\(pay.stderr)")
        let printed = try String(contentsOf: file, encoding: .utf8)
        #expect(pay.stdout.hasSuffix(printed), "the receipt printed is the one written")
        let lines = printed.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(printed)")
        for field in [
            "12.50 EUR", "APPROVED", "476173******0036", "A0000000031010", "contactless", "Signature (paper)",
            "Cardholder signature", "TC ",
        ] {
            #expect(printed.contains(field), "\(field) missing: \(printed)")
        }
        let again = try await sandbox.run(["history", "show", "r1", "--receipt"])
        #expect(again.stdout == printed, "\(again.stdout)")
        let json = try await sandbox.run(["--json", "history", "show", "r1", "--receipt"])
        let receipt = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(receipt["signatureRequired"] as? Bool == true && receipt["maskedPAN"] as? String == "476173******0036")
        #expect(try await sandbox.run(["pay", "1", "--receipt-file", "/nonexistent/dir/r.txt"]).status == 73)
    }

    /// The same from the shell: a receipt after the payment and from the journal, the timings, the unresolved list.
    @Test func theShellPrintsReceiptsTimingsAndTheUnresolvedList() async throws {
        let sandbox = try UCubeSandbox()
        let script = sandbox.directory.appendingPathComponent("operator.ucube")
        try "pay 5 --request-id s1 --receipt\nhistory show s1 --receipt\nhistory --unresolved\n".write(
            to: script, atomically: true, encoding: .utf8)
        let run = try await sandbox.run(["shell", "--script", script.path])
        #expect(run.status == 0, "\(run.stderr)")
        let references = run.stdout.split(separator: "\n").filter { $0.hasPrefix("Ref ") && $0.hasSuffix(" s1") }
        #expect(references.count == 2, "two receipts: \(run.stdout)")
        #expect(run.stdout.contains("timings: start "), "\(run.stdout)")
        #expect(run.stdout.contains("no unresolved payments"), "\(run.stdout)")
    }

    @Test func timingsCoverThePhasesOfTheFlow() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--json", "pay", "10", "--card", "visa-contact"])
        let context = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let timings = try #require(context["timings"] as? [String: Double])
        for phase in ["start", "cardWait", "cardRead", "authorization", "finalisation", "cardRemoval", "end"] {
            #expect(timings[phase] != nil, "\(phase): \(timings)")
        }
        #expect(timings["pin"] == nil, "no PIN state in this flow")
        let text = try await sandbox.run(["pay", "10", "--card", "visa-contact"])
        #expect(text.stdout.contains("timings: start "), "\(text.stdout)")
    }
}
