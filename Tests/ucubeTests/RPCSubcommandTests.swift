import Foundation
import Testing
import UCubeProtocol

/// `ucube rpc <command>` as a user runs it: the built binary (`UCubeSandbox`: `.build/debug/ucube` or
/// `$UCUBE_BINARY`) as a subprocess against the built-in simulator, with its state (simulator home, link session, XDG
/// directories) in a fresh directory per test.
@Suite struct RPCSubcommandTests {
    private let sandbox: UCubeSandbox

    init() throws { sandbox = try UCubeSandbox() }

    // MARK: Help

    /// Every catalogue command has a subcommand under its catalogue word; its help shows the id and the usage.
    @Test(arguments: CommandCatalogue.all)
    func helpForEveryCatalogueCommand(_ command: CommandDescriptor) async throws {
        let result = try await run(["rpc", command.cliName, "--help"])
        #expect(result.status == 0, "\(command.cliName): \(result.stderr)")
        #expect(result.stdout.contains("USAGE: ucube rpc \(command.cliName)"))
        #expect(result.stdout.contains(command.id.description))
    }

    @Test(
        arguments: [
            ("wait-card", "comma-separated: icc, nfc, msr"),
            ("transaction-init", "(values: purchase, withdrawal, purchase-cashback, manual-cash, refund, inquiry)"),
            ("install-for-load", "(values: sred, dynamic, plain)"),
            ("simplified-online-pin", "(values: iso0, iso1, iso3, iso4)"),
            ("set-info-field", "(values: slow, quick)"),
        ])
    func helpListsFixedValueSets(_ command: String, _ values: String) async throws {
        let help = try await run(["rpc", command, "--help"]).stdout
        // Help wraps at 80 columns; compare with the line breaks and indentation folded into single spaces.
        let folded = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(folded.contains(values), "\(help)")
    }

    // MARK: Against the simulator

    @Test func getInfoJSONWithGlobalOptionsBeforeTheCommand() async throws {
        let result = try await run(["--device", "sim", "rpc", "get-info", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"serialNumber\""))
    }

    @Test func getInfoWithTagsAndGlobalOptionsAfterTheCommand() async throws {
        let result = try await run(["rpc", "get-info", "C3", "C4", "--device", "sim"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("serial number:"))
        #expect(result.stdout.contains("state: READY"))
    }

    @Test func displayMessage() async throws {
        let result = try await run(["rpc", "display-message", "Hello"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func plainTagOutsideASecureSessionIsBadTerminalState() async throws {
        let result = try await run(["rpc", "get-plain-tag", "DF60"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("BAD_TERMINAL_STATE"))
    }

    /// The link session (SEQ, secured flag) carries across invocations.
    @Test func secureSessionAcrossInvocations() async throws {
        let enter = try await run(["rpc", "enter-secure-session"])
        #expect(enter.status == 0, "\(enter.stderr)")
        #expect(enter.stdout.contains("FFFF9876543210E00001"))

        let tag = try await run(["rpc", "get-plain-tag", "9F27", "--json"])
        #expect(tag.status == 0, "\(tag.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(tag.stdout.utf8)) as? [String: Any],
            "not JSON: \(tag.stdout)"
        )
        #expect(json["secured"] as? Bool == true)
        let status = try #require(json["status"] as? [String: Any])
        #expect(status["name"] as? String != "BAD_TERMINAL_STATE")

        let exit = try await run(["rpc", "exit-secure-session"])
        #expect(exit.status == 0, "\(exit.stderr)")
    }

    /// The clock set in one process runs on with the host's into the next: read back, it is the time set plus at
    /// most the seconds that passed between the two commands.
    @Test func rtcSetThenGet() async throws {
        let started = ContinuousClock.now
        #expect(try await run(["rpc", "rtc-set", "2026-11-22T10:00:00"]).status == 0)
        let get = try await run(["rpc", "rtc-get"])
        let passed = (ContinuousClock.now - started).components.seconds
        #expect(get.status == 0, "\(get.stderr)")
        let clock =
            get.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        #expect(get.stdout.contains("2026-11-22 10:"), "\(get.stdout)")
        #expect(parts.count == 3 && (parts[1] * 60 + parts[2]) <= Int(passed) + 1, "\(get.stdout) after \(passed) s")
    }

    // MARK: Usage errors (exit 64, before any link is opened)

    @Test func timeoutOutOfRange() async throws {
        let result = try await run(["rpc", "wait-card", "--timeout", "300"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--timeout"))
        #expect(result.stderr.contains("0…255"))
    }

    @Test func unknownCommand() async throws {
        let result = try await run(["rpc", "frobnicate"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("frobnicate"))
    }

    @Test(
        arguments: [
            (["rpc", "card-send-apdu", "00A4040"], "odd number of hex digits"),
            (["rpc", "get-plain-tag", "notATag"], "<tag>"),
            (["rpc", "get-info", "DF60"], "one byte"),
            (["rpc", "wait-card", "--readers", "icc,chip"], "--readers"),
            (["rpc", "nfc-start", "--amount", "1.999", "--currency", "EUR"], "--amount"),
            (["rpc", "nfc-start", "--amount", "1", "--currency", "ZZZ"], "--currency"),
            (["rpc", "rtc-set", "2026-02-30T10:00:00"], "day must be"),
            (["rpc", "display-message", "Hello", "--x", "256"], "--x"),
            (["rpc", "load", "--block", String(repeating: "00", count: 2041)], "2040"),
            (["rpc", "set-info-field"], "--power-off-timeout"),
            (["rpc", "transaction-finalisation", "--arc", "000"], "--arc"),
        ])
    func badInput(_ arguments: [String], _ message: String) async throws {
        let result = try await run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }

    private func run(_ arguments: [String]) async throws -> UCubeRun { try await sandbox.run(arguments) }
}
