/// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, no final XOR (spec §2.5).
///
/// Check value for ASCII "123456789" is 0x31C3 (the CRC catalogue's `check` for CRC-16/XMODEM: Greg Cook's
/// "Catalogue of parametrised CRC algorithms", CRC RevEng). Table-driven, one byte a step: every frame both ways is
/// checked, and a firmware update sends thousands of 2 KB frames.
package enum CRC16 {
    private static let table: [UInt16] = (0..<256).map { byte -> UInt16 in
        var crc = UInt16(byte) << 8
        for _ in 0..<8 {
            crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }

    /// The CRC of `bytes`, continuing from `initial` (0 for a fresh computation).
    package static func xmodem<C: Collection>(_ bytes: C, initial: UInt16 = 0) -> UInt16 where C.Element == UInt8 {
        if let crc = bytes.withContiguousStorageIfAvailable({ update(initial, $0) }) { return crc }
        var crc = initial
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    /// The same step over contiguous bytes, without the array's bounds checks (an index is one byte: always in the
    /// table).
    private static func update(_ initial: UInt16, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        table.withUnsafeBufferPointer { table in
            var crc = initial
            for byte in bytes {
                crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
            }
            return crc
        }
    }
}
