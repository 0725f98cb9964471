import Foundation
import Testing

@testable import UCubeCLI

/// `--device` completes with `sim`, the remembered names and `replay:` recordings (issue 41).
struct DeviceCompletionTests {
    @Test func deviceCompletesSimAndRecordings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-complete-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["pay.rec", "refund.rec", "notes.txt"] {
            try Data().write(to: directory.appendingPathComponent(name))
        }
        // Remembered names (this machine's devices.json) may come too: only what must be there is checked.
        #expect(DeviceCompletion.words(prefix: "si").contains("sim"))
        #expect(DeviceCompletion.words(prefix: "rep").contains("replay:"))
        #expect(!DeviceCompletion.words(prefix: "si").contains("replay:"))
        let base = "replay:" + directory.path + "/"
        #expect(DeviceCompletion.words(prefix: base) == [base + "pay.rec", base + "refund.rec"])
        #expect(DeviceCompletion.words(prefix: base + "r") == [base + "refund.rec"])
    }
}
