import Testing

@testable import UCubeTMSSimulator

/// `ucube simulate --tms-fault ENDPOINT:FAULT[xN],…`.
@Suite struct TMSFaultParseTests {
    @Test func eachFaultAndCount() throws {
        let parsed = try TMSFault.parse("config:503x2,binary:corrupt,binary:bad-signature,logs:slow=1.5,infos:silent,register:drop")
        #expect(parsed.map(\.0) == [.config, .binary, .binary, .logs, .infos, .register])
        #expect(parsed.map(\.1) == [
            .status(503), .corruptedBinary, .wrongSignature, .delay(.milliseconds(1500)), .delay(TMSFault.silence),
            .dropConnection,
        ])
        #expect(parsed.map(\.2) == [2, 1, 1, 1, 1, 1])
        #expect(try TMSFault.parse("").isEmpty)
    }

    @Test(arguments: ["nowhere:500", "config", "config:200", "config:slow=0", "config:slow=abc", "binary:500x0", "binary:oops"])
    func badSpecsAreRefused(spec: String) {
        #expect(throws: TMSSimulatorError.self) { try TMSFault.parse(spec) }
    }
}
