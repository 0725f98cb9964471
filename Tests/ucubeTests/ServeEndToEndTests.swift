import Foundation
import Synchronization
import Testing

/// `ucube serve` (issue 43) end to end: the built binary serves the built-in simulator, and the Python drivers in
/// Tests/serve/ speak to it as a POS would, checking every answer against docs/openapi.yaml (python3-jsonschema and
/// python3-yaml, Debian's). Each verdict waits for an event or a state; deadlines are safety nets.
@Suite struct ServeEndToEndTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    @Test func everyRouteAnswersAsDocumented() async throws {
        let sandbox = try UCubeSandbox()
        let serve = try await ServeRun.start(
            sandbox, ["--device", "sim", "serve", "--listen", "127.0.0.1:0", "--allow-origin", "https://pos.example"])
        let run = try await ServeRun.python(sandbox, "api_test.py", ["--base", serve.base, "main"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("documents checked"), "\(run.output)")
        let end = await serve.stop()
        #expect(end.status == 0, "\(serve.log)")
        // The access log is on stderr, one line a request, through the masked door.
        #expect(serve.log.contains("serve: 127.0.0.1 POST /v1/payments 202"), "\(serve.log.suffix(2000))")
        #expect(!serve.log.contains("4761739001010010"))
    }

    @Test func oneRequestIdOnePaymentAcrossProcesses() async throws {
        let sandbox = try UCubeSandbox()
        let serve = try await ServeRun.start(sandbox, ["--device", "sim", "serve", "--listen", "127.0.0.1:0"])
        let run = try await ServeRun.python(sandbox, "api_test.py", ["--base", serve.base, "cross-process"])
        #expect(run.status == 0, "\(run.output)")
        #expect(await serve.stop().status == 0, "\(serve.log)")
    }

    /// SIGTERM ends the server as Ctrl-C ends `pay`: the payment in its card wait is cancelled by its cancel rule, the
    /// journal says CANCELLED, the server exits 0 once it has.
    @Test func sigtermCancelsThePaymentInItsCardWait() async throws {
        let sandbox = try UCubeSandbox()
        let serve = try await ServeRun.start(sandbox, ["--device", "sim", "serve", "--listen", "127.0.0.1:0"])
        let run = try await ServeRun.python(
            sandbox, "api_test.py", ["--base", serve.base, "--pid", String(serve.process.processIdentifier), "sigterm"])
        #expect(run.status == 0, "\(run.output)")
        let end = await serve.process.ended()
        #expect(end.status == 0 && !end.signalled, "\(serve.log)")
        #expect(serve.log.contains("serve: stopped"), "\(serve.log)")
        let history = try await sandbox.run(["history", "--json"])
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        let term = try #require(entries.first { $0["requestID"] as? String == "order-term" }, "\(history.stdout)")
        #expect(term["status"] as? String == "CANCELLED")
        let unresolved = try await sandbox.run(["history", "--unresolved"])
        #expect(unresolved.stdout.contains("no unresolved payments"), "\(unresolved.stdout)")
    }

    /// The one door, for the network: a payment replayed from a recording whose every answer also carries a PAN,
    /// track 2 and track 1 in clear (`CardDataNeverLeavesTests`), served: its state, the history, the totals, the
    /// event stream and the access log hold none of them, and show the PAN masked.
    @Test func noCardDataLeavesThroughTheAPI() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let recorded = sandbox.directory.appendingPathComponent("live.rec")
        let live = try await sandbox.run([
            "--device", "sim", "--record", recorded.path, "pay", "10", "--card", "visa-contact", "--request-id", "live",
        ])
        #expect(live.status == 0, "\(live.stderr)")
        let forged = sandbox.directory.appendingPathComponent("forged.rec")
        let forgedText = try CardDataNeverLeavesTests.rewritingAnswers(
            try String(contentsOf: recorded, encoding: .utf8))
        try forgedText.write(to: forged, atomically: true, encoding: .utf8)
        #expect(!CardDataNeverLeavesTests.leaks(in: forgedText).isEmpty, "the forged recording has the secrets")
        // Its own journal: the live payment's is another.
        sandbox.environment["XDG_STATE_HOME"] = sandbox.directory.appendingPathComponent("served-state").path
        let serve = try await ServeRun.start(
            sandbox, ["--device", "replay:" + forged.path, "--fast", "serve", "--listen", "127.0.0.1:0"])
        let run = try await ServeRun.python(sandbox, "api_test.py", ["--base", serve.base, "dump"])
        #expect(run.status == 0, "\(run.output)")
        #expect(await serve.stop().status == 0, "\(serve.log)")
        #expect(CardDataNeverLeavesTests.leaks(in: run.output).isEmpty, "\(run.output.suffix(3000))")
        #expect(CardDataNeverLeavesTests.leaks(in: serve.log).isEmpty, "\(serve.log.suffix(3000))")
        #expect(run.output.contains("476173******0010"), "the PAN was never shown masked: the test proved nothing")
    }

    /// A listener outside the loopback: no request without a paired token; the code `--pair` shows gives one, once.
    @Test(.enabled(if: ServeRun.nonLoopbackAddress != nil, "this machine has no IPv4 address outside the loopback"))
    func outsideTheLoopbackATokenIsRequired() async throws {
        let sandbox = try UCubeSandbox()
        let (serve, code) = try await ServeRun.startPaired(sandbox)
        let tokens = sandbox.directory.appendingPathComponent("config/ucube/serve-tokens").path
        let run = try await ServeRun.python(
            sandbox, "api_test.py", ["--base", serve.base, "--code", code, "--token-file", tokens, "token"])
        #expect(run.status == 0, "\(run.output)")
        #expect(await serve.stop().status == 0, "\(serve.log)")
        #expect(!serve.log.contains(try String(contentsOfFile: tokens, encoding: .utf8).prefix(10)))
    }
}

/// `ucube serve` started in a sandbox: its first line gives its port; its stderr (the access log) is read all along,
/// so the server never blocks on a full pipe.
final class ServeRun: @unchecked Sendable {
    let process: Process
    let host: String
    let port: Int
    private let text: SharedText
    private let reader: Thread

    var base: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    var log: String { text.value }

    private init(process: Process, host: String, port: Int, text: SharedText, reader: Thread) {
        self.process = process
        self.host = host
        self.port = port
        self.text = text
        self.reader = reader
    }

    /// `serve --pair` over the simulator on this machine's address outside the loopback, and the code it shows.
    static func startPaired(_ sandbox: UCubeSandbox) async throws -> (ServeRun, code: String) {
        let address = try #require(nonLoopbackAddress)
        let serve = try await start(sandbox, ["--device", "sim", "serve", "--pair", "--listen", "\(address):0"])
        let log = await serve.waitFor("pairing code")
        let code = try #require(log.firstMatch(of: #/pairing code ([0-9]{6})/#).map { String($0.1) }, "\(log)")
        return (serve, code)
    }

    static func start(_ sandbox: UCubeSandbox, _ arguments: [String]) async throws -> ServeRun {
        let (process, _, err) = try sandbox.startCapturing(arguments)
        let text = SharedText()
        let handle = err.fileHandleForReading
        let reader = Thread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text.append(String(decoding: chunk, as: UTF8.self))
            }
        }
        reader.start()
        let started = try await blocking { () throws -> (String, Int) in
            let deadline = ContinuousClock.now + SafetyNet.process
            while ContinuousClock.now < deadline {
                let seen = text.value
                if let match = seen.firstMatch(of: #/listening on http:\/\/\[?([^\]\s]+?)\]?:([0-9]+) /#) {
                    return (String(match.1), Int(match.2)!)
                }
                if !process.isRunning { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            process.terminate()
            throw SandboxError(message: "ucube serve did not start: \(text.value)")
        }
        return ServeRun(process: process, host: started.0, port: started.1, text: text, reader: reader)
    }

    /// Waits (a safety net) until the log contains `needle`; returns the log.
    func waitFor(_ needle: String) async -> String {
        await blocking { [self] in
            let deadline = ContinuousClock.now + SafetyNet.process
            while ContinuousClock.now < deadline, !log.contains(needle) { Thread.sleep(forTimeInterval: 0.05) }
            return log
        }
    }

    /// SIGTERM, as systemd stops the service; its end.
    func stop() async -> ChildExit {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        return await process.ended()
    }

    /// Runs `Tests/serve/SCRIPT ARGS…` with Debian's python3 in the sandbox's environment (its state directories,
    /// so `ucube pay` and `ucube history` see the server's journal), `--openapi` and `--ucube` given.
    static func python(_ sandbox: UCubeSandbox, _ script: String, _ arguments: [String]) async throws -> (
        status: Int32, output: String
    ) {
        let root = ServeEndToEndTests.root
        var environment = sandbox.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        return try await UCubeSandbox.python3(
            [root.appendingPathComponent("Tests/serve/\(script)").path] + [
                "--openapi", root.appendingPathComponent("docs/openapi.yaml").path, "--ucube",
                UCubeSandbox.binary.path,
            ] + arguments, environment: environment)
    }

    /// An IPv4 address of this machine outside 127.0.0.0/8, if it has one.
    static let nonLoopbackAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard
                getnameinfo(
                    address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0,
                    NI_NUMERICHOST) == 0
            else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }()
}

/// Text one thread appends to and others read.
final class SharedText: Sendable {
    private let text = Mutex("")
    func append(_ more: String) { text.withLock { $0 += more } }
    var value: String { text.withLock { $0 } }
}
