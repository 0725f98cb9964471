/// Turns TLV values into readable text by the format the tag dictionary gives them; used by `ucube decode`,
/// traces and the log bundle. Sensitive values never come out in clear (docs/architecture.md "Nothing sensitive
/// leaks").
package enum TagValueFormatter {
    /// One value as text: "80 (ARQC)", "6.0.0.55", "476173******0010". Unknown tags are hex.
    package static func render(_ tlv: TLV, context: TagContext) -> String {
        guard let info = TagDictionary.info(for: tlv.tag, context: context) ?? strayCardData(tlv.tag, context: context)
        else {
            return Masking.redactPANs(in: Hex.encode(tlv.value))
        }
        return render(tlv.value, info: info)
    }

    /// A tag `context` does not define but the payment context defines as sensitive (a terminal answering a GetInfo
    /// with a 5A, 57 or 56): it is card data, shown masked as such, never as hex.
    package static func strayCardData(_ tag: Tag, context: TagContext) -> TagInfo? {
        guard context != .payment, TagDictionary.info(for: tag, context: context) == nil,
            let info = TagDictionary.info(for: tag, context: .payment), info.isSensitive
        else { return nil }
        return info
    }

    /// Whether `tlv`'s value may be shown as hex: not when it is sensitive where it stands or card data astray.
    package static func mayShowHex(_ tlv: TLV, context: TagContext) -> Bool {
        TagDictionary.info(for: tlv.tag, context: context)?.isSensitive != true
            && strayCardData(tlv.tag, context: context) == nil
    }

    /// An indented tree, one line per object: "9F27 cryptogramInformationData: 80 (ARQC)". Templates list their
    /// children below them, two spaces deeper per level. With `explain`, the objects `Explainer` explains have their
    /// explanation below them, one level deeper ("  byte 1 bits 8-7 = 10: cryptogram type: ARQC …").
    package static func describe(_ nodes: [TLV], context: TagContext, indent: Int = 0, explain: Bool = false)
        -> [String]
    {
        let siblings = explain ? Explainer.flatten(nodes) : nil
        return describe(nodes, context: context, indent: indent, currency: currency(in: nodes), siblings: siblings)
    }

    /// The currency an amount in `nodes` is counted in: the transaction currency code (5F2A) sent in the same
    /// message, at any depth, when ISO 4217 knows it (its exponent places the decimal point).
    static func currency(in nodes: [TLV]) -> Currency? {
        nodes.first(Tag(0x5F2A)).flatMap { Currency.lookup(bcd: $0.value) }
    }

    /// "amountAuthorised: 12.50 EUR": each amount (format n12, 9F02 and 9F03) of `nodes` with its currency and
    /// exponent, when the same message carries 5F2A; none otherwise. For a command whose fields are shown by name
    /// (`decode`), where the amount alone would read as minor units.
    package static func amountLines(_ nodes: [TLV], context: TagContext) -> [String] {
        guard let currency = currency(in: nodes) else { return [] }
        return Explainer.flatten(nodes).compactMap { node in
            guard let info = TagDictionary.info(for: node.tag, context: context), info.format == .amount,
                let minor = try? Currency.minorUnits(fromBCD: node.value)
            else { return nil }
            return "\(info.name): \(currency.format(minorUnits: minor))"
        }
    }

    /// `siblings`: every leaf of the message when explanations are shown, else nil.
    private static func describe(
        _ nodes: [TLV], context: TagContext, indent: Int, currency: Currency?, siblings: [TLV]?
    ) -> [String] {
        let pad = String(repeating: " ", count: indent * 2)
        var lines: [String] = []
        for node in nodes {
            let info = TagDictionary.info(for: node.tag, context: context)
            let label = info.map { "\(node.tag) \($0.name)" } ?? "\(node.tag) (unknown)"
            let isTemplate = info?.format == .template || (info == nil && node.children != nil)
            if isTemplate, let children = node.children {
                lines.append("\(pad)\(label):")
                let inner = TagDictionary.context(inside: node.tag, of: context)
                lines += describe(children, context: inner, indent: indent + 1, currency: currency, siblings: siblings)
                continue
            }
            var text = render(node, context: context)
            if let info, info.format == .amount, let currency, let minor = try? Currency.minorUnits(fromBCD: node.value)
            {
                text += " (\(currency.format(minorUnits: minor)))"
            }
            lines.append("\(pad)\(label): \(text)")
            if let siblings, let explanation = Explainer.explain(node, context: context, siblings: siblings) {
                lines += explanation.lines.map { "\(pad)  \($0)" }
            }
        }
        return lines
    }

    // MARK: By format

    static func render(_ value: [UInt8], info: TagInfo) -> String {
        if info.isSensitive {
            switch info.format {
            case .pan: return Masking.maskPAN(Masking.panDigits(from: value))
            case .track2: return Masking.maskTrack2(value)
            case .track1: return Masking.maskTrack1(value)
            default: return Masking.hidden(value.count)
            }
        }
        let text: String? =
            switch info.format {
            case .binary: nil
            case .numeric: bcdDigits(value)
            case .compressedNumeric: compressedDigits(value)
            case .alphanumeric, .text: printable(value)
            case .version: version(value)
            case .serialNumber: serialNumber(value)
            case .amount: amount(value)
            case .currencyCode: currencyCode(value)
            case .date: date(value)
            case .time: time(value)
            case .template: template(value, context: info.context)
            case .tagList: tagList(value, context: info.context)
            case .dol: dol(value, context: info.context)
            case .ksnFormats: ksnFormats(value)
            case .nfcOutcome: nfcOutcome(value)
            case .terminalState: value.count == 1 ? TerminalState(rawValue: value[0])?.description : nil
            case .percent: value.count == 1 ? "\(value[0])%" : nil
            case .seconds: unsigned(value).map { "\($0) s" }
            case .yesNo: yesNo(value)
            case .integer: unsigned(value).map { String($0) }
            case .partNumber: printable(value.filter { $0 != 0x20 })
            case .cryptogramInformation: cryptogramInformation(value)
            case .enumerated: enumerated(value, tag: info.tag, context: info.context)
            case .pan: Masking.maskPAN(Masking.panDigits(from: value))
            case .track1: Masking.maskTrack1(value)
            case .track2: Masking.maskTrack2(value)
            case .languages: languages(value)
            case .localeList: localeList(value)
            case .kslID: kslID(value)
            case .authorisationResponseCode: authorisationResponseCode(value)
            }
        // Whatever comes out as raw hex or text, a Luhn-valid digit run in it is masked all the same.
        return Masking.redactPANs(in: text ?? Hex.encode(value))
    }

    private static func nibbles(_ bytes: [UInt8]) -> [UInt8] { bytes.flatMap { [$0 >> 4, $0 & 0x0F] } }

    private static func digit(_ nibble: UInt8) -> Character { Character(Unicode.Scalar(UInt8(ascii: "0") + nibble)) }

    /// EMV "n": every nibble a digit.
    private static func bcdDigits(_ value: [UInt8]) -> String? {
        let all = nibbles(value)
        guard !all.isEmpty, all.allSatisfy({ $0 <= 9 }) else { return nil }
        return String(all.map(digit))
    }

    /// EMV "cn": digits, then only F padding.
    private static func compressedDigits(_ value: [UInt8]) -> String? {
        let all = nibbles(value)
        let digits = all.prefix { $0 <= 9 }
        guard !digits.isEmpty, all.dropFirst(digits.count).allSatisfy({ $0 == 0xF }) else { return nil }
        return String(digits.map(digit))
    }

    /// Printable ASCII, trailing NULs ignored.
    private static func printable(_ value: [UInt8]) -> String? {
        var bytes = value[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func unsigned(_ value: [UInt8]) -> UInt64? {
        guard (1...8).contains(value.count) else { return nil }
        return value.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Spec §4 "Versions": "a.b.c.d", bytes 128…255 positive; longer values use their first four (E8/A0).
    private static func version(_ value: [UInt8]) -> String? {
        guard value.count >= 4 else { return nil }
        return value.prefix(4).map { String($0) }.joined(separator: ".")
    }

    /// Spec §4 "Serial number": 5 bytes big-endian, divided by 4, decimal (not zero-padded).
    private static func serialNumber(_ value: [UInt8]) -> String? {
        guard value.count == 5, let n = unsigned(value) else { return nil }
        return String(n / 4)
    }

    /// Six BCD bytes in minor units ("1250"); the exponent is the caller's (5F36 travels separately).
    private static func amount(_ value: [UInt8]) -> String? {
        guard let minor = try? Currency.minorUnits(fromBCD: value) else { return nil }
        return String(minor)
    }

    /// "978 (EUR)".
    private static func currencyCode(_ value: [UInt8]) -> String? {
        guard let code = try? Currency.numericCode(fromBCD: value) else { return nil }
        let digits = String(code)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        guard let entry = ISO4217Entry.lookup(numeric: code) else { return padded }
        return "\(padded) (\(entry.alpha))"
    }

    /// YYMMDD → "2025-12-31" (years 00–49 are 20xx, 50–99 19xx, as EMV Book 4 §6.7.3 reads them).
    private static func date(_ value: [UInt8]) -> String? {
        guard value.count == 3, let d = bcdDigits(value) else { return nil }
        let s = Array(d)
        let yy = Int(String(s[0...1]))!
        let century = yy < 50 ? "20" : "19"
        return "\(century)\(String(s[0...1]))-\(String(s[2...3]))-\(String(s[4...5]))"
    }

    /// HHMMSS → "14:05:09".
    private static func time(_ value: [UInt8]) -> String? {
        guard value.count == 3, let d = bcdDigits(value) else { return nil }
        let s = Array(d)
        return "\(String(s[0...1])):\(String(s[2...3])):\(String(s[4...5]))"
    }

    /// A template shown on one line: its objects' tags. A payment template that does not parse is not shown as
    /// bytes either, since it may hold a PAN or track data.
    private static func template(_ value: [UInt8], context: TagContext) -> String? {
        guard let children = try? TLVParser.parse(value, rules: .terminal) else {
            return context == .payment ? "<\(value.count) bytes, not TLV>" : nil
        }
        return "\(children.count) object\(children.count == 1 ? "" : "s"): "
            + children.map { $0.tag.description }.joined(separator: " ")
    }

    /// Splits concatenated BER tags (EMV Book 3 Annex B1); `nil` if the bytes end inside a tag.
    private static func splitTags(_ value: [UInt8]) -> [Tag]? {
        var tags: [Tag] = []
        var i = 0
        while i < value.count {
            guard let (tag, next) = readTag(value, at: i) else { return nil }
            tags.append(tag)
            i = next
        }
        return tags
    }

    private static func readTag(_ value: [UInt8], at start: Int) -> (Tag, Int)? {
        var i = start + 1
        if value[start] & 0x1F == 0x1F {
            while true {
                guard i < value.count, i - start < 3 else { return nil }
                i += 1
                if value[i - 1] & 0x80 == 0 { break }
            }
        }
        guard let tag = Tag(bytes: Array(value[start..<i])) else { return nil }
        return (tag, i)
    }

    private static func tagName(_ tag: Tag, context: TagContext) -> String {
        guard let info = TagDictionary.info(for: tag, context: context) else { return tag.description }
        return "\(tag) \(info.name)"
    }

    /// C1: "9F27 cryptogramInformationData, 95 terminalVerificationResults".
    private static func tagList(_ value: [UInt8], context: TagContext) -> String? {
        guard !value.isEmpty, let tags = splitTags(value) else { return nil }
        return tags.map { tagName($0, context: context) }.joined(separator: ", ")
    }

    /// DOL: tag ‖ one-byte length, "9F02 amountAuthorised (6), 9A transactionDate (3)".
    private static func dol(_ value: [UInt8], context: TagContext) -> String? {
        var parts: [String] = []
        var i = 0
        while i < value.count {
            guard let (tag, next) = readTag(value, at: i), next < value.count else { return nil }
            parts.append("\(tagName(tag, context: context)) (\(value[next]))")
            i = next + 1
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// Spec §12.2: records of key index, then (type, length in bits, value) items, each record ending with FF.
    /// "key 0 (PIN): KSI FFFF987654, KSN FFFF9876543210E00000, TSC 21 bits".
    private static func ksnFormats(_ value: [UInt8]) -> String? {
        var records: [String] = []
        var i = 0
        while i < value.count {
            let key = value[i]
            i += 1
            let keyName = TagValueNames.dukptKeys[key].map { "key \(key) (\($0))" } ?? "key \(key)"
            var items: [String] = []
            var closed = false
            while i < value.count {
                let type = value[i]
                if type == 0xFF {
                    i += 1
                    closed = true
                    break
                }
                guard i + 1 < value.count else { return nil }
                let bits = Int(value[i + 1])
                let length = (bits + 7) / 8
                guard i + 2 + length <= value.count else { return nil }
                let field = Array(value[(i + 2)..<(i + 2 + length)])
                i += 2 + length
                switch TagValueNames.ksnItemTypes[type] {
                case "TSC": items.append("TSC \(bits) bits")
                case let name?: items.append("\(name) \(Hex.encode(field))")
                case nil: items.append("type \(type) \(Hex.encode(field)) (\(bits) bits)")
                }
            }
            guard closed else { return nil }
            records.append("\(keyName): " + items.joined(separator: ", "))
        }
        return records.isEmpty ? nil : records.joined(separator: "; ")
    }

    /// Spec §7.5: "30 36: receipt, approved".
    private static func nfcOutcome(_ value: [UInt8]) -> String? {
        guard value.count == 2 else { return nil }
        let outcome = NFCOutcome(cvmByte: value[0], resultByte: value[1])
        let cvm = outcome.cvm?.name ?? "unknown CVM \(Hex.encode([value[0]]))"
        let result = outcome.result?.name ?? "unknown result \(Hex.encode([value[1]]))"
        return "\(Hex.encode(value, separator: " ")): \(cvm), \(result)"
    }

    private static func yesNo(_ value: [UInt8]) -> String? {
        guard value.count == 1 else { return nil }
        switch value[0] {
        case 0x00: return "no"
        case 0x01: return "yes"
        default: return nil
        }
    }

    /// Spec §7.6, EMV Book 3 §6.5.5.4: bits 8–7 give the cryptogram type; "80 (ARQC)".
    private static func cryptogramInformation(_ value: [UInt8]) -> String? {
        guard value.count == 1 else { return nil }
        let name = CryptogramType(cid: value[0])?.name.uppercased() ?? "RFU"
        return "\(Hex.encode(value)) (\(name))"
    }

    /// Each byte with its name: "11 (ICC), 21 (NFC)".
    private static func enumerated(_ value: [UInt8], tag: Tag, context: TagContext) -> String? {
        guard !value.isEmpty else { return nil }
        return value.map { byte in
            let hex = Hex.encode([byte])
            guard let name = TagValueNames.name(of: byte, tag: tag, context: context) else { return hex }
            return "\(hex) (\(name))"
        }.joined(separator: ", ")
    }

    /// "fr (French), en (English)" for concatenated two-letter codes.
    private static func languages(_ value: [UInt8]) -> String? {
        guard !value.isEmpty, value.count % 2 == 0, let text = printable(value), text.utf8.count == value.count else {
            return nil
        }
        let chars = Array(text)
        return stride(from: 0, to: chars.count, by: 2).map { i in
            let code = String(chars[i...(i + 1)])
            return Language.lookup(code).map { "\(code) (\($0.name))" } ?? code
        }.joined(separator: ", ")
    }

    /// F6: "en\0fr\0" → "en, fr".
    private static func localeList(_ value: [UInt8]) -> String? {
        let names = value.split(separator: 0)
        guard !names.isEmpty, names.allSatisfy({ $0.allSatisfy { (0x21...0x7E).contains($0) } }) else { return nil }
        return names.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ", ")
    }

    /// DB: hex, with the key's name when the value contains a known id (spec §7.1).
    private static func kslID(_ value: [UInt8]) -> String? {
        let hex = Hex.encode(value)
        guard let known = TagValueNames.kslIDs.first(where: { hex.contains($0.id) }) else { return hex }
        return "\(hex) (\(known.name))"
    }

    /// Spec §7.7: "\"00\" (approved)".
    private static func authorisationResponseCode(_ value: [UInt8]) -> String? {
        guard let text = printable(value) else { return nil }
        let meaning =
            TagValueNames.authorisationResponseCodes[text] ?? (text.hasPrefix("9") ? "unable to go online" : nil)
        return meaning.map { "\"\(text)\" (\($0))" } ?? "\"\(text)\""
    }
}

/// The names of tag values that no command type owns (spec §7). One table per fact: values that have a type elsewhere
/// in the module are read from it (`TerminalState`, `ChargingStatus`, `SpeedMode`, `CardReader`, `TransactionType`,
/// `CryptogramType`, `AuthorisationStatus`, `CorrectionKeyMode`, `NFCOutcome`).
package enum TagValueNames {
    /// ED mPOS (NFC) module state (spec §7.1; A-Pay:PaymentHelper retries 1 and 2 every 2 s).
    package static let nfcModuleStates: [UInt8: String] = [
        0: "no NFC module",
        1: "not ready",
        2: "not ready",
        3: "ready",
    ]

    /// DB: key serial list ids the samples name (spec §7.1).
    package static let kslIDs: [(id: String, name: String)] = [
        ("550911E31DB7", "LEGACY KEY"),
        ("54A8E843A954", "PROD 1 KEY"),
        ("BEA704B46856", "DEV KEY"),
    ]

    /// CD record key index (spec §12.1, §12.2).
    package static let dukptKeys: [UInt8: String] = [0: "PIN", 1: "data"]

    /// CD item types (spec §12.2).
    package static let ksnItemTypes: [UInt8: String] = [0: "KSI", 1: "KSN", 2: "KLC", 3: "TSC"]

    /// 9F39 POS entry mode (spec §7.3).
    package static let posEntryModes: [UInt8: String] = [0x02: "MSR", 0x09: "ICC"]

    /// DF60 MSR action (spec §7.4; 03 and 06 from the F-sil fork).
    package static let msrActions: [UInt8: String] = [
        0x00: "none",
        0x01: "online PIN required",
        0x02: "chip required",
        0x03: "chip required (new)",
        0x04: "decline",
        0x06: "online PIN required (optional)",
    ]

    /// DF15 finalisation force flag (spec §5.2 TransactionFinalisation).
    package static let finalisationForceFlags: [UInt8: String] = [
        0x00: "none",
        0x01: "forced after authorisation",
        0x59: "voice referral accepted",
        0x5A: "voice referral declined",
    ]

    /// C2 candidate list output format (spec §5.2 BuildCandidateList).
    package static let candidateListFormats: [UInt8: String] = [0x00: "legacy", 0x01: "full TLV"]

    /// 8A as given to the SDK (spec §7.7); any other code starting with '9' means "unable to go online".
    package static let authorisationResponseCodes: [String: String] = [
        "00": "approved",
        "05": "declined",
        "98": "unable to go online",
        "1A": "SCA soft decline",
        "70": "SCA soft decline requiring PIN",
    ]

    /// The name of one byte of an `.enumerated` tag's value, or `nil` when the value is not one of its names.
    package static func name(of byte: UInt8, tag: Tag, context: TagContext) -> String? {
        switch (context, tag.rawValue) {
        case (.payment, 0x9C): TransactionType(rawValue: byte)?.name
        case (.payment, 0x9F39): posEntryModes[byte]
        case (.payment, 0xC2): candidateListFormats[byte]
        case (.payment, 0xDF15): finalisationForceFlags[byte]
        case (.payment, 0xDF16): AuthorisationStatus(rawValue: byte)?.name
        case (.payment, 0xDF35): CorrectionKeyMode(rawValue: byte)?.name
        case (.payment, 0xDF60): msrActions[byte]
        case (.payment, 0xDF70): CardReader(rawValue: byte)?.name.uppercased()
        case (.getInfo, 0xC4): TerminalState(rawValue: byte)?.description
        case (.getInfo, 0xED): nfcModuleStates[byte]
        case (.getInfo, 0xFB): ChargingStatus(rawValue: byte)?.description
        case (.getInfo, 0xFC): SpeedMode(rawValue: byte)?.description
        default: nil
        }
    }
}
