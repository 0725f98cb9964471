import Testing
import UCubeProtocol

@testable import UCubeLink

@Suite struct LinkRulesTests {
    // spec §2.4: incremented after every command, reset to 0 before EnterSecureSession, wrapping at 256.
    @Test func sequenceRules() {
        var rules = LinkRules()
        #expect(rules.takeSequence(for: .getInfo) == 0)
        #expect(rules.takeSequence(for: .getInfo) == 1)
        #expect(rules.takeSequence(for: .enterSecureSession) == 0)
        #expect(rules.takeSequence(for: .getPlainTag) == 1)
        #expect(rules.lastSequence == 1)
        var wrap = LinkRules(nextSequence: 255)
        #expect(wrap.takeSequence(for: .getInfo) == 255)
        #expect(wrap.takeSequence(for: .getInfo) == 0)
    }

    @Test func secureSessionFollowsSuccessfulResponsesOnly() {
        var rules = LinkRules()
        rules.responseReceived(.enterSecureSession, status: .badTerminalState)
        #expect(!rules.secured)
        rules.responseReceived(.enterSecureSession, status: .success)
        #expect(rules.secured)
        rules.responseReceived(.exitSecureSession, status: .timeout)
        #expect(rules.secured)
        rules.responseReceived(.exitSecureSession, status: .success)
        #expect(!rules.secured)
    }

    // spec §2.3 PROJECT CHOICE: wrap iff secured, input mode ≠ NONE and payload non-empty; 0x5102 always plain.
    @Test func wrappingRule() {
        let ready = LinkRules()
        #expect(!ready.wraps(.getPlainTag, payload: [0xDF, 0x60], inputMode: .signedNotChecked))
        let secured = LinkRules(secured: true)
        #expect(secured.wraps(.getPlainTag, payload: [0xDF, 0x60], inputMode: .signedNotChecked))
        #expect(!secured.wraps(.getPlainTag, payload: [], inputMode: .signedNotChecked))
        #expect(!secured.wraps(.waitCard, payload: [0x11, 0x1E], inputMode: .none))
        #expect(!secured.wraps(.exitSecureSession, payload: [0x01], inputMode: .signed))
        #expect(secured.expectsSecuredResponse(.getInfo, outputMode: .signedCiphered))
        #expect(!secured.expectsSecuredResponse(.exitSecureSession, outputMode: .signed))
        #expect(!secured.expectsSecuredResponse(.waitCard, outputMode: .none))
        #expect(!ready.expectsSecuredResponse(.getInfo, outputMode: .signedCiphered))
    }

    @Test func deviceAddresses() throws {
        #expect(try DeviceAddress(parsing: "sim") == .simulator)
        #expect(try DeviceAddress(parsing: "tcp://127.0.0.1:5000") == .tcp(host: "127.0.0.1", port: 5000))
        #expect(try DeviceAddress(parsing: "tcp://[::1]:6000") == .tcp(host: "::1", port: 6000))
        #expect(try DeviceAddress(parsing: "tcp://localhost") == .tcp(host: "localhost", port: 5000))
        #expect(try DeviceAddress(parsing: "serial:///dev/rfcomm0") == .serial(path: "/dev/rfcomm0"))
        #expect(try DeviceAddress(parsing: "ble://YT-Touch 0001") == .ble("YT-Touch 0001"))
        #expect(try DeviceAddress(parsing: "counter-1") == .remembered("counter-1"))
        #expect(throws: LinkError(.connectFailed, "")) { try DeviceAddress(parsing: "tcp://host:99999") }
        #expect(throws: LinkError(.connectFailed, "")) { try DeviceAddress(parsing: "serial://dev/x") }
        #expect(throws: LinkError(.connectFailed, "")) { try DeviceAddress(parsing: "http://x") }
    }
}
