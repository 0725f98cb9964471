/// Hexadecimal text for byte arrays: the one place bytes become text and back.
package enum Hex {
    @usableFromInline static let digits = Array("0123456789ABCDEF".utf8)

    /// Upper-case hex with an optional separator between bytes ("02 00 03"). Inlinable, so a caller's `[UInt8]` gets
    /// a specialised copy: unspecialised, each first call with a new sequence type looked its iterator up by name.
    @inlinable
    package static func encode<S: Sequence>(_ bytes: S, separator: String = "") -> String where S.Element == UInt8 {
        var out = ""
        var first = true
        for byte in bytes {
            if !first { out += separator }
            first = false
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
        }
        return out
    }

    /// Parses hex text. Spaces, colons, dashes and underscores between digits are ignored; a `0x` prefix is allowed.
    package static func decode(_ text: String) throws(HexError) -> [UInt8] {
        var s = Substring(text)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count / 2)
        var high: UInt8? = nil
        var index = 0
        for c in s.utf8 {
            index += 1
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "\t"):
                if high != nil { throw HexError(reason: "separator inside a byte at character \(index)") }
                continue
            default:
                throw HexError(reason: "'\(Character(Unicode.Scalar(c)))' at character \(index) is not a hex digit")
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { throw HexError(reason: "odd number of hex digits") }
        return out
    }
}

/// Hex text that could not be read as bytes.
package struct HexError: Error, Equatable, CustomStringConvertible {
    package let reason: String
    package var description: String { "invalid hex: \(reason)" }
}

extension Array where Element == UInt8 {
    /// Upper-case hex, no separators.
    package var hex: String { Hex.encode(self) }
}

extension ArraySlice where Element == UInt8 {
    /// Upper-case hex, no separators.
    package var hex: String { Hex.encode(self) }
}
