import Testing
import UCubeProtocol

@testable import UCubeCLI

/// The lines `ucube rpc` and `decode` print for an answer (`ResponseText`, the CLI's wording, in Output/).
struct ResponseTextTests {
    @Test func everyCommandsAnswerHasItsLines() {
        func conforms<C: RPCCommand>(_ type: C.Type) -> Bool { C.Response.self is any ResponseText.Type }
        let missing = CommandRegistry.types.filter { !conforms($0) }.map { "\($0.id)" }
        #expect(missing.isEmpty, "answers with no text lines (they would print \"ok\"): \(missing)")
    }

    @Test func theClockAndRawData() {
        let clock = RTCGet.Response(
            dateTime: RTCDateTime(year: 2000, month: 12, day: 31, hour: 23, minute: 59, second: 58))
        #expect(ResponseLines.of(clock) == ["terminal clock: 2000-12-31 23:59:58"])
        #expect(ResponseLines.of(RawDataResponse(data: [0x90, 0x00])) == ["data: 90 00"])
    }

    @Test func aPANInAPlainTagAnswerIsMasked() {
        let response = TLVResponse(tlvs: [TLV(Tag(0x5A), [0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10])])
        let text = ResponseLines.of(response).joined()
        #expect(!text.contains("4761739001010010"))
        #expect(text.contains("476173******0010"))
    }
}
