import Foundation
import Testing
import UCubeLink

@testable import UCubeCLI

/// The link session file (`$XDG_RUNTIME_DIR/ucube/session-DEVICE`): what `save` writes, `load` reads back, and any
/// other content is a stale session, so the next command resets the terminal.
struct SessionRecordTests {
    @Test func aRecordReadsBackAsWritten() throws {
        let closed = SessionRecord(rules: LinkRules(secured: true, nextSequence: 200), owner: nil)
        #expect(closed.line == "secured=1 next=200\n")
        #expect(SessionRecord.decode(Data(closed.line.utf8)) == .clean(LinkRules(secured: true, nextSequence: 200)))

        let open = SessionRecord(rules: LinkRules(secured: false, nextSequence: 0), owner: 4242)
        #expect(open.line == "secured=0 next=0 owner=4242\n")
        #expect(SessionRecord.decode(Data(open.line.utf8)) == .stale(owner: 4242))
    }

    /// A clean exit after a payment keeps the terminal it met (spec §8.6); a process still holding the link keeps none.
    @Test func aCleanRecordKeepsTheKnownTerminal() throws {
        let terminal = try #require(KnownTerminal(hex: "FFFF9876543210E00000D10406000036ED0103"))
        let closed = SessionRecord(rules: LinkRules(secured: false, nextSequence: 9), owner: nil, terminal: terminal)
        #expect(closed.line == "secured=0 next=9 terminal=FFFF9876543210E00000D10406000036ED0103\n")
        #expect(
            SessionRecord.decode(Data(closed.line.utf8)) == .clean(LinkRules(secured: false, nextSequence: 9), terminal)
        )
        let open = SessionRecord(rules: LinkRules(secured: false, nextSequence: 9), owner: 77, terminal: terminal)
        #expect(open.line == "secured=0 next=9 owner=77\n")
    }

    @Test func saveAndLoadGoThroughTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("session-sim").path
        #expect(SessionRecord.load(path) == .missing)
        SessionRecord(rules: LinkRules(secured: false, nextSequence: 7), owner: nil).save(to: path)
        #expect(SessionRecord.load(path) == .clean(LinkRules(secured: false, nextSequence: 7)))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "secured=0 next=7\n")
    }

    @Test(
        arguments: [
            "", "\n", "secured=0 next=7", "secured=0\n", "next=7\n", "secured=2 next=7\n", "secured=0 next=256\n",
            "secured=0 next=-1\n", "secured=0 next=7 owner=0\n", "secured=0 next=7 owner=x\n",
            "secured=0 next=7 next=8\n", "secured=0 next=7 colour=red\n", "secured=0  next=7\n",
            "secured=0 next=7\nsecured=1 next=8\n", #"{"secured":false,"nextSequence":7}"#,
            "secured=0 next=7 terminal=XYZ\n", "secured=0 next=7 terminal=FFFF9876543210E00001D104\n",
            "secured=0 next=7 owner=5 terminal=FFFF9876543210E00000D104\n",
        ])
    func anythingElseIsAStaleSession(text: String) {
        #expect(SessionRecord.decode(Data(text.utf8)) == .stale(owner: nil), "\(text.debugDescription)")
    }
}
