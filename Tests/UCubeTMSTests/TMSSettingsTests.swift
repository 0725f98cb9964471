import Foundation
import Testing
import UCubeProtocol

@testable import UCubeTMS

@Suite("TMS settings and URL rules (spec §10.1)")
struct TMSSettingsTests {
    private func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "tms-settings-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func httpsAnywhereAndPrefixAppended() throws {
        let s = try TMSSettings(baseURL: "https://mdm.example.com/")
        #expect(s.baseURL == "https://mdm.example.com")
        #expect(s.url("/v2/dongle/config/1/P") == "https://mdm.example.com/MDM/jaxrs/v2/dongle/config/1/P")
        #expect(s.isHTTPS)
        #expect(s.connectTimeout == .seconds(20) && s.readTimeout == .seconds(30))
    }

    @Test func prefixNotDoubled() throws {
        let s = try TMSSettings(baseURL: "https://mdm.example.com:8443/MDM/jaxrs")
        #expect(s.url("/x") == "https://mdm.example.com:8443/MDM/jaxrs/x")
    }

    @Test func bareHostMeansHTTPS() throws {
        #expect(try TMSSettings(baseURL: "mdm.example.com").baseURL == "https://mdm.example.com")
    }

    @Test(arguments: [
        "http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:9", "http://[::1]:8080", "HTTP://LOCALHOST",
    ])
    func plainHTTPToLoopbackIsAllowed(_ url: String) throws {
        let s = try TMSSettings(baseURL: url)
        #expect(!s.isHTTPS)
    }

    @Test(arguments: [
        "http://mdm.example.com", "http://10.0.0.1", "http://128.0.0.1", "http://localhost.example.com",
        "http://127.0.0.1.nip.io", "http://[::2]",
    ])
    func plainHTTPElsewhereIsRefusedBeforeAnyConnection(_ url: String) {
        #expect(throws: TMSError(.insecureURL, "")) { try TMSSettings(baseURL: url) }
    }

    @Test(arguments: ["ftp://host", "https://", "https://host?x=1", "https://user@host"])
    func badURLsAreConfigurationErrors(_ url: String) {
        #expect(throws: TMSError(.configuration, "")) { try TMSSettings(baseURL: url) }
    }

    @Test func resolutionOrderExplicitThenEnvironmentThenConfigFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(#"{"tms_url":"https://file.example","tms_ca":"ca.pem"}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/config.json"))
        let env = ["UCUBE_TMS_URL": "https://env.example", "UCUBE_TMS_CA": "/env/ca.pem"]

        let explicit = try TMSSettings.resolve(
            url: "https://cli.example", ca: "/cli/ca.pem", environment: env, configDirectory: dir)
        #expect(explicit.baseURL == "https://cli.example" && explicit.trustedCAFile == "/cli/ca.pem")

        let fromEnv = try TMSSettings.resolve(environment: env, configDirectory: dir)
        #expect(fromEnv.baseURL == "https://env.example" && fromEnv.trustedCAFile == "/env/ca.pem")

        let fromFile = try TMSSettings.resolve(environment: [:], configDirectory: dir)
        #expect(fromFile.baseURL == "https://file.example" && fromFile.trustedCAFile == dir + "/ca.pem")

        let mixed = try TMSSettings.resolve(url: "https://cli.example", environment: [:], configDirectory: dir)
        #expect(mixed.baseURL == "https://cli.example" && mixed.trustedCAFile == dir + "/ca.pem")
    }

    @Test func nothingConfiguredIsATypedError() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: TMSError(.notConfigured, "")) {
            try TMSSettings.resolve(environment: [:], configDirectory: dir)
        }
        #expect(throws: TMSError(.notConfigured, "")) {
            try TMSSettings.resolve(url: "  ", environment: ["UCUBE_TMS_URL": ""], configDirectory: nil)
        }
    }

    @Test func brokenConfigFileMattersOnlyWhenNeeded() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: dir + "/config.json"))
        #expect(throws: TMSError(.configuration, "")) {
            try TMSSettings.resolve(environment: [:], configDirectory: dir)
        }
        #expect(
            try TMSSettings.resolve(url: "https://cli.example", environment: [:], configDirectory: dir).baseURL
                == "https://cli.example")
    }

    /// A syntax error says where, as FILE:LINE:COLUMN (issue 41), from Foundation's byte offset.
    @Test func aBrokenConfigFileSaysWhere() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.json"
        try Data("{\n  \"tms_url\": \"https://tms.example\",\n  \"tms_ca\": oops\n}\n".utf8).write(
            to: URL(fileURLWithPath: path))
        do {
            _ = try TMSSettings.resolve(environment: [:], configDirectory: dir)
            Issue.record("a broken config.json was read")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.reason.hasPrefix(path + ":3:13: not valid JSON"), "\(error.reason)")
        }
        // The end of the data, on a line with a character of two bytes before it.
        try Data("{\"tms_url\": \"é".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try TMSSettings.resolve(environment: [:], configDirectory: dir)
            Issue.record("a truncated config.json was read")
        } catch {
            #expect(error.reason.hasPrefix(path + ":1:15: not valid JSON"), "\(error.reason)")
        }
        #expect(TMSSettings.position(of: 0, in: Data("x".utf8)) == (1, 1))
        #expect(TMSSettings.position(of: 3, in: Data("a\nbc".utf8)) == (2, 2))
    }

    /// Keys ucube does not read come back for a warning; the known ones do not.
    @Test func unknownConfigKeysAreNoted() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(#"{"tms_url":"https://file.example","tms-ca":"ca.pem","zone":1}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/config.json"))
        var noted: [String] = []
        let settings = try TMSSettings.resolve(environment: [:], configDirectory: dir) { noted += $0 }
        #expect(settings.baseURL == "https://file.example")
        #expect(noted == ["tms-ca", "zone"])
        // Noted even when the settings then fail (the misspelt key may be why).
        try Data(#"{"tms-url":"https://file.example"}"#.utf8).write(to: URL(fileURLWithPath: dir + "/config.json"))
        noted = []
        #expect(throws: TMSError(.notConfigured, "")) {
            try TMSSettings.resolve(environment: [:], configDirectory: dir) { noted += $0 }
        }
        #expect(noted == ["tms-url"])
    }

    @Test func insecureURLFromEnvironmentIsRefused() {
        #expect(throws: TMSError(.insecureURL, "")) {
            try TMSSettings.resolve(environment: ["UCUBE_TMS_URL": "http://tms.example"], configDirectory: nil)
        }
    }

    @Test func configDirectoryFollowsXDG() {
        #expect(TMSSettings.defaultConfigDirectory(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/ucube")
        #expect(TMSSettings.defaultConfigDirectory(environment: ["HOME": "/h"]) == "/h/.config/ucube")
    }

    @Test func retryBackoffDoublesUpToTheMaximum() {
        let p = RetryPolicy(attempts: 5, initialBackoff: .seconds(1), multiplier: 2, maximumBackoff: .seconds(3))
        #expect(p.backoff(after: 1) == .seconds(1))
        #expect(p.backoff(after: 2) == .seconds(2))
        #expect(p.backoff(after: 3) == .seconds(3))
        #expect(RetryPolicy(attempts: 0).attempts == 1)
    }

    @Test func terminalIdentityFromGetInfo() throws {
        // C3: 5-byte BE integer / 4 (spec §4); C2: 15 ASCII with spaces.
        let serialRaw: UInt64 = 123_456_789 * 4
        let c3 = (0..<5).map { UInt8(truncatingIfNeeded: serialRaw >> (8 * (4 - $0))) }
        let info = DeviceInfo(tlvs: [TLV(Tag(0xC2), Array("UCUBE TOUCH    ".utf8)), TLV(Tag(0xC3), c3)])
        let t = try TerminalIdentity(info)
        #expect(t.serial == "123456789" && t.partNumber == "UCUBETOUCH")
        // Old uCube firmware swaps C2 and C3 (spec §4).
        let swapped = DeviceInfo(tlvs: [TLV(Tag(0xC3), Array("UCUBE TOUCH    ".utf8)), TLV(Tag(0xC2), c3)])
        #expect(try TerminalIdentity(swapped) == t)
        #expect(throws: TMSError(.configuration, "")) { try TerminalIdentity(DeviceInfo(tlvs: [])) }
        #expect(throws: TMSError(.configuration, "")) { try TerminalIdentity(serial: "12/..", partNumber: "P") }
        #expect(throws: TMSError(.configuration, "")) { try TerminalIdentity(serial: "12", partNumber: "A/B") }
    }
}

@Suite("TMS host: a bare server name gets the current SDK's api. prefix first (spec §10.1)")
struct TMSHostFormTests {
    @Test func bareNamesAndURLs() throws {
        let bare = try TMSSettings(baseURL: "mdm.example.com")
        #expect(bare.hostForm == .server)
        #expect(bare.serviceRoots == ["https://api.mdm.example.com/MDM/jaxrs", "https://mdm.example.com/MDM/jaxrs"])
        let withPort = try TMSSettings(baseURL: "localhost:8443")
        #expect(withPort.serviceRoots == ["https://api.localhost:8443/MDM/jaxrs", "https://localhost:8443/MDM/jaxrs"])
        // A URL names its host as is: what `ucube simulate --tms` prints and every earlier ucube documented.
        let url = try TMSSettings(baseURL: "https://mdm.example.com")
        #expect(url.hostForm == .url && url.serviceRoots == ["https://mdm.example.com/MDM/jaxrs"])
        // No prefix for an address, or for a name that has it already.
        for raw in ["127.0.0.1:8443", "[::1]:8443", "api.mdm.example.com"] {
            #expect(try TMSSettings(baseURL: raw).serviceRoots.count == 1, "\(raw)")
        }
    }
}
