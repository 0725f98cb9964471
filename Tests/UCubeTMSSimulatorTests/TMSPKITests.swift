import Foundation
import NIOHTTP1
import NIOSSL
import SwiftASN1
import Testing
import UCubeProtocol
import UCubeSimulator
import X509

@testable import UCubeTMSSimulator

@Suite("TMS simulator PKI, PKCS#12 and dongle certificate checks (pure)")
struct TMSPKITests {
    @Test("the server certificate names 127.0.0.1, ::1, localhost and api.localhost and chains to the CA")
    func serverCertificate() throws {
        let authority = try TMSCertificateAuthority.create()
        let identity = try authority.issueServerIdentity()
        #expect(identity.certificate.issuer == authority.certificate.subject)
        let names = try #require(try identity.certificate.extensions.subjectAlternativeNames)
        #expect(names.contains(.dnsName("localhost")))
        // spec §10.1: the current SDK told the server localhost:PORT asks for api.localhost:PORT.
        #expect(names.contains(.dnsName("api.localhost")))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(try authority.certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
    }

    @Test("--tms-name NAME adds NAME and api.NAME to the server certificate, beside localhost")
    func extraServerNames() throws {
        let authority = try TMSCertificateAuthority.create()
        let extra =
            try TMSSimulatorChoices.serverNames(for: "Shop-TMS.example.test")
            + TMSSimulatorChoices.serverNames(for: "api.other.test")
        #expect(extra == ["shop-tms.example.test", "api.shop-tms.example.test", "api.other.test"])
        let identity = try authority.issueServerIdentity(extraNames: extra)
        let names = try #require(try identity.certificate.extensions.subjectAlternativeNames)
        for name in ["localhost", "api.localhost"] + extra { #expect(names.contains(.dnsName(name)), "\(name)") }
    }

    @Test(
        "a --tms-name that is not a DNS host name is refused",
        arguments: [
            "", "a..b", "-shop.test", "shop-.test", "shop_tms.test", "10.0.0.1", "shop test", "tms.test.",
            String(repeating: "a", count: 64) + ".test", String(repeating: "abcdefgh.", count: 28) + "test",
            "ünïcode.test",
        ])
    func badServerNames(name: String) {
        let error = #expect(throws: TMSSimulatorError.self) { try TMSSimulatorChoices.serverNames(for: name) }
        #expect(error?.code == .invalidArgument)
    }

    @Test("a PKCS#12 refuses a key that does not match the certificate, and PEM that does not parse")
    func pkcs12Refusals() throws {
        let authority = try TMSCertificateAuthority.create()
        let one = try authority.issueClientIdentity(serial: "1")
        let two = try authority.issueClientIdentity(serial: "2")
        let mismatch = #expect(throws: TMSSimulatorError.self) {
            try PKCS12Builder.build(certificatePEM: one.certificatePEM, privateKeyPEM: two.privateKeyPEM)
        }
        #expect(mismatch?.code == .pki)
        #expect(throws: TMSSimulatorError.self) {
            try PKCS12Builder.build(certificatePEM: "not PEM", privateKeyPEM: one.privateKeyPEM)
        }
        #expect(throws: TMSSimulatorError.self) {
            try PKCS12Builder.build(certificatePEM: one.certificatePEM, privateKeyPEM: "")
        }
        let p12 = try PKCS12Builder.build(certificatePEM: one.certificatePEM, privateKeyPEM: one.privateKeyPEM)
        let bundle = try NIOSSLPKCS12Bundle(buffer: p12, passphrase: Array("gmxsas".utf8))
        #expect(
            try bundle.certificateChain.first?.toDERBytes()
                == (try NIOSSLCertificate(
                    bytes: Array(one.certificatePEM.utf8), format: .pem
                ).toDERBytes()))
    }

    @Test("dongle certificate: trailing bytes accepted; a cut chain is 400; another CA or serial is 403")
    func dongleCertificateChecks() throws {
        let serial = "202401001"
        let good = try InstallForLoadKey.Response(
            caCertificate: SimulatorChoices.demoCAProdCertificate,
            kekCertificate: SimulatorChoices.demoKEKCertificate(serial: 202_401_001), trailing: [1, 2, 3]
        ).raw
        #expect(TMSSimulator.checkDongleCertificate(good, serial: serial) == nil)
        #expect(Self.status(TMSSimulator.checkDongleCertificate(Array(good.prefix(10)), serial: serial)) == 400)
        #expect(Self.status(TMSSimulator.checkDongleCertificate([], serial: serial)) == 400)
        #expect(Self.status(TMSSimulator.checkDongleCertificate(good, serial: "202401002")) == 403)
    }

    @Test("a ciphered catalogue item is refused at load (the catalogue carries no session key)")
    func cipheredItemRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tmscat-\(UUID().uuidString)")
        try await TMSFixture.onPool {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(
                #"{"items":[{"type":0,"version":"1.0.0.0","min_version":"1.0.0.0","ciphered":true,"image":"i","signature":"s"}]}"#
                    .utf8
            )
            .write(to: directory.appendingPathComponent("catalogue.json"))
            try Data([1]).write(to: directory.appendingPathComponent("i"))
            try Data([2]).write(to: directory.appendingPathComponent("s"))
        }
        let error = try await TMSFixture.onPool { () -> TMSSimulatorError? in
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                _ = try TMSCatalogue.load(directory: directory)
                return nil
            } catch let error as TMSSimulatorError {
                return error
            }
        }
        #expect(error?.code == .invalidCatalogue)
        #expect(error?.reason.contains("ciphered") == true)
    }

    private static func status(_ response: TMSResponse?) -> Int? {
        guard case .full(let status, _, _) = response else { return nil }
        return Int(status.code)
    }
}
