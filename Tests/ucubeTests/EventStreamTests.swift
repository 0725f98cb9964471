import Foundation
import Testing

/// `pay --events 2>events.jsonl` is JSON lines, whatever happens (issue 25, item 4): the README's own example mixed
/// `ucube: error: payment DECLINED` and `ucube: cancelling the payment` into the stream, so `jq` broke on exactly the
/// declined and cancelled payments. Every line is one JSON object with a `time`; other stderr lines are `message`s.
@Suite struct EventStreamTests {
    /// Each line of `stderr` as a JSON object (a failed expectation names the first line that is not one).
    static func events(_ stderr: String) -> [[String: Any]] {
        stderr.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("not a JSON line: \(line)")
                return nil
            }
            return object
        }
    }

    @Test func aDeclinedPaymentsStreamIsJSONLinesWithTimes() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["pay", "5", "--authorize", "decline", "--events"])
        #expect(run.status == 10)
        let events = Self.events(run.stderr)
        #expect(events.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
        #expect(events.contains { $0["event"] as? String == "finished" && $0["status"] as? String == "DECLINED" })
        // The error and the simulator notice are in the stream, as messages.
        let messages = events.filter { $0["event"] as? String == "message" }.compactMap { $0["text"] as? String }
        #expect(messages.contains { $0.contains("payment DECLINED") }, "\(messages)")
        #expect(messages.contains { $0.contains("built-in simulator") }, "\(messages)")
    }

    @Test func aCancelledPaymentsStreamIsJSONLines() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--card", "card-timeout"])
        defer { server.terminate() }
        let pay = try sandbox.startCapturing(
            ["--device", "tcp://127.0.0.1:\(port)", "pay", "10", "--card-timeout", "120", "--events"])
        let seen = await UCubeSandbox.readUntil(pay.stderr, contains: "START_TRANSACTION")
        kill(pay.process.processIdentifier, SIGINT)
        #expect(await pay.process.exit() == 11)
        let rest = await UCubeSandbox.readToEnd(pay.stderr)
        let events = Self.events(seen + rest)
        #expect(events.contains { $0["event"] as? String == "finished" && $0["status"] as? String == "CANCELLED" })
        #expect(
            events.contains { ($0["text"] as? String)?.contains("cancelling the payment") == true }, "\(seen + rest)")
    }
}
