import Foundation
import Testing

/// The repros, end to end: `ln -s $XDG_STATE_HOME/ucube/journal.jsonl $XDG_RUNTIME_DIR/ucube/lock-sim;
/// ucube --device sim pay 6` wiped the journal; a shared runtime or state directory was used as is.
@Suite struct StateFileSafetyTests {
    static func error(_ run: UCubeRun) -> [String: Any]? {
        run.stdout.split(separator: "\n").last.flatMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["error"] as? [String: Any]
        }
    }

    @Test func aLockThatIsALinkIsRefusedAndTheJournalKept() async throws {
        let sandbox = try UCubeSandbox()
        let first = try await sandbox.run(["--device", "sim", "pay", "5", "--authorize", "approve"])
        #expect(first.status == 0, "\(first.stderr)")
        let journal = sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl").path
        let before = try String(contentsOfFile: journal, encoding: .utf8)
        let lock = sandbox.directory.appendingPathComponent("run/ucube/lock-sim").path
        try? FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: journal)

        let run = try await sandbox.run(["--json", "--device", "sim", "pay", "6", "--authorize", "approve"])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(Self.error(run)?["code"] as? String == "unsafe-path", "\(run.stdout)")
        #expect(run.stderr.contains("symbolic link"))
        #expect(try String(contentsOfFile: journal, encoding: .utf8) == before)
    }

    @Test(arguments: ["state/ucube", "run/ucube"])
    func aDirectoryOthersCanWriteIsRefused(_ relative: String) async throws {
        let sandbox = try UCubeSandbox()
        let directory = sandbox.directory.appendingPathComponent(relative).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chmod(directory, 0o777) == 0)
        let run = try await sandbox.run(["--json", "--device", "sim", "pay", "6", "--authorize", "approve"])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(Self.error(run)?["code"] as? String == "unsafe-path", "\(run.stdout)")
        #expect(run.stderr.contains("can be written by other users"))
        // Nothing was charged: no payment started.
        #expect(
            !FileManager.default.fileExists(
                atPath: sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl").path))
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func anotherUsersRuntimeDirectoryIsRefused() async throws {
        let sandbox = try UCubeSandbox()
        let directory = sandbox.directory.appendingPathComponent("run/ucube").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(chown(directory, 65534, 65534) == 0)
        let run = try await sandbox.run(["--device", "sim", "pay", "6", "--authorize", "approve"])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("belongs to another user"))
    }

    /// A receipt or report path that is a link is refused before the payment, not after it.
    @Test func aReceiptFileThatIsALinkIsRefusedBeforeThePayment() async throws {
        let sandbox = try UCubeSandbox()
        let receipt = sandbox.directory.appendingPathComponent("receipt.txt").path
        let target = sandbox.directory.appendingPathComponent("target.txt").path
        try FileManager.default.createSymbolicLink(atPath: receipt, withDestinationPath: target)
        let run = try await sandbox.run([
            "--device", "sim", "pay", "6", "--authorize", "approve", "--receipt-file", receipt,
        ])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(!run.stderr.contains("payment APPROVED"), "the payment must not have run")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}

/// ucube runs with umask 077 for its own files, but what the user asks for (a receipt, a suite report) gets the mode
/// the user's umask gives, as any other tool's output (issue 25: "written 0600 whatever the umask").
@Suite struct OutputModeTests {
    @Test(arguments: [("022", 0o644), ("027", 0o640)] as [(String, Int)])
    func aReceiptFollowsTheUsersUmask(umask: String, mode: Int) async throws {
        let sandbox = try UCubeSandbox()
        let receipt = sandbox.directory.appendingPathComponent("receipt-\(umask).txt").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "umask \(umask) && exec \"$0\" \"$@\"", UCubeSandbox.binary.path,
            "--device", "sim", "pay", "5", "--authorize", "approve", "--receipt-file", receipt,
        ]
        process.environment = sandbox.environment
        process.standardOutput = FileHandle.nullDevice
        try UCubeSandbox.start(process)
        #expect(await process.exit() == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: receipt)
        #expect((attributes[.posixPermissions] as? Int) == mode)
        // ucube's own files stay private.
        let journal = try FileManager.default.attributesOfItem(
            atPath: sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl").path)
        #expect((journal[.posixPermissions] as? Int) == 0o600)
    }
}
