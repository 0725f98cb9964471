import Foundation
import Testing

/// The scripts `.ci/run` calls after the test command report on the run; they must not change its verdict.
@Suite struct CIScriptsTests {
    /// A log with more results than a pipe holds (64 KiB): `sort | head` under pipefail ended the listing with
    /// SIGPIPE's 141, and CI went red after every test and the BLE test bed had passed (stop 46).
    @Test func theSlowestTestsOfALongLogAreListedAndTheScriptSucceeds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ci-scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("test.log")
        let lines = (0..<20_000).map { "✔ Test case\($0)() passed after \(Double($0) / 1000) seconds." }
        try (lines.joined(separator: "\n") + "\n✔ Test run with 20000 tests passed after 99.000 seconds.\n")
            .write(to: log, atomically: true, encoding: .utf8)

        let script = QuickStartTests.root.appendingPathComponent("Scripts/slowest-tests.sh").path
        let run = try await CancelEndToEndTests.run(
            "/bin/bash", [script, log.path, "20"], environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let listed = run.stdout.split(separator: "\n").filter { $0.contains(" s  passed  ") }
        #expect(listed.count == 20)
        #expect(listed.first?.hasSuffix("case19999()") == true, "\(run.stdout)")
        #expect(!run.stdout.contains("Test run with"), "the run's own line is not a test: \(run.stdout)")
    }
}
