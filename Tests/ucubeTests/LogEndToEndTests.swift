import Foundation
import Testing
import UCubeLog
import UCubeProtocol
import UCubeRuntime
import ZIPFoundation

@testable import UCubeCLI

/// The log module through the built binary (spec §11, §10.7): a payment at `--log-level debug` leaves rpc and
/// payment lines in `$XDG_STATE_HOME/ucube/logs/messages.log`, and `send-logs --output` bundles them without a PAN.
@Suite struct LogEndToEndTests {
    @Test func paymentLogsAndBundleWithoutPAN() async throws {
        let sandbox = try UCubeSandbox()
        let pay = try await sandbox.run("--device sim --log-level debug pay 12.50 --currency EUR --authorize approve")
        #expect(pay.status == 0, "\(pay.stderr)")
        // --log-level mirrors the log to stderr; results stay alone on stdout.
        #expect(pay.stderr.contains("DEBUG rpc: sent message: "))
        #expect(!pay.stdout.contains("DEBUG"))

        let logs = sandbox.directory.appendingPathComponent("state/ucube/logs")
        let log = try String(contentsOf: logs.appendingPathComponent("messages.log"), encoding: .utf8)
        #expect(log.contains("INFO api: ucube --device sim --log-level debug pay 12.50"))
        #expect(log.contains("DEBUG rpc: sent message: TransactionInit seq "))
        #expect(log.contains("DEBUG rpc: received message: GetInfo seq "))
        #expect(log.contains("INFO connection: link open: sim"))
        #expect(log.contains("INFO payment: payment finished: APPROVED"))
        #expect(!Masking.containsUnmaskedPAN(log))
        #expect(!Masking.containsUnmaskedPAN(pay.stderr))

        // A file in clear dropped beside the logs: the bundle masks it too.
        try "svpp 4761739001010010\n".write(
            to: logs.appendingPathComponent("2026-11-22_08-16-51.log"), atomically: true, encoding: .utf8)

        let zip = sandbox.directory.appendingPathComponent("bundle.zip").path
        let send = try await sandbox.run(["send-logs", "--output", zip])
        #expect(send.status == 0, "\(send.stderr)")
        #expect(send.stdout.contains(zip) && send.stdout.contains("bytes"))
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        var names: [String] = []
        for entry in archive {
            names.append(entry.path)
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            let text = String(decoding: data, as: UTF8.self)
            #expect(!Masking.containsUnmaskedPAN(text), "\(entry.path)")
            #expect(!text.contains("4761739001010010"))
        }
        #expect(names.sorted() == ["logs/2026-11-22_08-16-51.log", "logs/messages.log"])
        // --output keeps the logs; a second --output to the same file needs --force.
        #expect(FileManager.default.fileExists(atPath: logs.appendingPathComponent("messages.log").path))
        let again = try await sandbox.run(["send-logs", "--output", zip])
        #expect(again.status == 64)
        #expect(again.stderr.contains("--force"))
        let forced = try await sandbox.run(["send-logs", "--output", zip, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        // The bundle is the user's alone, like every file ucube writes.
        let mode = try FileManager.default.attributesOfItem(atPath: zip)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    /// A clear PAN inside a raw command: the `--trace` dump of the frame and the logged command line show it masked.
    @Test func aRawCommandWithAPANIsMaskedInTheTraceAndTheLog() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--device", "sim", "--trace", "rpc", "raw", "5026", "5A084761739001010010"])
        let sent = run.stderr.split(separator: "\n").first { $0.hasPrefix("> ") && $0.contains("50 26 5A") }
        #expect(sent?.contains("5A 08 47 61 73 ** ** ** 00 10") == true, "\(run.stderr)")
        let log = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log"), encoding: .utf8)
        #expect(log.contains("rpc raw 5026 5A08476173******0010"), "\(log)")
        for text in [run.stdout, run.stderr, log] {
            #expect(!text.contains("4761739001010010") && !text.contains("73 90 01 01"))
        }
    }

    /// Hex typed on the command line goes to the log as the command line: card data in it is masked there, and in
    /// what `decode` prints. `--trace` dumps go through the same masker (`Masking.hex`).
    @Test func decodeArgumentsAreMaskedInTheLog() async throws {
        let sandbox = try UCubeSandbox()
        let tlv = "5A0847617390010100105F34010157114761739001010010D2512201123456789F"
        let run = try await sandbox.run(["decode", tlv])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("476173******0010"))
        let log = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log"), encoding: .utf8)
        #expect(log.contains("api: ucube decode 5A08476173******0010"), "\(log)")
        for clear in ["4761739001010010", "47617390", "2512201123456789"] { #expect(!log.contains(clear), "\(log)") }
    }

    /// No TMS named: sending refuses with a usage error that says how to name one, and deletes nothing.
    @Test func sendWithoutATMSKeepsTheLogs() async throws {
        let sandbox = try UCubeSandbox()
        let send = try await sandbox.run(["send-logs"])
        #expect(send.status == 64)
        #expect(send.stderr.contains("--tms URL") && send.stderr.contains("UCUBE_TMS_URL"), "\(send.stderr)")
        let log = sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log").path
        #expect(FileManager.default.fileExists(atPath: log))
    }

    @Test func logLevelTypoIsAUsageError() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["--log-level", "rpc=debgu", "info"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("unknown log level 'debgu'"))
        #expect(run.stderr.contains("trace, debug, info"))
        #expect(run.stdout.isEmpty)
    }
}

/// `set log-level` in the shell: parsed like `--log-level`, a typo is a usage error naming the choices.
@Suite struct ShellLogLevelTests {
    @Test func setLogLevel() throws {
        var settings = ShellSettings()
        #expect(try settings.apply(["log-level", "rpc=trace,warning"]) == "log-level rpc=trace,warning")
        #expect(settings.logLevels?.description == "rpc=trace,warning")
        #expect(throws: CLIFailure.self) { try settings.apply(["log-level", "rpc=loud"]) }
    }
}
