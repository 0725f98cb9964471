/// A btsnoop capture file (spec §3.5): the header and its records, read from bytes already in memory. Pure: no I/O.
///
/// Layout (all big-endian; BlueZ `src/shared/btsnoop.h`, the format Frontline's and Android's HCI loggers write):
/// the 16-byte header `"btsnoop\0"`, version 1, datalink; then records of original length (4), included length (4),
/// flags (4), cumulative drops (4), timestamp (8: microseconds since midnight, 1 January of year 0 AD) and the
/// included bytes. Every length is checked against what is left of the file and against the largest HCI packet, so
/// a truncated or hostile file stops with a note instead of a crash or a large allocation.
package struct BTSnoopFile: Sendable {
    /// "btsnoop" and a NUL: the first 8 bytes of every btsnoop file.
    package static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    package static let headerSize = 16
    package static let recordHeaderSize = 24
    /// The largest record this reader accepts: an H4 type byte (or nothing) plus the largest HCI packet, an ACL
    /// packet of 4 header bytes and 65 535 data bytes. Anything longer is not HCI: the file is read no further.
    package static let maxRecordLength = 1 + 4 + 0xFFFF
    /// Microseconds from 1 January of year 0 AD to the Unix epoch, as Wireshark's btsnoop reader counts them.
    package static let unixEpochOffset: UInt64 = 0x00DC_DDB3_0F2F_8000

    /// What the records carry (the header's datalink field).
    package enum Datalink: UInt32, Sendable {
        /// Un-encapsulated HCI: no packet-type byte; flags bit 1 says command/event (1) or data (0).
        case hci = 1001
        /// HCI UART (H4): a packet-type byte first (1 command, 2 ACL, 3 SCO, 4 event, 5 ISO).
        case h4 = 1002
        /// Linux monitor, as `btmon -w` writes it: flags hold the controller index (high 16 bits) and an opcode.
        case monitor = 2001

        package var name: String {
            switch self {
            case .hci: "un-encapsulated HCI (1001)"
            case .h4: "HCI UART H4 (1002)"
            case .monitor: "Linux monitor, btmon (2001)"
            }
        }
    }

    /// One record as stored: `number` counts from 1, as Wireshark's `frame.number` does.
    package struct Record: Sendable {
        package let number: Int
        package let originalLength: Int
        package let flags: UInt32
        package let drops: UInt32
        /// Microseconds since 1 January of year 0 AD.
        package let timestamp: UInt64
        package let data: [UInt8]

        /// Microseconds since the Unix epoch (`nil` for a timestamp before 1970).
        package var unixMicroseconds: Int64? {
            timestamp >= BTSnoopFile.unixEpochOffset ? Int64(clamping: timestamp - BTSnoopFile.unixEpochOffset) : nil
        }
    }

    package let datalink: Datalink
    package let records: [Record]
    /// What was skipped or cut short, one sentence each (a truncated last record, an implausible length).
    package let notes: [String]

    /// Whether `bytes` start like a btsnoop file.
    package static func hasMagic<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        bytes.starts(with: magic)
    }

    /// Reads the header and every complete record. A bad header throws; damage after it ends the reading with a note.
    package init(bytes: [UInt8]) throws(CaptureError) {
        guard bytes.count >= Self.headerSize else {
            if !bytes.isEmpty && (Self.hasMagic(bytes) || Self.magic.starts(with: bytes)) {
                throw CaptureError(
                    .truncated, "the btsnoop header needs \(Self.headerSize) bytes, the file has \(bytes.count)")
            }
            throw CaptureError(.notBTSnoop, "not a btsnoop capture: it does not start with \"btsnoop\\0\"")
        }
        guard Self.hasMagic(bytes) else {
            throw CaptureError(.notBTSnoop, "not a btsnoop capture: it does not start with \"btsnoop\\0\"")
        }
        let version = Self.uint32(bytes, 8)
        guard version == 1 else {
            throw CaptureError(.unsupportedVersion, "btsnoop version \(version): only version 1 is read")
        }
        let rawDatalink = Self.uint32(bytes, 12)
        guard let datalink = Datalink(rawValue: rawDatalink) else {
            throw CaptureError(
                .unsupportedDatalink,
                "btsnoop datalink \(rawDatalink): only 1001 (HCI), 1002 (H4) and 2001 (Linux monitor, btmon -w) are read"
            )
        }
        self.datalink = datalink
        var records: [Record] = []
        var notes: [String] = []
        var offset = Self.headerSize
        while offset < bytes.count {
            let number = records.count + 1
            guard bytes.count - offset >= Self.recordHeaderSize else {
                notes.append(
                    "record \(number): the file ends inside its \(Self.recordHeaderSize)-byte header (\(bytes.count - offset) bytes left); reading stopped"
                )
                break
            }
            let original = Self.uint32(bytes, offset)
            let included = Self.uint32(bytes, offset + 4)
            guard included <= Self.maxRecordLength else {
                notes.append(
                    "record \(number): an included length of \(included) bytes is longer than any HCI packet; reading stopped"
                )
                break
            }
            let start = offset + Self.recordHeaderSize
            guard bytes.count - start >= Int(included) else {
                notes.append(
                    "record \(number): \(included) bytes announced, \(bytes.count - start) left in the file; reading stopped"
                )
                break
            }
            records.append(
                Record(
                    number: number, originalLength: Int(original), flags: Self.uint32(bytes, offset + 8),
                    drops: Self.uint32(bytes, offset + 12),
                    timestamp: UInt64(Self.uint32(bytes, offset + 16)) << 32 | UInt64(Self.uint32(bytes, offset + 20)),
                    data: Array(bytes[start..<(start + Int(included))])))
            offset = start + Int(included)
        }
        self.records = records
        self.notes = notes
    }

    static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}

/// Why a capture could not be read at all (damage inside a readable capture is a note, not an error).
package struct CaptureError: CodedError {
    package enum Code: String, Sendable, Hashable {
        case notBTSnoop
        case truncated
        case unsupportedVersion
        case unsupportedDatalink
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
