/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so every "random" value the simulator produces
/// (crypto headers, ATR bytes, cryptograms, unpredictable numbers, PIN fill) replays identically for a seed.
///
/// Not for security (public for the tests that replay "random" choices): the simulator is a test peer and its keys are the public X9.24 test keys anyway.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes drawn in order.
    package mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}
