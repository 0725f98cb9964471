import Foundation
import Testing
import UCubeProtocol
import UCubeRuntime

@testable import UCubeCLI

#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, parts 3 and 4: every failure is one error with a stable code, its documented exit code, a sentence and
/// a hint; with `--json` it is a JSON object on stdout. Each test runs a repro of the issue through the built binary
/// with fresh XDG directories (`UCubeSandbox`) and asserts codes, not wording.
@Suite struct ErrorReportingTests {
    /// The `--json` error object, every key required (a missing `hint` or `detail` key fails the decoding: they are
    /// always present, null when empty).
    struct ErrorBody: Decodable {
        let code: String
        let exit: Int32
        let exitName: String
        let message: String
        let hint: String?
        let detail: String?

        enum CodingKeys: String, CodingKey { case code, exit, exitName, message, hint, detail }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = try container.decode(String.self, forKey: .code)
            exit = try container.decode(Int32.self, forKey: .exit)
            exitName = try container.decode(String.self, forKey: .exitName)
            message = try container.decode(String.self, forKey: .message)
            hint = try container.decodeNil(forKey: .hint) ? nil : try container.decode(String.self, forKey: .hint)
            detail = try container.decodeNil(forKey: .detail) ? nil : try container.decode(String.self, forKey: .detail)
        }
    }

    struct ErrorDocument: Decodable { let error: ErrorBody }

    /// The error object of a `--json` run: stdout must be exactly one line holding it, and the exit code must be
    /// the one it names.
    static func errorObject(_ run: UCubeRun, sourceLocation: SourceLocation = #_sourceLocation) throws -> ErrorBody {
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "stdout must be one JSON object: \(run.stdout)", sourceLocation: sourceLocation)
        let line = try #require(lines.last, "no JSON on stdout; stderr: \(run.stderr)", sourceLocation: sourceLocation)
        let body = try JSONDecoder().decode(ErrorDocument.self, from: Data(line.utf8)).error
        #expect(body.exit == run.status, "the object's exit is the process's", sourceLocation: sourceLocation)
        #expect(!body.message.isEmpty, sourceLocation: sourceLocation)
        return body
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (bound, then closed).
    /// A loopback port that refuses connections for as long as the returned value lives: bound and never listened
    /// on, so no other test (a simulated fleet binding port 0) can take it in the meantime, as it could a port
    /// bound and closed.
    final class RefusingPort: @unchecked Sendable {
        let port: Int
        private let fd: Int32

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(fd)
                throw SandboxError(message: "bind failed")
            }
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: addr.sin_port))
        }

        deinit { close(fd) }
    }

    // MARK: Part 3: errors a script can read

    @Test func aBadArgumentWithJSONIsAnErrorObjectOnStdout() async throws {
        let run = try await UCubeSandbox().run("--json pay abc")
        #expect(run.status == 64)
        let error = try Self.errorObject(run)
        #expect(error.code == "usage")
        #expect(error.exitName == "usage")
        #expect(error.hint != nil)
    }

    @Test func noTMSWithJSONIsAnErrorObjectOnStdout() async throws {
        let run = try await UCubeSandbox().run("--device sim --json mdm-update --plan")
        #expect(run.status == 64)
        let error = try Self.errorObject(run)
        #expect(error.code == "tms-not-configured")
        #expect(error.hint?.contains("UCUBE_TMS_URL") == true)
    }

    /// `--json` after `--` is an operand, not the flag: no JSON then.
    @Test func jsonIsDetectedOnlyBeforeDoubleDash() {
        #expect(CommandLineScan.wantsJSON(["pay", "abc", "--json"]))
        #expect(!CommandLineScan.wantsJSON(["decode", "--", "--json"]))
    }

    /// A command that printed its JSON result (a declined payment) adds no second object: stdout stays one
    /// document, and the exit code tells the outcome.
    @Test func aResultAlreadyPrintedGetsNoErrorObject() async throws {
        let run = try await UCubeSandbox().run("--device sim --json pay 10 --authorize decline")
        #expect(run.status == 10, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(object?["error"] == nil)
        #expect(object?["status"] as? String == "DECLINED")
    }

    /// Help and version are not failures: unchanged by `--json`.
    @Test func helpIsNotAnError() async throws {
        let run = try await UCubeSandbox().run("--json pay --help")
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("OVERVIEW:"))
    }

    // MARK: Part 4: messages that say what to do

    @Test func aMistypedCommandSuggestsTheNearest() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run("--json pya 10")
        #expect(run.status == 64)
        let error = try Self.errorObject(run)
        #expect(error.code == "unknown-command")
        #expect(error.hint?.contains("'pay'") == true, "\(error)")

        let nested = try Self.errorObject(try await sandbox.run("--json rpc get-inf"))
        #expect(nested.code == "unknown-command")
        #expect(nested.hint?.contains("'rpc get-info'") == true, "\(nested)")

        let text = try await sandbox.run("pya 10")
        #expect(text.status == 64)
        #expect(text.stderr.contains("'pay'"), "\(text.stderr)")
    }

    /// The shell parses its lines with the same parser, so it makes the same suggestion.
    @Test func theShellSuggestsTheNearestCommandToo() async throws {
        let run = try await UCubeSandbox().run(["shell"], input: "pya 10\n")
        #expect(run.status == 64)
        #expect(run.stderr.contains("'pay'"), "\(run.stderr)")
    }

    @Test func editDistanceCountsASwapAsOneEdit() {
        #expect(Suggestion.distance("pya", "pay") == 1)
        #expect(Suggestion.nearest(to: "pya", in: ["pay", "info", "history"]) == ["pay"])
        #expect(Suggestion.nearest(to: "zzzzzz", in: ["pay", "info"]).isEmpty)
        #expect(kebabCaseCodeName("insecureURL") == "insecure-url")
        #expect(kebabCaseCodeName("tlsUntrustedCertificate") == "tls-untrusted-certificate")
    }

    @Test func connectionRefusedSaysWhatToStart() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(
            ["--json", "--device", "tcp://127.0.0.1:\(port)", "info"])
        #expect(run.status == 5)
        let error = try Self.errorObject(run)
        #expect(error.code == "connection-refused")
        #expect(error.hint?.contains("ucube simulate --listen 127.0.0.1:\(port)") == true, "\(error)")
        #expect(!error.message.contains("descriptor") && !error.message.contains("errno"), "\(error.message)")
        #expect(error.detail == nil, "the library's text only with --log-level debug")

        // With --log-level debug the library's text is kept as the detail.
        let debug = try await sandbox.run(
            ["--json", "--log-level", "debug", "--device", "tcp://127.0.0.1:\(port)", "info"])
        let detailed = try Self.errorObject(debug)
        #expect(detailed.detail?.isEmpty == false)
        #expect(debug.stderr.contains("detail: "))
    }

    @Test func anUnknownHostIsNamed() async throws {
        let run = try await UCubeSandbox().run(
            ["--json", "--device", "tcp://no-such-host.invalid:5000", "info"])
        #expect(run.status == 5)
        #expect(try Self.errorObject(run).code == "host-not-found")
    }

    /// Linux refuses a TCP connect to a multicast address at once with ENETUNREACH (`tcp_v4_connect`), whatever
    /// the machine's routes: a deterministic "unreachable".
    @Test func anUnreachableHostIsNamed() async throws {
        let run = try await UCubeSandbox().run(
            ["--json", "--device", "tcp://224.0.0.1:5000", "info"])
        #expect(run.status == 5)
        #expect(try Self.errorObject(run).code == "host-unreachable")
    }

    @Test func aPortInUseIsUnavailable() async throws {
        let sandbox = try UCubeSandbox()
        let (simulator, port) = try await sandbox.startSimulator()
        defer { simulator.terminate() }
        let listen = try await sandbox.run(["--json", "simulate", "--listen", "127.0.0.1:\(port)"])
        #expect(listen.status == 69)
        let error = try Self.errorObject(listen)
        #expect(error.code == "address-in-use")
        #expect(!error.message.contains("bind(") && !error.message.contains("errno"), "\(error.message)")
        let tms = try await sandbox.run(["--json", "simulate", "--tms", "127.0.0.1:\(port)"])
        #expect(tms.status == 69)
        #expect(try Self.errorObject(tms).code == "address-in-use")
    }

    /// A TMS whose CA we were not given: a sentence and a hint, no BoringSSL text or build path.
    @Test func anUntrustedTMSCertificateSaysHowToTrustIt() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await TMSEndToEndTests.startTMS(sandbox)
        defer { tms.process.terminate() }
        let run = try await sandbox.run(["--json", "--device", "sim", "mdm-register", "--tms", tms.url])
        #expect(run.status == 8)
        let error = try Self.errorObject(run)
        #expect(error.code == "tms-tls-untrusted-certificate")
        #expect(error.hint?.contains("--tms-ca") == true)
        for leak in [".build", "Sources/", "BoringSSL", "OPENSSL"] {
            #expect(!run.stderr.contains(leak) && !run.stdout.contains(leak), "\(leak) in \(run.stderr)")
        }
    }

    /// A TMS that does not know our client certificate (issued by another TMS) refuses it in the handshake.
    @Test func aRejectedClientCertificateSaysToRegisterAgain() async throws {
        let sandbox = try UCubeSandbox()
        let first = try await TMSEndToEndTests.startTMS(sandbox)
        defer { first.process.terminate() }
        let register = try await sandbox.run([
            "--device", "sim", "mdm-register", "--tms", first.url, "--tms-ca", first.ca,
        ])
        #expect(register.status == 0, "\(register.stderr)")
        sandbox.environment["UCUBE_TMS_SIM_HOME"] = sandbox.directory.appendingPathComponent("other-tms").path
        let second = try await TMSEndToEndTests.startTMS(sandbox)
        defer { second.process.terminate() }
        let run = try await sandbox.run([
            "--json", "--device", "sim", "mdm-update", "--plan", "--tms", second.url, "--tms-ca", second.ca,
        ])
        #expect(run.status == 8)
        let error = try Self.errorObject(run)
        #expect(error.code == "tms-tls-certificate-rejected", "\(error)")
        #expect(error.hint?.contains("mdm-register") == true)
    }

    /// XDG_STATE_HOME under a regular file: creating it fails for root too (chmod would not).
    static func brokenStateSandbox() throws -> UCubeSandbox {
        let sandbox = try UCubeSandbox()
        let file = sandbox.directory.appendingPathComponent("file.txt")
        try Data().write(to: file)
        sandbox.environment["XDG_STATE_HOME"] = file.appendingPathComponent("state").path
        // The built-in simulator's home defaults to the state directory too.
        sandbox.environment.removeValue(forKey: "UCUBE_SIM_HOME")
        return sandbox
    }

    @Test func infoNeedsNoStateDirectory() async throws {
        let sandbox = try Self.brokenStateSandbox()
        let run = try await sandbox.run("--device sim --json info")
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(object?["command"] as? String == "get-info")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("ucube: warning:") }
        #expect(warnings.count <= 1, "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test(arguments: [["pay", "10"], ["history"], ["send-logs", "--output"]])
    func commandsThatKeepStateNeedTheStateDirectory(_ command: [String]) async throws {
        let sandbox = try Self.brokenStateSandbox()
        let output = command.last == "--output" ? [sandbox.directory.appendingPathComponent("logs.zip").path] : []
        let run = try await sandbox.run(["--device", "sim", "--json"] + command + output)
        #expect(run.status == 73, "\(run.stderr)")
        let error = try Self.errorObject(run)
        #expect(error.code == "state-directory-unusable")
        #expect(error.hint?.contains("XDG_STATE_HOME") == true)
    }

    @Test func sendLogsIntoAMissingDirectoryCannotCreate() async throws {
        let sandbox = try UCubeSandbox()
        let output = sandbox.directory.appendingPathComponent("missing/logs.zip").path
        let run = try await sandbox.run(["--json", "send-logs", "--output", output])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(try Self.errorObject(run).code == "cannot-create-output")
    }

    @Test func aFullStdoutIsAnIOError() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let sandbox = try UCubeSandbox()
        let (run, signalled) = try await sandbox.run(["rpc", "list"], stdout: full)
        #expect(!signalled)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("ucube: error:"))
    }

    /// A reader that has gone (`| head`): no crash by SIGPIPE, the exit code says the output was cut short.
    @Test func aClosedPipeIsNotACrash() async throws {
        let pipe = Pipe.cloexec()
        try pipe.fileHandleForReading.close()
        let sandbox = try UCubeSandbox()
        let (run, signalled) = try await sandbox.run(["simulate", "--list-cards"], stdout: pipe.fileHandleForWriting)
        #expect(!signalled, "killed by signal \(run.status)")
        #expect(run.status == 74)
    }

    /// Every code the CLI can print is in the catalogue the man page lists, once, with a documented exit code.
    @Test func theCatalogueListsEveryCodeOnce() {
        let codes = CLIErrorCode.catalogue.map(\.code)
        #expect(Set(codes).count == codes.count)
        for code in [
            "usage", "unknown-command", "connection-refused", "tms-not-configured", "tms-tls-untrusted-certificate",
            "state-directory-unusable", "stdout-write-failed", "address-in-use",
        ] {
            #expect(codes.contains(code), "\(code)")
        }
        let documented = Set(ExitCodes.all.map(\.code))
        #expect(CLIErrorCode.catalogue.allSatisfy { documented.contains($0.exit.code) })
    }
}

/// Usage errors read as every other failure, and never echo card data (issue 25's smaller findings).
@Suite struct UsageErrorTests {
    @Test func aPANTypedAsTheAmountIsMaskedAndTheErrorIsOurs() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["pay", "4761739001010010"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("ucube: error: "), "\(run.stderr)")
        #expect(!run.stderr.contains("4761739001010010"), "\(run.stderr)")
        #expect(run.stderr.contains("476173******0010"), "\(run.stderr)")
        let json = try await sandbox.run(["--json", "pay", "4761739001010010"])
        #expect(!json.stdout.contains("4761739001010010") && !json.stderr.contains("4761739001010010"))
    }
}

/// Statuses print with ASCII hyphen-minus, so `grep -- -2` finds them (U+2212 is for the docs' prose only).
@Suite struct ASCIIStatusTests {
    @Test func aCardWaitTimeoutPrintsAnASCIIMinus() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let run = try await sandbox.run([
            "--device", "sim", "pay", "5", "--card", "card-timeout", "--card-timeout", "1",
        ])
        #expect(run.status == 12, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("(-2)"), "\(run.stdout)")
        #expect(!(run.stdout + run.stderr).contains("\u{2212}"))
    }
}
