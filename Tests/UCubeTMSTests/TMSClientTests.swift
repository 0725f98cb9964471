import Foundation
import Testing
import UCubeProtocol

@testable import UCubeTMS

#if canImport(Glibc)
import Glibc
#endif

let okConfig =
    #"{"status":"ok","data":{"config":[{"type":0,"ciphered":false,"label":"SVPP","min_version":"1.0.0.0","current_version":"6.0.0.54"}]}}"#

/// The error a call threw, nil when it returned.
func failure<T>(_ body: () async throws(TMSError) -> T) async -> TMSError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// Runs `body` with `client` and always shuts the client down (AsyncHTTPClient traps on a client never shut down).
func using<T: Sendable>(_ client: TMSClient, _ body: @Sendable (TMSClient) async throws(TMSError) -> T) async -> Result<
    T, TMSError
> {
    let result: Result<T, TMSError>
    do {
        result = .success(try await body(client))
    } catch {
        result = .failure(error)
    }
    await client.shutdown()
    return result
}

extension Result where Failure == TMSError {
    var error: TMSError? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

func tempPath(_ name: String) -> String { NSTemporaryDirectory() + "tms-\(UUID().uuidString)-\(name)" }

@Suite("TMS client over plain http to loopback (spec §10)")
struct TMSClientTests {
    let terminal = try! TerminalIdentity(serial: "123456789", partNumber: "UCUBETOUCH")

    /// The read timeout is a safety net here (a minute: an in-process server on a loaded 2-core machine was seen to
    /// take over 10 s to send a header); the tests of the timeout itself pass their own.
    func client(_ server: TestHTTPServer, attempts: Int = 3, read: Duration = .seconds(60)) throws -> TMSClient {
        let settings = try TMSSettings(
            baseURL: server.baseURL, readTimeout: read,
            retry: RetryPolicy(attempts: attempts, initialBackoff: .milliseconds(10)))
        return try TMSClient(settings: settings)
    }

    @Test func retriesA500ThenSucceeds() async throws {
        let server = try await TestHTTPServer.start { _, i in i == 0 ? .status(500, Array("boom".utf8)) : .ok(okConfig)
        }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let items = try await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }.get()
        #expect(items.map(\.type) == [0])
        #expect(items.first?.currentVersion == FirmwareVersion("6.0.0.54"))
        #expect(server.requests.count == 2)
        #expect(
            server.requests.allSatisfy {
                $0.method == "GET" && $0.uri == "/MDM/jaxrs/v2/dongle/config/123456789/UCUBETOUCH"
            })
    }

    @Test func a500ForeverIsATypedErrorAfterNAttempts() async throws {
        let server = try await TestHTTPServer.start { _, _ in .status(503, Array("down for maintenance".utf8)) }
        defer { Task { await server.stop() } }
        let c = try client(server, attempts: 3)
        let error = await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }.error
        #expect(error?.code == .httpStatus)
        #expect(error?.status == 503)
        #expect(error?.attempts == 3)
        #expect(error?.reason.contains(server.baseURL + "/MDM/jaxrs/v2/dongle/config/123456789/UCUBETOUCH") == true)
        #expect(error?.reason.contains("down for maintenance") == true)
        #expect(server.requests.count == 3)
    }

    @Test func aSilentServerIsATimeout() async throws {
        let server = try await TestHTTPServer.start { _, _ in .silent }
        defer { Task { await server.stop() } }
        let c = try client(server, attempts: 2, read: .milliseconds(300))
        let terminal = self.terminal
        let outcome = await withHangGuard {
            await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }
        }
        let error = try #require(outcome, "hung").error
        #expect(error?.code == .timeout)
        #expect(error?.attempts == 2)
        #expect(server.requests.count == 2)
    }

    @Test func aRefusedConnectionIsANetworkErrorAfterRetries() async throws {
        // A port bound but not listening refuses every connection, and stays ours while the test runs (a port
        // closed after use could be taken by another test's server meanwhile, which would then answer).
        let refusing = try #require(RefusingPort())
        defer { refusing.close() }
        let url = "http://127.0.0.1:\(refusing.port)"
        let settings = try TMSSettings(baseURL: url, retry: RetryPolicy(attempts: 2, initialBackoff: .milliseconds(10)))
        let c = try TMSClient(settings: settings)
        let terminal = self.terminal
        let outcome = await withHangGuard {
            await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }
        }
        let error = try #require(outcome, "hung").error
        #expect(error?.code == .network)
        #expect(error?.attempts == 2)
        #expect(error?.reason.contains(url) == true)
    }

    @Test(arguments: [
        ("{\"status\":", "not JSON"),
        (#"{"status":"ko","data":{"config":[]}}"#, "status"),
        (
            #"{"status":"ok","data":{"config":[{"type":0,"ciphered":false,"min_version":"x","current_version":"1.0.0.0"}]}}"#,
            "version"
        ),
    ])
    func malformedConfigIsNotRetried(_ body: String, _ what: String) async throws {
        let server = try await TestHTTPServer.start { _, _ in .ok(body) }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let error = await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }.error
        #expect(error?.code == .malformedReply, "\(what)")
        #expect(error?.reason.contains(server.baseURL) == true)
        #expect(server.requests.count == 1)
    }

    @Test(arguments: [true, false])
    func oversizeConfigIsMalformed(declareLength: Bool) async throws {
        let server = try await TestHTTPServer.start { _, _ in
            .pattern(TMSChoices.maximumConfigReply + 10, declareLength: declareLength)
        }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let error = await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }.error
        #expect(error?.code == .malformedReply)
        #expect(error?.reason.contains("larger than") == true)
    }

    @Test(arguments: [401, 403])
    func forbiddenIsRefusedWithoutRetry(status: Int) async throws {
        let server = try await TestHTTPServer.start { _, _ in .status(status, []) }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let error = await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }.error
        #expect(error?.code == .refused)
        #expect(error?.status == status)
        #expect(error?.hint?.contains("mdm-register") == true)
        #expect(server.requests.count == 1)
    }

    @Test func notFoundIsNotRetried() async throws {
        let server = try await TestHTTPServer.start { _, _ in .status(404, []) }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let error = await using(c) { c async throws(TMSError) in
            try await c.sendState(terminal: terminal, getInfo: [0xC1, 0x01, 0x00])
        }.error
        #expect(error?.code == .httpStatus && error?.status == 404)
        #expect(server.requests.count == 1)
    }

    @Test func sendStatePostsTheRawGetInfo() async throws {
        let server = try await TestHTTPServer.start { _, _ in .ok("") }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let tlv: [UInt8] = [0xD1, 0x04, 6, 0, 0, 54]
        try await using(c) { c async throws(TMSError) in try await c.sendState(terminal: terminal, getInfo: tlv) }.get()
        let r = try #require(server.requests.first)
        #expect(r.method == "POST" && r.uri == "/MDM/jaxrs/v2/dongle/infos/123456789/UCUBETOUCH")
        #expect(r.body == tlv && r.contentType == "application/octet-stream")
    }

    @Test func downloadStreamsAMultiMegabyteBodyToAFile() async throws {
        let size = 8 << 20
        let server = try await TestHTTPServer.start { _, i in
            i == 0 ? .status(502, []) : .pattern(size, declareLength: false)
        }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let path = tempPath("binary.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let certificate: [UInt8] = [0x00, 0x03, 1, 2, 3, 0x00, 0x01, 9]
        let terminal = self.terminal
        let outcome = await withHangGuard {
            await using(c) { c async throws(TMSError) in
                try await c.downloadBinary(type: 3, terminal: terminal, certificate: certificate, to: path)
            }
        }
        let download = try #require(outcome, "hung").get()
        #expect(download.bytes == Int64(size) && download.format == .octetStream && download.dialect == .current)
        #expect(download.packages.map(\.path) == [path])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == size)
        #expect(data.enumerated().allSatisfy { $0.element == TestHTTPServer.patternByte($0.offset) })
        #expect(!FileManager.default.fileExists(atPath: path + ".part"))
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.uri == "/MDM/jaxrs/v3/dongle/binary/3")
        #expect(server.requests.last?.deviceID == "123456789" && server.requests.last?.idType == "C3")
        #expect(server.requests.last?.body == certificate)
    }

    /// Streaming, shown without a clock: the server holds back the second half of the image until the client has
    /// written the first half to disk, which a client buffering the whole body before writing could never do.
    @Test func downloadWritesToDiskWhileReceiving() async throws {
        let size = 8 << 20
        let path = tempPath("gated.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await TestHTTPServer.start { _, _ in
            .gatedPattern(size) {
                var st = stat()
                return stat(path + ".part", &st) == 0 && Int(st.st_size) >= size / 2
            }
        }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let terminal = self.terminal
        let outcome = await withHangGuard {
            await using(c) { c async throws(TMSError) in
                try await c.downloadBinary(type: 0, terminal: terminal, certificate: [1], to: path)
            }
        }
        let download = try #require(outcome, "hung: the client did not write the first half before the rest arrived")
            .get()
        #expect(download.bytes == Int64(size))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == size)
        #expect(data.enumerated().allSatisfy { $0.element == TestHTTPServer.patternByte($0.offset) })
    }

    @Test func downloadLargerThanTheCapIsRefusedAndLeavesNoFile() async throws {
        // Declared length over the cap: rejected from the header, before any byte is written.
        let big = try await TestHTTPServer.start { _, _ in
            .pattern(Int(TMSChoices.maximumBinary) + 1, declareLength: true)
        }
        defer { Task { await big.stop() } }
        let c = try client(big)
        let path = tempPath("big.bin")
        let error = await using(c) { c async throws(TMSError) in
            try await c.downloadBinary(type: 0, terminal: terminal, certificate: [1], to: path)
        }.error
        #expect(error?.code == .malformedReply)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".part"))
    }

    @Test func sendLogsStreamsTheZipFile() async throws {
        let server = try await TestHTTPServer.start { _, _ in .ok("") }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let path = tempPath("logs.zip")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let dialect = try await using(c) { c async throws(TMSError) in
            try await c.sendLogs(terminal: terminal, zipFile: path)
        }.get()
        #expect(dialect == .current)
        let r = try #require(server.requests.first)
        #expect(r.uri == "/MDM/jaxrs/public/v3/dongle/logs/?type=zip")
        #expect(r.deviceID == "123456789" && r.idType == "C3")
        #expect(r.contentType == "application/octet-stream")
        #expect(r.body == bytes)
    }

    @Test func sendLogsOfAMissingFileIsAFileError() async throws {
        let server = try await TestHTTPServer.start { _, _ in .ok("") }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let error = await using(c) { c async throws(TMSError) in
            try await c.sendLogs(terminal: terminal, zipFile: tempPath("none.zip"))
        }.error
        #expect(error?.code == .file)
        #expect(server.requests.isEmpty)
    }

    @Test(arguments: [[UInt8](), Array("hello".utf8), [0x30, 0x82, 0xFF, 0xFF, 0x02, 0x01]])
    func registerRejectsAReplyThatIsNotAKeystore(_ body: [UInt8]) async throws {
        let server = try await TestHTTPServer.start { _, _ in .status(200, body) }
        defer { Task { await server.stop() } }
        let c = try client(server)
        let error = await using(c) { c async throws(TMSError) in
            try await c.register(terminal: terminal, certificate: [1, 2, 3])
        }.error
        #expect(error?.code == .malformedReply)
        #expect(error?.reason.contains("/MDM/jaxrs/public/v1/dongle/register/123456789/RFU") == true)
        #expect(server.requests.first?.body == [1, 2, 3])
    }
}

/// A loopback TCP port that is bound and never listens: a connection to it is refused at once.
struct RefusingPort {
    let fd: Int32
    let port: Int

    init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            return nil
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(fd) }
}
