import ArgumentParser
import Foundation
import Testing
import UCubeProtocol

@testable import UCubeCLI

/// `ucube simulate --vendor-app` (docs/vendor-apps.md): the SDK's SOCKET defaults, the minimum answer delay, one
/// connection kept open, the warning for an address others can reach.
@Suite struct VendorAppEndToEndTests {
    @Test func theModeTakesTheSDKDefaultsUnlessTold() throws {
        let vendor = try UCube.Simulate.parse(["--vendor-app"])
        #expect(vendor.terminalListen == "127.0.0.1:21350")
        #expect(vendor.answerDelay == .milliseconds(50))
        let told = try UCube.Simulate.parse(["--vendor-app", "--listen", "127.0.0.1:7000", "--min-answer-delay", "20"])
        #expect(told.terminalListen == "127.0.0.1:7000")
        #expect(told.answerDelay == .milliseconds(20))
        let plain = try UCube.Simulate.parse([])
        #expect(plain.terminalListen == "127.0.0.1:5000")
        #expect(plain.answerDelay == .zero)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("::1", true), ("0.0.0.0", false),
        ("192.168.1.20", false), ("::", false), ("10.0.2.2", false), ("127.0.0.256", false),
    ])
    func loopbackAddresses(_ host: String, _ loopback: Bool) {
        #expect(UCube.Simulate.isLoopback(host) == loopback)
    }

    @Test(arguments: [
        ["--vendor-app", "--codec", "ble"], ["--min-answer-delay", "10001"], ["--min-answer-delay", "-1"],
        ["--vendor-app", "--fleet", "2"],
    ])
    func badOptionsAreUsageErrors(_ arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(["simulate", "--listen", "127.0.0.1:0"] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
    }

    /// A command frame as the SDK writes it, then its answer read back: never sooner than 50 ms after the last byte,
    /// with the command's SEQ and id, on a connection the simulator keeps open for the next command.
    @Test func answersComeAfterTheDelayOnOneConnection() async throws {
        let sandbox = try UCubeSandbox()
        let run = try sandbox.startCapturing([
            "simulate", "--vendor-app", "--listen", "127.0.0.1:0", "--state-dir",
            sandbox.directory.appendingPathComponent("sim").path,
        ])
        defer { run.process.terminate() }
        let printed = await UCubeSandbox.readUntil(run.stdout, contains: "\n")
        let port = try #require(
            printed.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        let hint = await UCubeSandbox.readUntil(run.stderr, contains: "\n")
        #expect(
            hint.contains(
                "SOCKET connection the address 127.0.0.1:\(port) (from an Android emulator: 10.0.2.2:\(port))"))

        let fd = try FakeTerminal.connectToLoopback(port)
        defer { close(fd) }
        // GetInfo C4 D1 (spec §2.6), SEQ 0, then GetStatus SEQ 5 (spec §2.9) on the same connection.
        for (command, expectedCommand, sequence) in [
            ("02 00 02 00 50 01 C4 D1 C8 87 03", CommandID.getInfo, UInt8(0)),
            ("02 00 00 05 03 31 98 D1 03", .getStatus, 5),
        ] {
            let clock = ContinuousClock()
            let sent = clock.now
            try Self.write(fd, try Hex.decode(command))
            let answer = try await blocking { try Self.readFrame(fd) }
            #expect(sent.duration(to: clock.now) >= .milliseconds(50))
            #expect(answer.sequence == sequence && answer.command == expectedCommand)
        }
    }

    @Test func anAddressOthersCanReachIsWarnedAbout() async throws {
        let sandbox = try UCubeSandbox()
        let run = try sandbox.startCapturing([
            "simulate", "--vendor-app", "--listen", "0.0.0.0:0", "--state-dir",
            sandbox.directory.appendingPathComponent("sim").path,
        ])
        defer { run.process.terminate() }
        let warning = await UCubeSandbox.readUntil(run.stderr, contains: "network")
        #expect(warning.contains("warning: the simulator listens on 0.0.0.0, not a loopback address"), "\(warning)")
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw SandboxError(message: "short write") }
    }

    /// Reads one frame, waiting at most 10 s for each chunk (a safety net: the answer comes after 50 ms).
    static func readFrame(_ fd: Int32) throws -> RawFrame {
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let frame = try decoder.next() { return frame }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) == 1 else { throw SandboxError(message: "no answer within 10 s") }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { throw SandboxError(message: "the simulator closed the connection") }
            decoder.append(buffer[0..<count])
        }
    }
}
