import Foundation
import Testing

/// Issue 4 item 5: in the shell, a dropped link is reported and the shell goes on — `set device` (or `reconnect`)
/// opens a link again without restarting the shell.
@Suite(.serialized) struct ShellLinkDropTests {
    /// Appends bytes from a pipe to a buffer and answers "has X appeared yet?" without blocking the test's thread.
    final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.withLock { self.text += String(decoding: data, as: UTF8.self) }
            }
        }
        var all: String { lock.withLock { text } }
        func count(of needle: String) -> Int { all.components(separatedBy: needle).count - 1 }
        /// Waits (polling, at most `seconds`) until `needle` has appeared `times` times.
        func wait(for needle: String, times: Int = 1, seconds: Double = 30) async throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if count(of: needle) >= times { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
    }

    @Test func droppedLinkIsReportedAndSetDeviceReconnects() async throws {
        let sandbox = try UCubeSandbox()
        let (first, firstPort) = try await sandbox.startSimulator()
        let process = Process()
        process.executableURL = UCubeSandbox.binary
        process.arguments = ["shell", "--keep-going"]
        process.environment = sandbox.environment
        let input = Pipe.cloexec(), out = Pipe.cloexec(), err = Pipe.cloexec()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try UCubeSandbox.start(process)
        let stdout = Collector(out), stderr = Collector(err)
        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        send("set device tcp://127.0.0.1:\(firstPort)")
        send("info")
        #expect(try await stdout.wait(for: "serial number"), "\(stdout.all)\(stderr.all)")

        // The terminal goes away: the next command fails with a link error, and the shell says so and goes on.
        first.terminate()
        _ = await first.exit()
        send("info")
        #expect(try await stderr.wait(for: "ucube: "), "\(stderr.all)")

        // A new terminal: `set device` opens it without restarting the shell.
        let (second, secondPort) = try await sandbox.startSimulator()
        defer { second.terminate() }
        send("set device tcp://127.0.0.1:\(secondPort)")
        send("info")
        #expect(try await stdout.wait(for: "serial number", times: 2), "\(stdout.all)\(stderr.all)")
        send("exit")
        input.fileHandleForWriting.closeFile()
        let end = await process.ended()
        #expect(end.status != 0 && !end.signalled)  // --keep-going ends with the failing command's code
    }
}
