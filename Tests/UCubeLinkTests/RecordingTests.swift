import Testing
import UCubeProtocol

@testable import UCubeLink

/// The recording format (docs/recording.md): what the recorder writes reads back, card data in plain frames is
/// masked with the CRC computed again, secured frames stay as sent, and every malformed line is refused by number.
struct RecordingTests {
    static let getInfo = try! RawFrame(sequence: 3, command: .getInfo, body: [0xC1]).encoded()

    @Test func linesReadBackAsWritten() throws {
        let link = Recording.Link(
            device: "tcp://127.0.0.1:5000", session: .clean(secured: true, next: 9),
            events: [
                .init(time: 0.000125, kind: .sent(Self.getInfo, secured: false)),
                .init(time: 0.5, kind: .received([0x02, 0x00], secured: true)),
                .init(time: 1.25, kind: .dropped("the terminal closed the link")),
                .init(time: 2, kind: .closed),
            ])
        var text = Recording.header(command: "ucube --device tcp://127.0.0.1:5000 info")
        text += Recording.line(device: link.device, session: link.session)
        for event in link.events { text += Recording.line(for: event) }
        #expect(text.contains("> 0.000125 plain 0200010350"))
        #expect(text.contains("\nend 2.000000\n"))
        let read = try Recording(parsing: text)
        #expect(read.command == "ucube --device tcp://127.0.0.1:5000 info")
        #expect(read.links == [link])
    }

    /// EMV Book 3 Annex A: 5A is the PAN, 57 track 2 equivalent data. The values are the simulator's test card.
    @Test func plainCardDataIsMaskedAndTheCRCComputedAgain() throws {
        let body: [UInt8] = [
            0x00, 0x00, 0x5A, 0x08, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10,
            0x57, 0x0C, 0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10, 0xD2, 0x81, 0x22, 0x01,
        ]
        let frame = try RawFrame(sequence: 7, command: CommandID(0x5026), body: body).encoded()
        let masked = Recording.masked(frame: frame)
        #expect(masked.count == frame.count)
        var decoder = FrameDecoder()
        decoder.append(masked)
        let read = try #require(try decoder.next())
        #expect(Hex.encode(read.body) == "00005A08476173FFFFFF0010570C476173FFFFFF0010DFFFFFFF")
        #expect(Masking.panDigits(from: Array(read.body[4..<12])) == "476173******0010")
        // The line written for it masks the same way, secured or not: a SIGNED answer's data is in clear too.
        #expect(
            Recording.line(for: .init(time: 0, kind: .received(frame, secured: false))).contains(Hex.encode(masked)))
        #expect(Recording.line(for: .init(time: 0, kind: .received(frame, secured: true))).contains(Hex.encode(masked)))
        // Nothing shaped like card data: the same bytes.
        #expect(Recording.masked(frame: Self.getInfo) == Self.getInfo)
    }

    @Test(
        arguments: [
            ("", "empty"), ("hello\n", "not a ucube recording"), ("ucube-recording 2\n", "version 2"),
            ("ucube-recording 1\n> 0.1 plain 02\n", "line 2: a record before any 'link' line"),
            ("ucube-recording 1\nlink sim session=maybe\n", "line 2: a link's session"),
            ("ucube-recording 1\nlink sim session=clean next=3\n", "line 2: a clean session needs"),
            ("ucube-recording 1\nlink sim session=missing\n> soon plain 02\n", "line 3: a record needs its time"),
            ("ucube-recording 1\nlink sim session=missing\n> -1 plain 02\n", "line 3: a record needs its time"),
            ("ucube-recording 1\nlink sim session=missing\n> 0.1 clear 02\n", "line 3: a frame record is"),
            ("ucube-recording 1\nlink sim session=missing\n> 0.1 plain 0Z\n", "line 3: a frame record's bytes"),
            ("ucube-recording 1\nlink sim session=missing\nend 1 2\n", "line 3: 'end' takes only a time"),
            ("ucube-recording 1\nlink sim session=missing\nreboot 1\n", "line 3: unknown record 'reboot'"),
        ])
    func badRecordingsAreRefusedByLine(text: String, reason: String) {
        #expect {
            _ = try Recording(parsing: text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func aFrameLongerThanTheProtocolAllowsIsRefused() {
        let long = String(repeating: "00", count: FrameLimits.maxFrameSize + 1)
        #expect(throws: RecordingError.self) {
            try Recording(parsing: "ucube-recording 1\nlink sim session=missing\n< 0.1 plain \(long)\n")
        }
    }
}
