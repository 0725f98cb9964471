import Foundation
import Testing

/// `ucube locale` against the simulator (issue 6 item 4): list, set, get round-trip across invocations, since the
/// simulated device persists its state.
@Suite(.serialized) struct LocaleEndToEndTests {
    @Test func listSetGetRoundTrip() async throws {
        let sandbox = try UCubeSandbox()
        let list = try await sandbox.run("--device sim locale list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("en (current)"))
        #expect(list.stdout.contains("fr"))
        let set = try await sandbox.run("--device sim locale set fr")
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await sandbox.run("--device sim locale get")
        #expect(get.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "fr")
        let json = try await sandbox.run("--device sim --json locale get")
        #expect(json.stdout.contains("\"locale\": \"fr\""))
    }

    @Test func unsupportedLocaleIsRefused() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run("--device sim locale set xx")
        #expect(run.status == 64)
        #expect(run.stderr.contains("does not support"))
        let bad = try await sandbox.run(["--device", "sim", "locale", "set", "f r"])
        #expect(bad.status == 64)
    }
}
