import Foundation
import Testing

/// The demo POS page of `ucube serve` in a real browser (issue 43): headless Chromium driven by selenium
/// (Tests/serve/browser_test.py; Debian's chromium, chromium-driver and python3-selenium, which
/// `bash Scripts/setup.sh --test` installs) against the built-in simulator: approved, declined, a cancel during the
/// card wait, an application choice on the page, a reload in the middle of a payment, a signature; and, outside the
/// loopback, the pairing.
@Suite struct ServeBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    static let missing: Comment =
        "Chromium is not installed (/usr/bin/chromium, /usr/bin/chromedriver): `bash Scripts/setup.sh --test` installs Debian's chromium and chromium-driver"
    static var browserInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: chromium)
            && FileManager.default.isExecutableFile(atPath: chromedriver)
    }

    @Test(.enabled(if: browserInstalled, missing))
    func theDemoPageTakesPaymentsInChromium() async throws {
        let sandbox = try UCubeSandbox()
        let serve = try await ServeRun.start(sandbox, ["--device", "sim", "serve", "--listen", "127.0.0.1:0"])
        let run = try await ServeRun.python(
            sandbox, "browser_test.py",
            ["--base", serve.base, "--chromium", Self.chromium, "--chromedriver", Self.chromedriver])
        #expect(
            run.status == 0,
            "\(run.output)\(run.output.contains("No module named 'selenium'") ? "\nselenium is missing: `bash Scripts/setup.sh --test` installs Debian's python3-selenium" : "")"
        )
        #expect(run.output.contains("ok - after the reload the payment's end arrives from the event stream"))
        #expect(run.output.contains("ok - a card that asks for the signature shows the notice"))
        #expect(await serve.stop().status == 0, "\(serve.log)")
    }

    /// Outside the loopback the page asks for the code `serve --pair` shows, and pays with the token it gets.
    @Test(
        .enabled(if: browserInstalled, missing),
        .enabled(if: ServeRun.nonLoopbackAddress != nil, "this machine has no IPv4 address outside the loopback"))
    func theDemoPagePairsOutsideTheLoopback() async throws {
        let sandbox = try UCubeSandbox()
        let (serve, code) = try await ServeRun.startPaired(sandbox)
        let run = try await ServeRun.python(
            sandbox, "browser_test.py",
            [
                "--base", serve.base, "--pair-code", code, "--chromium", Self.chromium, "--chromedriver",
                Self.chromedriver,
            ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("ok - the paired page pays"))
        #expect(await serve.stop().status == 0, "\(serve.log)")
    }
}
