/// ANSI X9.24-1:2009 TDES DUKPT (double-length keys), host side and terminal side.
///
/// * `ipek(bdk:ksn:)` — initial PIN encryption key: left half = TDES-E(BDK, KSN₈), right half =
///   TDES-E(BDK ⊕ C0C0C0C000000000C0C0C0C000000000, KSN₈), where KSN₈ is the leftmost 8 bytes of the KSN with the
///   21 counter bits cleared.
/// * `currentKey(ipek:ksn:)` — the key for the KSN's counter: starting from the IPEK, for every set counter bit from
///   the most significant (bit 20) down, set that bit in the shift register and apply the non-reversible key
///   generation process. (A real terminal caches intermediate results in 21 future-key registers; computing directly
///   from the IPEK gives the same keys.)
/// * `sessionKey(…variant:)` — the current key XORed with the variant mask (spec §12.3, both 8-byte halves); for the
///   two data variants the result is then encrypted under itself (each half TDES-ECB under the variant key), as
///   spec §12.3 prescribes for the data encryption keys.
///
/// An instance holds a BDK for host-side use; its `description` and mirror never reveal the key.
package struct DUKPT: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Key variants (masks in `CryptoChoices.variantMasks`, spec §12.3).
    package enum KeyVariant: Sendable, Hashable, CaseIterable {
        case pin, macRequest, macResponse, dataRequest, dataResponse

        /// The 8-byte mask XORed into both halves of the current key.
        package var mask: [UInt8] {
            switch self {
            case .pin: CryptoChoices.pinVariantMask
            case .macRequest: CryptoChoices.macRequestVariantMask
            case .macResponse: CryptoChoices.macResponseVariantMask
            case .dataRequest: CryptoChoices.dataRequestVariantMask
            case .dataResponse: CryptoChoices.dataResponseVariantMask
            }
        }

        /// True for the data variants, whose session key is the variant key encrypted under itself.
        package var encryptsUnderItself: Bool {
            self == .dataRequest || self == .dataResponse
        }
    }

    /// Length of BDK, IPEK and every derived key.
    package static let keyLength = 16

    private let bdk: [UInt8]

    /// Host-side DUKPT with a base derivation key (16 bytes).
    package init(bdk: [UInt8]) throws {
        try DUKPT.checkKey(bdk, "BDK")
        self.bdk = bdk
    }

    package func ipek(ksn: KSN) throws -> [UInt8] { try DUKPT.ipek(bdk: bdk, ksn: ksn.bytes) }
    package func currentKey(ksn: KSN) throws -> [UInt8] { try DUKPT.currentKey(bdk: bdk, ksn: ksn.bytes) }
    package func sessionKey(ksn: KSN, variant: KeyVariant) throws -> [UInt8] {
        try DUKPT.sessionKey(bdk: bdk, ksn: ksn.bytes, variant: variant)
    }

    package var description: String { "DUKPT(bdk: <redacted>)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["bdk": "<redacted>"]) }

    // MARK: - Static API

    /// Initial PIN encryption key (16 bytes) for `ksn` (10 bytes; its counter bits are ignored).
    package static func ipek(bdk: [UInt8], ksn: [UInt8]) throws -> [UInt8] {
        try checkKey(bdk, "BDK")
        let k = try KSN(bytes: ksn)
        var reg = Array(k.bytes[0..<8])
        reg[7] &= 0xE0
        let left = try TDES.encryptECB(key: bdk, data: reg)
        let right = try TDES.encryptECB(key: Bytes.xor(bdk, keyMask), data: reg)
        return left + right
    }

    package static func ipek(bdk: [UInt8], ksn: KSN) throws -> [UInt8] { try ipek(bdk: bdk, ksn: ksn.bytes) }

    /// Current (un-varianted) transaction key for `ksn`, derived from the IPEK.
    package static func currentKey(ipek: [UInt8], ksn: [UInt8]) throws -> [UInt8] {
        try checkKey(ipek, "IPEK")
        let k = try KSN(bytes: ksn)
        let counter = k.counter
        // Rightmost 64 bits of the KSN with the counter cleared.
        var register: UInt64 = 0
        for b in k.bytes[2..<10] { register = register << 8 | UInt64(b) }
        register &= ~UInt64(KSN.counterMask)

        var key = ipek
        var bit: UInt32 = 1 << 20
        while bit != 0 {
            if counter & bit != 0 {
                register |= UInt64(bit)
                key = try nonReversibleKeyGeneration(key: key, register: register)
            }
            bit >>= 1
        }
        return key
    }

    package static func currentKey(ipek: [UInt8], ksn: KSN) throws -> [UInt8] {
        try currentKey(ipek: ipek, ksn: ksn.bytes)
    }

    /// Current transaction key for `ksn`, derived from the BDK (host side).
    package static func currentKey(bdk: [UInt8], ksn: [UInt8]) throws -> [UInt8] {
        try currentKey(ipek: ipek(bdk: bdk, ksn: ksn), ksn: ksn)
    }

    package static func currentKey(bdk: [UInt8], ksn: KSN) throws -> [UInt8] {
        try currentKey(bdk: bdk, ksn: ksn.bytes)
    }

    /// `key` with the variant mask XORed into both halves (no self-encryption).
    package static func variantKey(_ key: [UInt8], variant: KeyVariant) throws -> [UInt8] {
        try checkKey(key, "key")
        return Bytes.xor(key, variant.mask + variant.mask)
    }

    /// Working key for `variant` from a current transaction key: the variant key, encrypted under itself for the data
    /// variants.
    package static func sessionKey(currentKey: [UInt8], variant: KeyVariant) throws -> [UInt8] {
        let v = try variantKey(currentKey, variant: variant)
        guard variant.encryptsUnderItself else { return v }
        let left = try TDES.encryptECB(key: v, data: Array(v[0..<8]))
        let right = try TDES.encryptECB(key: v, data: Array(v[8..<16]))
        return left + right
    }

    /// Working key for `variant` at `ksn`, host side.
    package static func sessionKey(bdk: [UInt8], ksn: [UInt8], variant: KeyVariant) throws -> [UInt8] {
        try sessionKey(currentKey: currentKey(bdk: bdk, ksn: ksn), variant: variant)
    }

    package static func sessionKey(bdk: [UInt8], ksn: KSN, variant: KeyVariant) throws -> [UInt8] {
        try sessionKey(bdk: bdk, ksn: ksn.bytes, variant: variant)
    }

    /// Working key for `variant` at `ksn`, terminal side (from the IPEK).
    package static func sessionKey(ipek: [UInt8], ksn: [UInt8], variant: KeyVariant) throws -> [UInt8] {
        try sessionKey(currentKey: currentKey(ipek: ipek, ksn: ksn), variant: variant)
    }

    package static func sessionKey(ipek: [UInt8], ksn: KSN, variant: KeyVariant) throws -> [UInt8] {
        try sessionKey(ipek: ipek, ksn: ksn.bytes, variant: variant)
    }

    // MARK: - Internal

    /// C0C0C0C000000000C0C0C0C000000000 (X9.24-1 key mask for the IPEK right half and the NRKGP).
    static let keyMask: [UInt8] = [0xC0, 0xC0, 0xC0, 0xC0, 0, 0, 0, 0, 0xC0, 0xC0, 0xC0, 0xC0, 0, 0, 0, 0]

    /// X9.24-1 non-reversible key generation process on a 16-byte key with the 64-bit crypto register.
    static func nonReversibleKeyGeneration(key: [UInt8], register: UInt64) throws -> [UInt8] {
        var reg = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { reg[i] = UInt8(truncatingIfNeeded: register >> (56 - 8 * UInt64(i))) }
        func half(_ k: [UInt8]) throws -> [UInt8] {
            let kl = Array(k[0..<8]), kr = Array(k[8..<16])
            // single DES under the left half (TDES.encryptECB expands an 8-byte key to K‖K)
            return Bytes.xor(try TDES.encryptECB(key: kl, data: Bytes.xor(reg, kr)), kr)
        }
        let newRight = try half(key)
        let newLeft = try half(Bytes.xor(key, keyMask))
        return newLeft + newRight
    }

    static func checkKey(_ key: [UInt8], _ what: String) throws {
        guard key.count == keyLength else {
            throw CryptoError(.invalidKeyLength, "\(what) must be \(keyLength) bytes, got \(key.count)")
        }
    }
}

/// Terminal-side DUKPT state for a simulated device: IPEK + initial KSN + current counter. Deterministic.
///
/// The counter starts at the initial KSN's counter (normally 0, which is never used for a transaction);
/// `advance()` moves to the next valid counter (see `KSN.next()`) and returns the new KSN, whose keys
/// `currentKey()` / `sessionKey(_:)` then give. `description` and the mirror never reveal the IPEK.
package struct DUKPTTerminal: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let ipek: [UInt8]
    /// The KSN the IPEK was loaded with.
    package let initialKSN: KSN
    /// The KSN of the current transaction key.
    package private(set) var currentKSN: KSN

    /// Terminal loaded with an IPEK (16 bytes) and its initial KSN.
    package init(ipek: [UInt8], initialKSN: KSN) throws {
        try DUKPT.checkKey(ipek, "IPEK")
        self.ipek = ipek
        self.initialKSN = initialKSN
        self.currentKSN = initialKSN
    }

    /// Terminal whose IPEK is derived from `bdk` (test/simulator convenience; a real terminal never sees the BDK).
    package init(bdk: [UInt8], initialKSN: KSN) throws {
        try self.init(ipek: DUKPT.ipek(bdk: bdk, ksn: initialKSN.bytes), initialKSN: initialKSN)
    }

    /// The current transaction counter.
    package var counter: UInt32 { currentKSN.counter }

    /// Moves to the next valid counter value and returns the new KSN. Throws `.counterExhausted` after 0x1FF800
    /// (the state is then unchanged).
    @discardableResult
    package mutating func advance() throws -> KSN {
        currentKSN = try currentKSN.next()
        return currentKSN
    }

    /// Current transaction key (un-varianted).
    package func currentKey() throws -> [UInt8] { try DUKPT.currentKey(ipek: ipek, ksn: currentKSN.bytes) }

    /// Working key for `variant` at the current KSN (same result as the host's `DUKPT.sessionKey(bdk:ksn:variant:)`).
    package func sessionKey(_ variant: DUKPT.KeyVariant) throws -> [UInt8] {
        try DUKPT.sessionKey(ipek: ipek, ksn: currentKSN.bytes, variant: variant)
    }

    package var description: String { "DUKPTTerminal(ipek: <redacted>, ksn: \(currentKSN))" }
    package var debugDescription: String { description }
    package var customMirror: Mirror {
        Mirror(self, children: ["ipek": "<redacted>", "initialKSN": initialKSN, "currentKSN": currentKSN])
    }
}
