import Foundation
import Testing

/// The optional vendor-SDK harness (`Scripts/vendor-sdk-harness.sh`, docs/vendor-apps.md): the vendor's unmodified
/// Android libraries on a desktop JVM against `ucube simulate --vendor-app`. The vendor's classes are never in this
/// repository; the harness takes them from the copy of the vendor's repository that `UCUBE_VENDOR_SDK_REPO` names.
@Suite struct VendorSDKHarnessTests {
    static let variable = "UCUBE_VENDOR_SDK_REPO"
    static var vendorRepository: String? {
        ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var script: URL {
        UCubeSandbox.binary.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/vendor-sdk-harness.sh")
    }

    /// Runs the script with `environment` added, to its end (at most `timeout`), and returns its status and stdout.
    static func runScript(_ environment: [String: String], timeout: TimeInterval) async throws -> (Int32, String) {
        try await blocking {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [script.path]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let out = Pipe.cloexec()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try UCubeSandbox.start(process)
            nonisolated(unsafe) var data = Data()
            let reader = Thread { data = out.fileHandleForReading.readAllRetryingInterrupts() }
            reader.start()
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
            if process.isRunning {
                process.terminate()
                Issue.record("the vendor-SDK harness did not finish within \(Int(timeout)) s")
            }
            process.waitUntilExit()
            while reader.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    /// Without the vendor's repository (CI) the harness says that it skipped and why, and succeeds.
    @Test func withoutTheVendorRepositoryTheHarnessSaysItSkipped() async throws {
        let (status, output) = try await Self.runScript([Self.variable: ""], timeout: 60)
        #expect(status == 0)
        #expect(output.contains("vendor-sdk harness: SKIPPED: UCUBE_VENDOR_SDK_REPO is not set"), "\(output)")
    }

    /// Every flow, for both library versions: one PASS line each. Skipped, with this reason shown, where the
    /// vendor's repository is not at hand (CI cannot fetch it).
    @Test(
        .enabled(
            if: vendorRepository != nil,
            "UCUBE_VENDOR_SDK_REPO is not set: the vendor's SDK libraries are not in this repository (CI cannot fetch them)"
        ),
        .timeLimit(.minutes(20))
    )
    func theVendorsLibrariesCompleteEveryFlow() async throws {
        let (status, output) = try await Self.runScript(["UCUBE_BINARY": UCubeSandbox.binary.path], timeout: 1_100)
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }
        for line in lines where line.hasPrefix("FAIL ") { Issue.record("\(line)") }
        #expect(status == 0, "\(output)")
        #expect(lines.count >= 2, "no flow ran: \(output)")
    }
}
