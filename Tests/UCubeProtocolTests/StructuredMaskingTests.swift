import Foundation
import Testing

@testable import UCubeProtocol

/// Issue 38's cases: what masking must leave whole, and the JSON it must keep valid.
@Suite("Masking by structure")
struct StructuredMaskingTests {
    /// A UUID whose digit groups join into a Luhn-valid run (24615 7264 4963: the issue's example) is one token.
    @Test(arguments: [
        "BCA24615-7264-4963-8ACF-CE937809EEB9",
        "request BCA24615-7264-4963-8ACF-CE937809EEB9 approved",
        "bca24615-7264-4963-8acf-ce937809eeb9",
        "12345678-4111-1111-1111-111111111111",
        "KSN FFFF9876543210E00001",
        "v1.4111111111111111",
        "x4111111111111111",
        "4111111111111111_old",
        "ABCDEF-4111111111111111",
    ])
    func tokensThatHoldDigitsAreLeftWhole(text: String) {
        #expect(Masking.redactCardData(in: text) == text)
        #expect(Masking.redactPANs(in: text) == text)
    }

    @Test(arguments: [
        ("pan 4111111111111111", "pan 411111******1111"),
        ("pan=4111-1111-1111-1111.", "pan=411111******1111."),
        ("ref-4111 1111 1111 1111", "ref-411111******1111"),
        ("id 1234 4111 1111 1111 1111 ok", "id 1234 411111******1111 ok"),
        ("(378282246310005)", "(378282*****0005)"),
        ("3782 822463 10005", "378282*****0005"),
    ])
    func cardNumbersInTextAreMasked(text: String, expected: String) {
        #expect(Masking.redactCardData(in: text) == expected)
    }

    /// A UUID followed by a PAN in groups: the UUID's last digits do not hide the PAN.
    @Test func aPANAfterAUUIDIsStillMasked() {
        let text = "12345678-1234-1234-1234-123456781234 4111 1111 1111 1111"
        #expect(Masking.redactCardData(in: text) == "12345678-1234-1234-1234-123456781234 411111******1111")
    }

    /// A PAN written plainly whose digits also spell a card-data tag in hex (57, a length, "track 2"): masked as a
    /// PAN, its first six and last four digits shown, never as hex that would leave ten of them visible.
    @Test(arguments: ["570712345678901232", "5706123456789011", "5705123456789012"])
    func aPlainPANThatSpellsATagIsMaskedAsAPAN(pan: String) {
        #expect(Masking.luhnValid(pan))
        let masked = Masking.redactCardData(in: "no payment \(pan) in the journal")
        #expect(masked == "no payment \(Masking.maskPAN(pan)) in the journal")
        #expect(Masking.maskPAN(pan).prefix(7).last == "*")
    }

    /// Decision (issue 38): a JSON number is never changed — ucube writes no PAN as a number, and a number field may
    /// hold any 13–19 digits (a timestamp in µs, a counter).
    @Test func aJSONNumberIsNeverChanged() throws {
        let json = #"{"unixMicroseconds": 4111111111111111, "list": [5555555555554444, 1.5], "n": -4111111111111111}"#
        #expect(Masking.redactCardData(in: json) == json)
        let pretty = "{\n  \"frames\": [\n    {\n      \"unixMicroseconds\": 4111111111111111\n    }\n  ]\n}\n"
        #expect(Masking.redactCardData(in: pretty) == pretty)
    }

    @Test func aJSONStringThatIsCardDataIsMasked() throws {
        let json =
            #"{"id":"BCA24615-7264-4963-8ACF-CE937809EEB9","message":"card 4111111111111111 read","n":4111111111111111}"#
        let masked = Masking.redactCardData(in: json)
        #expect(
            masked
                == #"{"id":"BCA24615-7264-4963-8ACF-CE937809EEB9","message":"card 411111******1111 read","n":4111111111111111}"#
        )
        #expect((try? JSONSerialization.jsonObject(with: Data(masked.utf8))) != nil)
    }

    /// Escapes in a string are read: a PAN after "\n" is found; the masked string is written back escaped.
    @Test func escapedStringsAreDecodedBeforeMasking() throws {
        let json = #"{"m":"line\n4111111111111111\t\"q\" \u00e9"}"#
        let masked = Masking.redactCardData(in: json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(masked.utf8)) as? [String: String])
        #expect(object["m"] == "line\n411111******1111\t\"q\" é")
    }

    /// Card data by its field: under "pan" any 12–19 digit run is masked, whatever stands next to it.
    @Test func aCardDataFieldIsMaskedWhateverItsShape() {
        #expect(Masking.redactCardData(in: #"{"pan":"PAN4111111111111111"}"#) == #"{"pan":"PAN411111******1111"}"#)
        #expect(Masking.redactCardData(in: #"{"note":"PAN4111111111111111"}"#) == #"{"note":"PAN4111111111111111"}"#)
    }

    /// Card data in hex, as the protocol carries it, stays masked inside a JSON string.
    @Test func cardDataInHexInAJSONStringIsMasked() {
        let json = #"{"data":"5A084761739001010010"}"#
        #expect(Masking.redactCardData(in: json) == #"{"data":"5A08476173******0010"}"#)
    }

    /// JSON Lines and text mixed: each line by its own structure.
    @Test func linesAreMaskedEachByItsStructure() {
        let text = "{\"t\":4111111111111111,\"m\":\"4111111111111111\"}\nplain 4111111111111111\n[4111111111111111]\n"
        #expect(
            Masking.redactCardData(in: text)
                == "{\"t\":4111111111111111,\"m\":\"411111******1111\"}\nplain 411111******1111\n[4111111111111111]\n")
    }

    /// A line that only looks like JSON is text, masked as text: nothing outside a string escapes then.
    @Test(arguments: ["{4111111111111111}", "[4111111111111111", "4111111111111111", "{\"a\": 4111111111111111,}"])
    func notJSONIsText(text: String) {
        #expect(!Masking.containsUnmaskedPAN(Masking.redactCardData(in: text)))
    }

    /// A piece of a JSON document (decode's streamed array, one element a write): strings only.
    @Test func aPieceOfJSONHasOnlyItsStringsMasked() {
        let piece = ",\n  {\n    \"unixMicroseconds\": 4111111111111111,\n    \"data\": \"4111111111111111\""
        #expect(
            Masking.redactCardData(inJSON: piece)
                == ",\n  {\n    \"unixMicroseconds\": 4111111111111111,\n    \"data\": \"411111******1111\"")
    }

    /// Deep nesting is not parsed as a document (no stack overflow on hostile input): it is masked as text.
    @Test func deepNestingIsText() {
        let deep = String(repeating: "[", count: 10_000) + "4111111111111111" + String(repeating: "]", count: 10_000)
        #expect(!Masking.redactCardData(in: deep).contains("4111111111111111"))
    }
}
