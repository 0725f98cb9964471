import Foundation
import Testing

/// `simulate --tms-name NAME` (issue 40 item 5): names checked as DNS host names before anything is served; the
/// certificate's names themselves are checked in TMSPKITests.
struct TMSNameEndToEndTests {
    @Test(arguments: [
        ["--tms", "127.0.0.1:0", "--tms-name", "10.0.0.1"], ["--tms", "127.0.0.1:0", "--tms-name", "shop_tms.test"],
        ["--tms", "127.0.0.1:0", "--tms-name", "-shop.test"], ["--tms-name", "shop.test"],
    ])
    func badNamesAreUsageErrors(arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(["simulate"] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
    }

    @Test func aGoodNameIsServed() async throws {
        let sandbox = try UCubeSandbox()
        let tms = try await TMSEndToEndTests.startTMS(sandbox, extra: ["--tms-name", "tms.shop.test"])
        #expect(tms.url.hasPrefix("https://127.0.0.1:"))
        await TMSEndToEndTests.stop(tms.process)
    }
}
