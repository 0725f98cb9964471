/// CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection, no final XOR (spec §2.5).
///
/// Check value for ASCII "123456789" is 0x31C3 (the CRC catalogue's `check` for CRC-16/XMODEM).
public enum CRC16 {
    private static let table: [UInt16] = (0..<256).map { byte -> UInt16 in
        var crc = UInt16(byte) << 8
        for _ in 0..<8 {
            crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }

    /// The CRC of `bytes`, continuing from `initial` (0 for a fresh computation).
    public static func xmodem<C: Collection>(_ bytes: C, initial: UInt16 = 0) -> UInt16 where C.Element == UInt8 {
        var crc = initial
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(crc >> 8) ^ byte)]
        }
        return crc
    }
}
