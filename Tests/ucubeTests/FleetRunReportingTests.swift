import Foundation
import Synchronization
import Testing
import UCubeLog
import UCubeRuntime

/// The fleet runner as a library (issue 42): `FleetRun.run(reporting:)` runs each terminal's work in this process and
/// tells a `FleetRunReporting` what happened, as values. No text is rendered and none is read back: the reporter
/// here only records the calls.
struct FleetRunReportingTests {
    /// Every call a run makes, in order per device.
    final class Recorder: FleetRunReporting {
        enum Call: Equatable {
            case started(String)
            case event(String, String)
            case stderr(String, String)
            case ended(String, FleetVerdict.Result, String?)
            case resuming(Int)
            case summary([String])
        }
        private let log = Mutex<[Call]>([])
        var calls: [Call] { log.withLock { $0 } }

        func started(_ device: String) { log.withLock { $0.append(.started(device)) } }
        func event(_ device: String, _ event: FleetEvent) {
            log.withLock { $0.append(.event(device, event.text ?? "\(event)")) }
        }
        func stderr(_ device: String, _ text: String) { log.withLock { $0.append(.stderr(device, text)) } }
        func ended(_ verdict: FleetVerdict) {
            log.withLock { $0.append(.ended(verdict.device, verdict.result, verdict.code)) }
        }
        func resuming(done: [FleetVerdict], runFile: String) { log.withLock { $0.append(.resuming(done.count)) } }
        func warn(_ message: String) {}
        func note(_ message: String) {}
        func summary(_ verdicts: [FleetVerdict], seconds: Double) {
            log.withLock { $0.append(.summary(verdicts.map { "\($0.device) \($0.result.rawValue)" })) }
        }
    }

    static func context(_ devices: [String]) -> CommandContext {
        CommandContext(
            givenDevices: devices, namedDevice: devices.last, json: false, trace: false, record: nil, fast: false,
            timeout: .seconds(10), logLevels: LogLevels(), mirrorsLogToStderr: false, shell: nil,
            stdinIsTerminal: false)
    }

    @Test func eachTerminalsVerdictAndEventsReachTheReporterAsValues() async throws {
        let devices = ["tcp://a:1", "tcp://b:2", "tcp://c:3"]
        let run = try #require(
            try FleetRun(
                command: "info", context: Self.context(devices), options: FleetOptionValues(parallel: 1),
                resumes: false, arguments: ["info"] + devices.flatMap { ["--device", $0] }))
        let recorder = Recorder()
        await #expect(throws: CLIFailure.self) {
            try await run.run(reporting: recorder) { device in
                switch device {
                case "tcp://b:2":
                    throw CLIFailure(ExitCodes.link, "connection refused")
                case "tcp://c:3":
                    // What a command run for one terminal hands the run: an event, and text on stderr.
                    DeviceOutput.current?.report(
                        .testCase(FleetVerdict.Item(item: "visa approved", result: "passed", seconds: 0.5)))
                    StandardError.write("warming up")
                default:
                    break
                }
            }
        }
        let calls = recorder.calls
        #expect(calls.filter { if case .started = $0 { true } else { false } }.count == 3)
        #expect(calls.contains(.ended("tcp://a:1", .ok, nil)))
        #expect(calls.contains(.ended("tcp://b:2", .failed, "link")))
        #expect(calls.contains(.ended("tcp://c:3", .ok, nil)))
        #expect(calls.contains(.event("tcp://c:3", "visa approved: passed")))
        #expect(
            calls.contains {
                if case .stderr("tcp://c:3", let text) = $0 { text.contains("warming up") } else { false }
            })
        // One summary, last, with every terminal in report order (by address).
        #expect(calls.last == .summary(["tcp://a:1 ok", "tcp://b:2 failed", "tcp://c:3 ok"]))
        // Each terminal starts before it ends, with --parallel 1 one after another.
        for device in devices {
            let start = try #require(calls.firstIndex(of: .started(device)))
            let end = try #require(calls.firstIndex { if case .ended(device, _, _) = $0 { true } else { false } })
            #expect(start < end)
        }
    }

    @Test func aRunWhoseTerminalsAllSucceedThrowsNothing() async throws {
        let devices = ["tcp://a:1", "tcp://b:2"]
        let run = try #require(
            try FleetRun(
                command: "info", context: Self.context(devices), options: FleetOptionValues(), resumes: false,
                arguments: ["info"]))
        let recorder = Recorder()
        try await run.run(reporting: recorder) { _ in }
        #expect(recorder.calls.last == .summary(["tcp://a:1 ok", "tcp://b:2 ok"]))
    }
}
