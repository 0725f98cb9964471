// libFuzzer entry point for the parsers that read bytes from a terminal: the frame decoder (and both frame
// layouts), the BLE de-stuffer and reassembler, and the BER-TLV parser (both rule sets). Built by Scripts/fuzz.sh
// with `swiftc -sanitize=fuzzer,address` together with the UCubeProtocol sources. A crash, a hang (libFuzzer's
// -timeout) or an allocation over -rss_limit_mb is a finding; a thrown error is the expected outcome for bad bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func ucubeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // Frames, whole and split in two at a position taken from the input.
    var decoder = FrameDecoder()
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for part in [bytes[..<cut], bytes[cut...]] {
        decoder.append(part)
        var steps = 0
        while steps < 100_000 {
            steps += 1
            do {
                guard let frame = try decoder.next() else { break }
                _ = try? ResponseFrame(raw: frame, secured: true)
                _ = try? ResponseFrame(raw: frame, secured: false)
                _ = try? CommandFrame(raw: frame, secured: true)
                if let response = try? ResponseFrame(raw: frame, secured: false) {
                    _ = try? CommandRegistry.decodeResponse(id: frame.command, status: response.status, data: response.data)
                }
                _ = CommandRegistry.describeRequest(id: frame.command, payload: frame.body)
            } catch {
                continue
            }
        }
        precondition(steps < 100_000, "the frame decoder made no progress")
    }

    // BLE layer.
    _ = try? BLECodec.unstuff(bytes)
    var reassembler = BLEReassembler()
    for chunk in BLECodec.chunks(bytes.isEmpty ? [0] : bytes, chunkSize: 20) { _ = try? reassembler.append(chunk) }
    precondition(reassembler.bufferedCount <= BLEReassembler.maxMessageSize)

    // TLV, strict and lenient, and the formatter over whatever parsed.
    for rules in [TLVRules.strict, .terminal] {
        if let nodes = try? TLVParser.parse(bytes, rules: rules) {
            _ = TagValueFormatter.describe(nodes, context: .payment, indent: 0)
            _ = TagValueFormatter.describe(nodes, context: .getInfo, indent: 0)
        }
    }
    return 0
}
