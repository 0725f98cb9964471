/// Card data inside raw bytes shown in hex: a trace's frame dump, `rpc raw`, `decode`, a hex argument written to the
/// log. The bytes are not parsed as frames (a dump may start anywhere, a frame may be truncated or hostile): any
/// place where a card-data tag is followed by a length and a value shaped like that tag's data is masked, wherever it
/// sits. The shapes (EMV Book 3 Annex A; ISO/IEC 7813):
/// - 5A application PAN: "cn" BCD, 12–19 digits, then only F padding;
/// - 57 track 2 equivalent data and 9F6B track 2 data (contactless): 12–19 digits, separator D, then digits and F;
/// - 56 track 1 data: ASCII "B" then 12–19 digits.
///
/// In the PAN the first 6 and last 4 digits stay (as `Masking.maskPAN`); every other digit of the value, and all of
/// it after a track separator, is shown as `*` in place of its hex digit, so the dump keeps its length and layout.
/// A value that only looks like card data (random bytes) is masked too: a dump shown to a person loses nothing.
extension Masking {
    /// `Hex.encode(bytes, separator:)` with card data masked.
    package static func hex(_ bytes: [UInt8], separator: String = "") -> String {
        let hidden = hiddenNibbles(in: bytes)
        let digits = Array("0123456789ABCDEF")
        var out = ""
        out.reserveCapacity(bytes.count * (2 + separator.count))
        for (index, byte) in bytes.enumerated() {
            if index > 0 { out += separator }
            out.append(hidden.contains(2 * index) ? maskCharacter : digits[Int(byte >> 4)])
            out.append(hidden.contains(2 * index + 1) ? maskCharacter : digits[Int(byte & 0x0F)])
        }
        return out
    }

    /// `text` with card data masked inside each run of hex digits (bytes written together, "5A08…", or separated by
    /// single spaces, "5A 08 …"), at either nibble alignment. Other characters are left as they are.
    package static func redactCardDataInHex(_ text: String) -> String {
        // Over the UTF-8 bytes: hex digits and spaces are ASCII, and every other byte (of any character) ends a run and
        // is copied as it is. Every byte ucube writes passes here (`Console`), so no Character array is built.
        var bytes = Array(text.utf8)
        var changed = false
        var index = 0
        while index < bytes.count {
            guard hexValue(bytes[index]) != nil else {
                index += 1
                continue
            }
            // A run: hex digits, with single spaces allowed between pairs (a dump, "5A 08 47 …"). Not after a group
            // of another size: "3570 6905 6087 9974 60" is a card number written in groups of 4, masked as one
            // (`redactPANs`), not bytes whose digits happen to spell a tag and a length.
            var positions: [Int] = []
            var cursor = index
            var group = 0
            while cursor < bytes.count {
                if hexValue(bytes[cursor]) != nil {
                    positions.append(cursor)
                    cursor += 1
                    group += 1
                } else if bytes[cursor] == UInt8(ascii: " "), cursor + 1 < bytes.count,
                    hexValue(bytes[cursor + 1]) != nil,
                    group == 2
                {
                    group = 0
                    cursor += 1
                } else {
                    break
                }
            }
            if positions.count >= minimumValueNibbles, !isPlainPAN(bytes, positions, before: index - 1, after: cursor) {
                let values = positions.map { hexValue(bytes[$0])! }
                for alignment in 0...1 {
                    var run: [UInt8] = []
                    run.reserveCapacity(values.count / 2)
                    var nibble = alignment
                    while nibble + 1 < values.count {
                        run.append(values[nibble] << 4 | values[nibble + 1])
                        nibble += 2
                    }
                    for hidden in hiddenNibbles(in: run) {
                        bytes[positions[alignment + hidden]] = maskByte
                        changed = true
                    }
                }
            }
            index = cursor
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// The run at `positions` is a card number written plainly, not hex: unbroken decimal digits of a PAN's length, a
    /// PAN by the Luhn check and its industry, a token of its own. `redactPANs` masks it (the first six and the last
    /// four shown); read as hex, a PAN such as 570712345678901232 would spell tag 57 and a length, and the digits
    /// masked as that "track 2" would leave ten of the PAN's digits visible.
    private static func isPlainPAN(_ bytes: [UInt8], _ positions: [Int], before: Int, after: Int) -> Bool {
        guard panLengths.contains(positions.count), positions.last! - positions.first! == positions.count - 1,
            positions.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) })
        else { return false }
        let isWord = { (byte: UInt8) in byte == UInt8(ascii: "_") || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) }
        if before >= 0, isWord(bytes[before]) { return false }
        if after < bytes.count, isWord(bytes[after]) { return false }
        let digits = String(decoding: positions.map { bytes[$0] }, as: UTF8.self)
        return cardIndustries.contains(bytes[positions[0]]) && luhnValid(digits)
    }

    /// `maskCharacter` as the byte written in its place.
    private static let maskByte = UInt8(ascii: "*")

    /// The value of an ASCII hex digit, nil for any other byte.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The shortest value worth looking at: a tag, a length and a 12-digit PAN.
    static let minimumValueNibbles = 2 * (1 + 1 + 6)

    /// The nibble indexes (2 per byte, high first) to hide in `bytes`.
    static func hiddenNibbles(in bytes: [UInt8]) -> Set<Int> {
        let found = cardDataNibbles(in: bytes)
        return found.digits.union(found.characters)
    }

    /// `bytes` with card data hidden in place, same length: a hidden BCD digit becomes `maskedNibble`, a hidden
    /// track 1 character `*`. For bytes that are kept rather than shown (a recording: docs/recording.md), which a
    /// reader then decodes like any other: `panDigits` and `maskTrack2` read `maskedNibble` as a hidden digit.
    package static func maskingCardData(in bytes: [UInt8]) -> [UInt8] {
        let found = cardDataNibbles(in: bytes)
        guard !found.digits.isEmpty || !found.characters.isEmpty else { return bytes }
        var out = bytes
        for nibble in found.digits {
            out[nibble / 2] =
                nibble % 2 == 0 ? (out[nibble / 2] & 0x0F) | maskedNibble << 4 : (out[nibble / 2] & 0xF0) | maskedNibble
        }
        for nibble in found.characters { out[nibble / 2] = UInt8(ascii: "*") }
        return out
    }

    /// The BCD digits (57, 5A, 9F6B) and the track 1 characters (56, whole bytes) to hide in `bytes`, as nibble
    /// indexes.
    private static func cardDataNibbles(in bytes: [UInt8]) -> (digits: Set<Int>, characters: Set<Int>) {
        var digits = Set<Int>()
        var characters = Set<Int>()
        var index = 0
        while index + 1 < bytes.count {
            let tagLength: Int
            switch (bytes[index], index + 2 < bytes.count ? bytes[index + 1] : nil) {
            case (0x9F, 0x6B?): tagLength = 2
            case (0x5A, _), (0x57, _), (0x56, _): tagLength = 1
            default:
                index += 1
                continue
            }
            let tag = tagLength == 2 ? 0x9F6B : Int(bytes[index])
            let lengthIndex = index + tagLength
            let length = Int(bytes[lengthIndex])
            let start = lengthIndex + 1
            guard length > 0, length < 0x80, start + length <= bytes.count else {
                index += 1
                continue
            }
            let value = Array(bytes[start..<start + length])
            let masked: [Int]
            switch tag {
            case 0x5A: masked = panNibbles(value, separatorAllowed: false)
            case 0x57, 0x9F6B: masked = panNibbles(value, separatorAllowed: true)
            default: masked = track1Nibbles(value)
            }
            for nibble in masked {
                if tag == 0x56 { characters.insert(2 * start + nibble) } else { digits.insert(2 * start + nibble) }
            }
            index += masked.isEmpty ? 1 : tagLength + 1 + length
        }
        return (digits, characters)
    }

    /// BCD PAN (with a track 2 separator when allowed): the nibbles to hide, or none when the value is not shaped so.
    private static func panNibbles(_ value: [UInt8], separatorAllowed: Bool) -> [Int] {
        let all = nibbles(value)
        let panLength = all.prefix { $0 <= 9 }.count
        guard track2PANLengths.contains(panLength) else { return [] }
        let rest = all[panLength...]
        if let separator = rest.first, separator == 0xD {
            guard separatorAllowed, rest.dropFirst().allSatisfy({ $0 <= 9 || $0 == 0xF }) else { return [] }
        } else {
            guard rest.allSatisfy({ $0 == 0xF }) else { return [] }
        }
        let (first, last) = visibleDigits(panLength)
        return Array(first..<(panLength - last))
            + Array((panLength + 1)..<max(panLength + 1, all.count)).filter {
                all[$0] != 0xF
            }
    }

    /// ASCII track 1 ("B" then the PAN digits): the PAN's middle digits and everything after the PAN.
    private static func track1Nibbles(_ value: [UInt8]) -> [Int] {
        guard value.first == UInt8(ascii: "B") else { return [] }
        let digits = value.dropFirst().prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
        guard track2PANLengths.contains(digits) else { return [] }
        let (first, last) = visibleDigits(digits)
        // Byte k of the value is nibbles 2k, 2k+1; the PAN's digit d is byte d + 1.
        let panBytes = (1 + first)..<(1 + digits - last)
        let after = (1 + digits)..<value.count
        return (Array(panBytes) + Array(after)).flatMap { [2 * $0, 2 * $0 + 1] }
    }

    /// How many leading and trailing digits `maskPAN` keeps for a PAN of `count` digits.
    private static func visibleDigits(_ count: Int) -> (first: Int, last: Int) {
        let masked = maskPAN(String(repeating: "0", count: count))
        let first = masked.prefix { $0 != maskCharacter }.count
        let last = masked.reversed().prefix { $0 != maskCharacter }.count
        return (first, last)
    }
}
