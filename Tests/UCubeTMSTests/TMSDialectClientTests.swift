import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import UCubeProtocol
import UCubeSimulator
import UCubeTMSSimulator
import ZIPFoundation

@_spi(Fuzz) @testable import UCubeTMS

#if canImport(Glibc)
import Glibc
#endif

/// Log lines a test reads back (the client's dialect and host fallbacks are notices).
final class CapturedLog: Sendable {
    private let lines = NIOLockedValueBox<[(Logger.Level, String)]>([])
    var notices: [String] { lines.withLockedValue { $0.filter { $0.0 == .notice }.map(\.1) } }

    var logger: Logger {
        Logger(label: "ucube.mdm") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lines.withLockedValue { $0.append((event.level, "\(event.message)")) }
        }
    }
}

/// A TMS simulator over fresh directories (an SVPP item of type 0, and an NFC configuration of type 5 answered as a
/// zip), and TMS clients that trust it, each with a memory of its own unless given one.
struct SimulatedTMS {
    static let terminal = try! TerminalIdentity(
        serial: String(SimulatorChoices.DefaultDevice.serialNumber), partNumber: "uCubeT-TEST")
    let tms: TMSSimulator
    let port: Int
    let root: URL
    let image: [UInt8]
    let signature: [UInt8]

    var caFile: String { TMSSimulator.caCertificateURL(stateDirectory: root.appendingPathComponent("state")).path }

    static func with(
        dialects: Set<TMSRouteDialect> = Set(TMSRouteDialect.allCases), _ body: (SimulatedTMS) async throws -> Void
    ) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tms-dialect-\(UUID().uuidString)")
        let catalogue = root.appendingPathComponent("catalogue")
        try FileManager.default.createDirectory(at: catalogue, withIntermediateDirectories: true)
        let image = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        let signature = (0..<72).map { UInt8($0) }
        let index = #"""
            {"items":[{"type":0,"label":"SVPP firmware","version":"6.0.1.0","min_version":"6.0.0.0","image":"svpp.bin","signature":"svpp.sig"},
            {"type":5,"label":"NFC EMV configuration","version":"1.0.0.7","min_version":"1.0.0.0","answer":"zip","image":"nfc-1.0.0.7.bin","signature":"svpp.sig"}]}
            """#
        try Data(index.utf8).write(to: catalogue.appendingPathComponent("catalogue.json"))
        try Data(image).write(to: catalogue.appendingPathComponent("svpp.bin"))
        try Data(image).write(to: catalogue.appendingPathComponent("nfc-1.0.0.7.bin"))
        try Data(signature).write(to: catalogue.appendingPathComponent("svpp.sig"))
        let tms = TMSSimulator()
        let port = try await tms.start(
            stateDirectory: root.appendingPathComponent("state"), catalogue: catalogue, dialects: dialects)
        let simulated = SimulatedTMS(tms: tms, port: port, root: root, image: image, signature: signature)
        do {
            try await body(simulated)
        } catch {
            await tms.stop()
            try? FileManager.default.removeItem(at: root)
            throw error
        }
        await tms.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func client(
        base: String? = nil, identity: TMSIdentity? = nil, log: CapturedLog, memory: TMSDialectMemory
    ) throws -> TMSClient {
        let settings = try TMSSettings(
            baseURL: base ?? "https://127.0.0.1:\(port)", trustedCAFile: caFile,
            retry: RetryPolicy(attempts: 1))
        return try TMSClient(settings: settings, identity: identity, logger: log.logger, memory: memory)
    }

    /// The terminal simulator's InstallForLoadKey data.
    static var certificate: [UInt8] {
        try! InstallForLoadKey.Response(
            caCertificate: SimulatorChoices.demoCAProdCertificate,
            kekCertificate: SimulatorChoices.demoKEKCertificate(serial: SimulatorChoices.DefaultDevice.serialNumber)
        ).raw
    }

    /// The §10.5 package the simulator's image makes: signature, 2040-byte blocks, 00 00.
    var package: [UInt8] {
        var out = [UInt8(signature.count >> 8), UInt8(signature.count & 0xFF)] + signature
        var start = 0
        while start < image.count {
            let end = min(start + 2040, image.count)
            out += [UInt8((end - start) >> 8), UInt8((end - start) & 0xFF)] + image[start..<end]
            start = end
        }
        return out + [0, 0]
    }
}

@Suite("TMS client: the current SDK's dialect first, the 2020 one on 404/405 (spec §10.1, §10.2)")
struct TMSDialectClientTests {
    let terminal = SimulatedTMS.terminal

    /// Registers `terminal` with a fresh client of `tms` that logs into `log` and remembers into `memory`.
    static func register(
        _ tms: SimulatedTMS, terminal: TerminalIdentity, log: CapturedLog, memory: TMSDialectMemory
    ) async throws -> TMSClient.Registration {
        try await using(try tms.client(log: log, memory: memory)) { c async throws(TMSError) in
            try await c.register(terminal: terminal, certificate: SimulatedTMS.certificate)
        }.get()
    }

    /// An empty zip archive (its end-of-central-directory record alone) in a temporary file: a logs upload's body.
    static func emptyZip() -> String {
        let zip = tempPath("logs.zip")
        try? Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)).write(to: URL(fileURLWithPath: zip))
        return zip
    }

    @Test("against a TMS that serves both, every request takes the current form and nothing falls back")
    func currentFormsByDefault() async throws {
        try await SimulatedTMS.with { tms in
            let log = CapturedLog()
            let memory = TMSDialectMemory()
            let terminal = self.terminal
            let registration = try await Self.register(tms, terminal: terminal, log: log, memory: memory)
            #expect(registration.dialect == .current)
            let path = tempPath("svpp.bin")
            defer { for file in TMSDownload.files(at: path) { try? FileManager.default.removeItem(atPath: file) } }
            let client = try tms.client(identity: registration.identity, log: log, memory: memory)
            let (items, download, logs) = try await using(client) { c async throws(TMSError) in
                let items = try await c.config(terminal: terminal)
                let download = try await c.downloadBinary(
                    type: 0, terminal: terminal, certificate: SimulatedTMS.certificate, to: path)
                let zip = Self.emptyZip()
                defer { try? FileManager.default.removeItem(atPath: zip) }
                return (items, download, try await c.sendLogs(terminal: terminal, zipFile: zip))
            }.get()
            #expect(items.map(\.type) == [0, 5])
            #expect(download.format == .octetStream && download.dialect == .current)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == tms.package)
            #expect(logs == .current)
            let served = await tms.tms.servedRequests()
            #expect(served.map(\.endpoint) == [.register, .config, .binary, .logs])
            #expect(served.allSatisfy { $0.served && $0.dialect != .v2020 })
            #expect(log.notices.isEmpty)
        }
    }

    @Test(
        "against a 2020-only TMS: one 404 per request kind, a notice each, then the 2020 form for the rest of the run")
    func fallsBackOncePerKind() async throws {
        try await SimulatedTMS.with(dialects: [.v2020]) { tms in
            let log = CapturedLog()
            let memory = TMSDialectMemory()
            let terminal = self.terminal
            let registration = try await Self.register(tms, terminal: terminal, log: log, memory: memory)
            #expect(registration.dialect == .v2020)
            let path = tempPath("svpp.bin")
            defer { for file in TMSDownload.files(at: path) { try? FileManager.default.removeItem(atPath: file) } }
            // Another client of the same process: the memory carries over.
            let client = try tms.client(identity: registration.identity, log: log, memory: memory)
            let (first, second, again, logs) = try await using(client) { c async throws(TMSError) in
                let first = try await c.downloadBinary(
                    type: 0, terminal: terminal, certificate: SimulatedTMS.certificate, to: path)
                let second = try await c.downloadBinary(
                    type: 5, terminal: terminal, certificate: SimulatedTMS.certificate, to: path + "-5")
                let again = try await c.register(terminal: terminal, certificate: SimulatedTMS.certificate)
                let zip = Self.emptyZip()
                defer { try? FileManager.default.removeItem(atPath: zip) }
                return (first, second, again, try await c.sendLogs(terminal: terminal, zipFile: zip))
            }.get()
            for file in TMSDownload.files(at: path + "-5") { try? FileManager.default.removeItem(atPath: file) }
            #expect(first.dialect == .v2020 && first.format == .octetStream)
            // The 2020 form of the zip item is the block stream: no zip for a 2020 server.
            #expect(second.dialect == .v2020 && second.format == .octetStream)
            #expect(again.dialect == .v2020 && logs == .v2020)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == tms.package)
            let served = await tms.tms.servedRequests().map {
                "\($0.endpoint.rawValue) \($0.dialect?.rawValue ?? "-") \($0.served)"
            }
            #expect(
                served == [
                    "register current false", "register 2020 true",
                    "binary current false", "binary 2020 true", "binary 2020 true",
                    "register 2020 true",
                    "logs current false", "logs 2020 true",
                ])
            #expect(log.notices.count == 3)
            #expect(log.notices.allSatisfy { $0.contains("HTTP 404") && $0.contains("2020 form") })
            #expect(memory.dialect(for: .binary, root: "https://127.0.0.1:\(tms.port)/MDM/jaxrs") == .v2020)
        }
    }

    @Test("a zip answer becomes one package per binary of its manifest, loadable as §10.5")
    func zipAnswerIsUnpacked() async throws {
        try await SimulatedTMS.with { tms in
            let log = CapturedLog()
            let memory = TMSDialectMemory()
            let terminal = self.terminal
            let registration = try await Self.register(tms, terminal: terminal, log: log, memory: memory)
            let path = tempPath("nfc.bin")
            defer { for file in TMSDownload.files(at: path) { try? FileManager.default.removeItem(atPath: file) } }
            let client = try tms.client(identity: registration.identity, log: log, memory: memory)
            let download = try await using(client) { c async throws(TMSError) in
                try await c.downloadBinary(type: 5, terminal: terminal, certificate: SimulatedTMS.certificate, to: path)
            }.get()
            #expect(download.format == .zip && download.dialect == .current)
            #expect(download.packages == [TMSDownloadedPackage(name: "nfc-1.0.0.7", path: path)])
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == tms.package)
            #expect(!FileManager.default.fileExists(atPath: path + ".zip"))
            let blocks = try await TMSBinaryPackage(path: path).open()
            #expect(blocks.signature == tms.signature && blocks.blockCount == 3 && blocks.totalBytes == 5000)
        }
    }

    /// spec §10.1: a bare server name is reached as api.NAME first. `api.localhost` resolves on some systems (systemd's
    /// nss-myhostname, a hosts entry) and not on others; either way the request succeeds, and the client says so
    /// exactly when it had to drop the prefix.
    @Test("a bare server name asks api.NAME first and falls back to NAME when api.NAME does not resolve")
    func bareServerName() async throws {
        try await SimulatedTMS.with { tms in
            let log = CapturedLog()
            let memory = TMSDialectMemory()
            let terminal = self.terminal
            let base = "localhost:\(tms.port)"
            let registration = try await using(try tms.client(base: base, log: log, memory: memory)) {
                c async throws(TMSError) in
                try await c.register(terminal: terminal, certificate: SimulatedTMS.certificate)
            }.get()
            #expect(registration.dialect == .current)
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var result: UnsafeMutablePointer<addrinfo>?
            let resolves = getaddrinfo("api.localhost", nil, &hints, &result) == 0
            if let result { freeaddrinfo(result) }
            let settings = try TMSSettings(baseURL: base)
            let chosen = memory.root(for: settings.baseURL)
            if resolves {
                #expect(log.notices.isEmpty)
                #expect(chosen == "https://api.localhost:\(tms.port)/MDM/jaxrs")
            } else {
                #expect(log.notices.count == 1 && log.notices.first?.contains("does not resolve") == true)
                #expect(chosen == "https://localhost:\(tms.port)/MDM/jaxrs")
            }
        }
    }
}

@Suite("TMS client dialect rules against a scripted server (spec §10.2, §10.5)")
struct TMSDialectScriptedTests {
    let terminal = try! TerminalIdentity(serial: "123456789", partNumber: "UCUBETOUCH")

    func client(_ server: TestHTTPServer, memory: TMSDialectMemory, attempts: Int = 1) throws -> TMSClient {
        let settings = try TMSSettings(
            baseURL: server.baseURL, retry: RetryPolicy(attempts: attempts, initialBackoff: .milliseconds(10)))
        return try TMSClient(settings: settings, memory: memory)
    }

    @Test("a 405 falls back like a 404; a 500 or a 403 does not")
    func whichStatusesFallBack() async throws {
        for (status, fallsBack) in [(405, true), (404, true), (500, false), (403, false)] {
            let server = try await TestHTTPServer.start { request, _ in
                request.uri.hasPrefix("/MDM/jaxrs/v3/")
                    ? .status(status, []) : .typed(200, "application/octet-stream", [0, 1, 9, 0, 1, 7, 0, 0])
            }
            defer { Task { await server.stop() } }
            let path = tempPath("b.bin")
            defer { for file in TMSDownload.files(at: path) { try? FileManager.default.removeItem(atPath: file) } }
            let terminal = self.terminal
            let result = await using(try client(server, memory: TMSDialectMemory(), attempts: 2)) {
                c async throws(TMSError) in
                try await c.downloadBinary(type: 4, terminal: terminal, certificate: [1], to: path)
            }
            let uris = server.requests.map(\.uri)
            if fallsBack {
                #expect(try result.get().dialect == .v2020, "\(status)")
                #expect(
                    uris == ["/MDM/jaxrs/v3/dongle/binary/4", "/MDM/jaxrs/v2/dongle/binary/4/123456789/UCUBETOUCH"],
                    "\(status)")
                // The 2020 form carries no x- headers, as the 2020 SDK sent none.
                #expect(server.requests.last?.deviceID == nil, "\(status)")
            } else {
                #expect(result.error?.status == status, "\(status)")
                #expect(uris.allSatisfy { $0 == "/MDM/jaxrs/v3/dongle/binary/4" }, "\(status)")
            }
        }
    }

    @Test("a server that knows neither form: the 2020 URL is in the error and nothing is remembered")
    func neitherForm() async throws {
        let server = try await TestHTTPServer.start { _, _ in .status(404, []) }
        defer { Task { await server.stop() } }
        let memory = TMSDialectMemory()
        let terminal = self.terminal
        let error = await using(try client(server, memory: memory)) { c async throws(TMSError) in
            try await c.register(terminal: terminal, certificate: [1])
        }.error
        #expect(error?.status == 404)
        #expect(error?.reason.contains("/public/v1/dongle/register/123456789/UCUBETOUCH") == true)
        #expect(server.requests.count == 2)
        #expect(memory.dialect(for: .register, root: server.baseURL + "/MDM/jaxrs") == .current)
    }

    @Test("a current binary answer whose Content-Type is neither octet-stream nor zip is malformed, not retried")
    func unknownContentType() async throws {
        for type in ["text/html", "", "application/json"] {
            let server = try await TestHTTPServer.start { _, _ in .typed(200, type, [0, 1, 9, 0, 1, 7, 0, 0]) }
            defer { Task { await server.stop() } }
            let path = tempPath("b.bin")
            let terminal = self.terminal
            let error = await using(try client(server, memory: TMSDialectMemory(), attempts: 3)) {
                c async throws(TMSError) in
                try await c.downloadBinary(type: 0, terminal: terminal, certificate: [1], to: path)
            }.error
            #expect(error?.code == .malformedReply && error?.reason.contains("Content-Type") == true, "\(type)")
            #expect(server.requests.count == 1, "\(type)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(type)")
        }
    }

    @Test func contentTypes() {
        #expect(TMSDownload.Format(contentType: "application/octet-stream") == .octetStream)
        #expect(TMSDownload.Format(contentType: "Application/ZIP; charset=binary") == .zip)
        #expect(TMSDownload.Format(contentType: "application/zipx") == nil)
        #expect(TMSDownload.Format(contentType: "") == nil)
    }
}

@Suite("TMS zip binary answers, bounded (spec §10.5)")
struct TMSZipPackageTests {
    let url = "https://tms/MDM/jaxrs/v3/dongle/binary/0"
    let manifest = Array(#"{"binary_list":["fw"]}"#.utf8)
    let blocks: [UInt8] = [0, 3, 1, 2, 3, 0, 1, 4]

    func packages(_ entries: [(String, [UInt8])], ciphered: Bool = false) -> Result<[TMSZipPackage.Binary], TMSError> {
        Result { () throws(TMSError) in
            try TMSZipPackage.packages(entries: entries.map { (name: $0.0, bytes: $0.1) }, ciphered: ciphered, url: url)
                .binaries
        }
    }

    @Test func aPackagePerNameWithItsTerminator() throws {
        let made = try packages([
            ("key", [9, 9]), ("manifest.json", manifest), ("fw.sig", [7, 7]), ("fw.bin", blocks),
        ]).get()
        #expect(made == [TMSZipPackage.Binary(name: "fw", package: [0, 2, 7, 7] + blocks + [0, 0])])
        // Ciphered: the key follows the signature, as in the block stream.
        let ciphered = try packages(
            [("key", [9, 9]), ("manifest.json", manifest), ("fw.sig", [7, 7]), ("fw.bin", blocks + [0, 0])],
            ciphered: true
        ).get()
        #expect(ciphered.first?.package == [0, 2, 7, 7, 0, 2, 9, 9] + blocks + [0, 0])
        let layout = try BinaryPackageLayout.scan(MemoryByteSource(ciphered[0].package), ciphered: true)
        #expect(layout.blockCount == 2 && layout.sessionKey == [9, 9])
    }

    /// Issue 39: the SDK takes the first entry that starts with the name, so `fw` took `fw2`'s image (or
    /// `fw-6.0.bin`, whatever that is). Entries are the name and `.sig` or `.bin`, exactly.
    @Test func namesMatchEntriesExactly() throws {
        let two = Array(#"{"binary_list":["fw","fw2"]}"#.utf8)
        let result = try TMSZipPackage.packages(
            entries: [
                ("key", []), ("manifest.json", two), ("fw2.sig", [2]), ("fw2.bin", [0, 1, 0xF2]), ("fw.sig", [1]),
                ("fw.bin", [0, 1, 0xF1]),
            ].map { (name: $0.0, bytes: $0.1) }, ciphered: false, url: url)
        #expect(
            result.binaries == [
                TMSZipPackage.Binary(name: "fw", package: [0, 1, 1, 0, 1, 0xF1, 0, 0]),
                TMSZipPackage.Binary(name: "fw2", package: [0, 1, 2, 0, 1, 0xF2, 0, 0]),
            ])
        // A longer entry name is not the binary's.
        #expect(
            packages([("key", []), ("manifest.json", manifest), ("fw-6.0.sig", [7]), ("fw-6.0.bin", blocks)])
                .error?.code == .malformedReply)
    }

    /// Issue 39: a manifest that named its binary twice had it installed, then reported "not installed".
    @Test func aManifestThatNamesABinaryTwiceIsRefused() {
        let twice = Array(#"{"binary_list":["fw","fw"]}"#.utf8)
        let error = packages([("key", []), ("manifest.json", twice), ("fw.sig", [7]), ("fw.bin", blocks)]).error
        #expect(error?.code == .malformedReply)
        #expect(error?.reason.contains("names the binary \"fw\" twice") == true, "\(String(describing: error))")
    }

    @Test func aNameWithoutBothEntriesIsSkipped() throws {
        let two = Array(#"{"binary_list":["fw","cfg"]}"#.utf8)
        let result = try TMSZipPackage.packages(
            entries: [("key", []), ("manifest.json", two), ("fw.sig", [1]), ("fw.bin", blocks), ("cfg.sig", [2])].map {
                (name: $0.0, bytes: $0.1)
            },
            ciphered: false, url: url)
        #expect(result.binaries.map(\.name) == ["fw"] && result.skipped == ["cfg"])
    }

    @Test(
        arguments: [
            (
                "no key",
                [("manifest.json", Array(#"{"binary_list":["fw"]}"#.utf8)), ("fw.sig", [1]), ("fw.bin", [0, 1, 1])]
            ),
            ("no manifest", [("key", []), ("fw.sig", [1]), ("fw.bin", [0, 1, 1])]),
            (
                "a manifest of the wrong shape",
                [
                    ("key", []), ("manifest.json", Array(#"{"binaries":["fw"]}"#.utf8)), ("fw.sig", [1]),
                    ("fw.bin", [0, 1, 1]),
                ]
            ),
            (
                "no binary with both entries",
                [("key", []), ("manifest.json", Array(#"{"binary_list":["fw"]}"#.utf8)), ("fw.sig", [1])]
            ),
            (
                "bytes after 00 00",
                [
                    ("key", []), ("manifest.json", Array(#"{"binary_list":["fw"]}"#.utf8)), ("fw.sig", [1]),
                    ("fw.bin", [0, 1, 1, 0, 0, 5]),
                ]
            ),
            (
                "a block cut short",
                [
                    ("key", []), ("manifest.json", Array(#"{"binary_list":["fw"]}"#.utf8)), ("fw.sig", [1]),
                    ("fw.bin", [0, 9, 1]),
                ]
            ),
            (
                "an empty signature",
                [
                    ("key", []), ("manifest.json", Array(#"{"binary_list":["fw"]}"#.utf8)), ("fw.sig", []),
                    ("fw.bin", [0, 1, 1]),
                ]
            ),
        ] as [(String, [(String, [UInt8])])])
    func malformedAnswers(_ what: String, _ entries: [(String, [UInt8])]) {
        #expect(packages(entries).error?.code == .malformedReply, "\(what)")
    }

    /// The fuzz corpus's zip seed (`UCubeFuzz --seeds tms-package`) is a well-formed answer, so the fuzzer starts
    /// from inside the parser rather than at its first refusal.
    @Test func theFuzzSeedIsAWellFormedAnswer() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/tms-package/seed-1")
        let bytes = try Array(Data(contentsOf: seed))
        let made = try Result { () throws(TMSError) in try TMSZipPackage.read(bytes: bytes, ciphered: false, url: url) }
            .get()
        #expect(made.binaries.map(\.name) == ["icc"] && made.skipped.isEmpty)
        let layout = try BinaryPackageLayout.scan(MemoryByteSource(made.binaries[0].package), ciphered: false)
        #expect(layout.blockCount == 3)
    }

    @Test func aCipheredItemNeedsAKey() {
        #expect(
            packages([("key", []), ("manifest.json", manifest), ("fw.sig", [1]), ("fw.bin", blocks)], ciphered: true)
                .error?.code == .malformedReply)
    }

    /// A real archive through ZIPFoundation: entry names that climb out, too many entries, or not a zip at all.
    @Test func archivesAreBounded() throws {
        func archive(_ entries: [(String, [UInt8])]) throws -> String {
            let path = tempPath("answer.zip")
            let zip = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
            for (name, bytes) in entries {
                let data = Data(bytes)
                try zip.addEntry(
                    with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate
                ) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            return path
        }
        let good = try archive([("key", []), ("manifest.json", manifest), ("fw.sig", [7]), ("fw.bin", blocks)])
        defer { try? FileManager.default.removeItem(atPath: good) }
        #expect(try TMSZipPackage.read(zipPath: good, ciphered: false, url: url).binaries.count == 1)
        let climbing = try archive([("key", []), ("manifest.json", manifest), ("../fw.sig", [7]), ("fw.bin", blocks)])
        defer { try? FileManager.default.removeItem(atPath: climbing) }
        let crowded = try archive((0...TMSChoices.maximumZipEntries).map { ("e\($0)", [UInt8($0 & 0xFF)]) })
        defer { try? FileManager.default.removeItem(atPath: crowded) }
        let notZip = tempPath("not.zip")
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: notZip))
        defer { try? FileManager.default.removeItem(atPath: notZip) }
        for (what, path) in [("a .. name", climbing), ("too many entries", crowded), ("not a zip", notZip)] {
            let error = Result { () throws(TMSError) in try TMSZipPackage.read(zipPath: path, ciphered: false, url: url)
            }.error
            #expect(error?.code == .malformedReply, "\(what)")
        }
        #expect(
            !TMSZipPackage.isSafe("/etc/passwd") && !TMSZipPackage.isSafe("a\\b") && !TMSZipPackage.isSafe("a/../b"))

        // One name twice in the archive: which of the two is the binary is anybody's guess.
        let doubled = try archive([
            ("key", []), ("manifest.json", manifest), ("fw.sig", [7]), ("fw.bin", blocks), ("fw.bin", blocks),
        ])
        defer { try? FileManager.default.removeItem(atPath: doubled) }
        let error = Result { () throws(TMSError) in try TMSZipPackage.read(zipPath: doubled, ciphered: false, url: url)
        }
        .error
        #expect(error?.reason.contains("holds the entry \"fw.bin\" twice") == true, "\(String(describing: error))")
        #expect(TMSZipPackage.isSafe("fw-6.0.1.0.bin") && TMSZipPackage.isSafe("dir/fw..bin"))
    }

    /// Issue 39: ZIPFoundation computes each entry's CRC-32 and the reader threw it away, so a corrupted download
    /// went to the terminal in full and came back as a bad signature. One byte of the stored image is flipped in the
    /// archive: the answer is refused, naming the CRC, before any package is made.
    @Test func aCorruptedEntryFailsItsCRC() throws {
        let image: [UInt8] = [0, 8] + Array("CRC-BAIT".utf8)
        let zip = try Archive(accessMode: .create)
        for (name, bytes) in [("key", []), ("manifest.json", manifest), ("fw.sig", [7]), ("fw.bin", image)] {
            let data = Data(bytes)
            try zip.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) {
                position, size in data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        var bytes = try #require(zip.data.map(Array.init))
        let good = try Result { () throws(TMSError) in try TMSZipPackage.read(bytes: bytes, ciphered: false, url: url) }
            .get()
        #expect(good.binaries.count == 1, "the archive is good before the flip")
        let bait = Array("CRC-BAIT".utf8)
        let at = try #require((0...(bytes.count - bait.count)).first { Array(bytes[$0..<($0 + bait.count)]) == bait })
        bytes[at] ^= 0x01
        let error = Result { () throws(TMSError) in try TMSZipPackage.read(bytes: bytes, ciphered: false, url: url) }
            .error
        #expect(error?.code == .malformedReply)
        #expect(error?.reason.contains("fails its CRC-32 check") == true, "\(String(describing: error))")
    }
}
