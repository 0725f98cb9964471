import Foundation
import Testing

@testable import UCubePayment

/// Issue 39: `history` read the whole journal into memory (a 120 MB journal took more than 160 MB); it now reads a
/// chunk at a time (Benchmarks/history.sh prints the figures). What it reads must not change: records that straddle
/// the reader's chunks, a record longer than a chunk, a torn last line and blank lines give the same payments as the
/// journal's bytes read whole.
@Suite struct JournalStreamingTests {
    @Test func readingInChunksGivesWhatTheWholeBytesGive() throws {
        var lines: [String] = []
        for n in 0..<3000 {
            let key = "k-\(n)"
            lines.append(
                #"{"amount":\#(n),"currency":"EUR","device":"sim","kind":"start","payment":"\#(key)","requestID":"r-\#(n % 700)","time":"2026-11-28T10:00:00.000Z","type":"purchase"}"#
            )
            if n % 3 != 0 {
                lines.append(
                    #"{"kind":"outcome","payment":"\#(key)","requestID":"r-\#(n % 700)","status":"approved","time":"2026-11-28T10:00:01.000Z"}"#
                )
            }
            if n % 97 == 0 { lines.append("") }
        }
        // One record far longer than a read (its note), and a torn last line.
        let note = String(repeating: "n", count: 200_000)
        lines.append(
            #"{"kind":"resolution","requestID":"r-2","status":"cancelled","note":"\#(note)","time":"2026-11-28T11:00:00.000Z"}"#
        )
        let text = lines.joined(separator: "\n") + "\n" + #"{"kind":"start","requestID":"torn"#
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-stream-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let streamed = try PaymentJournal.history(path)
        #expect(streamed == PaymentJournal.history(parsing: Data(text.utf8)))
        #expect(streamed.count == 3000)
        #expect(streamed.filter(\.isUnknown).count == 1000)
        #expect(streamed.filter(\.isUnresolved).count == 1000 - 1, "r-2's latest payment, unknown, was resolved")
        #expect(try PaymentJournal.history(directory.appendingPathComponent("none").path).isEmpty)
    }

    @Test func aProcessStartIsReadFromItsStatLine() {
        // COMM may hold spaces and parentheses: fields are counted from the last ")".
        let stat = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200"
        #expect(ProcessStart.parse(stat) == 987654)
        #expect(ProcessStart.parse("4242 (short) S 1") == nil)
        #expect(ProcessStart.current != nil && ProcessStart.of(getpid()) == ProcessStart.current)
        #expect(ProcessStart.isSame(pid: getpid(), start: ProcessStart.current))
        #expect(!ProcessStart.isSame(pid: getpid(), start: ProcessStart.current.map { $0 + 1 }), "another start")
        #expect(ProcessStart.isSame(pid: getpid(), start: nil), "an older record is taken on its pid")
    }
}
