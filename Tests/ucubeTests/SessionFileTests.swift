import Foundation
import Testing
import UCubeLink
import UCubeRuntime

@testable import UCubeCLI

/// The link session file on disk (`$XDG_RUNTIME_DIR/ucube/session-DEVICE`): what `save` writes, `load` reads back.
/// The line itself is `SessionRecord`'s (UCubeLinkTests).
struct SessionFileTests {
    @Test func saveAndLoadGoThroughTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("session-sim").path
        #expect(SessionRecord.load(path) == .missing)
        SessionRecord(rules: LinkRules(secured: false, nextSequence: 7), owner: nil).save(to: path)
        #expect(SessionRecord.load(path) == .clean(LinkRules(secured: false, nextSequence: 7)))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "secured=0 next=7\n")
    }

}
