import Testing

@testable import UCubeProtocol

/// A worked frame of spec §2.6 ("computed for this reference"; CRC checked against CRC-16/XMODEM's check value).
struct WorkedFrame: CustomTestStringConvertible, Sendable {
    let name: String
    let hex: String
    let isResponse: Bool
    let secured: Bool
    var bytes: [UInt8] { try! Hex.decode(hex) }
    var testDescription: String { name }
}

let workedFrames: [WorkedFrame] = [
    .init(
        name: "GetInfo C1 C4 D1, SEQ 0", hex: "02 00 03 00 50 01 C1 C4 D1 AB 0F 03", isResponse: false, secured: false),
    .init(
        name: "GetInfo success response", hex: "02 00 0B 00 50 01 00 00 C4 01 03 D1 04 06 00 00 37 61 9B 03",
        isResponse: true, secured: false),
    .init(name: "WaitCard timeout -2", hex: "02 00 02 01 50 20 FF FE DF C2 03", isResponse: true, secured: false),
    .init(name: "EnterSecureSession", hex: "02 00 00 00 51 01 2D AF 03", isResponse: false, secured: false),
    .init(
        name: "EnterSecureSession KSN response", hex: "02 00 0C 00 51 01 00 00 FF FF 98 76 54 32 10 E0 00 01 CD 60 03",
        isResponse: true, secured: false),
    .init(
        name: "secured GetPlainTag DF60 9F27", hex: "02 00 09 01 50 26 7F DF 60 9F 27 00 00 00 00 1D 63 03",
        isResponse: false, secured: true),
    .init(
        name: "DisplayMessage Hello world",
        hex: "02 00 14 01 50 40 02 00 05 01 00 0C 48 65 6C 6C 6F 20 77 6F 72 6C 64 00 FF 00 3A C9 03",
        isResponse: false, secured: false),
    .init(
        name: "DisplayMessage response (spec §3.1)", hex: "02 00 02 01 50 40 00 00 49 87 03", isResponse: true,
        secured: false),
]

@Suite struct CRCTests {
    // CRC-16/XMODEM check value (CRC RevEng catalogue; spec §2.5).
    @Test func checkValue() {
        #expect(CRC16.xmodem(Array("123456789".utf8)) == 0x31C3)
    }

    // spec §2.6: CRC input 00 03 00 50 01 C1 C4 D1 -> 0xAB0F.
    @Test func getInfoCRC() throws {
        #expect(CRC16.xmodem(try Hex.decode("00 03 00 50 01 C1 C4 D1")) == 0xAB0F)
    }

    // spec §3.1: the BLE connection password for "YT-Touch 0001" is CRC 0x4CC4.
    @Test func blePasswordCRC() {
        #expect(CRC16.xmodem(Array("YT-Touch 0001".utf8)) == 0x4CC4)
    }

    /// The table gives what the definition gives bit by bit (poly 0x1021, MSB first), over each single byte and over
    /// a Load-sized body, through both the contiguous path and the element-by-element one.
    @Test func tableMatchesTheBitwiseDefinition() {
        func bitwise(_ bytes: [UInt8]) -> UInt16 {
            var crc: UInt16 = 0
            for byte in bytes {
                crc ^= UInt16(byte) << 8
                for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
            }
            return crc
        }
        for byte in 0...255 { #expect(CRC16.xmodem([UInt8(byte)]) == bitwise([UInt8(byte)])) }
        let block = (0..<2052).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 3) }
        #expect(CRC16.xmodem(block) == bitwise(block))
        #expect(CRC16.xmodem(block[1...]) == bitwise(Array(block[1...])))
        #expect(CRC16.xmodem(AnyCollection(block)) == bitwise(block))
    }

    @Test func emptyAndIncremental() {
        #expect(CRC16.xmodem([UInt8]()) == 0)
        let whole = CRC16.xmodem(Array("123456789".utf8))
        let part = CRC16.xmodem(Array("12345".utf8))
        #expect(CRC16.xmodem(Array("6789".utf8), initial: part) == whole)
    }
}

@Suite struct FrameCodecTests {
    @Test(arguments: workedFrames)
    func decodesAndReencodesExactly(_ vector: WorkedFrame) throws {
        var decoder = FrameDecoder()
        decoder.append(vector.bytes)
        let raw = try #require(try decoder.next())
        #expect(try raw.encoded() == vector.bytes)
        #expect(decoder.bufferedCount == 0)
        if vector.isResponse {
            let response = try ResponseFrame(raw: raw, secured: vector.secured)
            #expect(try response.encoded() == vector.bytes)
        } else {
            let command = try CommandFrame(raw: raw, secured: vector.secured)
            #expect(try command.encoded() == vector.bytes)
        }
    }

    @Test func getInfoCommandFields() throws {
        let frame = CommandFrame(sequence: 0, command: .getInfo, payload: [0xC1, 0xC4, 0xD1])
        #expect(try frame.encoded() == workedFrames[0].bytes)
    }

    @Test func getInfoResponseFields() throws {
        let frame = ResponseFrame(
            sequence: 0, command: .getInfo, status: .success, data: try Hex.decode("C4 01 03 D1 04 06 00 00 37"))
        #expect(try frame.encoded() == workedFrames[1].bytes)
    }

    @Test func negativeStatusIsSigned() throws {
        var decoder = FrameDecoder()
        decoder.append(workedFrames[2].bytes)
        let response = try ResponseFrame(raw: try #require(try decoder.next()), secured: false)
        #expect(response.status == .timeout)
        #expect(response.status.rawValue == -2)
        #expect(response.sequence == 1)
    }

    @Test func securedCommandLayout() throws {
        let frame = CommandFrame(
            sequence: 1, command: .getPlainTag, payload: [0xDF, 0x60, 0x9F, 0x27], envelope: SecuredEnvelope())
        #expect(try frame.encoded() == workedFrames[5].bytes)
    }

    @Test func securedResponseWithAndWithoutData() throws {
        let withData = ResponseFrame(
            sequence: 3, command: .getPlainTag, status: .success, data: [0x9F, 0x27, 0x01, 0x80],
            envelope: SecuredEnvelope(cryptoHeader: 0x11, mac: [1, 2, 3, 4]))
        let bytes = try withData.encoded()
        // LEN = 1 + 2 + n + 4 (spec §2.3).
        #expect(bytes[1] == 0 && bytes[2] == 1 + 2 + 4 + 4)
        var decoder = FrameDecoder()
        decoder.append(bytes)
        #expect(try ResponseFrame(raw: try #require(try decoder.next()), secured: true) == withData)

        let empty = ResponseFrame(
            sequence: 4, command: .getPlainTag, status: .cancelled,
            envelope: SecuredEnvelope(cryptoHeader: 0x11, mac: []))
        let emptyBytes = try empty.encoded()
        #expect(emptyBytes[2] == 3)  // "an empty one LEN = 3"
        decoder.append(emptyBytes)
        #expect(try ResponseFrame(raw: try #require(try decoder.next()), secured: true) == empty)
    }

    @Test func securedBodiesTooShortThrow() {
        #expect(throws: FrameError(.truncatedSecuredBody, "")) {
            try ResponseFrame(raw: RawFrame(sequence: 0, command: .getInfo, body: [0x7F, 0x00]), secured: true)
        }
        #expect(throws: FrameError(.truncatedSecuredBody, "")) {
            try ResponseFrame(
                raw: RawFrame(sequence: 0, command: .getInfo, body: [0x7F, 0x00, 0x00, 0xAA]), secured: true)
        }
        #expect(throws: FrameError(.truncatedSecuredBody, "")) {
            try CommandFrame(raw: RawFrame(sequence: 0, command: .getInfo, body: [0x7F, 0, 0]), secured: true)
        }
        #expect(throws: FrameError(.missingStatus, "")) {
            try ResponseFrame(raw: RawFrame(sequence: 0, command: .getInfo, body: [0x00]), secured: false)
        }
    }

    @Test func encoderRefusesOversize() throws {
        let atLimit = RawFrame(
            sequence: 0, command: .load, body: [UInt8](repeating: 0xAA, count: FrameLimits.maxBodySize))
        #expect(try atLimit.encoded().count == FrameLimits.maxFrameSize)
        let over = RawFrame(
            sequence: 0, command: .load, body: [UInt8](repeating: 0xAA, count: FrameLimits.maxBodySize + 1))
        #expect(throws: FrameError(.oversize, "")) { try over.encoded() }
    }
}

@Suite struct FrameDecoderTests {
    // Every prefix but the whole frame gives nil and leaves the buffer (style: swift-nio-ssh partial reads).
    @Test(arguments: workedFrames)
    func everyPrefixNeedsMore(_ vector: WorkedFrame) throws {
        let bytes = vector.bytes
        for n in 0..<bytes.count {
            var decoder = FrameDecoder()
            decoder.append(bytes[..<n])
            #expect(try decoder.next() == nil)
            #expect(decoder.bufferedCount == n)
        }
    }

    @Test(arguments: workedFrames)
    func byteAtATime(_ vector: WorkedFrame) throws {
        var decoder = FrameDecoder()
        var frames: [RawFrame] = []
        for b in vector.bytes {
            decoder.append([b])
            if let f = try decoder.next() { frames.append(f) }
        }
        #expect(frames.count == 1)
        #expect(try frames[0].encoded() == vector.bytes)
    }

    // The whole stream of worked frames split at every pair of cut points gives the same frames.
    @Test func everySplitOfAStream() throws {
        let stream = workedFrames.flatMap(\.bytes)
        let expected = workedFrames.count
        for i in 0...stream.count {
            for j in stride(from: i, through: stream.count, by: 7) {
                var decoder = FrameDecoder()
                var got: [RawFrame] = []
                for part in [stream[..<i], stream[i..<j], stream[j...]] {
                    decoder.append(part)
                    while let f = try decoder.next() { got.append(f) }
                }
                #expect(got.count == expected)
                #expect(got.flatMap { try! $0.encoded() } == stream)
            }
        }
    }

    @Test func severalFramesInOneRead() throws {
        var decoder = FrameDecoder()
        decoder.append(workedFrames[0].bytes + workedFrames[1].bytes + workedFrames[2].bytes[..<4])
        #expect(try decoder.next()?.command == .getInfo)
        #expect(try decoder.next()?.command == .getInfo)
        #expect(try decoder.next() == nil)
        decoder.append(workedFrames[2].bytes[4...])
        #expect(try decoder.next()?.command == .waitCard)
    }

    @Test(arguments: workedFrames)
    func flippedCRCByteIsRejectedThenResynchronised(_ vector: WorkedFrame) throws {
        for crcOffset in [vector.bytes.count - 3, vector.bytes.count - 2] {
            var bad = vector.bytes
            bad[crcOffset] ^= 0x01
            var decoder = FrameDecoder()
            decoder.append(bad + workedFrames[0].bytes)
            #expect(throws: FrameError(.crcMismatch, "")) { try decoder.next() }
            // The decoder dropped the whole bad frame and returns the good one after it at once.
            #expect(try decoder.next()?.encoded() == workedFrames[0].bytes)
            #expect(decoder.bufferedCount == 0)
        }
    }

    @Test func garbageBeforeAFrameIsSkipped() throws {
        var decoder = FrameDecoder()
        decoder.append([0xFF, 0x00, 0x13, 0x37] + workedFrames[0].bytes)
        #expect(try decoder.next()?.command == .getInfo)
        #expect(decoder.discardedBytes == 4)
    }

    /// Noise is what was dropped since the last valid frame: a valid frame ends it, a reset forgets it, and bytes of
    /// a rejected frame count (the bound each side drops a peer at: protocol.md §2.2).
    @Test func noiseCountsFromTheLastValidFrame() throws {
        var decoder = FrameDecoder()
        decoder.append([0xFF, 0x00, 0x13])
        #expect(try decoder.next() == nil)
        #expect(decoder.noiseSinceLastFrame == 3)
        decoder.append(workedFrames[0].bytes + [0x55, 0x66])
        #expect(try decoder.next()?.command == .getInfo)
        #expect(decoder.noiseSinceLastFrame == 0, "a valid frame ends the noise before it")
        #expect(try decoder.next() == nil)
        #expect(decoder.noiseSinceLastFrame == 2)
        var bad = workedFrames[0].bytes
        bad[bad.count - 2] ^= 0x01  // the CRC's low byte
        decoder.append(bad)
        #expect(throws: FrameError(.crcMismatch, "")) { try decoder.next() }
        #expect(decoder.noiseSinceLastFrame == 2 + bad.count, "a rejected frame is noise")
        decoder.reset()
        #expect(decoder.noiseSinceLastFrame == 0)
        #expect(decoder.discardedBytes == 2 + bad.count + 3, "the total still counts everything dropped")
    }

    @Test func badETX() throws {
        var bytes = workedFrames[0].bytes
        bytes[bytes.count - 1] = 0x04
        var decoder = FrameDecoder()
        decoder.append(bytes + workedFrames[3].bytes)
        #expect(throws: FrameError(.missingETX, "")) { try decoder.next() }
        // Only the STX was dropped; the search resumes after it and finds the next frame.
        var results: [Result<RawFrame?, FrameError>] = []
        for _ in 0..<20 {
            do throws(FrameError) {
                let f = try decoder.next()
                results.append(.success(f))
                if f != nil || decoder.bufferedCount == 0 { break }
            } catch {
                results.append(.failure(error))
            }
        }
        #expect(try results.last?.get()?.command == .enterSecureSession)
    }

    // spec §2.2: "a frame whose announced size (LEN + 9) exceeds it is rejected" — at once, without waiting for it.
    @Test func oversizeLENRejectedAtOnce() throws {
        var decoder = FrameDecoder()
        decoder.append([0x02, 0x08, 0x0C])  // LEN 2060 -> 2069 bytes
        #expect(throws: FrameError(.oversize, "")) { try decoder.next() }
        var ok = FrameDecoder()
        ok.append([0x02, 0x08, 0x0B])  // LEN 2059 -> 2068 bytes: wait for it
        #expect(try ok.next() == nil)
    }

    @Test func unknownCommandIDDecodes() throws {
        let frame = ResponseFrame(sequence: 9, command: .unrecognised, status: .unknownCommand)
        var decoder = FrameDecoder()
        decoder.append(try frame.encoded())
        let raw = try #require(try decoder.next())
        #expect(raw.command == CommandID(0x8000))
        #expect(try ResponseFrame(raw: raw, secured: false).status == Status(-1))
    }
}

@Suite struct BLECodecTests {
    // spec §3.1 worked examples.
    @Test func getInfoStuffedIsOneWrite() throws {
        let stuffed = BLECodec.stuff(workedFrames[0].bytes)
        #expect(stuffed == (try Hex.decode("02 0C 03 0C 50 01 C1 C4 D1 AB 0F 03 0E 0F")))
        #expect(BLECodec.chunks(stuffed).count == 1)
    }

    // spec §3.1 lists the coded "Hello world" frame as two writes of 20 + 12 bytes: the 29-byte frame gains 1 escape
    // and the 2-byte end marker, 32 bytes (the first version of the reference miscounted them as "34, 20 + 14").
    @Test func helloWorldChunks() throws {
        let chunks = BLECodec.chunks(BLECodec.stuff(workedFrames[6].bytes))
        #expect(
            chunks == [
                try Hex.decode("02 0C 14 01 50 40 02 0C 05 01 0C 0E FC 48 65 6C 6C 6F 20 77"),
                try Hex.decode("6F 72 6C 64 0C FF 0C 3A C9 03 0E 0F"),
            ])
    }

    @Test func responseNotification() throws {
        let stuffed = BLECodec.stuff(workedFrames[7].bytes)
        #expect(stuffed == (try Hex.decode("02 0C 02 01 50 40 0C 0C 49 87 03 0E 0F")))
        #expect(try BLECodec.unstuff(stuffed) == workedFrames[7].bytes)
    }

    @Test func everyByteValueRoundTrips() throws {
        let all = (0...255).map { UInt8($0) }
        let stuffed = BLECodec.stuff(all)
        #expect(try BLECodec.unstuff(stuffed) == all)
        // No end-of-message pair inside the stuffed data.
        let body = stuffed.dropLast(2)
        #expect(!zip(body, body.dropFirst()).contains { $0 == 0x0E && ($1 == 0x0E || $1 == 0x0F) })
    }

    @Test func reassemblerAcrossNotifications() throws {
        var r = BLEReassembler()
        let frames = [workedFrames[6].bytes, workedFrames[7].bytes]
        let stream = frames.flatMap { BLECodec.stuff($0) }
        var out: [[UInt8]] = []
        for chunk in BLECodec.chunks(stream, chunkSize: 20) { out += try r.append(chunk) }
        #expect(out == frames)
        // One byte at a time too.
        out = []
        for b in stream { out += try r.append([b]) }
        #expect(out == frames)
        #expect(r.bufferedCount == 0)
    }

    @Test func reassemblerIsBounded() {
        var r = BLEReassembler()
        #expect(throws: BLEError(.oversize, "")) {
            for _ in 0..<1000 { _ = try r.append([UInt8](repeating: 0x41, count: 20)) }
        }
        #expect(r.bufferedCount == 0)
    }

    @Test func danglingEscape() {
        #expect(throws: BLEError(.danglingEscape, "")) { try BLECodec.unstuff([0x41, 0x0E]) }
    }
}
