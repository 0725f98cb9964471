import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// `--json` writes bytes as hex through one masker: a value shaped like card data never reaches stdout in clear,
/// whichever command's JSON carries it (here `decode --json` of an answer carrying a clear 5A).
struct JSONOutputTests {
    struct Carrier: Encodable {
        let data: [UInt8]
        let nested: [[UInt8]]
    }

    /// EMV Book 3 Annex A: 5A, Application PAN, cn up to 19 digits; the simulator's test Visa card.
    @Test func bytesAreHexWithCardDataMasked() throws {
        let pan: [UInt8] = [0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10]
        let text = try JSONOutput.encode(Carrier(data: pan, nested: [[0x01, 0xAB], pan]), pretty: false)
        #expect(text == #"{"data":"5A08476173******0010","nested":["01AB","5A08476173******0010"]}"#)
    }

    @Test func decodeJSONNeverShowsAPANInClear() async throws {
        let run = try await UCubeSandbox().run(
            ["--json", "decode", "02 00 0C 01 50 26 00 00 5A 08 47 61 73 90 01 01 00 10 EF A2 03"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("4761739001010010"), "\(run.stdout)")
        #expect(run.stdout.contains("476173******0010"))
    }
}
