import Foundation
import NIOHTTP1
import NIOSSL
import Testing

@testable import UCubeTMSSimulator

private typealias F = TMSFixture

/// Every `--tms-fault ENDPOINT:FAULT` that `TMSFault.parse` accepts changes that endpoint's answer, and one that
/// would change nothing (`register:corrupt`) is refused: a tester never believes a fault was played that was not.
@Suite struct TMSFaultActsTests {
    /// One word of each kind of fault the command line takes.
    static let faultWords = [
        "503", "slow=1.5", "silent", "malformed-json", "truncated", "drop", "corrupt", "bad-signature",
    ]

    static let pairs: [String] = TMSEndpoint.allCases.flatMap { endpoint in
        faultWords.map { "\(endpoint.rawValue):\($0)" }
    }

    @Test func aFaultThatWouldChangeNothingIsRefused() {
        for spec in [
            "register:corrupt", "infos:corrupt", "config:corrupt", "logs:corrupt", "register:bad-signature",
            "config:bad-signature", "infos@202401003:bad-signaturex2", "logs:bad-signature",
        ] {
            let error = #expect(throws: TMSSimulatorError.self, "\(spec)") { try TMSFault.parse(spec) }
            #expect(error?.code == .invalidArgument, "\(spec)")
        }
    }

    /// Every form of `endpoint` the simulator serves (spec §10.2): the 2020 and the current one, config's single one,
    /// and for binary also the current form of an item answered as a zip (the fixture's type 5).
    static func routes(_ endpoint: TMSEndpoint) -> [TMSRoute] {
        switch endpoint {
        case .config:
            [TMSRoute(endpoint: .config, dialect: nil, serial: F.serial, partNumber: F.partNumber, binaryType: nil)]
        case .binary:
            [
                TMSRoute(endpoint: .binary, dialect: .v2020, serial: F.serial, partNumber: F.partNumber, binaryType: 0),
                TMSRoute(endpoint: .binary, dialect: .current, serial: F.serial, partNumber: nil, binaryType: 0),
                TMSRoute(
                    endpoint: .binary, dialect: .current, serial: F.serial, partNumber: nil, binaryType: F.zipType),
            ]
        case .register, .infos, .logs:
            [
                TMSRoute(
                    endpoint: endpoint, dialect: .v2020, serial: F.serial, partNumber: F.partNumber, binaryType: nil),
                TMSRoute(endpoint: endpoint, dialect: .current, serial: F.serial, partNumber: nil, binaryType: nil),
            ]
        }
    }

    /// Asks one simulator for each endpoint's answer in each of its forms, as `TMSConnection` would, without a fault
    /// and then with each fault `parse` accepts for it, and checks the second differs as the fault says.
    @Test func everyAcceptedPairActs() async throws {
        try await F.with(imageSize: 20_000, zipItem: true) { fixture in
            let identity = try await fixture.identity()
            let certificate = try #require(identity.certificateChain.first).toDERBytes()
            var played = 0
            for spec in Self.pairs {
                guard let rule = try? TMSFault.parse(spec).first else { continue }  // refused: the test above
                for route in Self.routes(rule.endpoint) {
                    let body: [UInt8] =
                        switch rule.endpoint {
                        case .register, .binary: try F.dongleCertificate()
                        case .infos: Array(#"{"battery":80}"#.utf8)
                        case .config: []
                        case .logs: [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)
                        }
                    let form = "\(spec) \(route.dialect?.rawValue ?? "shared") type \(route.binaryType ?? -1)"
                    let normal = await fixture.tms.answer(.success(route), body: body, peerCertificate: certificate)
                    await fixture.tms.setFault(rule.fault, for: rule.endpoint)
                    let faulted = await fixture.tms.answer(.success(route), body: body, peerCertificate: certificate)
                    #expect(Self.status(of: normal) == 200, "\(form): the request itself is good")
                    #expect(Self.acted(rule.fault, normal: normal, faulted: faulted), "\(form): \(faulted.response)")
                    #expect(await fixture.tms.faultsRemaining(for: rule.endpoint) == 0, "\(form)")
                    if route.binaryType == F.zipType {
                        // The zip form stays a zip under the fault, whenever the fault leaves a binary answer.
                        for answer in [normal, faulted] {
                            if case .binary(_, _, _, _, let name) = answer.response {
                                #expect(name == "nfc-1.0.0.7", "\(form)")
                            }
                        }
                        guard case .binary(_, _, _, _, _?) = normal.response else {
                            Issue.record("\(form): the normal answer is not a zip")
                            continue
                        }
                    }
                    played += 1
                }
            }
            // Six kinds on each of the ten forms (register, infos, logs: 2; config: 1; binary: 3), and corrupt
            // and bad-signature on the three binary forms.
            #expect(played == 6 * 10 + 2 * 3)
        }
    }

    private static func status(of answer: TMSAnswer) -> UInt? {
        switch answer.response {
        case .full(let status, _, _), .truncated(let status, _, _): status.code
        case .binary: 200
        case .drop: nil
        }
    }

    /// Whether `faulted` is `normal` changed as `fault` says.
    private static func acted(_ fault: TMSFault, normal: TMSAnswer, faulted: TMSAnswer) -> Bool {
        switch (fault, faulted.response) {
        case (.status(let code), .full(let status, _, _)):
            return Int(status.code) == code && status != .ok
        case (.delay(let duration), _):
            return faulted.delay == duration && normal.delay == nil
        case (.malformedJSON, .full(let status, _, let bytes)):
            return status == .ok && (try? JSONSerialization.jsonObject(with: Data(bytes))) == nil
        case (.truncatedBody, .truncated), (.dropConnection, .drop):
            return true
        case (.truncatedBody, .binary(_, _, .some, _, _)), (.dropConnection, .binary(_, _, .some, _, _)):
            // The full length announced, the stream cut after a few blocks.
            return true
        case (.corruptedBinary, .binary(_, _, nil, let offset?, _)):
            return offset < 20_000
        case (.wrongSignature, .binary(let signature, _, nil, nil, _)):
            guard case .binary(let original, _, _, _, _) = normal.response else { return false }
            return signature != original && signature.count == original.count
        default:
            return false
        }
    }
}
