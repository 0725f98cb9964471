import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeHostSimulator

/// The host simulator in process, over real HTTPS, with a client that trusts its CA. Timeouts here are safety nets
/// (hundreds of seconds), never a verdict on speed: a held request is ended by the server's short hold limit.
@Suite struct HostSimulatorServerTests {
    @Test func anApprovalCarriesAnARPCTheCardVerifies() async throws {
        try await HostFixture.with { host in
            #expect(FileManager.default.fileExists(atPath: host.caURL.path))
            #expect(host.caURL.lastPathComponent == "host-ca.pem")
            let answer = try await host.post(try TestCard.request(amount: 1250))
            #expect(answer.status == 200)
            let json = try #require(answer.json)
            #expect(json["decision"] as? String == "approve")
            #expect(json["responseCode"] as? String == "00")
            #expect((json["hostReference"] as? String)?.hasPrefix("HS") == true)
            #expect(try TestCard.verifies(try #require(json["issuerAuthenticationData"] as? String), arc: "00"))
            let second = try await host.post(try TestCard.request(amount: 1250))
            #expect(second.json?["hostReference"] as? String != json["hostReference"] as? String)
        }
    }

    @Test func aFlippedBitOf9F26Declines() async throws {
        try await HostFixture.with { host in
            let answer = try await host.post(try TestCard.request { $0[0x9F26]![0] ^= 0x80 })
            #expect(answer.status == 200)
            #expect(answer.json?["decision"] as? String == "decline")
            #expect(answer.json?["responseCode"] as? String == HostSimulatorChoices.cryptogramResponseCode)
            #expect((answer.json?["message"] as? String)?.contains("ARQC") == true)
            #expect(await host.host.log().last?.arqc == "invalid")
        }
    }

    @Test(arguments: HostAmountRule.table)
    func eachAmountRuleOverHTTPS(_ rule: HostAmountRule) async throws {
        let amount = UInt64(3300 + rule.cents)
        switch rule.outcome {
        case .decline(let code), .unable(let code):
            try await HostFixture.with { host in
                let answer = try await host.post(try TestCard.request(amount: amount))
                #expect(answer.status == 200)
                #expect(answer.json?["responseCode"] as? String == code)
                #expect(answer.json?["decision"] as? String == (rule.outcome == .unable(code) ? "unable" : "decline"))
            }
        case .noAnswer:
            try await expectNoAnswer(to: try TestCard.request(amount: amount))
        }
    }

    /// The server holds the request, then closes the connection at its (short) hold limit: no answer ever came.
    private func expectNoAnswer(to body: [UInt8], fault: HostFault? = nil) async throws {
        try await HostFixture.with(holdLimit: .milliseconds(500)) { host in
            if let fault { await host.host.addFault(fault) }
            await #expect(throws: HTTPClientError.self) { _ = try await host.post(body) }
            #expect(await host.host.log().last?.status == nil)
        }
    }

    @Test func faultTimeoutAnswersNothing() async throws {
        try await expectNoAnswer(to: try TestCard.request(amount: 1250), fault: .timeout)
    }

    @Test func faultStatusCountsDown() async throws {
        try await HostFixture.with { host in
            await host.host.addFault(.status(503), times: 2)
            let first = try await host.post(try TestCard.request())
            let second = try await host.post(try TestCard.reversal(requestID: "r"))
            let third = try await host.post(try TestCard.request())
            let statuses: [Int] = [first.status, second.status, third.status]
            #expect(statuses == [503, 503, 200])
            let faults: [String?] = await host.host.log().map(\.fault)
            #expect(faults == ["status:503", "status:503", nil])
        }
    }

    @Test func faultMalformedIsNoAnswerAClientCanRead() async throws {
        try await HostFixture.with { host in
            await host.host.addFault(.malformed)
            let answer = try await host.post(try TestCard.request())
            #expect(answer.status == 200)
            #expect(answer.json == nil)
        }
    }

    @Test func faultWrongARPCFailsTheCardsCheck() async throws {
        try await HostFixture.with { host in
            await host.host.addFault(.wrongARPC)
            let answer = try await host.post(try TestCard.request())
            #expect(answer.json?["decision"] as? String == "approve")
            let tag91 = try #require(answer.json?["issuerAuthenticationData"] as? String)
            #expect(try !TestCard.verifies(tag91, arc: "00"))
        }
    }

    @Test func reversalsAreAcknowledgedAndCountedAndNoAckWithholdsIt() async throws {
        try await HostFixture.with { host in
            let first = try await host.post(try TestCard.reversal(requestID: "order-1"))
            #expect(first.json?["acknowledged"] as? Bool == true)
            await host.host.addFault(.noAcknowledgement)
            let second = try await host.post(try TestCard.reversal(requestID: "order-1"))
            #expect(second.status == 200)
            #expect(second.json?["acknowledged"] as? Bool == false)
            let third = try await host.post(try TestCard.reversal(requestID: "order-1"))
            #expect(third.json?["acknowledged"] as? Bool == true)
            #expect(await host.host.reversalCount(requestID: "order-1") == 3)
            let log = await host.host.log()
            #expect(log.map(\.reversalCount) == [1, 2, 3])
            #expect(log.map(\.acknowledged) == [true, false, true])
        }
    }

    @Test func tooLargeIs413AndNotARequestIs400() async throws {
        try await HostFixture.with { host in
            let large = try await host.post([UInt8](repeating: 0x20, count: HostSimulatorChoices.maximumBody + 1))
            #expect(large.status == 413)
            let text = try await host.post(Array("hello".utf8))
            #expect(text.status == 400)
            #expect(text.json?["status"] as? String == "error")
            let other = try await host.post(Array(#"{"type":"capture"}"#.utf8))
            #expect(other.status == 400)
            #expect(await host.host.log().map(\.type) == [.invalid, .invalid, .invalid])
        }
    }

    /// The log, in memory and in the file, shows the PAN masked only: no digit of it beyond the first 6 and last 4,
    /// no SRED data, no field 55.
    @Test func theHostLogIsMasked() async throws {
        try await HostFixture.with { host in
            let sred = try TestCard.sredData()
            _ = try await host.post(try TestCard.request(requestID: "order-7", sred: sred))
            _ = try await host.post(try TestCard.request(amount: 1205, requestID: "order-8"))
            _ = try await host.post(try TestCard.reversal(requestID: "order-7"))
            let file = try String(contentsOf: host.logFile, encoding: .utf8)
            let lines = file.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(file.contains(TestCard.maskedPAN))
            let hidden = String(TestCard.pan.dropFirst(6).dropLast(4))
            #expect(!file.contains(TestCard.pan))
            #expect(!file.contains(hidden))
            #expect(!file.contains(sred))
            #expect(!file.contains(Hex.encode(try TestCard.emv(amount: 1250)[0x9F26]!)))
            let memory = await host.host.log()
            #expect(memory.map(\.requestId) == ["order-7", "order-8", "order-7"])
            #expect(memory.map(\.responseCode) == ["00", "05", nil])
            #expect(memory.allSatisfy { $0.maskedPan == nil || $0.maskedPan == TestCard.maskedPAN })
            let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
            #expect(first?["maskedPan"] as? String == TestCard.maskedPAN)
            #expect(first?["sequence"] as? Int == 1)
        }
    }

    /// docs/examples/forward-to-host.py, the exec hook of the docs, forwards a request and prints the answer.
    @Test func theDocsExampleHookForwardsToTheHost() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples/forward-to-host.py")
        try await HostFixture.with { host in
            let request = try TestCard.request(amount: 1251)
            let (status, output) = try await Self.run(
                script, stdin: request,
                environment: ["UCUBE_HOST_URL": host.url, "UCUBE_AUTHORIZE_CA": host.caURL.path])
            #expect(status == 0)
            let json = try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any]
            #expect(json?["decision"] as? String == "decline")
            #expect(json?["responseCode"] as? String == "51")
            let refused = try await Self.run(
                script, stdin: Array("x".utf8),
                environment: ["UCUBE_HOST_URL": host.url, "UCUBE_AUTHORIZE_CA": host.caURL.path])
            #expect(refused.status != 0)
        }
    }

    /// Runs `python3 script` with `stdin`, on NIO's thread pool (it blocks); its exit status and stdout.
    private static func run(_ script: URL, stdin: [UInt8], environment: [String: String]) async throws -> (
        status: Int32, stdout: [UInt8]
    ) {
        try await NIOThreadPool.singleton.runIfActive {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data(stdin))
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, Array(data))
        }
    }
}
