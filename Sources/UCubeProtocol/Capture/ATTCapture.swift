/// The ATT traffic of a btsnoop capture (spec §3.5): HCI ACL packets, L2CAP PDUs reassembled across ACL fragments,
/// and on the ATT channel (CID 0x0004) the writes, notifications and indications, plus the GATT discovery answers
/// that name a characteristic's value handle. Pure: bytes in, values out.
///
/// Sources: Bluetooth Core Specification 5.x, Vol 4 Part E §5.4.2 (ACL data packets: handle, PB and BC flags,
/// length), Vol 3 Part A §3.1 (the L2CAP basic header: length, channel id), Vol 3 Part F §3.4 (ATT PDUs); BlueZ
/// `src/shared/btsnoop.h` (the Linux monitor opcodes).
package struct ATTCapture: Sendable {
    /// Who sent an HCI packet, as the capture saw it.
    package enum Direction: String, Sendable {
        /// Host to controller: what this machine sent.
        case sent
        /// Controller to host: what this machine received.
        case received
    }

    /// ATT opcodes this reader knows (Vol 3 Part F §3.4.8).
    package enum Opcode: UInt8, Sendable {
        case findInformationResponse = 0x05
        case readByTypeResponse = 0x09
        case writeRequest = 0x12
        case prepareWriteRequest = 0x16
        case executeWriteRequest = 0x18
        case handleValueNotification = 0x1B
        case handleValueIndication = 0x1D
        /// ATT_MULTIPLE_HANDLE_VALUE_NTF (Vol 3 Part F §3.4.7.4, Core 5.2 on): a list of handle (2), length (2) and
        /// value; BlueZ sends its notifications this way when it is the GATT server.
        case multipleHandleValueNotification = 0x23
        case writeCommand = 0x52
    }

    /// A value carried to or from an attribute handle: a write (client to server) or a notification or indication
    /// (server to client).
    package struct ValuePDU: Sendable, Equatable {
        /// The record whose ACL packet completed the PDU: for a PDU in several fragments, the last one, where tshark
        /// shows the reassembled PDU too.
        package let record: Int
        package let timestamp: UInt64
        /// The controller index (Linux monitor captures; 0 otherwise).
        package let adapter: UInt16
        /// The HCI connection handle.
        package let connection: UInt16
        package let direction: Direction
        /// 0x12, 0x52, 0x1B or 0x1D; 0x18 for the value of a prepared write, executed; 0x23 for one handle and value
        /// of a Multiple Handle Value Notification (one `ValuePDU` per pair, all with the record of that PDU).
        package let opcode: UInt8
        package let handle: UInt16
        package let value: [UInt8]

        /// A write from the client (the host, for a uCube Touch): 0x12, 0x52 or an executed prepared write.
        package var isWrite: Bool {
            opcode == Opcode.writeRequest.rawValue || opcode == Opcode.writeCommand.rawValue
                || opcode == Opcode.executeWriteRequest.rawValue
        }
    }

    /// A characteristic value handle the GATT discovery in the capture announced for a 128-bit UUID.
    package struct Discovered: Sendable, Hashable {
        package let adapter: UInt16
        package let connection: UInt16
        package let handle: UInt16
        /// The UUID as written on the wire: 16 bytes, little-endian.
        package let uuid: [UInt8]
        package let record: Int
    }

    /// A connection closed (HCI Disconnection Complete): what was pending on it is dropped, and a handle reused
    /// by a later connection starts afresh.
    package struct Disconnection: Sendable, Equatable {
        package let record: Int
        package let adapter: UInt16
        package let connection: UInt16
    }

    /// Every write, notification and indication, in capture order.
    package private(set) var values: [ValuePDU] = []
    /// Every Disconnection Complete event, in capture order.
    package private(set) var disconnections: [Disconnection] = []
    /// Every value handle announced by a Read By Type or Find Information response carrying a 128-bit UUID.
    package private(set) var discovered: [Discovered] = []
    /// HCI packets and ATT PDUs seen, for the summary.
    package private(set) var aclPackets = 0
    package private(set) var attPDUs = 0
    /// What was skipped, one sentence each.
    package private(set) var notes: [String] = []

    /// Keeps at most this many notes (a damaged capture could otherwise note every record).
    package static let maxNotes = 50
    /// Bytes a queue of prepared writes may hold on one connection: the largest attribute value is 512 bytes (Vol 3
    /// Part F §3.2.9); a few of them are allowed.
    package static let maxPreparedBytes = 8 * 512

    private struct StreamKey: Hashable {
        let adapter: UInt16
        let connection: UInt16
        let direction: Direction
    }

    private struct Pending {
        var bytes: [UInt8]
        let firstRecord: Int
    }

    private var pending: [StreamKey: Pending] = [:]
    private var prepared: [StreamKey: [(handle: UInt16, offset: Int, value: [UInt8])]] = [:]
    private var droppedNotes = 0

    /// Reads every record of `file`.
    package init(_ file: BTSnoopFile) {
        for record in file.records {
            read(record, datalink: file.datalink)
        }
        for (key, partial) in pending.sorted(by: { $0.value.firstRecord < $1.value.firstRecord }) {
            note(
                "record \(partial.firstRecord): an L2CAP PDU on connection \(Self.hex16(key.connection)) is incomplete at the end of the capture (\(partial.bytes.count) bytes)"
            )
        }
        pending = [:]
        if droppedNotes > 0 { notes.append("… and \(droppedNotes) more notes") }
    }

    /// The record's HCI ACL packet, if it is one: (adapter, direction, the ACL bytes from the handle on).
    static func aclPacket(_ record: BTSnoopFile.Record, datalink: BTSnoopFile.Datalink) -> (
        UInt16, Direction, ArraySlice<UInt8>
    )? {
        let data = record.data[...]
        switch datalink {
        case .h4:
            // Flags bit 0: 0 sent, 1 received. Type byte 0x02: ACL data.
            guard data.first == 0x02 else { return nil }
            return (0, record.flags & 1 == 0 ? .sent : .received, data.dropFirst())
        case .hci:
            // Flags bit 1: 1 command or event, 0 data (ACL; SCO is not told apart, and is never ATT).
            guard record.flags & 2 == 0 else { return nil }
            return (0, record.flags & 1 == 0 ? .sent : .received, data)
        case .monitor:
            // BlueZ btsnoop.h: opcode 4 ACL_TX_PKT, 5 ACL_RX_PKT; the controller index is the high 16 bits.
            let adapter = UInt16(truncatingIfNeeded: record.flags >> 16)
            switch record.flags & 0xFFFF {
            case 4: return (adapter, .sent, data)
            case 5: return (adapter, .received, data)
            default: return nil
            }
        }
    }

    /// The record's HCI event, if it is one: (adapter, the event bytes from the event code on).
    static func eventPacket(_ record: BTSnoopFile.Record, datalink: BTSnoopFile.Datalink) -> (
        UInt16, ArraySlice<UInt8>
    )? {
        let data = record.data[...]
        switch datalink {
        case .h4: return data.first == 0x04 ? (0, data.dropFirst()) : nil
        case .hci: return record.flags & 3 == 3 ? (0, data) : nil
        case .monitor: return record.flags & 0xFFFF == 3 ? (UInt16(truncatingIfNeeded: record.flags >> 16), data) : nil
        }
    }

    /// Disconnection Complete (event 0x05: status, handle, reason; Vol 4 Part E §7.7.5) ends what the connection had
    /// pending.
    private mutating func readEvent(_ event: ArraySlice<UInt8>, adapter: UInt16, record: BTSnoopFile.Record) {
        let start = event.startIndex
        guard event.count >= 6, event[start] == 0x05, event[start + 1] >= 4, event[start + 2] == 0x00 else { return }
        let connection = (UInt16(event[start + 3]) | UInt16(event[start + 4]) << 8) & 0x0FFF
        for direction in [Direction.sent, .received] {
            let key = StreamKey(adapter: adapter, connection: connection, direction: direction)
            if let partial = pending.removeValue(forKey: key) {
                note(
                    "record \(partial.firstRecord): an L2CAP PDU on connection \(Self.hex16(connection)) was still incomplete when it closed at record \(record.number) (\(partial.bytes.count) bytes dropped)"
                )
            }
            prepared[key] = nil
        }
        disconnections.append(Disconnection(record: record.number, adapter: adapter, connection: connection))
    }

    private mutating func read(_ record: BTSnoopFile.Record, datalink: BTSnoopFile.Datalink) {
        if let (adapter, event) = Self.eventPacket(record, datalink: datalink) {
            readEvent(event, adapter: adapter, record: record)
            return
        }
        guard let (adapter, direction, acl) = Self.aclPacket(record, datalink: datalink) else { return }
        aclPackets += 1
        if record.originalLength > record.data.count {
            note(
                "record \(record.number): the capture kept \(record.data.count) of its \(record.originalLength) bytes; skipped"
            )
            return
        }
        guard acl.count >= 4 else {
            note("record \(record.number): an ACL packet of \(acl.count) bytes has no complete header; skipped")
            return
        }
        let start = acl.startIndex
        let word = UInt16(acl[start]) | UInt16(acl[start + 1]) << 8
        let connection = word & 0x0FFF
        let boundary = (word >> 12) & 0x3
        let length = Int(UInt16(acl[start + 2]) | UInt16(acl[start + 3]) << 8)
        guard acl.count - 4 >= length else {
            note("record \(record.number): the ACL header announces \(length) bytes, \(acl.count - 4) follow; skipped")
            return
        }
        let fragment = acl[(start + 4)..<(start + 4 + length)]
        let key = StreamKey(adapter: adapter, connection: connection, direction: direction)
        // PB flag (Vol 4 Part E §5.4.2): 0b01 continues a PDU; 0b00, 0b10 (and the old 0b11) start one.
        if boundary == 0b01 {
            guard var partial = pending[key] else {
                note(
                    "record \(record.number): an ACL continuation on connection \(Self.hex16(connection)) with no PDU started; skipped"
                )
                return
            }
            partial.bytes.append(contentsOf: fragment)
            pending[key] = partial
        } else {
            if let partial = pending[key] {
                note(
                    "record \(partial.firstRecord): an L2CAP PDU on connection \(Self.hex16(connection)) was cut by a new one at record \(record.number) (\(partial.bytes.count) bytes dropped)"
                )
            }
            pending[key] = Pending(bytes: Array(fragment), firstRecord: record.number)
        }
        guard let partial = pending[key], partial.bytes.count >= 4 else { return }
        // The basic L2CAP header: payload length (2, little-endian), channel id (2). A PDU is at most 65 539 bytes,
        // so the buffer never grows past that before it completes.
        let needed = Int(UInt16(partial.bytes[0]) | UInt16(partial.bytes[1]) << 8) + 4
        guard partial.bytes.count >= needed else { return }
        pending[key] = nil
        if partial.bytes.count > needed {
            note(
                "record \(record.number): \(partial.bytes.count - needed) bytes after the L2CAP PDU's announced end; ignored"
            )
        }
        let channel = UInt16(partial.bytes[2]) | UInt16(partial.bytes[3]) << 8
        guard channel == 0x0004 else { return }
        attPDUs += 1
        readATT(partial.bytes[4..<needed], record: record, key: key)
    }

    private mutating func readATT(_ pdu: ArraySlice<UInt8>, record: BTSnoopFile.Record, key: StreamKey) {
        guard let first = pdu.first else {
            note("record \(record.number): an empty ATT PDU; skipped")
            return
        }
        let body = pdu.dropFirst()
        let at = body.startIndex
        func uint16(_ offset: Int) -> UInt16 { UInt16(body[at + offset]) | UInt16(body[at + offset + 1]) << 8 }
        switch Opcode(rawValue: first) {
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            guard body.count >= 2 else {
                note("record \(record.number): ATT opcode 0x\(Hex.encode([first])) without its handle; skipped")
                return
            }
            values.append(
                ValuePDU(
                    record: record.number, timestamp: record.timestamp, adapter: key.adapter,
                    connection: key.connection,
                    direction: key.direction, opcode: first, handle: uint16(0), value: Array(body.dropFirst(2))))
        case .multipleHandleValueNotification:
            // Pairs of handle (2), length (2, little-endian) and that many value bytes, to the end of the PDU. A pair
            // cut short ends the PDU: the pairs before it are kept.
            var index = body.startIndex
            while index < body.endIndex {
                guard body.endIndex - index >= 4 else {
                    note(
                        "record \(record.number): a Multiple Handle Value Notification ends in \(body.endIndex - index) bytes, too few for a handle and a length; skipped"
                    )
                    break
                }
                let handle = UInt16(body[index]) | UInt16(body[index + 1]) << 8
                let length = Int(UInt16(body[index + 2]) | UInt16(body[index + 3]) << 8)
                guard body.endIndex - index - 4 >= length else {
                    note(
                        "record \(record.number): a Multiple Handle Value Notification announces \(length) bytes for handle \(Self.hex16(handle)), \(body.endIndex - index - 4) follow; skipped"
                    )
                    break
                }
                values.append(
                    ValuePDU(
                        record: record.number, timestamp: record.timestamp, adapter: key.adapter,
                        connection: key.connection,
                        direction: key.direction, opcode: first, handle: handle,
                        value: Array(body[(index + 4)..<(index + 4 + length)])))
                index += 4 + length
            }
        case .prepareWriteRequest:
            guard body.count >= 4 else {
                note("record \(record.number): a Prepare Write Request without its handle and offset; skipped")
                return
            }
            var queue = prepared[key] ?? []
            let queued = queue.reduce(0) { $0 + $1.value.count } + body.count - 4
            guard queued <= Self.maxPreparedBytes else {
                note(
                    "record \(record.number): prepared writes past \(Self.maxPreparedBytes) bytes on connection \(Self.hex16(key.connection)); the queue is dropped"
                )
                prepared[key] = nil
                return
            }
            queue.append((uint16(0), Int(uint16(2)), Array(body.dropFirst(4))))
            prepared[key] = queue
        case .executeWriteRequest:
            let queue = prepared[key] ?? []
            prepared[key] = nil
            // Flags 0x01 writes the queue, 0x00 cancels it. Each handle's parts are joined in offset order.
            guard body.first == 0x01 else { return }
            var order: [UInt16] = []
            var parts: [UInt16: [(offset: Int, value: [UInt8])]] = [:]
            for item in queue {
                if parts[item.handle] == nil { order.append(item.handle) }
                parts[item.handle, default: []].append((item.offset, item.value))
            }
            for handle in order {
                var value: [UInt8] = []
                for part in parts[handle, default: []].sorted(by: { $0.offset < $1.offset }) {
                    guard part.offset <= value.count else {
                        note(
                            "record \(record.number): prepared writes to handle \(Self.hex16(handle)) leave a gap at offset \(value.count); skipped"
                        )
                        value = []
                        break
                    }
                    value.replaceSubrange(
                        part.offset..<min(value.count, part.offset + part.value.count), with: part.value)
                }
                guard !value.isEmpty else { continue }
                values.append(
                    ValuePDU(
                        record: record.number, timestamp: record.timestamp, adapter: key.adapter,
                        connection: key.connection,
                        direction: key.direction, opcode: first, handle: handle, value: value))
            }
        case .readByTypeResponse:
            // Length of each entry, then entries of handle (2) and value. A characteristic declaration's value is
            // properties (1), value handle (2) and the UUID: 21-byte entries carry a 128-bit UUID.
            guard let size = body.first, size == 21 else { return }
            let entries = body.dropFirst()
            var index = entries.startIndex
            while entries.endIndex - index >= 21 {
                let valueHandle = UInt16(entries[index + 3]) | UInt16(entries[index + 4]) << 8
                discovered.append(
                    Discovered(
                        adapter: key.adapter, connection: key.connection, handle: valueHandle,
                        uuid: Array(entries[(index + 5)..<(index + 21)]), record: record.number))
                index += 21
            }
        case .findInformationResponse:
            // Format 0x02: entries of handle (2) and 128-bit UUID (16).
            guard body.first == 0x02 else { return }
            let entries = body.dropFirst()
            var index = entries.startIndex
            while entries.endIndex - index >= 18 {
                let handle = UInt16(entries[index]) | UInt16(entries[index + 1]) << 8
                discovered.append(
                    Discovered(
                        adapter: key.adapter, connection: key.connection, handle: handle,
                        uuid: Array(entries[(index + 2)..<(index + 18)]), record: record.number))
                index += 18
            }
        case nil:
            return
        }
    }

    private mutating func note(_ text: String) {
        if notes.count < Self.maxNotes { notes.append(text) } else { droppedNotes += 1 }
    }

    static func hex16(_ value: UInt16) -> String { "0x" + Hex.encode([UInt8(value >> 8), UInt8(value & 0xFF)]) }

    /// A UUID string (`d1f4c2d0-f8c2-4565-9349-e0312effd1ee`) as ATT carries it: 16 bytes, little-endian. `nil`
    /// when it is not 32 hex digits.
    package static func wireUUID(_ text: String) -> [UInt8]? {
        guard let bytes = try? Hex.decode(text.replacingHyphens()), bytes.count == 16 else { return nil }
        return bytes.reversed()
    }
}

extension String {
    fileprivate func replacingHyphens() -> String { String(filter { $0 != "-" }) }
}
