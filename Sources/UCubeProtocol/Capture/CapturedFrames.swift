/// The uCube frames of a capture's TxRx traffic (spec §3.5): the host's writes and the terminal's notifications are
/// two byte streams, each un-stuffed by `BLEReassembler` (spec §3.1) and cut into frames by `FrameDecoder` (spec §2.2).
///
/// PROJECT CHOICE (spec §3.5), which attribute handle is TxRx, per connection:
/// 1. the handle the caller names (`ucube decode --handle`), when it names one;
/// 2. else the value handle that the capture's own GATT discovery (a Read By Type or Find Information response)
///    announced for the TxRx UUID on that connection;
/// 3. else every handle of that connection whose writes or notifications yield at least one uCube frame (STX, LEN,
///    CRC and ETX right after un-stuffing).
package struct CapturedFrames: Sendable {
    /// How a TxRx handle was chosen.
    package enum Source: String, Sendable {
        /// Named by the caller.
        case option
        /// Announced by the GATT discovery in the capture.
        case discovery
        /// Its traffic decodes as uCube frames.
        case frames
    }

    /// A handle read as TxRx on one connection.
    package struct TxRx: Sendable, Hashable {
        package let adapter: UInt16
        package let connection: UInt16
        package let handle: UInt16
        package let source: Source
        /// The ATT writes and notifications (or indications) on it.
        package var writes = 0
        package var notifications = 0
    }

    /// Who sent a frame: a write carries a command from the host, a notification an answer from the terminal.
    package enum Flow: String, Sendable {
        case hostToTerminal
        case terminalToHost
    }

    package struct Frame: Sendable {
        /// The record of the ATT PDU that ended the frame's BLE message.
        package let record: Int
        package let timestamp: UInt64
        package let connection: UInt16
        package let handle: UInt16
        package let flow: Flow
        /// The frame as the RPC layer sees it: STX … ETX, un-stuffed.
        package let bytes: [UInt8]
    }

    package let txRx: [TxRx]
    /// Every frame, in capture order.
    package let frames: [Frame]
    package let notes: [String]

    private struct Key: Hashable, Comparable {
        let adapter: UInt16
        let connection: UInt16
        let handle: UInt16
        static func < (a: Key, b: Key) -> Bool {
            (a.adapter, a.connection, a.handle) < (b.adapter, b.connection, b.handle)
        }
    }

    private struct Connection: Hashable {
        let adapter: UInt16
        let connection: UInt16
    }

    /// - Parameters:
    ///   - txRxUUID: the TxRx characteristic's UUID as ATT carries it (16 bytes, little-endian).
    ///   - handle: the handle to read as TxRx on every connection, overriding the rest of the choice.
    package init(_ capture: ATTCapture, txRxUUID: [UInt8], handle: UInt16? = nil) {
        var notes: [String] = []
        var chosen: [Key: Source] = [:]
        let keys = Set(capture.values.map { Key(adapter: $0.adapter, connection: $0.connection, handle: $0.handle) })
        if let handle {
            for key in keys where key.handle == handle { chosen[key] = .option }
            if chosen.isEmpty { notes.append("no ATT write or notification on handle \(ATTCapture.hex16(handle))") }
        } else {
            var announced: Set<Connection> = []
            for found in capture.discovered where found.uuid == txRxUUID {
                announced.insert(Connection(adapter: found.adapter, connection: found.connection))
                chosen[Key(adapter: found.adapter, connection: found.connection, handle: found.handle)] = .discovery
            }
            // Each handle is tried on its own values only: a capture is read once per handle, not once per handle
            // over every value.
            var byKey: [Key: [ATTCapture.ValuePDU]] = [:]
            for value in capture.values {
                byKey[Key(adapter: value.adapter, connection: value.connection, handle: value.handle), default: []]
                    .append(value)
            }
            for key in keys.sorted()
            where !announced.contains(Connection(adapter: key.adapter, connection: key.connection)) {
                let trial = Self.decode(byKey[key] ?? [], closing: capture.disconnections, keys: [key: .frames])
                if !trial.frames.isEmpty { chosen[key] = .frames }
            }
        }
        let decoded = Self.decode(capture.values, closing: capture.disconnections, keys: chosen)
        txRx = decoded.txRx
        frames = decoded.frames
        self.notes = notes + decoded.notes
    }

    /// Reassembles the frames on the chosen handles. A disconnection drops what its connection's streams held.
    private static func decode(
        _ values: [ATTCapture.ValuePDU], closing: [ATTCapture.Disconnection], keys: [Key: Source]
    ) -> (txRx: [TxRx], frames: [Frame], notes: [String]) {
        struct Stream {
            var reassembler = BLEReassembler()
            var decoder = FrameDecoder()
        }
        var streams: [Key: (writes: Stream, notifications: Stream)] = [:]
        var txRx: [Key: TxRx] = [:]
        for (key, source) in keys {
            txRx[key] = TxRx(adapter: key.adapter, connection: key.connection, handle: key.handle, source: source)
            streams[key] = (Stream(), Stream())
        }
        var frames: [Frame] = []
        var notes: [String] = []
        var nextClosing = 0
        func close(before record: Int) {
            while nextClosing < closing.count && closing[nextClosing].record < record {
                let closed = closing[nextClosing]
                nextClosing += 1
                for (key, pair) in streams where key.adapter == closed.adapter && key.connection == closed.connection {
                    for (stream, what) in [(pair.writes, "written"), (pair.notifications, "notified")]
                    where stream.reassembler.bufferedCount > 0 {
                        notes.append(
                            "record \(closed.record): \(stream.reassembler.bufferedCount) bytes \(what) on handle \(ATTCapture.hex16(key.handle)) had no end-of-message marker when the connection closed"
                        )
                    }
                    streams[key] = (Stream(), Stream())
                }
            }
        }
        for value in values {
            close(before: value.record)
            let key = Key(adapter: value.adapter, connection: value.connection, handle: value.handle)
            guard var pair = streams[key] else { continue }
            let flow: Flow = value.isWrite ? .hostToTerminal : .terminalToHost
            if value.isWrite { txRx[key]?.writes += 1 } else { txRx[key]?.notifications += 1 }
            var stream = value.isWrite ? pair.writes : pair.notifications
            let messages: [[UInt8]]
            do {
                messages = try stream.reassembler.append(value.value)
            } catch {
                notes.append("record \(value.record): \(error.reason); the partial message is dropped")
                messages = []
            }
            for message in messages {
                // Garbage skipped before an STX; the bytes of a rejected frame are told by its own note.
                var skipped = 0
                stream.decoder.append(message)
                while true {
                    let discarded = stream.decoder.discardedBytes
                    do {
                        let next = try stream.decoder.next()
                        skipped += stream.decoder.discardedBytes - discarded
                        guard let raw = next else { break }
                        guard let bytes = try? raw.encoded() else { continue }
                        frames.append(
                            Frame(
                                record: value.record, timestamp: value.timestamp, connection: value.connection,
                                handle: value.handle, flow: flow, bytes: bytes))
                    } catch {
                        notes.append(
                            "record \(value.record): a frame \(flow == .hostToTerminal ? "written" : "notified") on handle \(ATTCapture.hex16(value.handle)) is not valid: \(error.reason)"
                        )
                    }
                }
                // A BLE message is one frame (spec §3.1): what it holds besides the frame is not carried forward.
                if stream.decoder.bufferedCount > 0 {
                    notes.append(
                        "record \(value.record): \(stream.decoder.bufferedCount) bytes of an incomplete frame end a BLE message; dropped"
                    )
                    stream.decoder.reset()
                }
                if skipped > 0 {
                    notes.append("record \(value.record): \(skipped) bytes before STX in a BLE message; skipped")
                }
            }
            if value.isWrite { pair.writes = stream } else { pair.notifications = stream }
            streams[key] = pair
        }
        close(before: Int.max)
        for (key, pair) in streams.sorted(by: { $0.key < $1.key }) {
            for (stream, what) in [(pair.writes, "written"), (pair.notifications, "notified")]
            where stream.reassembler.bufferedCount > 0 {
                notes.append(
                    "\(stream.reassembler.bufferedCount) bytes \(what) on handle \(ATTCapture.hex16(key.handle)) have no end-of-message marker at the end of the capture"
                )
            }
        }
        return (
            txRx.values.sorted {
                Key(adapter: $0.adapter, connection: $0.connection, handle: $0.handle)
                    < Key(adapter: $1.adapter, connection: $1.connection, handle: $1.handle)
            }, frames, notes
        )
    }
}
