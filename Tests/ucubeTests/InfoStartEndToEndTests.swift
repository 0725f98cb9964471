import Foundation
import Testing

/// What `info` sends follows the link session file (spec §8.7): the reset only when the record cannot be trusted,
/// GetInfo alone after a clean exit that kept no secure session. (The reset a ciphered answer then calls for is
/// `ConfirmingIdleTests`, against a simulator another link left in a secure session.)
@Suite struct InfoStartEndToEndTests {
    static func commands(_ sandbox: UCubeSandbox) async throws -> [String] {
        let run = try await sandbox.run(["--device", "sim", "--trace", "info"])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(run.stdout.contains("state: READY"), "\(run.stdout)")
        return JournalEndToEndTests.commands(inTrace: run.stderr)
    }

    @Test func getInfoAloneAfterACleanExitTheResetOtherwise() async throws {
        let sandbox = try UCubeSandbox()
        let record = sandbox.directory.appendingPathComponent("run/ucube/session-sim")
        let reset = ["CancelAll", "ExitSecureSession", "GetInfo"]
        // No record: the reset first.
        #expect(try await Self.commands(sandbox) == reset)
        // The clean exit it recorded: GetInfo alone.
        #expect(try String(contentsOf: record, encoding: .utf8).hasPrefix("secured=0 "))
        #expect(try await Self.commands(sandbox) == ["GetInfo"])
        // A process that died holding the link, or a clean exit that kept a secure session: the reset again.
        for text in ["secured=0 next=3 owner=2147483646\n", "secured=1 next=3\n"] {
            try text.write(to: record, atomically: true, encoding: .utf8)
            #expect(try await Self.commands(sandbox) == reset, "\(text)")
        }
    }
}
