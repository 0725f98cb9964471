import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing
import ZIPFoundation

@testable import UCubeTMSSimulator

private typealias F = TMSFixture

/// One request with headers; the status, the Content-Type and the body.
private func exchange(
    _ client: HTTPClient, _ method: HTTPMethod, _ url: String, body: [UInt8]? = nil, headers: [(String, String)] = []
) async throws -> (status: Int, type: String?, body: [UInt8]) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let body {
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .bytes(ByteBuffer(bytes: body))
    }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await client.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 64 << 20)
    return (Int(response.status.code), response.headers.first(name: "Content-Type"), Array(bytes.readableBytesView))
}

/// The §10.5 block stream of `image` after its signature (the simulator's 2040-byte blocks).
private func blockStream(_ image: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    while start < image.count {
        let end = min(start + TMSSimulatorChoices.binaryBlockSize, image.count)
        out += [UInt8((end - start) >> 8), UInt8((end - start) & 0xFF)] + image[start..<end]
        start = end
    }
    return out + [0, 0]
}

private let identityHeaders = [("x-device-id", F.serial), ("x-id-type", "C3")]

@Suite("TMS simulator: the current SDK's API and the 2020 one, side by side (spec §10.2)")
struct TMSDialectTests {
    @Test("the current forms: register …/RFU, config with x- headers, binary v3, logs v3, infos JSON")
    func currentForms() async throws {
        try await F.with { fixture in
            let register = try await fixture.withClient { client in
                try await exchange(
                    client, .POST, fixture.url("/public/v1/dongle/register/\(F.serial)/RFU"),
                    body: try F.dongleCertificate())
            }
            #expect(register.status == 200)
            let identity = try NIOSSLPKCS12Bundle(buffer: register.body, passphrase: Array("gmxsas".utf8))
            try await fixture.withClient(identity: identity) { (client: HTTPClient) async throws -> Void in
                let config = try await exchange(
                    client, .GET, fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)"), headers: identityHeaders
                )
                #expect(config.status == 200 && config.type == "application/json")
                let v3 = try await exchange(
                    client, .POST, fixture.url("/v3/dongle/binary/0"), body: try F.dongleCertificate(),
                    headers: identityHeaders)
                let v2 = try await exchange(
                    client, .POST, fixture.url("/v2/dongle/binary/0/\(F.serial)/\(F.partNumber)"),
                    body: try F.dongleCertificate())
                // The SDK compares the Content-Type as a whole string (L:mdm.DownloadBinaryTask).
                #expect(v3.status == 200 && v3.type == "application/octet-stream")
                #expect(v3.body == [0x01, 0x00] + fixture.signature + blockStream(fixture.image))
                #expect(v2.body == v3.body)
                // No x-device-id: the current form names no terminal.
                #expect(
                    try await exchange(
                        client, .POST, fixture.url("/v3/dongle/binary/0"), body: try F.dongleCertificate()
                    ).status == 400)
                let state = Array(#"{"C3":"\#(F.serial)"}"#.utf8)
                let infos = try await exchange(
                    client, .POST, fixture.url("/v2/dongle/infos/\(F.serial)"), body: state, headers: identityHeaders)
                #expect(infos.status == 200)
            }
            #expect(await fixture.tms.deviceInfos(serial: F.serial) == Array(#"{"C3":"\#(F.serial)"}"#.utf8))
            let zip = [UInt8]("PK\u{5}\u{6}".utf8) + [UInt8](repeating: 0, count: 18)
            let logs = try await fixture.withClient { client in
                try await exchange(
                    client, .POST, fixture.url("/public/v3/dongle/logs/?type=zip"), body: zip, headers: identityHeaders)
            }
            #expect(logs.status == 200)
            let stored = fixture.state.appendingPathComponent("received-logs/\(F.serial)-1.zip")
            #expect(try Data(contentsOf: stored) == Data(zip))
            let served = await fixture.tms.servedRequests()
            #expect(served.filter(\.served).map(\.dialect) == [.current, nil, .current, .v2020, .current, .current])
        }
    }

    /// Issue 39: the logs route is public (as in the spec), and it took anonymous uploads without end. What is kept
    /// is bounded: with the received logs one upload short of the bound (a sparse file, counted at start), the next
    /// upload is answered 507 and nothing is written.
    @Test("received logs are bounded in all: past the bound an upload is answered 507, nothing written")
    func receivedLogsAreBounded() async throws {
        try await F.with { fixture in
            await fixture.tms.stop()
            let received = fixture.state.appendingPathComponent("received-logs")
            try await F.onPool {
                try FileManager.default.createDirectory(at: received, withIntermediateDirectories: true)
                let big = received.appendingPathComponent("\(F.serial)-1.zip")
                _ = FileManager.default.createFile(atPath: big.path, contents: nil)
                let handle = try FileHandle(forWritingTo: big)
                try handle.truncate(atOffset: UInt64(TMSSimulatorChoices.maximumReceivedLogs - 10))
                try handle.close()
            }
            let port = try await fixture.tms.start(port: 0, stateDirectory: fixture.state, catalogue: fixture.catalogue)
            let zip = [UInt8]("PK\u{5}\u{6}".utf8) + [UInt8](repeating: 0, count: 18)
            let logs = try await fixture.withClient { client in
                try await exchange(
                    client, .POST, "https://127.0.0.1:\(port)/MDM/jaxrs/public/v3/dongle/logs/?type=zip", body: zip,
                    headers: identityHeaders)
            }
            #expect(logs.status == 507)
            #expect(String(decoding: logs.body, as: UTF8.self).contains("at most 256 MiB of received logs"))
            let names = try FileManager.default.contentsOfDirectory(atPath: received.path)
            #expect(names == ["\(F.serial)-1.zip"], "\(names)")
        }
    }

    @Test(
        "a catalogue item with \"answer\":\"zip\" is answered application/zip to v3: key, manifest, NAME.sig, NAME.bin")
    func zipAnswer() async throws {
        try await F.with(zipItem: true) { fixture in
            let identity = try await fixture.identity()
            let (v3, v2) = try await fixture.withClient(identity: identity) { client in
                (
                    try await exchange(
                        client, .POST, fixture.url("/v3/dongle/binary/\(F.zipType)"), body: try F.dongleCertificate(),
                        headers: identityHeaders),
                    try await exchange(
                        client, .POST, fixture.url("/v2/dongle/binary/\(F.zipType)/\(F.serial)/\(F.partNumber)"),
                        body: try F.dongleCertificate())
                )
            }
            #expect(v3.status == 200 && v3.type == "application/zip")
            let archive = try Archive(data: Data(v3.body), accessMode: .read)
            var entries: [String: [UInt8]] = [:]
            var order: [String] = []
            for entry in archive {
                var bytes: [UInt8] = []
                _ = try archive.extract(entry) { bytes += $0 }
                entries[entry.path] = bytes
                order.append(entry.path)
            }
            #expect(order == ["key", "manifest.json", "nfc-1.0.0.7.sig", "nfc-1.0.0.7.bin"])
            #expect(entries["key"] == [])
            let manifest =
                try JSONSerialization.jsonObject(with: Data(entries["manifest.json"] ?? [])) as? [String: [String]]
            #expect(manifest == ["binary_list": ["nfc-1.0.0.7"]])
            #expect(entries["nfc-1.0.0.7.sig"] == fixture.signature)
            #expect(entries["nfc-1.0.0.7.bin"] == blockStream(fixture.image))
            // The 2020 SDK reads only the block stream: its form of the same item is not a zip.
            #expect(v2.status == 200 && v2.type == "application/octet-stream")
        }
    }

    @Test("--tms-dialect 2020 answers the current forms 404 and serves the 2020 ones; current the reverse")
    func oneDialectOnly() async throws {
        try await F.with(dialects: [.v2020]) { fixture in
            try await fixture.withClient { (client: HTTPClient) async throws -> Void in
                let rfu = fixture.url("/public/v1/dongle/register/\(F.serial)/RFU")
                #expect(try await exchange(client, .POST, rfu, body: try F.dongleCertificate()).status == 404)
                let logs = fixture.url("/public/v3/dongle/logs/?type=zip")
                #expect(try await exchange(client, .POST, logs, body: [1], headers: identityHeaders).status == 404)
            }
            let identity = try await fixture.identity()  // the 2020 register form
            try await fixture.withClient(identity: identity) { (client: HTTPClient) async throws -> Void in
                #expect(
                    try await exchange(
                        client, .POST, fixture.url("/v3/dongle/binary/0"), body: try F.dongleCertificate(),
                        headers: identityHeaders
                    ).status == 404)
                #expect(
                    try await exchange(
                        client, .POST, fixture.url("/v2/dongle/binary/0/\(F.serial)/\(F.partNumber)"),
                        body: try F.dongleCertificate()
                    ).status
                        == 200)
                #expect(
                    try await exchange(client, .GET, fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)"))
                        .status == 200)
            }
            let served = await fixture.tms.servedRequests()
            #expect(served.map(\.served) == [false, false, true, false, true, true])
        }
        try await F.with(dialects: [.current]) { fixture in
            try await fixture.withClient { (client: HTTPClient) async throws -> Void in
                let old = fixture.url("/public/v1/dongle/register/\(F.serial)/\(F.partNumber)")
                #expect(try await exchange(client, .POST, old, body: try F.dongleCertificate()).status == 404)
                let rfu = fixture.url("/public/v1/dongle/register/\(F.serial)/RFU")
                #expect(try await exchange(client, .POST, rfu, body: try F.dongleCertificate()).status == 200)
            }
        }
    }

    @Test("a fault on an endpoint is not spent by a request in a form the server does not serve")
    func unservedFormsSpendNoFault() async throws {
        try await F.with(dialects: [.v2020]) { fixture in
            await fixture.tms.setFault(.status(503), for: .register)
            try await fixture.withClient { (client: HTTPClient) async throws -> Void in
                let rfu = fixture.url("/public/v1/dongle/register/\(F.serial)/RFU")
                #expect(try await exchange(client, .POST, rfu, body: try F.dongleCertificate()).status == 404)
                #expect(await fixture.tms.faultsRemaining(for: .register) == 1)
                let old = fixture.url("/public/v1/dongle/register/\(F.serial)/\(F.partNumber)")
                #expect(try await exchange(client, .POST, old, body: try F.dongleCertificate()).status == 503)
            }
        }
    }

    /// spec §10.1: the current SDK's SSLContext is "TLSv1.2" with only TLSv1.2 enabled.
    @Test("a client that speaks TLS 1.2 only (as the current SDK) completes the handshake")
    func tls12Only() async throws {
        try await F.with { fixture in
            let caPEM = try Data(contentsOf: fixture.caURL)
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(caPEM), format: .pem)])
            tls.minimumTLSVersion = .tlsv12
            tls.maximumTLSVersion = .tlsv12
            let client = HTTPClient(
                eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
                configuration: HTTPClient.Configuration(tlsConfiguration: tls))
            let status: Int
            do {
                status = try await exchange(
                    client, .POST, fixture.url("/public/v1/dongle/register/\(F.serial)/RFU"),
                    body: try F.dongleCertificate()
                ).status
            } catch {
                try? await client.shutdown()
                throw error
            }
            try? await client.shutdown()
            #expect(status == 200)
        }
    }
}

@Suite("TMS simulator routes of the current SDK (pure)")
struct TMSCurrentRouteTests {
    @Test func parsesTheCurrentPaths() throws {
        let register = try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/public/v1/dongle/register/202401001/RFU")
            .get()
        #expect(register.dialect == .current && register.partNumber == nil && register.serial == "202401001")
        let old = try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/public/v1/dongle/register/202401001/PN").get()
        #expect(old.dialect == .v2020 && old.partNumber == "PN")
        let binary = try TMSRoute.parse(
            method: "POST", uri: "/MDM/jaxrs/v3/dongle/binary/12", deviceID: "7", idType: "C3"
        ).get()
        #expect(
            binary.endpoint == .binary && binary.dialect == .current && binary.serial == "7" && binary.binaryType == 12)
        // The SDK sends the serial for binary whatever x-id-type says (spec §10.1).
        #expect(
            try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v3/dongle/binary/0", deviceID: "7", idType: "C2").get()
                .serial == "7")
        for uri in ["/MDM/jaxrs/public/v3/dongle/logs/?type=zip", "/MDM/jaxrs/public/v3/dongle/logs?type=zip"] {
            let logs = try TMSRoute.parse(method: "POST", uri: uri, deviceID: "7").get()
            #expect(logs.endpoint == .logs && logs.dialect == .current && logs.serial == "7", "\(uri)")
        }
        let infos = try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v2/dongle/infos/7", deviceID: "7").get()
        #expect(infos.endpoint == .infos && infos.dialect == .current && infos.needsClientCertificate)
        let config = try TMSRoute.parse(method: "GET", uri: "/MDM/jaxrs/v2/dongle/config/7/PN", deviceID: "7").get()
        #expect(config.dialect == nil)
    }

    @Test func refusesCurrentRequestsThatNameNoTerminal() {
        let refused: [(String, String, String?, String?)] = [
            ("POST", "/MDM/jaxrs/v3/dongle/binary/0", nil, nil),
            ("POST", "/MDM/jaxrs/v3/dongle/binary/x", "7", nil),
            ("POST", "/MDM/jaxrs/public/v3/dongle/logs/?type=zip", nil, nil),
            ("POST", "/MDM/jaxrs/public/v3/dongle/logs/?type=zip", "UCUBE-PN", "C2"),
            ("POST", "/MDM/jaxrs/public/v3/dongle/logs/", "7", "C3"),
            ("POST", "/MDM/jaxrs/v2/dongle/infos/7", "8", nil),
            ("GET", "/MDM/jaxrs/v2/dongle/config/7/PN", "8", nil),
            ("POST", "/MDM/jaxrs/v3/dongle/binary/0", "../7", nil),
        ]
        for (method, uri, id, type) in refused {
            guard case .failure(.badRequest) = TMSRoute.parse(method: method, uri: uri, deviceID: id, idType: type)
            else {
                Issue.record("\(method) \(uri) x-device-id \(id ?? "none") x-id-type \(type ?? "none") must be 400")
                continue
            }
        }
        #expect(
            TMSRoute.parse(method: "GET", uri: "/MDM/jaxrs/v3/dongle/binary/0", deviceID: "7")
                == .failure(.methodNotAllowed(allowed: .post)))
        #expect(
            TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v3/dongle/checkState", deviceID: "7") == .failure(.notFound)
        )
    }
}
