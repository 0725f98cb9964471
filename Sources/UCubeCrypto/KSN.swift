/// A 10-byte (80-bit) ANSI X9.24-1:2009 TDES DUKPT key serial number.
///
/// Layout: the leftmost 59 bits identify the initially loaded key (key set id, device id), the rightmost 21 bits
/// are the transaction counter. A KSN is not secret, so `description` prints it in uppercase hex.
///
/// Counter rule (X9.24-1 terminal side): a terminal only ever uses counter values with **at most 10 one-bits**
/// (so at most 10 non-reversible key-generation steps separate any key from the IPEK). When the counter has 10 one-bits
/// the terminal adds the value of its lowest set bit instead of 1, which skips every intermediate value with more than
/// 10 one-bits. `next()` implements exactly that rule, which is the same as "the smallest greater counter value with at
/// most 10 one-bits". The last usable counter is 0x1FF800; advancing beyond it throws `.counterExhausted`.
package struct KSN: Hashable, Sendable, CustomStringConvertible {
    /// KSN length in bytes.
    package static let byteCount = 10
    /// Number of counter bits (rightmost bits of the KSN).
    package static let counterBits = 21
    /// Mask of the counter bits.
    package static let counterMask: UInt32 = 0x1F_FFFF
    /// Maximum number of one-bits a terminal-side counter value may have (X9.24-1).
    package static let maxCounterOnes = 10

    /// The 10 KSN bytes.
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) throws {
        guard bytes.count == KSN.byteCount else {
            throw CryptoError(.invalidKSN, "KSN must be \(KSN.byteCount) bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses 20 hex digits (spaces allowed).
    package init(hex: String) throws {
        let b: [UInt8]
        do { b = try CryptoHex.decode(hex) } catch { throw CryptoError(.invalidKSN, "KSN is not valid hex") }
        try self.init(bytes: b)
    }

    /// The 21-bit transaction counter.
    package var counter: UInt32 {
        (UInt32(bytes[7]) << 16 | UInt32(bytes[8]) << 8 | UInt32(bytes[9])) & KSN.counterMask
    }

    /// The same KSN with the counter bits cleared (the value the IPEK is derived from).
    package var initial: KSN { KSN(unchecked: withCounterBits(0)) }

    /// The same key-set / device part with a different counter. Throws `.invalidKSN` if `counter` needs more than
    /// 21 bits. (Any 21-bit value is accepted here; use `isTerminalCounter(_:)` to check the ≤10 one-bits rule.)
    package func withCounter(_ counter: UInt32) throws -> KSN {
        guard counter <= KSN.counterMask else {
            throw CryptoError(.invalidKSN, "DUKPT counter 0x\(String(counter, radix: 16)) does not fit in 21 bits")
        }
        return KSN(unchecked: withCounterBits(counter))
    }

    /// The KSN with the next counter value a terminal may use (see the type documentation).
    /// Throws `.counterExhausted` past 0x1FF800.
    package func next() throws -> KSN {
        guard let n = KSN.nextCounter(after: counter) else {
            throw CryptoError(.counterExhausted, "DUKPT counter cannot advance past 0x\(String(counter, radix: 16))")
        }
        return KSN(unchecked: withCounterBits(n))
    }

    /// True when `counter` fits in 21 bits and has at most 10 one-bits.
    package static func isTerminalCounter(_ counter: UInt32) -> Bool {
        counter <= counterMask && counter.nonzeroBitCount <= maxCounterOnes
    }

    /// The smallest counter value greater than `counter` with at most 10 one-bits, or nil when none fits in 21 bits.
    ///
    /// X9.24-1 formulation: if the counter has fewer than 10 one-bits add 1, otherwise add its lowest set bit
    /// (for a counter that already has more than 10 one-bits, the lowest set bit is added repeatedly until the rule
    /// holds, which is again the smallest valid successor).
    package static func nextCounter(after counter: UInt32) -> UInt32? {
        var c = counter & counterMask
        if c.nonzeroBitCount < maxCounterOnes {
            c += 1
        } else {
            c += c & (~c &+ 1)
            while c.nonzeroBitCount > maxCounterOnes { c += c & (~c &+ 1) }
        }
        return c <= counterMask ? c : nil
    }

    package var description: String { CryptoHex.encode(bytes) }

    // MARK: - Internal

    init(unchecked bytes: [UInt8]) {
        precondition(bytes.count == KSN.byteCount)
        self.bytes = bytes
    }

    private func withCounterBits(_ counter: UInt32) -> [UInt8] {
        var b = bytes
        b[7] = (b[7] & 0xE0) | UInt8((counter >> 16) & 0x1F)
        b[8] = UInt8((counter >> 8) & 0xFF)
        b[9] = UInt8(counter & 0xFF)
        return b
    }
}
