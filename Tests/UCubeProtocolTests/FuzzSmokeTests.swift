import Testing

@testable import UCubeProtocol

/// A seeded mutator over the frame decoder, the BLE de-stuffer and the TLV parser: at least 100,000 inputs, each
/// must end in a value or a typed error — no crash, no hang, and buffers stay bounded. The full fuzzers
/// (libFuzzer) live in Fuzz/; see the README.
@Suite struct FuzzSmokeTests {
    /// SplitMix64 (Steele, Lea, Flood 2014): a fixed seed gives the same inputs on every run.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [[UInt8]] =
        workedFrames.map(\.bytes) + [
            try! Hex.decode("E8 8C D1 04 01 02 03 04"), try! Hex.decode("77 0A 9F 27 01 80 5F 20 03 41 42 43"),
            BLECodec.stuff(workedFrames[6].bytes),
        ]

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var out = input
        let steps = Int.random(in: 1...4, using: &rng)
        for _ in 0..<steps {
            switch Int.random(in: 0..<7, using: &rng) {
            case 0 where !out.isEmpty:
                out[Int.random(in: 0..<out.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            case 1 where !out.isEmpty:
                out[Int.random(in: 0..<out.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            case 2: out.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...out.count, using: &rng))
            case 3 where !out.isEmpty: out.remove(at: Int.random(in: 0..<out.count, using: &rng))
            case 4 where !out.isEmpty: out = Array(out[..<Int.random(in: 0..<out.count, using: &rng)])
            case 5: out += seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            default:
                out.insert(
                    contentsOf: [0x02, 0x08, 0x0B, 0x81, 0x82, 0xFF, 0x0E, 0x0F].shuffled(using: &rng).prefix(2),
                    at: Int.random(in: 0...out.count, using: &rng))
            }
        }
        return out
    }

    @Test func hundredThousandMutatedInputs() async throws {
        var rng = SplitMix64(state: 0x0C0B_E5EE_D000_0001)
        var frames = 0, frameErrors = 0, tlvOK = 0, tlvErrors = 0, bleFrames = 0
        var streamDecoder = FrameDecoder()
        var reassembler = BLEReassembler()
        for i in 0..<100_000 {
            // Give the (2-thread) cooperative pool back now and then, so this CPU-bound loop does not starve the
            // tests that run beside it.
            if i % 500 == 0 { await Task.yield() }
            let input = Self.mutate(Self.seeds[i % Self.seeds.count], &rng)
            // Frame decoder, fresh and as one long stream.
            var decoder = FrameDecoder()
            decoder.append(input)
            streamDecoder.append(input)
            for d in [0, 1] {
                var guardCount = 0
                while true {
                    guardCount += 1
                    #expect(guardCount < 10_000, "decoder must make progress")
                    do {
                        let next = d == 0 ? try decoder.next() : try streamDecoder.next()
                        guard let frame = next else { break }
                        frames += 1
                        _ = try? ResponseFrame(raw: frame, secured: i % 2 == 0)
                        _ = try? CommandFrame(raw: frame, secured: i % 3 == 0)
                    } catch {
                        frameErrors += 1
                    }
                }
            }
            #expect(streamDecoder.bufferedCount <= FrameLimits.maxFrameSize + input.count)
            // TLV parser under both rule sets.
            for rules in [TLVRules.strict, .terminal] {
                do {
                    _ = try TLVParser.parse(input, rules: rules)
                    tlvOK += 1
                } catch {
                    tlvErrors += 1
                }
            }
            // BLE de-stuffer and reassembler.
            _ = try? BLECodec.unstuff(input)
            if let done = try? reassembler.append(input) { bleFrames += done.count }
            #expect(reassembler.bufferedCount <= BLEReassembler.maxMessageSize)
        }
        // The mutator reaches both outcomes of every parser (so the smoke is not vacuous).
        #expect(frames > 0 && frameErrors > 0)
        #expect(tlvOK > 0 && tlvErrors > 0)
        #expect(bleFrames > 0)
    }
}
