import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UCubeCrypto
import UCubeProtocol

@testable import UCubeHostSimulator

/// A card as the simulator makes one: its PAN and PSN, its ICC master key from the test IMK, and the authorisation
/// request a terminal sends for it: field 55 with a real ARQC (`EMVApplicationCryptogram`), the PAN and track 2
/// enciphered under the test BDK as the simulated terminal's SRED does (`SRED.encrypt`).
struct TestCard {
    static let pan = "4761739001010010"
    static let maskedPAN = "476173******0010"
    static let psn: UInt8 = 0x01
    static let atc: [UInt8] = [0x00, 0x42]
    static let ksn = "FFFF9876543210E00003"

    static func masterKey() throws -> [UInt8] {
        try EMVApplicationCryptogram.iccMasterKey(
            issuerMasterKey: CryptoChoices.testIssuerMasterKey, pan: pan, panSequenceNumber: psn)
    }

    /// Field 55 for `amount` (minor units), with the card's ARQC.
    static func emv(amount: UInt64) throws -> [UInt32: [UInt8]] {
        let digits = String(amount)
        var data: [UInt32: [UInt8]] = [
            0x9F02: try Hex.decode(String(repeating: "0", count: 12 - digits.count) + digits),
            0x9F03: [0, 0, 0, 0, 0, 0], 0x9F1A: [0x02, 0x50], 0x95: [0, 0, 0, 0x80, 0], 0x5F2A: [0x09, 0x78],
            0x9A: [0x25, 0x01, 0x15], 0x9C: [0x00], 0x9F37: [0x11, 0x22, 0x33, 0x44], 0x82: [0x18, 0x00],
            0x9F36: atc, 0x9F10: [0x06, 0x01, 0x0A, 0x03, 0xA0, 0x00, 0x00], 0x5F34: [psn], 0x9F27: [0x80],
        ]
        data[0x9F26] = try EMVApplicationCryptogram.cryptogram(masterKey: masterKey(), data: data)
        return data
    }

    /// 5A and 57 as TLVs, enciphered under the data-response key of `ksn` (the terminal's SRED, spec §12.3).
    static func sredData(pan: String = pan) throws -> String {
        let bcd = try Hex.decode(pan.count % 2 == 0 ? pan : pan + "F")
        let track2 = try Hex.decode(pan + "D25122011234567890" + (pan.count % 2 == 0 ? "" : "F"))
        let plaintext = TLV(Tag(0x5A), bcd).encoded + TLV(Tag(0x57), track2).encoded
        return Hex.encode(
            try SRED.encrypt(plaintext: plaintext, bdk: CryptoChoices.testBDK, ksn: try KSN(hex: ksn)))
    }

    /// The authorisation request (docs/authorization.md), with `change` applied to its field 55 first.
    static func request(
        amount: UInt64 = 1250, requestID: String = UUID().uuidString, sred: String? = nil,
        maskedPAN: String = maskedPAN, change: (inout [UInt32: [UInt8]]) -> Void = { _ in }
    ) throws -> [UInt8] {
        var emv = try emv(amount: amount)
        change(&emv)
        let object: [String: Any] = [
            "type": "authorization", "version": 1, "requestId": requestID, "amount": amount, "currency": "EUR",
            "transactionType": "purchase", "entryMode": "icc", "maskedPan": maskedPAN,
            "emv": Dictionary(uniqueKeysWithValues: emv.map { (Hex.encode(Tag($0.key).bytes), Hex.encode($0.value)) }),
            "sred": ["ksn": ksn, "data": try sred ?? sredData()],
        ]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func reversal(requestID: String, hostReference: String = "HS000001") throws -> [UInt8] {
        let object: [String: Any] = [
            "type": "reversal", "version": 1, "requestId": requestID, "hostReference": hostReference,
            "reason": "the payment ended DECLINED", "amount": 1250, "currency": "EUR",
        ]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// Whether `tag91` (hex) is the ARPC of the card's ARQC for response code `arc`: the card's own check.
    static func verifies(_ tag91: String, amount: UInt64 = 1250, arc: String) throws -> Bool {
        let sessionKey = try EMVApplicationCryptogram.sessionKey(masterKey: masterKey(), atc: atc)
        let arqc = try emv(amount: amount)[0x9F26]!
        let found = try EMVApplicationCryptogram.verifyIssuerAuthenticationData(
            try Hex.decode(tag91), sessionKey: sessionKey, arqc: arqc)
        return found == .passed(arc: Array(arc.utf8))
    }
}

/// A running host simulator over a fresh state directory, with a log file.
struct HostFixture {
    let host: HostSimulator
    let port: Int
    let root: URL
    var state: URL { root.appendingPathComponent("state") }
    var logFile: URL { root.appendingPathComponent("host.jsonl") }
    var url: String { "https://127.0.0.1:\(port)\(HostSimulatorChoices.path)" }
    var caURL: URL { HostSimulator.caCertificateURL(stateDirectory: state) }

    /// Runs `body` against a fresh simulator whose holds end after `holdLimit`, then stops it and removes its
    /// directory (on every path).
    static func with(holdLimit: Duration = .seconds(300), _ body: (HostFixture) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hostsim-\(UUID().uuidString)")
        let host = HostSimulator(holdLimit: holdLimit)
        let port = try await host.start(
            port: 0, stateDirectory: root.appendingPathComponent("state"),
            logFile: root.appendingPathComponent("host.jsonl"))
        let fixture = HostFixture(host: host, port: port, root: root)
        do {
            try await body(fixture)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    func stop() async {
        await host.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// A client trusting `host-ca.pem`; shut down after `body`.
    func withClient<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caURL.path))
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

    /// POSTs `body`; the status and the body, as JSON when it is an object (nil otherwise). The timeout is a safety
    /// net, far beyond any answer.
    func post(_ body: [UInt8], timeout: TimeAmount = .seconds(300)) async throws -> (
        status: Int, json: [String: Any]?, raw: [UInt8]
    ) {
        try await withClient { client in
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, timeout: timeout)
            let bytes = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            let json = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
            return (Int(response.status.code), json, bytes)
        }
    }
}
