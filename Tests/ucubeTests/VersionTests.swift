import ArgumentParser
import Foundation
import Testing

@testable import UCubeCLI

/// `ucube --version` is answered before the parser (start-up cost); it must stay what the parser would print.
struct VersionTests {
    @Test func theShortcutPrintsWhatTheParserWould() throws {
        let error = #expect(throws: (any Error).self) { try UCube.parseAsRoot(["--version"]) }
        let parsed = try #require(error)
        #expect(UCube.exitCode(for: parsed) == .success)
        #expect(UCube.fullMessage(for: parsed) == BuildInfo.versionLine)
        #expect(BuildInfo.versionLine.hasPrefix(BuildInfo.version + " (commit "))
    }

    @Test func theBinaryPrintsTheVersionAndItsCommit() async throws {
        let run = try await UCubeSandbox().run(["--version"])
        #expect(run.status == 0, "\(run.stderr)")
        // "unknown" from a plain `swift build`; `make` writes the commit in (Makefile, Sources/CBuildInfo).
        #expect(run.stdout.hasPrefix(BuildInfo.version + " (commit "), "\(run.stdout)")
        #expect(run.stdout.hasSuffix(")\n") && run.stdout.split(separator: "\n").count == 1, "\(run.stdout)")
    }
}
