import UCubeProtocol

/// A btsnoop writer for tests only (spec §3.5): HCI packets in a btsnoop v1 file, datalink 1001 (un-encapsulated
/// HCI), 1002 (H4) or 2001 (Linux monitor, as `btmon -w` writes). It writes what a capture of a uCube Touch session holds: ATT PDUs in L2CAP in
/// ACL packets, fragmented as a controller with a given ACL buffer size fragments them.
struct BTSnoopWriter {
    enum Datalink: UInt32 {
        case hci = 1001
        case h4 = 1002
        case monitor = 2001
    }

    let datalink: Datalink
    private(set) var bytes: [UInt8]
    private(set) var records = 0
    /// Microseconds since 1 January of year 0 AD (btsnoop's clock); each record is 1.5 ms after the previous one.
    var clock: UInt64

    /// 2026-11-24 12:00:00 UTC.
    static let start: UInt64 = BTSnoopFile.unixEpochOffset + 1_795_521_600 * 1_000_000

    init(_ datalink: Datalink) {
        self.datalink = datalink
        bytes = BTSnoopFile.magic + Self.be32(1) + Self.be32(datalink.rawValue)
        clock = Self.start
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

    /// One record, its length fields and flags as given (tests of damaged files write odd ones).
    mutating func record(_ data: [UInt8], flags: UInt32, originalLength: Int? = nil, includedLength: Int? = nil) {
        bytes += Self.be32(UInt32(originalLength ?? data.count)) + Self.be32(UInt32(includedLength ?? data.count))
        bytes += Self.be32(flags) + Self.be32(0)
        bytes += Self.be32(UInt32(clock >> 32)) + Self.be32(UInt32(clock & 0xFFFF_FFFF))
        bytes += data
        records += 1
        clock += 1_500
    }

    /// The monitor's New Index record (opcode 0): type 0 (primary controller), bus 0x01 (USB), address, name.
    mutating func newIndex() {
        guard datalink == .monitor else { return }
        record([0x00, 0x01, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11] + Array("hci0".utf8) + [0, 0, 0, 0], flags: 0)
    }

    /// The monitor's System Note record (opcode 12): text, NUL-terminated.
    mutating func systemNote(_ text: String) {
        guard datalink == .monitor else { return }
        record(Array(text.utf8) + [0], flags: 12)
    }

    /// An HCI command (host to controller).
    mutating func command(_ packet: [UInt8]) {
        switch datalink {
        case .hci: record(packet, flags: 2)
        case .h4: record([0x01] + packet, flags: 2)
        case .monitor: record(packet, flags: 2)
        }
    }

    /// An HCI event (controller to host).
    mutating func event(_ packet: [UInt8]) {
        switch datalink {
        case .hci: record(packet, flags: 3)
        case .h4: record([0x04] + packet, flags: 3)
        case .monitor: record(packet, flags: 3)
        }
    }

    /// One ACL packet: `boundary` is the PB flag (0b00 / 0b10 start, 0b01 continuation).
    mutating func acl(connection: Int, boundary: Int, sent: Bool, _ fragment: [UInt8]) {
        let packet = Self.le16(connection | boundary << 12) + Self.le16(fragment.count) + fragment
        switch datalink {
        case .hci: record(packet, flags: sent ? 0 : 1)
        case .h4: record([0x02] + packet, flags: sent ? 0 : 1)
        case .monitor: record(packet, flags: sent ? 4 : 5)
        }
    }

    /// An ATT PDU in an L2CAP PDU on CID 4, cut into ACL fragments of at most `aclSize` bytes (27: the LE default),
    /// or at the cuts given.
    mutating func att(connection: Int = 0x0040, sent: Bool, _ pdu: [UInt8], aclSize: Int = 27, cuts: [Int]? = nil) {
        let l2cap = Self.le16(pdu.count) + Self.le16(0x0004) + pdu
        let bounds = cuts ?? Array(stride(from: aclSize, to: l2cap.count, by: aclSize))
        var start = 0
        for end in bounds + [l2cap.count] where end > start {
            acl(
                connection: connection, boundary: start == 0 ? (sent ? 0b00 : 0b10) : 0b01, sent: sent,
                Array(l2cap[start..<end]))
            start = end
        }
    }

    // MARK: ATT PDUs (Bluetooth Core Vol 3 Part F §3.4)

    static func writeRequest(_ handle: Int, _ value: [UInt8]) -> [UInt8] { [0x12] + le16(handle) + value }
    static func writeCommand(_ handle: Int, _ value: [UInt8]) -> [UInt8] { [0x52] + le16(handle) + value }
    static func notification(_ handle: Int, _ value: [UInt8]) -> [UInt8] { [0x1B] + le16(handle) + value }
    static func indication(_ handle: Int, _ value: [UInt8]) -> [UInt8] { [0x1D] + le16(handle) + value }
    /// ATT_MULTIPLE_HANDLE_VALUE_NTF (Vol 3 Part F §3.4.7.4): opcode 0x23, then handle (2), length (2) and value for
    /// each pair.
    static func multipleNotification(_ pairs: [(handle: Int, value: [UInt8])]) -> [UInt8] {
        [0x23] + pairs.flatMap { le16($0.handle) + le16($0.value.count) + $0.value }
    }
}

/// The capture committed in Tests/Fixtures/btsnoop/ (README.md there): a uCube Touch session as BlueZ would
/// capture it — the LE connection, GATT discovery, the connection password, then GetInfo, a DisplayMessage, a WaitCard that times out
/// and a secure session with a GetPlainTag of a test card, each command written and each answer notified in
/// BLE-stuffed chunks (spec §3.1).
enum UCubeCaptureFixture {
    static let connection = 0x0040
    static let txRx = 0x0012
    static let txRxCCCD = 0x0013
    static let password = 0x0015
    static let hState = 0x0017
    static let unrelated = 0x0003

    static func uuid(_ text: String) -> [UInt8] { Array(try! Hex.decode(text.filter { $0 != "-" }).reversed()) }
    static let txRxUUID = uuid("d1f4c2d0-f8c2-4565-9349-e0312effd1ee")
    static let passwordUUID = uuid("4e6efab4-7028-49d4-8458-95e69a93607d")
    static let hStateUUID = uuid("d329a8cb-b872-4c13-971b-72bca85ef0cd")

    /// The frames, in order: (written by the host, frame bytes, chunk size).
    static func exchanges() throws -> [(write: Bool, frame: [UInt8], chunk: Int)] {
        // GetInfo as the built-in simulator answers it (`ucube --device sim --trace info`).
        let getInfo = try Hex.decode(
            "02 00 16 00 50 01 C1 C2 C3 C4 C5 C6 D1 D3 D5 D7 D9 DB E8 EA EB EC ED FB FC FD F6 F7 53 52 03")
        let getInfoAnswer = try Hex.decode(
            "02 00 A0 00 50 01 00 00 C1 08 5A 17 00 20 24 01 00 01 C2 0F 55 43 55 42 45 2D 54 4F 55 43 48 2D 45 55 20 C3 05 00 30 41 93 A4 C4 01 02 C5 01 57 C6 01 3C D1 04 06 00 00 36 D3 04 05 01 00 00 D5 04 04 03 00 00 D7 04 04 03 01 00 D9 04 01 02 00 03 DB 06 BE A7 04 B4 68 56 E8 15 D1 04 01 04 02 07 A0 04 04 03 00 01 A2 04 02 06 00 00 C4 01 01 EA 04 01 00 00 05 EB 04 01 00 00 04 EC 04 02 03 00 01 ED 01 03 FB 01 00 FC 01 00 FD 04 01 00 03 00 F6 0F 65 6E 00 66 72 00 64 65 00 65 73 00 69 74 00 F7 02 65 6E 20 6D 03"
        )
        // The "Hello world" DisplayMessage of spec §2.6 and its answer (spec §3.1).
        let display = try Hex.decode(
            "02 00 14 01 50 40 02 00 05 01 00 0C 48 65 6C 6C 6F 20 77 6F 72 6C 64 00 FF 00 3A C9 03")
        let displayAnswer = try Hex.decode("02 00 02 01 50 40 00 00 49 87 03")
        let waitCard = try CommandFrame(sequence: 2, command: .waitCard, payload: [0x01, 0x1E]).encoded()
        let waitCardAnswer = try ResponseFrame(sequence: 2, command: .waitCard, status: .timeout).encoded()
        // A secure session as the simulator runs it (`ucube --device sim --trace pay`), the card the test Visa card.
        let enter = try CommandFrame(sequence: 3, command: .enterSecureSession, payload: []).encoded()
        let enterAnswer = try ResponseFrame(
            sequence: 3, command: .enterSecureSession, status: .success,
            data: try Hex.decode("FF FF 98 76 54 32 10 E0 00 01")
        ).encoded()
        let getPlainTag = try CommandFrame(
            sequence: 4, command: .getPlainTag, payload: try Hex.decode("5A 5F 24 9F 27 84"),
            envelope: SecuredEnvelope()
        ).encoded()
        let getPlainTagAnswer = try ResponseFrame(
            sequence: 4, command: .getPlainTag, status: .success,
            data: try Hex.decode(
                "5A 08 47 61 73 90 01 01 00 10 5F 24 03 27 12 31 9F 27 01 40 84 07 A0 00 00 00 03 10 10"),
            envelope: SecuredEnvelope(cryptoHeader: 0x7F, mac: [0x5E, 0xC0, 0x0D, 0xE0])
        ).encoded()
        let exit = try CommandFrame(sequence: 5, command: .exitSecureSession, payload: []).encoded()
        let exitAnswer = try ResponseFrame(sequence: 5, command: .exitSecureSession, status: .success).encoded()
        return [
            (true, getInfo, 20), (false, getInfoAnswer, 20),
            (true, display, 20), (false, displayAnswer, 20),
            (true, waitCard, 20), (false, waitCardAnswer, 20),
            // After the MTU exchange (247): larger writes and notifications, fragmented by the 27-byte ACL buffer.
            (true, enter, 100), (false, enterAnswer, 100),
            (true, getPlainTag, 100), (false, getPlainTagAnswer, 100),
            (true, exit, 100), (false, exitAnswer, 100),
        ]
    }

    static func make(_ datalink: BTSnoopWriter.Datalink) throws -> [UInt8] {
        typealias W = BTSnoopWriter
        var w = BTSnoopWriter(datalink)
        w.newIndex()
        w.systemNote("Bluetooth monitor ver 5.66")
        // HCI Reset and its Command Complete: not ACL, skipped by every ATT reader.
        w.command([0x03, 0x0C, 0x00])
        w.event([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        // LE Connection Complete (LE Meta 0x3E, subevent 0x01): handle 0x0040, central, to a random address, 30 ms
        // interval, no latency, 4 s supervision timeout.
        w.event(
            [0x3E, 0x13, 0x01, 0x00] + W.le16(connection) + [0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0xC6]
                + W.le16(24) + W.le16(0) + W.le16(400) + [0x00])
        // GATT discovery: characteristics by Read By Type (0x2803). 16-bit UUIDs first, then 128-bit ones.
        w.att(sent: true, [0x08] + W.le16(0x0001) + W.le16(0xFFFF) + W.le16(0x2803))
        w.att(sent: false, [0x09, 0x07] + W.le16(0x0002) + [0x02] + W.le16(unrelated) + W.le16(0x2A00))
        w.att(sent: true, [0x08] + W.le16(0x0010) + W.le16(0xFFFF) + W.le16(0x2803))
        // One 21-byte entry a response: with the default MTU of 23 there is room for one.
        w.att(sent: false, [0x09, 21] + W.le16(0x0011) + [0x1A] + W.le16(txRx) + txRxUUID)
        w.att(sent: true, [0x08] + W.le16(0x0012) + W.le16(0xFFFF) + W.le16(0x2803))
        w.att(sent: false, [0x09, 21] + W.le16(0x0014) + [0x08] + W.le16(password) + passwordUUID)
        // Find Information over the HState range: format 2 (128-bit).
        w.att(sent: true, [0x04] + W.le16(0x0017) + W.le16(0x0017))
        w.att(sent: false, [0x05, 0x02] + W.le16(hState) + hStateUUID)
        // Unrelated traffic: read the device name, the connection password, HState, notifications on.
        w.att(sent: true, [0x0A] + W.le16(unrelated))
        w.att(sent: false, [0x0B] + Array("YT-Touch 0001".utf8))
        w.att(sent: true, W.writeRequest(password, [0xC4, 0x4C]))
        w.att(sent: false, [0x13])
        w.att(sent: false, W.notification(hState, [0x34]))
        w.att(sent: true, W.writeRequest(txRxCCCD, [0x01, 0x00]))
        w.att(sent: false, [0x13])
        for (index, exchange) in try exchanges().enumerated() {
            if index == 6 {
                // MTU exchange: 247 both ways.
                w.att(sent: true, [0x02] + W.le16(247))
                w.att(sent: false, [0x03] + W.le16(247))
            }
            let chunks = BLECodec.chunks(BLECodec.stuff(exchange.frame), chunkSize: exchange.chunk)
            for (n, chunk) in chunks.enumerated() {
                if exchange.write {
                    // The DisplayMessage goes as Write Commands, the rest as Write Requests answered by 0x13.
                    if index == 2 {
                        w.att(sent: true, W.writeCommand(txRx, chunk))
                    } else {
                        w.att(sent: true, W.writeRequest(txRx, chunk))
                        w.att(sent: false, [0x13])
                    }
                } else if index == 3 {
                    // Its answer as an indication, confirmed by 0x1E.
                    w.att(sent: false, W.indication(txRx, chunk))
                    w.att(sent: true, [0x1E])
                } else if index == 1 && n == 2 {
                    // One 27-byte PDU cut in two ACL fragments although it would fit one.
                    w.att(sent: false, W.notification(txRx, chunk), cuts: [10])
                } else {
                    w.att(sent: false, W.notification(txRx, chunk))
                }
                if index == 1 && n == 4 {
                    // The battery level notified in the middle of the GetInfo answer: another handle.
                    w.att(sent: false, W.notification(0x0020, [0x57]))
                }
            }
        }
        // Disconnection Complete: remote user terminated the connection.
        w.event([0x05, 0x04, 0x00] + W.le16(connection) + [0x13])
        return w.bytes
    }
}
