import ArgumentParser
import UCubeProtocol

extension UCube {
    /// `ucube decode`: bytes from a log, a trace or a spec, shown decoded. Needs no terminal.
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Decode hex: an RPC frame, BER-TLV data, a status code or an NFC outcome.",
            discussion: """
                With --as auto (the default) a complete frame is decoded as a frame, then TLV is tried, then a \
                2-byte value is shown as a status and as an NFC outcome (DF72).
                """)

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case auto, frame, tlv, status, nfcOutcome = "nfc-outcome"
        }

        enum Context: String, ExpressibleByArgument, CaseIterable {
            case payment, getinfo
            var tagContext: TagContext { self == .payment ? .payment : .getInfo }
        }

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("Hex bytes (spaces allowed inside quotes).", valueName: "hex"))
        var hex: [String]

        @Option(name: .customLong("as"), help: "What the bytes are.")
        var kind: Kind = .auto

        @Option(help: "Tag context for TLV: payment (EMV) or getinfo (GetInfo tags C1…FD).")
        var context: Context = .payment

        func run() async throws {
            let bytes: [UInt8]
            do {
                bytes = try Hex.decode(hex.joined(separator: " "))
            } catch {
                throw CLIFailure(ExitCodes.usage, "\(error)")
            }
            guard !bytes.isEmpty else { throw CLIFailure(ExitCodes.usage, "nothing to decode") }
            let report = try Decoder(bytes: bytes, context: context.tagContext).decode(kind)
            if globals.json {
                try JSONOutput.print(report)
            } else {
                for line in report.lines { print(line) }
            }
        }
    }
}

/// What `decode` found, for both the human and the JSON output.
struct DecodeReport: Encodable {
    var kind: String
    var lines: [String]
    var frame: FrameJSON?
    var status: RPCOutput.StatusJSON?
    var nfcOutcome: String?

    struct FrameJSON: Encodable {
        let direction: String
        let sequence: Int
        let commandID: String
        let command: String?
        let length: Int
        let payload: [UInt8]?
        let status: RPCOutput.StatusJSON?
        let data: [UInt8]?
    }
}

private struct Decoder {
    let bytes: [UInt8]
    let context: TagContext

    func decode(_ kind: UCube.Decode.Kind) throws -> DecodeReport {
        switch kind {
        case .frame: return try frame()
        case .tlv: return try tlv()
        case .status: return try status()
        case .nfcOutcome: return try nfcOutcome()
        case .auto:
            // Bytes that start with STX and are long enough for a frame are judged as a frame: its error is the
            // useful one (a wrong CRC says more than "not TLV").
            if bytes.first == FrameLimits.stx && bytes.count >= FrameLimits.overhead { return try frame() }
            if let report = try? tlv() { return report }
            if bytes.count == 2 {
                var report = try status()
                if let nfc = try? nfcOutcome() {
                    report.lines += nfc.lines
                    report.nfcOutcome = nfc.nfcOutcome
                }
                return report
            }
            throw CLIFailure(ExitCodes.dataError, "the bytes are not a frame, not BER-TLV and not a 2-byte code; try --as")
        }
    }

    func frame() throws -> DecodeReport {
        var decoder = FrameDecoder()
        decoder.append(bytes)
        let raw: RawFrame
        do {
            guard let r = try decoder.next() else {
                throw CLIFailure(ExitCodes.dataError, "incomplete frame: \(bytes.count) bytes, the header announces more")
            }
            raw = r
        } catch let error as FrameError {
            throw CLIFailure(ExitCodes.dataError, "not a valid frame: \(error.reason)")
        }
        let idHex = Hex.encode([UInt8(raw.command.rawValue >> 8), UInt8(raw.command.rawValue & 0xFF)])
        let name = CommandCatalogue.descriptor(for: raw.command)?.name
        var lines = ["frame: STX, LEN \(raw.body.count), SEQ \(raw.sequence), CMD \(raw.command), CRC ok, ETX"]
        if decoder.bufferedCount > 0 { lines.append("(\(decoder.bufferedCount) bytes follow the frame)") }
        // A response starts its body with a known status and decodes with the command's response type.
        if raw.body.count >= 2, let response = try? ResponseFrame(raw: raw, secured: false),
            response.status.info != nil || raw.command == .unrecognised
        {
            lines.append("response, status \(response.status)\(response.status.info.map { " — " + $0.meaning } ?? "")")
            if !response.data.isEmpty {
                lines.append("data: \(Hex.encode(response.data, separator: " "))")
                if let decoded = try? CommandRegistry.decodeResponse(id: raw.command, status: response.status, data: response.data) {
                    lines += decoded.summary.map { "  " + $0 }
                } else if let tlvLines = TLVDisplay.lines(response.data, context: raw.command == .getInfo ? .getInfo : context) {
                    lines += tlvLines.map { "  " + $0 }
                }
            }
            return DecodeReport(
                kind: "frame", lines: lines,
                frame: .init(
                    direction: "response", sequence: Int(raw.sequence), commandID: idHex, command: name, length: raw.body.count,
                    payload: nil, status: .init(response.status), data: response.data))
        }
        lines.append("command\(name.map { " " + $0 } ?? ""), payload: \(Hex.encode(raw.body, separator: " "))")
        if let request = CommandRegistry.describeRequest(id: raw.command, payload: raw.body),
            let json = try? JSONOutput.encode(request, pretty: false)
        {
            lines.append("  \(json)")
        }
        return DecodeReport(
            kind: "frame", lines: lines,
            frame: .init(
                direction: "command", sequence: Int(raw.sequence), commandID: idHex, command: name, length: raw.body.count,
                payload: raw.body, status: nil, data: nil))
    }

    func tlv() throws -> DecodeReport {
        let nodes: [TLV]
        do {
            nodes = try TLVParser.parse(bytes, rules: .terminal)
        } catch {
            throw CLIFailure(ExitCodes.dataError, "not BER-TLV: \(error)")
        }
        return DecodeReport(kind: "tlv", lines: TagValueFormatter.describe(nodes, context: context, indent: 0))
    }

    func status() throws -> DecodeReport {
        guard bytes.count == 2 else { throw CLIFailure(ExitCodes.dataError, "a status is 2 bytes, got \(bytes.count)") }
        let s = Status(bytes: bytes[0], bytes[1])
        let line = "status \(s)" + (s.info.map { " — " + $0.meaning } ?? " (not in the status table)")
        return DecodeReport(kind: "status", lines: [line], status: .init(s))
    }

    func nfcOutcome() throws -> DecodeReport {
        guard bytes.count == 2 else { throw CLIFailure(ExitCodes.dataError, "an NFC outcome (DF72) is 2 bytes, got \(bytes.count)") }
        let text = TagValueFormatter.render(TLV(Tag(0xDF72), bytes), context: .payment)
        return DecodeReport(kind: "nfc-outcome", lines: ["NFC outcome: \(text)"], nfcOutcome: text)
    }
}
