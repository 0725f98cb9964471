import Foundation
import Testing

/// The README's quick start is what a new user types first (issue 41, item 5): its commands run, in its order, in a
/// new state directory, print what the README shows, apart from what changes from run to run.
@Suite struct QuickStartTests {
    /// A `$ command` and the lines the README shows under it.
    struct Step {
        let command: String
        let expected: [String]
    }

    static var root: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url
    }

    /// The steps of the first ```console block after the "## Quick start" heading.
    static func steps(of readme: String) -> [Step] {
        let lines = readme.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(of: "## Quick start"),
            let open = lines[heading...].firstIndex(of: "```console"),
            let close = lines[(open + 1)...].firstIndex(of: "```")
        else { return [] }
        var steps: [Step] = []
        var command: String?
        var expected: [String] = []
        for line in lines[(open + 1)..<close] {
            if line.hasPrefix("$ ") {
                if let command { steps.append(Step(command: command, expected: expected)) }
                command = String(line.dropFirst(2))
                expected = []
            } else {
                expected.append(line)
            }
        }
        if let command { steps.append(Step(command: command, expected: expected)) }
        return steps
    }

    /// What changes from one run to the next, each replaced by its kind: request ids, times, durations, the
    /// cryptogram's value (its type stays), and the spacing a table pads its columns with.
    static func normalised(_ line: String) -> String {
        let rules: [(String, String)] = [
            (#"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"#, "<id>"),
            (#"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?( ?(Z|[+-]\d\d:?\d\d))?"#, "<time>"),
            (#"\b\d+(\.\d+)? s\b"#, "<s>"),
            (#"\b(TC|ARQC|AAC) [0-9A-F]{16}\b"#, "$1 <cryptogram>"),
            (#" {2,}|\t"#, "  "),
        ]
        return rules.reduce(line) { text, rule in
            text.replacingOccurrences(of: rule.0, with: rule.1, options: .regularExpression)
        }
    }

    @Test func theReadmeHasAQuickStartOfFiveCommands() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let steps = Self.steps(of: readme)
        #expect(steps.count == 5, "the quick start has \(steps.count) commands")
        #expect(steps.allSatisfy { $0.command.hasPrefix("ucube ") && !$0.expected.isEmpty })
    }

    @Test func theNormalisationKeepsWhatMatters() {
        #expect(Self.normalised("status: APPROVED") == "status: APPROVED")
        #expect(Self.normalised("cryptogram: TC 34E7FCB75C77B8E8") == "cryptogram: TC <cryptogram>")
        #expect(
            Self.normalised("cryptogram: TC 34E7FCB75C77B8E8") != Self.normalised("cryptogram: AAC 34E7FCB75C77B8E8"))
        #expect(Self.normalised("round trips: 12") != Self.normalised("round trips: 13"))
        #expect(Self.normalised("card: 476173******0010") != Self.normalised("card: 476173******0127"))
        #expect(
            Self.normalised("2026-11-28T11:28:15.963Z  APPROVED  57D5B8C1-6E7D-4813-B09E-958EE2EDF6A5")
                == "<time>  APPROVED  <id>")
        // Local time, as people are shown it (`LocalTime`), whatever the zone.
        #expect(Self.normalised("2026-11-28 16:58:15 +05:30  APPROVED") == "<time>  APPROVED")
    }

    /// Each command through `sh -c`, as typed, with the built ucube first on PATH, in a folder holding a copy of the
    /// example suite; stdout and stderr on one pipe, in the order a terminal shows them.
    @Test func everyCommandPrintsWhatTheReadmeShows() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let steps = Self.steps(of: readme)
        try #require(!steps.isEmpty)
        let sandbox = try UCubeSandbox()
        let work = sandbox.directory.appendingPathComponent("work")
        try FileManager.default.createDirectory(
            at: work.appendingPathComponent("Suites"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.root.appendingPathComponent("Suites/payments.json"),
            to: work.appendingPathComponent("Suites/payments.json"))
        var environment = sandbox.environment
        environment["PATH"] =
            UCubeSandbox.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        for name in ["NO_COLOR", "COLUMNS", "UCUBE_LOG_LEVEL"] { environment.removeValue(forKey: name) }
        let shellEnvironment = environment
        for step in steps {
            let output = try await blocking { try Self.shell(step.command, in: work, environment: shellEnvironment) }
            let got = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                .dropLast(output.hasSuffix("\n") ? 1 : 0)
            #expect(
                got.map(Self.normalised) == step.expected.map(Self.normalised),
                "`\(step.command)` printed:\n\(output)")
        }
    }

    static func shell(_ command: String, in directory: URL, environment: [String: String]) throws -> String {
        let pipe = Pipe.cloexec()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = pipe
        try UCubeSandbox.start(process)
        try? pipe.fileHandleForWriting.close()
        let reading = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var data = Data()
        Thread {
            data = pipe.fileHandleForReading.readAllRetryingInterrupts()
            reading.signal()
        }.start()
        if reading.wait(timeout: .now() + Double(SafetyNet.process.components.seconds)) == .timedOut {
            process.terminate()
            Issue.record("`\(command)` did not finish within \(SafetyNet.process)")
        }
        _ = process.waitForEnd()
        return String(decoding: data, as: UTF8.self)
    }
}
