import Foundation
import Testing
import UCubeProtocol

/// Issue 38 through the binary: masking keeps what is not card data whole — a request id, a JSON number — and
/// `decode` shows an amount with the currency its command carries.
@Suite struct MaskingEndToEndTests {
    /// A UUID whose digit groups join into a Luhn-valid run (24615 7264 4963): `pay` prints it whole, and
    /// `history show` finds the payment by it.
    @Test func historyFindsAPaymentByTheIdPayPrinted() async throws {
        let id = "BCA24615-7264-4963-8ACF-CE937809EEB9"
        let sandbox = try UCubeSandbox()
        let pay = try await sandbox.run([
            "--device", "sim", "--json", "pay", "7", "--card", "visa-contact", "--request-id", id,
        ])
        #expect(pay.status == 0, "\(pay.stderr.suffix(2000))")
        #expect(pay.stdout.contains(id), "\(pay.stdout)")
        #expect((try? JSONSerialization.jsonObject(with: Data(pay.stdout.utf8))) != nil, "\(pay.stdout)")
        let text = try await sandbox.run(["--device", "sim", "pay", "7", "--card", "visa-contact"])
        #expect(text.status == 0, "\(text.stderr.suffix(2000))")

        let show = try await sandbox.run(["--json", "history", "show", id])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains(id), "\(show.stdout)")
        let human = try await sandbox.run(["history", "show", id])
        #expect(human.status == 0 && human.stdout.contains(id), "\(human.stdout)\(human.stderr)")
        // The journal keeps the id whole too.
        let journal = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/journal.jsonl"), encoding: .utf8)
        #expect(journal.contains(id))
    }

    /// A capture whose records are stamped 4111111111111111 µs after 1970 (a Luhn-valid Visa-shaped number):
    /// `--json decode` parses, and the number is the number.
    @Test func aCaptureStampedAtAPANShapedTimeDecodesToValidJSON() async throws {
        let micros: UInt64 = 4_111_111_111_111_111
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: DecodeCaptureEndToEndTests.h4)))
        // btsnoop: a 16-byte header, then records of a 24-byte header (lengths, flags, drops, an 8-byte big-endian
        // timestamp in µs since year 0) and their bytes.
        var offset = 16
        var records = 0
        while offset + 24 <= bytes.count {
            let included = bytes[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            let stamp = BTSnoopFile.unixEpochOffset + micros
            for index in 0..<8 { bytes[offset + 16 + index] = UInt8(truncatingIfNeeded: stamp >> (56 - 8 * index)) }
            offset += 24 + included
            records += 1
        }
        #expect(records > 12)
        let sandbox = try UCubeSandbox()
        let capture = sandbox.directory.appendingPathComponent("stamped.btsnoop")
        try Data(bytes).write(to: capture)

        let run = try await sandbox.run(["--json", "decode", "--as", "btsnoop", capture.path])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        let frames = try #require(object["frames"] as? [[String: Any]])
        #expect(frames.first?["unixMicroseconds"] as? Int == Int(micros), "\(frames.first ?? [:])")
        // The card's PAN is still masked.
        #expect(!run.stdout.contains("4761739001010010"))
        #expect(run.stdout.contains("476173******0010"))
    }

    /// 9F02 000000001250 with 5F2A 0978 in the same TransactionInit: 12.50 EUR.
    @Test func decodeShowsACommandsAmountWithItsCurrency() async throws {
        let command = TransactionInit(
            aid: [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10], currencyCode: 978, exponent: 2, type: .purchase,
            amount: 1250)
        let frame = try CommandFrame(sequence: 1, command: TransactionInit.id, payload: command.encodePayload())
            .encoded()
        let run = try await UCubeSandbox().run(["decode", Hex.encode(frame)])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("amountAuthorised: 12.50 EUR"), "\(run.stdout)")
    }
}
