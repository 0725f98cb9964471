import Testing

@testable import UCubeTMSSimulator

/// `ucube simulate --tms-fault ENDPOINT:FAULT[xN],…`.
@Suite struct TMSFaultParseTests {
    @Test func eachFaultAndCount() throws {
        let parsed = try TMSFault.parse(
            "config:503x2,binary:corrupt,binary:bad-signature,logs:slow=1.5,infos:silent,register:drop")
        #expect(parsed.map(\.endpoint) == [.config, .binary, .binary, .logs, .infos, .register])
        #expect(
            parsed.map(\.fault) == [
                .status(503), .corruptedBinary, .wrongSignature, .delay(.milliseconds(1500)), .delay(TMSFault.silence),
                .dropConnection,
            ])
        #expect(parsed.map(\.times) == [2, 1, 1, 1, 1, 1])
        #expect(parsed.allSatisfy { $0.serial == nil })
        #expect(try TMSFault.parse("").isEmpty)
    }

    /// A fleet: a fault for one terminal's requests only.
    @Test func aFaultForOneSerial() throws {
        #expect(
            try TMSFault.parse("binary@202401003:corruptx2")
                == [TMSFault.Rule(endpoint: .binary, serial: "202401003", fault: .corruptedBinary, times: 2)])
    }

    @Test(arguments: [
        "nowhere:500", "config", "config:200", "config:slow=0", "config:slow=abc", "binary:500x0", "binary:oops",
        "config@:503", "config@12ab:503",
    ])
    func badSpecsAreRefused(spec: String) {
        #expect(throws: TMSSimulatorError.self) { try TMSFault.parse(spec) }
    }
}
