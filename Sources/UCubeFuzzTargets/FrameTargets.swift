import UCubeProtocol

/// The parsers under every byte from a terminal: frames whole and split in two at a position taken from the input,
/// the BLE layer, and BER-TLV under both rule sets with its formatter.
enum FrameTargets {
    static func run(_ bytes: [UInt8]) {
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
                        _ = try? CommandRegistry.decodeResponse(
                            id: frame.command, status: response.status, data: response.data)
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

        // TLV, strict and lenient, and the formatter (with the explanations of EMV fields) over whatever parsed.
        for rules in [TLVRules.strict, .terminal] {
            if let nodes = try? TLVParser.parse(bytes, rules: rules) {
                _ = TagValueFormatter.describe(nodes, context: .payment, indent: 0, explain: true)
                _ = TagValueFormatter.describe(nodes, context: .getInfo, indent: 0)
            }
        }
    }
}
