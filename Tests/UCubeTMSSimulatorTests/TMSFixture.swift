import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UCubeProtocol
import UCubeSimulator

@testable import UCubeTMSSimulator

/// A running simulator over a fresh state directory and a catalogue with one SVPP item of arbitrary bytes.
struct TMSFixture {
    static let serial = String(SimulatorChoices.DefaultDevice.serialNumber)
    static let partNumber = "UCUBE-TOUCH-PN"

    let tms: TMSSimulator
    let port: Int
    let root: URL
    let state: URL
    let catalogue: URL
    let image: [UInt8]
    let signature: [UInt8]

    /// The type of the catalogue item answered as a zip (`zipItem`): NFC EMV configuration 1.0.0.7.
    static let zipType = 5

    static func start(
        imageSize: Int = 5000, zipItem: Bool = false, dialects: Set<TMSRouteDialect> = Set(TMSRouteDialect.allCases)
    ) async throws -> TMSFixture {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tmssim-\(UUID().uuidString)")
        let state = root.appendingPathComponent("state")
        let catalogue = root.appendingPathComponent("catalogue")
        let image = (0..<imageSize).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let signature = (0..<256).map { UInt8(255 - $0) }
        try await writeCatalogue(at: catalogue, image: image, signature: signature, zipItem: zipItem)
        let tms = TMSSimulator()
        let port = try await tms.start(port: 0, stateDirectory: state, catalogue: catalogue, dialects: dialects)
        return TMSFixture(
            tms: tms, port: port, root: root, state: state, catalogue: catalogue, image: image, signature: signature)
    }

    /// The catalogue: an SVPP firmware item, and with `zipItem` an NFC EMV configuration (`zipType`) answered as a
    /// zip, with the same image and signature.
    static func writeCatalogue(at directory: URL, image: [UInt8], signature: [UInt8], zipItem: Bool = false)
        async throws
    {
        let zip = #"""
            ,{"type":5,"label":"NFC EMV configuration","version":"1.0.0.7","min_version":"1.0.0.0","answer":"zip",
            "image":"nfc-1.0.0.7.bin","signature":"svpp-6.0.1.0.sig"}
            """#
        let index = #"""
            {"items":[{"type":0,"label":"SVPP firmware","version":"6.0.1.0","min_version":"6.0.0.0","ciphered":false,
            "image":"svpp-6.0.1.0.bin","signature":"svpp-6.0.1.0.sig"}
            """# + (zipItem ? zip : "") + "]}"
        try await onPool {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(index.utf8).write(to: directory.appendingPathComponent("catalogue.json"))
            try Data(image).write(to: directory.appendingPathComponent("svpp-6.0.1.0.bin"))
            if zipItem { try Data(image).write(to: directory.appendingPathComponent("nfc-1.0.0.7.bin")) }
            try Data(signature).write(to: directory.appendingPathComponent("svpp-6.0.1.0.sig"))
        }
    }

    /// Blocking file work off the cooperative pool.
    static func onPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// Runs `body` against a fresh simulator, then stops it and removes its directories (on every path).
    static func with(
        imageSize: Int = 5000, zipItem: Bool = false, dialects: Set<TMSRouteDialect> = Set(TMSRouteDialect.allCases),
        _ body: (TMSFixture) async throws -> Void
    ) async throws {
        let fixture = try await start(imageSize: imageSize, zipItem: zipItem, dialects: dialects)
        do {
            try await body(fixture)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    func stop() async {
        await tms.stop()
        try? await Self.onPool { [root] in try FileManager.default.removeItem(at: root) }
    }

    var caURL: URL { TMSSimulator.caCertificateURL(stateDirectory: state) }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)/MDM/jaxrs\(path)" }

    /// The terminal simulator's InstallForLoadKey data for `serial`.
    static func dongleCertificate(serial: String = serial) throws -> [UInt8] {
        try InstallForLoadKey.Response(
            caCertificate: SimulatorChoices.demoCAProdCertificate,
            kekCertificate: SimulatorChoices.demoKEKCertificate(serial: UInt64(serial)!)
        ).raw
    }

    /// An HTTPS client trusting `tms-ca.pem`, presenting `certificate`/`key` when given; shut down after `body`.
    func withClient<T>(
        certificate: NIOSSLCertificate? = nil, key: NIOSSLPrivateKey? = nil,
        _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        let caPEM = try await Self.onPool { [caURL] in try Data(contentsOf: caURL) }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(caPEM), format: .pem)])
        if let certificate, let key {
            tls.certificateChain = [.certificate(certificate)]
            tls.privateKey = .privateKey(key)
        }
        let client = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    func withClient<T>(identity: NIOSSLPKCS12Bundle, _ body: (HTTPClient) async throws -> T) async throws -> T {
        try await withClient(certificate: identity.certificateChain.first, key: identity.privateKey, body)
    }

    /// One request; the answer's status and whole body.
    static func send(
        _ client: HTTPClient, _ method: HTTPMethod, _ url: String, body: [UInt8]? = nil,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), Array(bytes.readableBytesView))
    }

    /// Registers `serial` and returns the PKCS#12 bytes.
    func register(serial: String = serial) async throws -> [UInt8] {
        try await withClient { client in
            let answer = try await Self.send(
                client, .POST, url("/public/v1/dongle/register/\(serial)/\(Self.partNumber)"),
                body: try Self.dongleCertificate(serial: serial))
            guard answer.status == 200 else { throw FixtureError(description: "register answered \(answer.status)") }
            return answer.body
        }
    }

    func identity(serial: String = serial) async throws -> NIOSSLPKCS12Bundle {
        try NIOSSLPKCS12Bundle(buffer: try await register(serial: serial), passphrase: Array("gmxsas".utf8))
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
