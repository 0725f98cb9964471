import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
import Testing
import UCubeProtocol
import UCubeSimulator
import X509

@testable import UCubeTMSSimulator

@Suite("TMS simulator over HTTPS")
struct TMSSimulatorTests {
    private typealias F = TMSFixture

    @Test("register returns a PKCS#12 that NIOSSL opens with gmxsas: key + certificate with CN = serial")
    func registerIssuesPKCS12() async throws {
        try await F.with { fixture in
            let p12 = try await fixture.register()
            let bundle = try NIOSSLPKCS12Bundle(buffer: p12, passphrase: Array("gmxsas".utf8))
            #expect(bundle.certificateChain.count == 1)
            let certificate = try Certificate(derEncoded: try bundle.certificateChain[0].toDERBytes())
            #expect(TMSCertificateAuthority.commonName(of: certificate) == F.serial)
            // The alias is the PKCS#12 friendlyName, a BMPString (UTF-16BE).
            let alias = Array("MDM-client".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
            #expect(p12.indices.contains { p12[$0...].starts(with: alias) })
            #expect(throws: (any Error).self) {
                try NIOSSLPKCS12Bundle(buffer: p12, passphrase: Array("wrong".utf8))
            }
            #expect(await fixture.tms.registeredSerials() == [F.serial])
        }
    }

    @Test("register refuses a wrong terminal certificate: 403 for another serial's KEK, 400 for garbage")
    func registerRefusesWrongCertificate() async throws {
        try await F.with { fixture in
            try await fixture.withClient { client in
                let path = fixture.url("/public/v1/dongle/register/\(F.serial)/\(F.partNumber)")
                let other = try F.dongleCertificate(serial: "123456789")
                #expect(try await F.send(client, .POST, path, body: other).status == 403)
                let foreignCA = try InstallForLoadKey.Response(
                    caCertificate: Array("SOME OTHER CA".utf8),
                    kekCertificate: SimulatorChoices.demoKEKCertificate(serial: UInt64(F.serial)!)
                ).raw
                #expect(try await F.send(client, .POST, path, body: foreignCA).status == 403)
                #expect(try await F.send(client, .POST, path, body: [0x00, 0x05, 0x01]).status == 400)
            }
            #expect(await fixture.tms.registeredSerials().isEmpty)
        }
    }

    @Test("config without a client certificate is 403; with the issued identity 200 and the catalogue JSON")
    func configNeedsClientCertificate() async throws {
        try await F.with { fixture in
            let configURL = fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)")
            try await fixture.withClient { (client: HTTPClient) async throws -> Void in
                #expect(try await F.send(client, .GET, configURL).status == 403)
            }
            let identity = try await fixture.identity()
            let answer = try await fixture.withClient(identity: identity) { client in
                try await F.send(client, .GET, configURL)
            }
            #expect(answer.status == 200)
            struct Answer: Decodable {
                struct Payload: Decodable { let config: [Item] }
                struct Item: Decodable, Equatable {
                    let type: Int
                    let ciphered: Bool
                    let label: String
                    let min_version: String
                    let current_version: String
                }
                let status: String
                let data: Payload
            }
            let decoded = try JSONDecoder().decode(Answer.self, from: Data(answer.body))
            #expect(decoded.status == "ok")
            #expect(
                decoded.data.config == [
                    .init(
                        type: 0, ciphered: false, label: "SVPP firmware", min_version: "6.0.0.0",
                        current_version: "6.0.1.0")
                ])
        }
    }

    @Test("a certificate whose CN is another serial is 403 on that serial's private endpoints")
    func commonNameMustMatchSerial() async throws {
        try await F.with { fixture in
            let identity = try await fixture.identity()
            let status = try await fixture.withClient(identity: identity) { client in
                try await F.send(client, .GET, fixture.url("/v2/dongle/config/123456789/\(F.partNumber)")).status
            }
            #expect(status == 403)
        }
    }

    @Test("mutual TLS refuses a client certificate from another CA (handshake failure)")
    func foreignClientCertificateFailsHandshake() async throws {
        try await F.with { fixture in
            let foreign = try TMSCertificateAuthority.create().issueClientIdentity(serial: F.serial)
            let certificate = try NIOSSLCertificate(bytes: Array(foreign.certificatePEM.utf8), format: .pem)
            let key = try NIOSSLPrivateKey(bytes: Array(foreign.privateKeyPEM.utf8), format: .pem)
            await #expect(throws: (any Error).self) {
                try await fixture.withClient(certificate: certificate, key: key) { client in
                    try await F.send(client, .GET, fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)"))
                }
            }
        }
    }

    @Test("binary body of a 5,000-byte image: LL sig, 2040 + 2040 + 920 blocks, then 00 00 (§10.5)")
    func binaryFraming() async throws {
        try await F.with(imageSize: 5000) { fixture in
            let identity = try await fixture.identity()
            let answer = try await fixture.withClient(identity: identity) { client in
                try await F.send(
                    client, .POST, fixture.url("/v2/dongle/binary/0/\(F.serial)/\(F.partNumber)"),
                    body: try F.dongleCertificate())
            }
            #expect(answer.status == 200)
            let image = fixture.image
            var expected: [UInt8] = [0x01, 0x00] + fixture.signature
            expected += [0x07, 0xF8] + image[0..<2040]
            expected += [0x07, 0xF8] + image[2040..<4080]
            expected += [0x03, 0x98] + image[4080..<5000]
            expected += [0x00, 0x00]
            #expect(answer.body.count == expected.count)
            #expect(answer.body == expected)
        }
    }

    @Test("binary: 404 for a type not in the catalogue, 403 for a wrong terminal certificate")
    func binaryRefusals() async throws {
        try await F.with { fixture in
            let identity = try await fixture.identity()
            try await fixture.withClient(identity: identity) { client in
                let missing = try await F.send(
                    client, .POST, fixture.url("/v2/dongle/binary/3/\(F.serial)/\(F.partNumber)"),
                    body: try F.dongleCertificate())
                #expect(missing.status == 404)
                let wrong = try await F.send(
                    client, .POST, fixture.url("/v2/dongle/binary/0/\(F.serial)/\(F.partNumber)"),
                    body: try F.dongleCertificate(serial: "987654321"))
                #expect(wrong.status == 403)
            }
        }
    }

    @Test("infos stores the GetInfo TLV; logs are stored as received-logs/<serial>-<n>.zip")
    func infosAndLogs() async throws {
        try await F.with { fixture in
            let identity = try await fixture.identity()
            let tlv: [UInt8] = [0xC1, 0x02, 0x01, 0x02]
            let infos = try await fixture.withClient(identity: identity) { client in
                try await F.send(client, .POST, fixture.url("/v2/dongle/infos/\(F.serial)/\(F.partNumber)"), body: tlv)
            }
            #expect(infos.status == 200)
            #expect(await fixture.tms.deviceInfos(serial: F.serial) == tlv)
            let zip: [UInt8] = Array("PK\u{03}\u{04} pretend zip".utf8)
            try await fixture.withClient { (client: HTTPClient) async throws -> Void in
                let logsURL = fixture.url("/v1/dongle/logs/\(F.serial)/\(F.partNumber)?type=zip")
                #expect(try await F.send(client, .POST, logsURL, body: zip).status == 200)
                #expect(try await F.send(client, .POST, logsURL, body: zip + zip).status == 200)
            }
            let directory = fixture.state.appendingPathComponent("received-logs")
            let first = try await F.onPool {
                try Data(contentsOf: directory.appendingPathComponent("\(F.serial)-1.zip"))
            }
            let second = try await F.onPool {
                try Data(contentsOf: directory.appendingPathComponent("\(F.serial)-2.zip"))
            }
            #expect(Array(first) == zip)
            #expect(Array(second) == zip + zip)
        }
    }

    @Test("unknown path 404, wrong method 405, oversize body 413, logs without ?type=zip 400")
    func httpRefusals() async throws {
        try await F.with { fixture in
            try await fixture.withClient { (client: HTTPClient) async throws -> Void in
                #expect(try await F.send(client, .GET, fixture.url("/nothing/here")).status == 404)
                #expect(try await F.send(client, .GET, "https://127.0.0.1:\(fixture.port)/").status == 404)
                let register = fixture.url("/public/v1/dongle/register/\(F.serial)/\(F.partNumber)")
                #expect(try await F.send(client, .GET, register).status == 405)
                let big = [UInt8](repeating: 0x41, count: TMSSimulatorChoices.maximumSmallBody + 1)
                #expect(try await F.send(client, .POST, register, body: big).status == 413)
                let logs = fixture.url("/v1/dongle/logs/\(F.serial)/\(F.partNumber)")
                #expect(try await F.send(client, .POST, logs, body: [1]).status == 400)
                let badSerial = fixture.url("/public/v1/dongle/register/12ab/\(F.partNumber)")
                #expect(try await F.send(client, .POST, badSerial, body: [1]).status == 400)
            }
        }
    }

    @Test("faults: 500 for the next N requests, then normal answers")
    func statusFault() async throws {
        try await F.with { fixture in
            let identity = try await fixture.identity()
            await fixture.tms.setFault(.status(500), for: .config, times: 2)
            let statuses = try await fixture.withClient(identity: identity) { client in
                var statuses: [Int] = []
                for _ in 0..<3 {
                    statuses.append(
                        try await F.send(client, .GET, fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)"))
                            .status)
                }
                return statuses
            }
            #expect(statuses == [500, 500, 200])
        }
    }

    @Test("faults for one serial hit only that terminal's requests; a fault for any terminal still hits the others")
    func serialFault() async throws {
        try await F.with { fixture in
            let identity = try await fixture.identity()
            await fixture.tms.setFault(.status(503), for: .config, serial: "999", times: 5)
            await fixture.tms.setFault(.status(502), for: .config, serial: F.serial, times: 1)
            let statuses = try await fixture.withClient(identity: identity) { client in
                var statuses: [Int] = []
                for _ in 0..<2 {
                    statuses.append(
                        try await F.send(client, .GET, fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)"))
                            .status)
                }
                return statuses
            }
            #expect(statuses == [502, 200])
            #expect(await fixture.tms.faultsRemaining(for: .config, serial: "999") == 5)
        }
    }

    @Test("faults: malformed JSON, truncated body, dropped binary, delayed answer past the client deadline")
    func bodyFaults() async throws {
        try await F.with(imageSize: 20_000) { fixture in
            let identity = try await fixture.identity()
            let configURL = fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)")
            let binaryURL = fixture.url("/v2/dongle/binary/0/\(F.serial)/\(F.partNumber)")
            try await fixture.withClient(identity: identity) { client in
                await fixture.tms.setFault(.malformedJSON, for: .config)
                let malformed = try await F.send(client, .GET, configURL)
                #expect(malformed.status == 200)
                #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(malformed.body)) }

                await fixture.tms.setFault(.truncatedBody, for: .config)
                await #expect(throws: (any Error).self) { try await F.send(client, .GET, configURL) }

                await fixture.tms.setFault(.dropConnection, for: .binary)
                await #expect(throws: (any Error).self) {
                    try await F.send(client, .POST, binaryURL, body: try F.dongleCertificate())
                }

                await fixture.tms.setFault(.delay(.seconds(20)), for: .config)
                await #expect(throws: (any Error).self) {
                    try await F.send(client, .GET, configURL, timeout: .milliseconds(300))
                }
                // The faults were used up: the server answers normally again.
                #expect(try await F.send(client, .POST, binaryURL, body: try F.dongleCertificate()).status == 200)
            }
        }
    }

    @Test("a restart over the same state directory keeps the CA (issued identities stay valid); key file is 0600")
    func restartKeepsCA() async throws {
        let fixture = try await F.start()
        let identity: NIOSSLPKCS12Bundle
        let caBefore: Data
        do {
            identity = try await fixture.identity()
            caBefore = try await F.onPool { [url = fixture.caURL] in try Data(contentsOf: url) }
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.tms.stop()
        let again = TMSSimulator()
        let port = try await again.start(port: 0, stateDirectory: fixture.state, catalogue: fixture.catalogue)
        let restarted = TMSFixture(
            tms: again, port: port, root: fixture.root, state: fixture.state, catalogue: fixture.catalogue,
            image: fixture.image, signature: fixture.signature)
        do {
            let caAfter = try await F.onPool { [url = fixture.caURL] in try Data(contentsOf: url) }
            #expect(caBefore == caAfter)
            let status = try await restarted.withClient(identity: identity) { client in
                try await F.send(client, .GET, restarted.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)")).status
            }
            #expect(status == 200)
            let permissions = try await F.onPool { [state = fixture.state] in
                try FileManager.default.attributesOfItem(
                    atPath: state.appendingPathComponent("tms-ca-key.pem").path)[.posixPermissions] as? Int
            }
            #expect(permissions == 0o600)
        } catch {
            await restarted.stop()
            throw error
        }
        await restarted.stop()
    }

    @Test("a missing or invalid catalogue is a clear startup error")
    func invalidCatalogue() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tmssim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let tms = TMSSimulator()
        let missing = await #expect(throws: TMSSimulatorError.self) {
            _ = try await tms.start(
                stateDirectory: root.appendingPathComponent("state"), catalogue: root.appendingPathComponent("none"))
        }
        #expect(missing?.code == .invalidCatalogue)
        let catalogue = root.appendingPathComponent("catalogue")
        try await F.onPool {
            try FileManager.default.createDirectory(at: catalogue, withIntermediateDirectories: true)
            try Data(
                #"{"items":[{"type":0,"version":"6.0.1","min_version":"6.0.0.0","image":"a","signature":"b"}]}"#.utf8
            )
            .write(to: catalogue.appendingPathComponent("catalogue.json"))
        }
        let invalid = await #expect(throws: TMSSimulatorError.self) {
            _ = try await tms.start(stateDirectory: root.appendingPathComponent("state"), catalogue: catalogue)
        }
        #expect(invalid?.code == .invalidCatalogue)
        #expect(invalid?.reason.contains("a.b.c.d") == true)
    }
}

@Suite("TMS simulator routes (pure)")
struct TMSRouteTests {
    @Test func parsesTheOldAndroidPaths() throws {
        let register = try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/public/v1/dongle/register/202401001/PN%201")
            .get()
        #expect(register.endpoint == .register)
        #expect(register.partNumber == "PN 1")
        #expect(!register.needsClientCertificate)
        let binary = try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v2/dongle/binary/5/1/PN").get()
        #expect(binary.endpoint == .binary && binary.binaryType == 5 && binary.needsClientCertificate)
        #expect(try TMSRoute.parse(method: "GET", uri: "/MDM/jaxrs/v2/dongle/config/1/PN").get().endpoint == .config)
        #expect(
            try TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v1/dongle/logs/1/PN?type=zip").get().endpoint == .logs)
    }

    @Test func refusesOtherRequests() {
        #expect(TMSRoute.parse(method: "GET", uri: "/MDM/jaxrs/v2/dongle/config/1") == .failure(.notFound))
        #expect(
            TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v2/dongle/config/1/PN")
                == .failure(.methodNotAllowed(allowed: .get)))
        #expect(TMSRoute.parse(method: "POST", uri: "/other/v2/dongle/infos/1/PN") == .failure(.notFound))
        guard case .failure(.badRequest) = TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v2/dongle/binary/x/1/PN")
        else {
            Issue.record("a non-numeric type must be refused")
            return
        }
        guard case .failure(.badRequest) = TMSRoute.parse(method: "POST", uri: "/MDM/jaxrs/v2/dongle/infos/-1/PN")
        else {
            Issue.record("a non-decimal serial must be refused")
            return
        }
    }

    @Test func catalogueVersions() {
        #expect(TMSCatalogue.isVersion("6.0.1.0"))
        #expect(!TMSCatalogue.isVersion("6.0.1"))
        #expect(!TMSCatalogue.isVersion("6.0.1.x"))
        #expect(!TMSCatalogue.isVersion("6..1.0"))
    }
}
