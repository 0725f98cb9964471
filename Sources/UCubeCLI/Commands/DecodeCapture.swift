import Foundation
import UCubeBluetooth
import UCubeProtocol
import UCubeRuntime

/// `ucube decode --as btsnoop FILE`: the uCube frames of a Bluetooth HCI capture (spec §3.5), each decoded as a
/// `--trace` dump's frame is (`TraceDump.decode`: command name, sequence, security, status and meaning, TLV).
extension UCube.Decode {
    /// The largest capture read: the whole file is held in memory.
    static let maxCaptureSize = 256 << 20

    /// The capture to decode, when the input is one: `--as btsnoop` with a file (or standard input), or `--as auto`
    /// with one argument naming a file that starts with "btsnoop\0". `nil`: the input is hex or a trace dump.
    /// `settings`: whether stdin is a terminal, and whether this is the shell (whose input is its own).
    func captureInput(_ settings: CommandContext) throws -> (bytes: [UInt8], name: String)? {
        if kind == .btsnoop {
            guard hex.count <= 1 else {
                throw CLIFailure(ExitCodes.usage, "--as btsnoop reads one capture file, got \(hex.count) arguments")
            }
            if let path = hex.first, path != "-" { return (try Self.readCapture(path), path) }
            guard hex == ["-"] || !settings.stdinIsTerminal, settings.shell == nil else {
                throw CLIFailure(
                    ExitCodes.usage,
                    "give the capture file (ucube decode --as btsnoop FILE), or pipe it on standard input")
            }
            let data = try Self.readStandardInput(limit: Self.maxCaptureSize, what: "the capture")
            return ([UInt8](data), "standard input")
        }
        guard kind == .auto, hex.count == 1, let path = hex.first, Self.startsLikeCapture(path) else { return nil }
        return (try Self.readCapture(path), path)
    }

    /// Whether `path` is a regular file whose first bytes are the btsnoop magic.
    static func startsLikeCapture(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: BTSnoopFile.magic.count)) ?? Data()
        return BTSnoopFile.hasMagic([UInt8](head))
    }

    static func readCapture(_ path: String) throws -> [UInt8] {
        do {
            return [UInt8](try BoundedFile.read(path, limit: maxCaptureSize))
        } catch {
            switch error {
            case .unreadable(let why):
                throw CLIFailure(ExitCodes.usage, "cannot read \(path): \(why)")
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.dataError,
                    "\(path) is larger than \(BoundedFile.limitText(maxCaptureSize)): cut the capture first")
            }
        }
    }

    /// `--handle HEX` as a 16-bit ATT handle.
    static func attHandle(_ text: String?) throws -> UInt16? {
        guard let text else { return nil }
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.count <= 4, let value = UInt16(digits, radix: 16) else {
            throw CLIFailure(ExitCodes.usage, "--handle takes an ATT handle in hex (0x0001 … 0xFFFF), got '\(text)'")
        }
        return value
    }

    func runCapture(_ input: (bytes: [UInt8], name: String), json: Bool) throws {
        let report = try Self.captureReport(
            bytes: input.bytes, name: input.name, handle: try Self.attHandle(handle), context: context.tagContext,
            secured: secured)
        if json {
            // The frames' payload and data are raw bytes in decode's JSON, hex strings that `Masking.hex` masks and
            // the door masks again string by string: a timestamp, a number, is never touched.
            Console.outJSON(try JSONOutput.encode(report, versioned: true) + "\n")
            Console.noteResult()
        } else {
            for line in report.lines { print(line) }
        }
    }

    /// What `decode` shows for a capture: a summary, the notes, then each frame as a trace dump's frame.
    static func captureReport(
        bytes: [UInt8], name: String, handle: UInt16?, context: TagContext, secured: Bool
    ) throws -> CaptureReport {
        let file: BTSnoopFile
        do {
            file = try BTSnoopFile(bytes: bytes)
        } catch {
            throw CLIFailure(ExitCodes.dataError, "\(name): \(error.reason)")
        }
        let att = ATTCapture(file)
        // The UUID is BluetoothChoices' own string: one place for it (spec §3.1).
        let uuid = ATTCapture.wireUUID(BluetoothChoices.txRxUUID) ?? []
        let captured = CapturedFrames(att, txRxUUID: uuid, handle: handle)
        let entries = captured.frames.map {
            TraceDump.Entry(
                direction: $0.flow == .hostToTerminal ? .command : .response, bytes: $0.bytes, securedNote: nil)
        }
        let decoded = Self.decodeFrames(entries, context: context, secured: secured)
        let first = file.records.first?.timestamp ?? 0
        let frames = zip(captured.frames, decoded).map { frame, report in
            CaptureReport.Frame(
                record: frame.record, connection: Int(frame.connection), handle: Int(frame.handle),
                seconds: Double(frame.timestamp &- first) / 1_000_000,
                unixMicroseconds: frame.timestamp >= BTSnoopFile.unixEpochOffset
                    ? Int64(clamping: frame.timestamp - BTSnoopFile.unixEpochOffset) : nil,
                report: report)
        }
        return CaptureReport(
            datalink: file.datalink.name, records: file.records.count, aclPackets: att.aclPackets, attPDUs: att.attPDUs,
            att: att.values.map {
                .init(
                    record: $0.record, connection: Int($0.connection), opcode: Int($0.opcode), handle: Int($0.handle),
                    length: $0.value.count)
            },
            txRx: captured.txRx.map {
                .init(
                    connection: Int($0.connection), handle: Int($0.handle), source: $0.source.rawValue,
                    writes: $0.writes, notifications: $0.notifications)
            },
            notes: file.notes + att.notes + captured.notes, frames: frames)
    }

    /// Each frame decoded in order, the session followed as in a trace dump (`TraceDump.decode`); a frame that does
    /// not decode is shown as the reason, and the frames after it are decoded one by one.
    private static func decodeFrames(_ entries: [TraceDump.Entry], context: TagContext, secured: Bool) -> [DecodeReport]
    {
        if let all = try? TraceDump(entries: entries).decode(context: context, inSession: secured) { return all }
        return entries.map { entry in
            do {
                return try TraceDump(entries: [entry]).decode(context: context, inSession: secured)[0]
            } catch {
                let reason = (error as? CLIFailure)?.message ?? "\(error)"
                return DecodeReport(kind: "frame", lines: ["\(entry.direction == .command ? ">" : "<") \(reason)"])
            }
        }
    }
}

extension TraceDump {
    /// Frames that come from elsewhere than a dump's text (a capture).
    init(entries: [Entry]) {
        self.entries = entries
    }
}

/// `decode --as btsnoop`, for the human and the JSON output. ATT values are not listed: they are stuffed frame bytes,
/// where card data cannot be recognised and masked; the frames' data is shown through the masking decode.
struct CaptureReport: Encodable {
    let kind = "btsnoop"
    let datalink: String
    let records: Int
    let aclPackets: Int
    let attPDUs: Int
    /// Every ATT write, notification and indication: where, what and how long.
    let att: [ATT]
    let txRx: [TxRx]
    let notes: [String]
    let frames: [Frame]

    struct ATT: Encodable {
        let record: Int
        let connection: Int
        let opcode: Int
        let handle: Int
        let length: Int
    }

    struct TxRx: Encodable {
        let connection: Int
        let handle: Int
        let source: String
        let writes: Int
        let notifications: Int
    }

    /// A frame's decode report (the keys of `decode`'s own JSON) with where it was in the capture.
    struct Frame: Encodable {
        let record: Int
        let connection: Int
        let handle: Int
        /// Since the capture's first record.
        let seconds: Double
        let unixMicroseconds: Int64?
        let report: DecodeReport

        enum Keys: String, CodingKey {
            case record, connection, handle, seconds, unixMicroseconds
        }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(record, forKey: .record)
            try container.encode(connection, forKey: .connection)
            try container.encode(handle, forKey: .handle)
            try container.encode(seconds, forKey: .seconds)
            try container.encodeIfPresent(unixMicroseconds, forKey: .unixMicroseconds)
        }
    }

    enum CodingKeys: String, CodingKey {
        case kind, datalink, records, aclPackets, attPDUs, att, txRx, notes, frames
    }

    var lines: [String] {
        var lines = ["btsnoop capture, \(datalink): \(records) records, \(aclPackets) ACL packets, \(attPDUs) ATT PDUs"]
        if txRx.isEmpty {
            lines.append("no TxRx traffic found (give its ATT handle with --handle)")
        }
        for item in txRx {
            let why =
                switch item.source {
                case "option": "given by --handle"
                case "discovery": "announced by the GATT discovery in the capture"
                default: "its traffic decodes as uCube frames"
                }
            lines.append(
                "TxRx: handle \(Self.hex16(item.handle)) on connection \(Self.hex16(item.connection)) (\(why)): \(item.writes) writes, \(item.notifications) notifications"
            )
        }
        lines.append("\(frames.count) frames")
        lines += notes.map { "note: " + $0 }
        for frame in frames {
            lines.append("")
            lines.append(
                "record \(frame.record), \(String(format: "%.6f", frame.seconds)) s, handle \(Self.hex16(frame.handle))"
            )
            lines += frame.report.lines
        }
        return lines
    }

    static func hex16(_ value: Int) -> String {
        "0x" + Hex.encode([UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
