import Foundation
import Testing
import UCubePayment
import UCubeRuntime

@testable import UCubeCLI

/// The hook words (docs/authorization.md): which text names a hook, what the https form refuses before any terminal is
/// touched, and where a payment whose line gives no --authorize finds its hook (the shell's `set authorize`, the
/// terminal's own in devices.json, $UCUBE_AUTHORIZE, approve).
@Suite struct HostHookUnitTests {
    @Test func theTwoFormsAndTheWordsThatAreNoHook() throws {
        #expect(try HostHook.parse("exec:./bridge.sh") == .exec(program: "./bridge.sh"))
        guard case .https(let host)? = try HostHook.parse("https://gateway.example:8443/v1/authorize") else {
            Issue.record("https://… is not an https hook")
            return
        }
        #expect(host.url == "https://gateway.example:8443/v1/authorize")
        #expect(try HostHook.parse("https://gateway.example/a")?.spec == "https://gateway.example/a")
        for word in ["approve", "decline", "unable", "prompt", "3035", "3030:91AABBCCDDEEFF00113030"] {
            #expect(try HostHook.parse(word) == nil, "\(word)")
            #expect(!HostHook.names(word))
        }
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/a", "https only"),
        ("https://user:secret@host/a", "no credentials"),
        ("https:///a", "no host"),
        ("https://host:70000/a", "not 1 to 65535"),
        ("https://host/a#part", "fragment"),
        ("https://host/a b", "printable"),
        ("exec:", "needs a program"),
        ("exec:   ", "needs a program"),
    ])
    func aBadHookIsRefusedWithItsReason(text: String, reason: String) {
        #expect(HostHook.names(text))
        do {
            _ = try HostHook.parse(text)
            Issue.record("\(text) was taken")
        } catch {
            #expect(error.description.contains(reason), "\(text): \(error.description)")
        }
    }

    @Test func theHTTPSFilesAreReadBeforeTheTerminalIsTouched() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hook-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notPEM = directory.appendingPathComponent("ca.pem")
        try "not a certificate\n".write(to: notPEM, atomically: true, encoding: .utf8)
        let url = "https://127.0.0.1:1/authorize"
        #expect(throws: HostHookError.self) {
            try HostHook.parse(url, files: HostTLSFiles(ca: directory.appendingPathComponent("missing.pem").path))
        }
        do {
            _ = try HostHook.parse(url, files: HostTLSFiles(ca: notPEM.path))
            Issue.record("a CA file without a certificate was taken")
        } catch {
            #expect(error.description.contains("holds no PEM certificate"), "\(error.description)")
        }
        #expect(throws: HostHookError.self) { try HostHook.parse(url, files: HostTLSFiles(key: notPEM.path)) }
        // A token a header cannot carry (a space, a control character) is refused; a good one is taken, and the
        // journal keeps the token file's absolute path, never the token.
        let badToken = directory.appendingPathComponent("bad-token")
        try "two words\n".write(to: badToken, atomically: true, encoding: .utf8)
        #expect(throws: HostHookError.self) { try HostHook.parse(url, files: HostTLSFiles(tokenFile: badToken.path)) }
        let token = directory.appendingPathComponent("token")
        try "abc.DEF-123_~+/=\nignored second line\n".write(to: token, atomically: true, encoding: .utf8)
        let hook = try #require(try HostHook.parse(url, files: HostTLSFiles(tokenFile: token.path)))
        guard case .https(let host) = hook else {
            Issue.record("not https")
            return
        }
        #expect(try host.token() == "abc.DEF-123_~+/=")
        #expect(hook.files == HostTLSFiles(tokenFile: token.path))
        #expect(HostHook.exec(program: "x").files == nil)
    }

    /// A failed request means what the payment's outcome says: a timeout, a status, or a host that cannot be reached,
    /// and how.
    @Test func requestFailuresAreNamed() {
        #expect(HTTPSHook.failure(HostFailure.httpStatus(503), timeout: .seconds(30)) == .httpStatus(503))
        guard case .unreachable(let why) = HTTPSHook.failure(CancellationError(), timeout: .seconds(30)) else {
            Issue.record("not unreachable")
            return
        }
        #expect(why == "the request failed")
    }

    // MARK: Where a payment finds its hook

    private static func context(
        shell authorize: String? = nil, environment: [String: String] = [:],
        remembered: [String: RememberedHook] = [:], device: String = "tcp://a:1"
    ) -> CommandContext {
        var settings: ShellSettings? = nil
        if let authorize {
            settings = ShellSettings()
            settings?.authorize = authorize
        }
        return CommandContext.resolve(
            GlobalOptionValues(devices: [device]), shell: settings, session: nil, environment: { environment[$0] },
            rememberedDefault: { nil }, stdinIsTerminal: false, rememberedHook: { remembered[$0] })
    }

    @Test func theShellThenTheTerminalThenTheEnvironmentThenApprove() {
        let own = RememberedHook(word: "https://own.example/a", ca: "/etc/own-ca.pem")
        let environment = [HostChoices.environmentVariable: "exec:./env-hook"]
        #expect(
            Self.context(shell: "decline", environment: environment, remembered: ["tcp://a:1": own])
                .defaultAuthorization(for: "tcp://a:1") == RememberedHook(word: "decline", ca: nil))
        #expect(
            Self.context(environment: environment, remembered: ["tcp://a:1": own])
                .defaultAuthorization(for: "tcp://a:1") == own)
        #expect(
            Self.context(environment: environment, remembered: ["tcp://a:1": own])
                .defaultAuthorization(for: "tcp://b:2") == RememberedHook(word: "exec:./env-hook", ca: nil))
        #expect(Self.context().defaultAuthorization(for: "tcp://a:1") == RememberedHook(word: "approve", ca: nil))
        // A fleet run's terminal keeps the sources, and finds its own hook.
        let fleet = Self.context(environment: environment, remembered: ["tcp://b:2": own]).single(
            "tcp://b:2", json: true)
        #expect(fleet.defaultAuthorization(for: fleet.deviceAddress) == own)
    }

    @Test func theShellSetsAHookAndRefusesABadOne() throws {
        var settings = ShellSettings()
        #expect(try settings.apply(["authorize", "exec:./bridge.sh"]) == "authorize exec:./bridge.sh")
        #expect(settings.authorize == "exec:./bridge.sh")
        #expect(throws: CLIFailure.self) { try settings.apply(["authorize", "http://host/a"]) }
        #expect(throws: CLIFailure.self) { try settings.apply(["authorize", "sometimes"]) }
        #expect(settings.authorize == "exec:./bridge.sh")
    }
}
