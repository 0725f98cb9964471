import UCubeProtocol

/// What a payment learned about its terminal and may hand to the next one (spec §8.6, PROJECT CHOICE): the terminal's
/// identity, its SRED KSN with the transaction counter cleared, and its GetInfo answer (D1 firmware, ED NFC module
/// state), from which the readers are chosen. The next payment skips GetInfo only when the link was closed cleanly
/// and EnterSecureSession answers a KSN of the same identity.
package struct KnownTerminal: Sendable, Hashable {
    /// The SRED KSN, `identityLength` bytes, with its counter bits zeroed.
    package let identity: [UInt8]
    /// The DATA of the GetInfo answer (TLVs).
    package let info: [UInt8]

    /// A TDES DUKPT KSN (ANSI X9.24-1: 59 bits of key set and device identifier, 21 bits of transaction counter).
    package static let identityLength = 10
    /// The bits of the KSN's last three bytes that hold the counter (21 bits: 5 of byte 7, all of bytes 8 and 9).
    static let counterMask: [UInt8] = [0x1F, 0xFF, 0xFF]
    /// GetInfo answers ucube keeps are short (D1 and ED: about 10 bytes); anything longer is not kept.
    package static let maximumInfoLength = 64

    /// The terminal whose EnterSecureSession answered `ksn` and whose GetInfo answered `info`; nil when either does
    /// not fit (a KSN that is not 10 bytes, an answer too long to keep).
    package init?(ksn: [UInt8], info: [UInt8]) {
        guard let identity = Self.identity(ofKSN: ksn), info.count <= Self.maximumInfoLength else { return nil }
        self.identity = identity
        self.info = info
    }

    /// The KSN without its transaction counter: the same for every payment on one terminal key.
    package static func identity(ofKSN ksn: [UInt8]) -> [UInt8]? {
        guard ksn.count == identityLength else { return nil }
        var identity = ksn
        for (offset, mask) in counterMask.enumerated() { identity[identityLength - 3 + offset] &= ~mask }
        return identity
    }

    /// Whether `ksn` belongs to this terminal.
    package func matches(ksn: [UInt8]) -> Bool { Self.identity(ofKSN: ksn) == identity }

    /// One hex word: the identity, then the GetInfo answer (the link session file, recordings).
    package var hex: String { Hex.encode(identity + info) }

    package init?(hex: Substring) {
        guard hex.utf8.count <= 2 * (Self.identityLength + Self.maximumInfoLength),
            let bytes = try? Hex.decode(String(hex)), bytes.count >= Self.identityLength,
            Self.identity(ofKSN: Array(bytes.prefix(Self.identityLength))) == Array(bytes.prefix(Self.identityLength))
        else { return nil }
        identity = Array(bytes.prefix(Self.identityLength))
        info = Array(bytes.dropFirst(Self.identityLength))
    }
}
