import UCubeProtocol

/// The card's own cryptogram, not the terminal's status, decides an approval (docs/protocol.md §8.3). A terminal or
/// firmware fault, or an attacker on the link, can turn a status into "approved"; it cannot make the card produce a
/// TC. So an approval stands only when the answer that carries it also carries the card's cryptogram of the right
/// kind: an AAC declines whatever the status says, and a missing or impossible cryptogram is an error.
enum CryptogramRule {
    /// What an approval claimed by the terminal is worth.
    enum Verdict: Equatable {
        /// The card's cryptogram backs the approval.
        case approve
        /// The card declined (AAC), or the issuer did: DECLINED, whatever the terminal's status.
        case decline(String)
        /// No 9F27 or no 9F26 where the approval needs them: ERROR_MISSING_REQUIRED_CRYPTOGRAM.
        case missing(String)
        /// A 9F27 or 9F26 that cannot back this approval: ERROR_WRONG_CRYPTOGRAM_VALUE.
        case wrong(String)
    }

    /// 9F26 is the 8-byte application cryptogram (EMV Book 3, Annex A).
    static let cryptogramLength = 8

    /// Judges an approval from the card's cryptogram information data (9F27) and application cryptogram (9F26) of
    /// the answer that claims it, accepting the cryptogram types in `accepted`.
    ///
    /// > 9F27 bits 8–7: 00 AAC, 01 TC, 10 ARQC, 11 RFU (EMV Book 3, Table 14).
    static func judge(cid: [UInt8]?, cryptogram: [UInt8]?, accepting accepted: Set<CryptogramType>) -> Verdict {
        guard let cid else { return .missing("no cryptogram information data (9F27)") }
        guard cid.count == 1, let type = CryptogramType(cid: cid[0]) else {
            return .wrong("9F27 = \(cid.hex) is not AAC, TC or ARQC")
        }
        if type == .aac { return .decline("the card declined: 9F27 = \(cid.hex) (AAC)") }
        guard let cryptogram, !cryptogram.isEmpty else {
            return .missing(
                "9F27 = \(cid.hex) (\(type.name.uppercased())) came without its application cryptogram (9F26)")
        }
        guard cryptogram.count == cryptogramLength else {
            return .wrong("9F26 is \(cryptogram.count) bytes, not \(cryptogramLength)")
        }
        guard accepted.contains(type) else {
            return .wrong("9F27 = \(cid.hex) (\(type.name.uppercased())) cannot approve here")
        }
        return .approve
    }
}
