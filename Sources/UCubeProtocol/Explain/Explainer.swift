/// Explains EMV data objects bit by bit and field by field, as emv-decode (openemv/emv-utils) does: which table
/// reads which tag, and the explanations of codes (amounts with their currency, dates, country, currency and language
/// codes, the uCube's NFC outcome). uCube statuses are explained by `StatusTable` (spec §6). Pure: a value and its
/// neighbours in, lines out.
package enum Explainer {
    /// The tags explained in the payment context, for documentation and tests.
    package static let explainedTags: [Tag] =
        ([
            0x95, 0x9B, 0x8E, 0x9F34, 0x82, 0x9F07, 0x9F27, 0x9F33, 0x9F40, 0x9F35, 0x9F66, 0x9F6C, 0x9F10, 0x9F1D,
            0xDF72, 0x9F02, 0x9F03, 0x81, 0x9F3A, 0x9A, 0x5F25, 0x9F1A, 0x5F28, 0x5F55, 0x5F56, 0x5F2A, 0x9F42, 0x9F3C,
            0x5F2D, 0xDF2D,
        ] as [UInt32]).map { Tag($0) }

    /// The explanation of one data object, or nil when its tag is not explained (or is cardholder data, which is
    /// never explained). `siblings` are the other objects of the same message: an amount is read with the currency
    /// that travels with it (5F2A, 9F3C), a CVM list with the application currency (9F42).
    package static func explain(_ tlv: TLV, context: TagContext, siblings: [TLV] = []) -> Explanation? {
        guard context == .payment else { return nil }
        if let info = TagDictionary.info(for: tlv.tag, context: context), info.isSensitive { return nil }
        let v = tlv.value
        func currency(_ tag: UInt32) -> Currency? {
            siblings.first(Tag(tag)).flatMap { Currency.lookup(bcd: $0.value) }
        }
        switch tlv.tag.rawValue {
        case 0x95: return EMVBitTables.tvr.explain(v)
        case 0x9B: return EMVBitTables.tsi.explain(v)
        case 0x82: return EMVBitTables.aip.explain(v)
        case 0x9F07: return EMVBitTables.auc.explain(v)
        case 0x9F27: return EMVBitTables.cid.explain(v)
        case 0x9F33: return EMVBitTables.terminalCapabilities.explain(v)
        case 0x9F40: return EMVBitTables.additionalTerminalCapabilities.explain(v)
        case 0x9F66: return EMVBitTables.ttq.explain(v)
        case 0x9F6C: return EMVBitTables.ctq.explain(v)
        case 0x9F1D: return EMVBitTables.terminalRiskManagementData.explain(v)
        case 0x8E: return CVMTables.cvmList(v, currency: currency(0x9F42))
        case 0x9F34: return CVMTables.cvmResults(v)
        case 0x9F35: return CVMTables.terminalType(v)
        case 0x9F10: return IssuerApplicationData.explain(v)
        case 0xDF72: return nfcOutcome(v)
        case 0x9F02, 0x9F03: return amount(bcd: v, currency: currency(0x5F2A), currencyTag: "5F2A")
        case 0x81: return amount(binary: v, currency: currency(0x5F2A), currencyTag: "5F2A")
        case 0x9F3A: return amount(binary: v, currency: currency(0x9F3C), currencyTag: "9F3C")
        case 0x9A, 0x5F25: return date(v)
        case 0x9F1A, 0x5F28: return country(numeric: v)
        case 0x5F55, 0x5F56: return country(alpha: v)
        case 0x5F2A, 0x9F42, 0x9F3C: return currencyCode(v)
        case 0x5F2D, 0xDF2D: return languages(v)
        default: return nil
        }
    }

    /// Every explained object of a TLV tree (templates walked), with its explanation, for `--json`. `siblings`:
    /// the objects amounts and CVM lists look for their currency among (default: every leaf of `nodes`).
    package static func fields(_ nodes: [TLV], context: TagContext, siblings: [TLV]? = nil) -> [ExplainedField] {
        let all = siblings ?? flatten(nodes)
        var out: [ExplainedField] = []
        func walk(_ nodes: [TLV], _ context: TagContext) {
            for node in nodes {
                let info = TagDictionary.info(for: node.tag, context: context)
                if let children = node.children, info?.format == .template || info == nil {
                    walk(children, TagDictionary.context(inside: node.tag, of: context))
                } else if let e = explain(node, context: context, siblings: all) {
                    out.append(ExplainedField(node, e, context: context))
                }
            }
        }
        walk(nodes, context)
        return out
    }

    /// The leaves of a TLV tree, in order.
    package static func flatten(_ nodes: [TLV]) -> [TLV] {
        nodes.flatMap { node in node.children.map(flatten) ?? [node] }
    }

    // MARK: Codes

    /// DF72, the uCube's NFC outcome (spec §7.5), by `NFCOutcome`'s names.
    static func nfcOutcome(_ v: [UInt8]) -> Explanation {
        guard v.count == 2 else {
            return Explanation(source: "spec §7.5", lines: ["\(v.count) bytes: the NFC outcome has 2; not explained"])
        }
        let outcome = NFCOutcome(cvmByte: v[0], resultByte: v[1])
        return Explanation(
            source: "spec §7.5",
            lines: [
                "byte 1 \(Hex.encode([v[0]])): CVM / receipt: \(outcome.cvm?.name ?? "unknown")",
                "byte 2 \(Hex.encode([v[1]])): result: \(outcome.result?.name ?? "unknown")",
            ])
    }

    static let amountSource = "EMV 4.4 Book 3 Annex A; ISO 4217 (\(ISO4217Table.source))"

    static func amount(bcd v: [UInt8], currency: Currency?, currencyTag: String) -> Explanation {
        guard let minor = try? Currency.minorUnits(fromBCD: v) else {
            return Explanation(source: amountSource, lines: ["not an n 12 amount (6 bytes of BCD digits)"])
        }
        return amount(minor, currency: currency, currencyTag: currencyTag)
    }

    static func amount(binary v: [UInt8], currency: Currency?, currencyTag: String) -> Explanation {
        guard v.count == 4 else {
            return Explanation(source: amountSource, lines: ["\(v.count) bytes: a binary amount has 4; not explained"])
        }
        return amount(v.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, currency: currency, currencyTag: currencyTag)
    }

    static func amount(_ minor: UInt64, currency: Currency?, currencyTag: String) -> Explanation {
        guard let currency else {
            return Explanation(
                source: amountSource,
                lines: ["\(minor) minor units; no currency (\(currencyTag)) alongside, so the decimals are unknown"])
        }
        let decimals = "\(currency.exponent) decimal\(currency.exponent == 1 ? "" : "s")"
        return Explanation(
            source: amountSource,
            lines: ["\(currency.format(minorUnits: minor)) (\(currency.name); \(minor) minor units, \(decimals))"])
    }

    static let dateSource = "EMV 4.4 Book 3 Annex A (n 6, YYMMDD; years 00-49 are 20xx, 50-99 19xx)"

    static func date(_ v: [UInt8]) -> Explanation {
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        guard v.count == 3, let digits = BCD.decode(v) else {
            return Explanation(source: dateSource, lines: ["not a YYMMDD date (3 bytes of BCD digits)"])
        }
        let yy = Int(digits / 10000)
        let month = Int(digits / 100 % 100)
        let day = Int(digits % 100)
        let year = yy < 50 ? 2000 + yy : 1900 + yy
        guard (1...12).contains(month) else {
            return Explanation(source: dateSource, lines: ["month \(month) is not a month"])
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...length).contains(day) else {
            return Explanation(source: dateSource, lines: ["day \(day) is not a day of \(months[month - 1]) \(year)"])
        }
        return Explanation(source: dateSource, lines: ["\(day) \(months[month - 1]) \(year)"])
    }

    static let countrySource = "ISO 3166-1 (\(ISO3166Table.source))"

    static func country(numeric v: [UInt8]) -> Explanation {
        guard v.count == 2, let n = BCD.decode(v) else {
            return Explanation(source: countrySource, lines: ["not a 3-digit country code (2 bytes of BCD digits)"])
        }
        let code = String(repeating: "0", count: max(0, 3 - String(n).count)) + String(n)
        guard let entry = ISO3166Entry.lookup(numeric: UInt16(n)) else {
            return Explanation(source: countrySource, lines: ["\(code): not in ISO 3166-1"])
        }
        return Explanation(source: countrySource, lines: ["\(code): \(entry.name) (\(entry.alpha2), \(entry.alpha3))"])
    }

    static func country(alpha v: [UInt8]) -> Explanation {
        let text = String(decoding: v, as: UTF8.self)
        guard [2, 3].contains(v.count), v.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
            let entry = ISO3166Entry.lookup(alpha: text)
        else {
            return Explanation(source: countrySource, lines: ["\(Hex.encode(v)): not an ISO 3166-1 alpha code"])
        }
        return Explanation(source: countrySource, lines: ["\(text): \(entry.name) (numeric \(entry.numeric))"])
    }

    static let currencySource = "ISO 4217 (\(ISO4217Table.source))"

    static func currencyCode(_ v: [UInt8]) -> Explanation {
        guard let n = try? Currency.numericCode(fromBCD: v) else {
            return Explanation(source: currencySource, lines: ["not a 3-digit currency code (2 bytes of BCD digits)"])
        }
        let code = String(repeating: "0", count: max(0, 3 - String(n).count)) + String(n)
        guard let entry = ISO4217Entry.lookup(numeric: n) else {
            return Explanation(source: currencySource, lines: ["\(code): not in ISO 4217"])
        }
        let decimals = entry.minorUnits.map { "\($0) decimal\($0 == 1 ? "" : "s")" } ?? "no minor unit"
        return Explanation(source: currencySource, lines: ["\(code): \(entry.name) (\(entry.alpha)), \(decimals)"])
    }

    static let languageSource = "ISO 639-1 (\(ISO639Table.source))"

    /// 5F2D: 1 to 4 two-letter codes in order of preference (EMV 4.4 Book 3 Annex A); DF2D the same for the uCube.
    static func languages(_ v: [UInt8]) -> Explanation {
        guard !v.isEmpty, v.count % 2 == 0, v.allSatisfy({ (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) })
        else {
            return Explanation(source: languageSource, lines: ["not two-letter language codes"])
        }
        let codes = stride(from: 0, to: v.count, by: 2).map { String(decoding: v[$0..<($0 + 2)], as: UTF8.self) }
        return Explanation(
            source: languageSource,
            lines: codes.enumerated().map { index, code in
                "\(index + 1). \(code): \(Language.lookup(code)?.name ?? "not in ISO 639-1")"
            })
    }
}
