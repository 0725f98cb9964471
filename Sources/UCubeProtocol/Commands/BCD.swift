/// Packed BCD for amounts, currency codes, dates and times (spec §4: "Amounts: 6-byte packed BCD", "Currency: 2-byte
/// BCD ISO-4217 (978 → 09 78)", "Dates: 9A YYMMDD BCD").
///
/// Internal to the command layer; the shared `Currency.bcdAmount` (Reference/) is the public face of amounts.
enum BCD {
    /// The largest value `byteCount` BCD bytes can hold (10^(2·byteCount) − 1), or `nil` past UInt64.
    static func maxValue(byteCount: Int) -> UInt64? {
        guard byteCount >= 0, byteCount <= 9 else { return nil }
        var limit: UInt64 = 1
        for _ in 0..<(2 * byteCount) { limit *= 10 }
        return limit - 1
    }

    /// `value` as `byteCount` packed BCD bytes, most significant digit first; `nil` when it does not fit.
    static func encode(_ value: UInt64, byteCount: Int) -> [UInt8]? {
        guard let max = maxValue(byteCount: byteCount), value <= max else { return nil }
        var out = [UInt8](repeating: 0, count: byteCount)
        var rest = value
        for index in stride(from: byteCount - 1, through: 0, by: -1) {
            let low = UInt8(rest % 10)
            rest /= 10
            let high = UInt8(rest % 10)
            rest /= 10
            out[index] = high << 4 | low
        }
        return out
    }

    /// The number packed BCD bytes hold; `nil` when a nibble is not a decimal digit or the value passes UInt64.
    static func decode(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count <= 9 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let high = byte >> 4
            let low = byte & 0x0F
            guard high <= 9, low <= 9 else { return nil }
            value = value * 100 + UInt64(high) * 10 + UInt64(low)
        }
        return value
    }

    /// True when every nibble is a decimal digit.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 >> 4 <= 9 && $0 & 0x0F <= 9 }
    }
}
