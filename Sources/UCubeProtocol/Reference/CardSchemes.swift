/// Payment schemes, named from an application identifier's RID or, with no AID (a swiped card), from the PAN's first
/// digits. For display only: nothing routes or decides on it.
package enum CardSchemes {
    /// Registered application provider identifiers (the first 5 bytes of an AID), as registered under ISO/IEC 7816-5
    /// (RIDs are assigned by the ISO/IEC 7816-5 registration authority and published by the schemes with their AIDs).
    package static let rids: [(rid: [UInt8], scheme: String)] = [
        ([0xA0, 0x00, 0x00, 0x00, 0x03], "Visa"),
        ([0xA0, 0x00, 0x00, 0x00, 0x04], "Mastercard"),
        ([0xA0, 0x00, 0x00, 0x00, 0x25], "American Express"),
        ([0xA0, 0x00, 0x00, 0x00, 0x42], "CB"),
        ([0xA0, 0x00, 0x00, 0x00, 0x65], "JCB"),
        ([0xA0, 0x00, 0x00, 0x01, 0x52], "Discover"),
        ([0xA0, 0x00, 0x00, 0x02, 0x77], "Interac"),
        ([0xA0, 0x00, 0x00, 0x03, 0x33], "UnionPay"),
        ([0xA0, 0x00, 0x00, 0x03, 0x59], "girocard"),
        ([0xA0, 0x00, 0x00, 0x05, 0x24], "RuPay"),
        ([0xA0, 0x00, 0x00, 0x06, 0x58], "Mir"),
    ]

    /// The scheme of an AID (its RID, the first 5 bytes), or nil when the RID is not in `rids`.
    package static func scheme(aid: [UInt8]) -> String? {
        guard aid.count >= 5 else { return nil }
        let rid = Array(aid.prefix(5))
        return rids.first { $0.rid == rid }?.scheme
    }

    /// The scheme from the leading digits of a PAN (its issuer identification number, ISO/IEC 7812-1; the ranges are
    /// the ones the schemes publish): 4 Visa, 51–55 and 2221–2720 Mastercard, 34 and 37 American Express, 6011 and 65
    /// Discover, 3528–3589 JCB, 62 UnionPay. `digits` may be masked after its first 6 characters.
    package static func scheme(panPrefix digits: String) -> String? {
        let leading = digits.prefix { $0.isASCII && $0.isNumber }
        guard leading.count >= 4, let four = Int(leading.prefix(4)) else { return nil }
        let two = four / 100
        switch four {
        case 4000...4999: return "Visa"
        case 5100...5599, 2221...2720: return "Mastercard"
        case 3400...3499, 3700...3799: return "American Express"
        case 6011, 6500...6599: return "Discover"
        case 3528...3589: return "JCB"
        default: return two == 62 ? "UnionPay" : nil
        }
    }
}
