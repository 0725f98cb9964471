import ArgumentParser
import Foundation
import UCubeLink
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

extension UCube {
    /// `ucube decode`: bytes from a log, a trace or a spec, shown decoded. Needs no terminal.
    struct Decode: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract:
                "Decode hex: an RPC frame, BER-TLV data, a status code or an NFC outcome; or a --trace dump, a recording or a btsnoop capture.",
            discussion: """
                With --as auto (the default) a complete frame is decoded as a frame, then TLV is tried, then a \
                2-byte value is shown as a status and as an NFC outcome (DF72). A frame is taken for an answer when \
                its first two bytes after the header are a known status, else for a command.

                --secured says the frame was exchanged inside a secure session (spec §2.3): a command whose input \
                mode is not NONE carries a crypto header before its payload and a 4-byte MAC after it; an answer \
                whose output mode is not NONE carries a crypto header before its status (and a MAC after data). \
                Commands of mode NONE, and ExitSecureSession, travel plain in a session too.

                Without HEX, the text is read from standard input. Lines of a --trace dump (`> 02 00 …` sent, \
                `< 02 00 …` received) are decoded one frame each, in order, their direction taken from the arrow and \
                their layout from the `secured crypto=… MAC=…` note under the frame; an EnterSecureSession \
                answered with success (and --secured) starts the session for the frames that follow. A recording \
                (`--record FILE`, docs/recording.md) on standard input is decoded the same way: every frame of every \
                link, its direction and layout as recorded. A dump or a recording is decoded as it is read: each frame \
                is shown as soon as its line has come (with --json, one array written element by element), so memory \
                stays flat whatever the input's size; a bad line or frame stops with exit 65 after the frames before \
                it (a JSON array is closed first, and the error is on stderr). Standard input or a file is read up to \
                64 MiB (a capture up to 256 MiB), as much as a recording may hold: more is refused with exit 65, \
                without waiting for its end.

                EMV data objects are explained below their value, bit by bit or field by field, as emv-decode does: \
                TVR (95), TSI (9B), CVM list (8E), CVM results (9F34), AIP (82), AUC (9F07), CID (9F27), terminal \
                capabilities (9F33, 9F40), terminal type (9F35), TTQ (9F66), CTQ (9F6C), issuer application data \
                (9F10, Visa and Mastercard layouts), terminal risk management data (9F1D), the NFC outcome (DF72), \
                amounts with their currency, dates, and country, currency and language codes. Each table names its \
                source (EMV 4.4 Books 3 and 4, the contactless kernel books, the scheme IAD layouts); --json gives \
                them as `explanations`.

                --as btsnoop FILE reads a Bluetooth HCI capture (btsnoop: `btmon -w`, Android's HCI snoop log; \
                datalinks 1001, 1002 and 2001) of uCube Touch traffic; with --as auto, a file argument that starts \
                with "btsnoop" is read as a capture too. The host's writes and the terminal's notifications on TxRx \
                are un-stuffed (spec §3.1) and each frame is decoded as in a --trace dump. TxRx is the handle given \
                by --handle, else the one the capture's GATT discovery announces, else every handle whose traffic \
                decodes as uCube frames.
                """ + HelpExamples.section("decode"))

        enum Kind: String, ExpressibleByArgument, CaseIterable {
            case auto, frame, tlv, status, nfcOutcome = "nfc-outcome"
            /// A Bluetooth HCI capture file (DecodeCapture.swift).
            case btsnoop
        }

        enum Context: String, ExpressibleByArgument, CaseIterable {
            case payment, getinfo
            var tagContext: TagContext { self == .payment ? .payment : .getInfo }
        }

        @OptionGroup var globals: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "Hex bytes (spaces allowed inside quotes), or a file: a recording, a --trace dump or a btsnoop capture; standard input when absent or `-`.",
                valueName: "hex"))
        var hex: [String] = []

        @Option(name: .customLong("as"), help: "What the bytes are.")
        var kind: Kind = .auto

        @Option(help: "Tag context for TLV: payment (EMV) or getinfo (GetInfo tags C1…FD).")
        var context: Context = .payment

        @Flag(help: "The frame was exchanged inside a secure session (spec §2.3): read its crypto header and MAC.")
        var secured = false

        @Option(help: ArgumentHelp("With a btsnoop capture: the ATT handle of TxRx, in hex.", valueName: "hex"))
        var handle: String?

        func run(in settings: CommandContext) async throws {
            if let capture = try captureInput(settings) {
                try runCapture(capture, json: settings.json)
                return
            }
            let lines = try input(settings)
            var stream = DecodeStream(
                output: ReportOutput(json: settings.json), context: context.tagContext, secured: secured)
            do {
                while let line = try lines.next() { try stream.read(line) }
                guard let hex = try stream.finish() else { return }
                let report = try Self.hexReport(for: hex, kind: kind, context: context.tagContext, secured: secured)
                if settings.json {
                    try JSONOutput.print(report)
                } else {
                    for line in report.lines { print(line) }
                }
            } catch {
                // The frames shown so far stay shown; a JSON array is closed, so stdout stays one document.
                stream.abandon()
                throw error
            }
        }

        /// What `decode` shows for `text`: a report per frame of a `--trace` dump or a recording (`isTrace`), else
        /// one report for the hex, decoded as `kind` says. `run` streams the same decoding line by line.
        static func reports(
            for text: String, kind: Kind, context: TagContext, secured: Bool
        ) throws -> (reports: [DecodeReport], isTrace: Bool) {
            let output = ReportOutput.collecting()
            var stream = DecodeStream(output: output, context: context, secured: secured)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) { try stream.read(String(line)) }
            if let hex = try stream.finish() {
                return ([try hexReport(for: hex, kind: kind, context: context, secured: secured)], false)
            }
            return (output.collected, true)
        }

        /// What `decode` shows for hex that is not a `--trace` dump.
        static func hexReport(for text: String, kind: Kind, context: TagContext, secured: Bool) throws -> DecodeReport {
            let bytes: [UInt8]
            do {
                bytes = try Hex.decode(text.split(whereSeparator: \.isNewline).joined(separator: " "))
            } catch {
                throw CLIFailure(ExitCodes.usage, "\(error)")
            }
            guard !bytes.isEmpty else { throw CLIFailure(ExitCodes.usage, "nothing to decode") }
            return try Decoder(bytes: bytes, context: context, inSession: secured).decode(kind)
        }

        /// The lines to decode: the arguments, a file named by the one argument, or standard input when there are
        /// none (not in the shell: its input is the shell's). A file and standard input are read as the decoding
        /// goes, never past `maxTextSize`. `settings`: whether stdin is a terminal, and whether this is the shell.
        private func input(_ settings: CommandContext) throws -> InputLines {
            // `-` is standard input, as for any Unix tool.
            let stdin = hex.isEmpty || hex == ["-"]
            // One argument naming a file that is not hex itself: a recording or a --trace dump saved to a file.
            if hex.count == 1, let path = hex.first, path != "-", Self.namesATextFile(path) {
                do {
                    return InputLines(file: try BoundedFile.open(path, limit: Self.maxTextSize), name: path)
                } catch {
                    switch error {
                    case .unreadable(let why): throw CLIFailure(ExitCodes.usage, "cannot read \(path): \(why)")
                    case .tooLarge:
                        throw CLIFailure(
                            ExitCodes.dataError, "\(path) is larger than \(BoundedFile.limitText(Self.maxTextSize))")
                    }
                }
            }
            // One argument that is a path, not hex (a "/" or a "."), naming no file: say so, not "invalid hex".
            if hex.count == 1, let path = hex.first, path.contains("/") || path.contains("."),
                !Self.namesATextFile(path)
            {
                let why = FileManager.default.fileExists(atPath: path) ? "not a regular file" : "no such file"
                throw CLIFailure(ExitCodes.usage, "cannot read \(path): \(why)")
            }
            if !stdin { return InputLines(arguments: hex) }
            guard hex == ["-"] || !settings.stdinIsTerminal, settings.shell == nil else {
                throw CLIFailure(
                    ExitCodes.usage, "give the hex to decode, or pipe it (or a --trace dump) on standard input")
            }
            return InputLines(standardInput: ())
        }

        /// Whether `argument` is read as a file: it names an existing regular file and is not itself hex (a file named
        /// "9000" beside a status to decode is not taken for it).
        static func namesATextFile(_ argument: String) -> Bool {
            let hexDigits = Set("0123456789abcdefABCDEF \t")
            if argument.allSatisfy({ hexDigits.contains($0) }) { return false }
            return FileStatus.isRegularFile(argument)
        }

        /// The largest text read from standard input: a recording's own limit, which a --trace dump never nears.
        static let maxTextSize = Recording.maximumSize

        /// Standard input, refused (exit 65) as soon as it passes `limit`.
        static func readStandardInput(limit: Int, what: String) throws -> Data {
            do {
                return try BoundedFile.readStandardInput(limit: limit)
            } catch {
                switch error {
                case .unreadable(let why):
                    throw CLIFailure(ExitCodes.ioError, "cannot read standard input: \(why)")
                case .tooLarge:
                    throw CLIFailure(
                        ExitCodes.dataError, "\(what) on standard input is larger than \(BoundedFile.limitText(limit))")
                }
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
    /// The EMV data objects `Explainer` explains (TVR, CVM list, IAD …), each with its explanation and source.
    var explanations: [ExplainedField]?

    struct FrameJSON: Encodable {
        let direction: String
        let sequence: Int
        let commandID: String
        let command: String?
        let length: Int
        /// In the SECURED layout (spec §2.3): the crypto header and MAC are not payload or data.
        let secured: Bool
        let cryptoHeader: [UInt8]?
        let mac: [UInt8]?
        let payload: [UInt8]?
        let status: RPCOutput.StatusJSON?
        let data: [UInt8]?
    }
}

/// Who sent a frame: the host (a command) or the terminal (an answer).
enum FrameDirection: Equatable {
    case command, response
}

/// How a frame's body is laid out (spec §2.3).
enum FrameLayout: Equatable {
    /// The READY layout.
    case plain
    /// Inside a secure session: secured or plain as the command's security modes say (`LinkRules`).
    case inSession
    /// The SECURED layout, as a trace note says.
    case secured

    /// Whether a command with this id and body is wrapped in a crypto header and MAC.
    func wrapsCommand(_ id: CommandID, body: [UInt8]) -> Bool {
        switch self {
        case .plain: false
        case .secured: true
        case .inSession:
            LinkRules(secured: true).wraps(id, payload: body, inputMode: CommandCatalogue.modes(for: id).input)
        }
    }

    /// Whether an answer with this id comes in the SECURED layout.
    func securesResponse(_ id: CommandID) -> Bool {
        switch self {
        case .plain: false
        case .secured: id != .unrecognised
        case .inSession:
            LinkRules(secured: true).expectsSecuredResponse(id, outputMode: CommandCatalogue.modes(for: id).output)
        }
    }
}

/// The frames of a `--trace` dump (`TracePrinter`): `> HEX` sent, `< HEX` received, each followed by a note
/// `  SEQ … CMD … LEN …[ secured crypto=XX MAC=XXXXXXXX]`. Other lines (BLE, errors) are skipped.
struct TraceDump {
    struct Entry {
        let direction: FrameDirection
        let bytes: [UInt8]
        /// From the note under the frame: `true` secured, `false` plain, `nil` no note.
        let securedNote: Bool?
    }

    let entries: [Entry]

    /// The frames of every link of a recording (docs/recording.md), each with the layout the recorder noted.
    init(recording: Recording) {
        entries = recording.links.flatMap(\.frames).compactMap(Entry.init)
    }

    /// `nil` when `text` has no frame line: it is not a trace.
    init?(_ text: String) {
        var reader = TraceLineReader()
        var entries: [Entry] = []
        for line in text.split(separator: "\n") {
            entries += reader.read(line)
        }
        if let last = reader.finish() { entries.append(last) }
        guard reader.sawFrame else { return nil }
        self.entries = entries
    }

    /// Decodes every frame in order (`TraceDecoder`).
    func decode(context: TagContext, inSession: Bool) throws -> [DecodeReport] {
        var decoder = TraceDecoder(context: context, inSession: inSession)
        return try entries.map { try decoder.decode($0) }
    }
}

/// The frames of `--trace` dump text, one line at a time: a frame line is held until the next line says whether it
/// is its note. Lines are split at any newline and trimmed; other lines (BLE, errors) are skipped.
struct TraceLineReader {
    private var pending: (direction: FrameDirection, bytes: [UInt8])?
    /// A frame line was read: the text is a trace.
    private(set) var sawFrame = false

    /// The entries that `line` completes (the frame before it, now that its note is known), in order.
    mutating func read(_ line: Substring) -> [TraceDump.Entry] {
        var done: [TraceDump.Entry] = []
        for part in line.split(whereSeparator: \.isNewline) {
            // Trimmed in Swift, not through Foundation's NSString: a long dump has thousands of lines.
            var trimmed = part.drop(while: \.isWhitespace)
            while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
            if let entry = readTrimmed(trimmed) { done.append(entry) }
        }
        return done
    }

    private mutating func readTrimmed(_ line: Substring) -> TraceDump.Entry? {
        var done: TraceDump.Entry? = nil
        if let frame = pending {
            let note: Bool? = line.hasPrefix("SEQ ") ? line.contains(" secured crypto=") : nil
            done = TraceDump.Entry(direction: frame.direction, bytes: frame.bytes, securedNote: note)
            pending = nil
        }
        if let arrow = line.first, arrow == ">" || arrow == "<",
            let bytes = try? Hex.decode(String(line.dropFirst())), !bytes.isEmpty
        {
            pending = (arrow == ">" ? .command : .response, bytes)
            sawFrame = true
        }
        return done
    }

    /// The last frame, at the end of the text (it has no note).
    mutating func finish() -> TraceDump.Entry? {
        defer { pending = nil }
        return pending.map { TraceDump.Entry(direction: $0.direction, bytes: $0.bytes, securedNote: nil) }
    }
}

/// Decodes the frames of a dump or a recording one at a time, in order. A note decides a frame's layout; without
/// one, the session decides: open with `inSession`, opened by an EnterSecureSession answered 0 or by a secured
/// command, closed by ExitSecureSession answered 0 (`LinkRules.responseReceived`).
struct TraceDecoder {
    let context: TagContext
    private var rules: LinkRules

    init(context: TagContext, inSession: Bool) {
        self.context = context
        rules = LinkRules(secured: inSession)
    }

    mutating func decode(_ entry: TraceDump.Entry) throws -> DecodeReport {
        let layout: FrameLayout =
            switch (entry.direction, entry.securedNote) {
            case (_, true?): .secured
            // Sent frames are always noted; received ones only when secured (older dumps: never).
            case (.command, false?): .plain
            default: rules.secured ? .inSession : .plain
            }
        if entry.direction == .command && layout == .secured && !rules.secured { rules = LinkRules(secured: true) }
        var report = try Decoder(bytes: entry.bytes, context: context, inSession: false).frame(
            direction: entry.direction, layout: layout)
        report.lines = report.lines.enumerated().map {
            ($0.offset == 0 ? (entry.direction == .command ? "> " : "< ") : "  ") + $0.element
        }
        if entry.direction == .response, let status = report.frame?.status {
            let id = CommandID(UInt16(entry.bytes[4]) << 8 | UInt16(entry.bytes[5]))
            rules.responseReceived(id, status: Status(Int16(status.value)))
        }
        return report
    }
}

private struct Decoder {
    let bytes: [UInt8]
    let context: TagContext
    /// `--secured`: the bytes were exchanged inside a secure session.
    let inSession: Bool

    func decode(_ kind: UCube.Decode.Kind) throws -> DecodeReport {
        switch kind {
        case .frame: return try frame()
        case .tlv: return try tlv()
        case .status: return try status()
        case .nfcOutcome: return try nfcOutcome()
        case .btsnoop:
            throw CLIFailure(ExitCodes.usage, "--as btsnoop reads a capture file: ucube decode --as btsnoop FILE")
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
                    report.explanations = nfc.explanations
                }
                return report
            }
            throw CLIFailure(
                ExitCodes.dataError, "the bytes are not a frame, not BER-TLV and not a 2-byte code; try --as")
        }
    }

    /// One frame. `direction` nil: an answer when its status is known, else a command (as for plain frames).
    func frame(direction: FrameDirection? = nil, layout: FrameLayout? = nil) throws -> DecodeReport {
        let layout = layout ?? (inSession ? .inSession : .plain)
        var decoder = FrameDecoder()
        decoder.append(bytes)
        let raw: RawFrame
        do {
            guard let r = try decoder.next() else {
                throw CLIFailure(
                    ExitCodes.dataError, "incomplete frame: \(bytes.count) bytes, the header announces more")
            }
            raw = r
        } catch let error as FrameError {
            throw CLIFailure(ExitCodes.dataError, "not a valid frame: \(error.reason)")
        }
        var header = ["frame: STX, LEN \(raw.body.count), SEQ \(raw.sequence), CMD \(raw.command), CRC ok, ETX"]
        if decoder.bufferedCount > 0 { header.append("(\(decoder.bufferedCount) bytes follow the frame)") }
        // A response starts its body with a known status and decodes with the command's response type.
        if direction != .command {
            let secured = layout.securesResponse(raw.command)
            do {
                let answer = try ResponseFrame(raw: raw, secured: secured)
                if direction == .response || answer.status.info != nil || raw.command == .unrecognised {
                    return response(answer, raw: raw, header: header)
                }
            } catch {
                if direction == .response {
                    throw CLIFailure(ExitCodes.dataError, "not a valid answer: \(error.reason)")
                }
            }
        }
        let command: CommandFrame
        do {
            command = try CommandFrame(raw: raw, secured: layout.wrapsCommand(raw.command, body: raw.body))
        } catch {
            throw CLIFailure(ExitCodes.dataError, "not a valid command: \(error.reason)")
        }
        return self.command(command, raw: raw, header: header, layout: layout)
    }

    private func command(_ frame: CommandFrame, raw: RawFrame, header: [String], layout: FrameLayout) -> DecodeReport {
        let name = CommandCatalogue.descriptor(for: raw.command)?.name
        var lines = header + Self.envelopeLines(frame.envelope)
        lines.append("command\(name.map { " " + $0 } ?? ""), payload: \(Masking.hex(frame.payload, separator: " "))")
        if let request = CommandRegistry.describeRequest(id: raw.command, payload: frame.payload),
            let json = try? JSONOutput.encode(request, pretty: false)
        {
            lines.append("  \(json)")
            // The fields give the amount in minor units: with the currency the command carries, as money too.
            if let nodes = Self.tlvNodes(frame.payload) {
                lines += TagValueFormatter.amountLines(nodes, context: context).map { "  " + $0 }
            }
        }
        if layout == .plain, Self.looksSecured(raw) {
            lines.append(
                "(sent in a secure session? --secured reads \(Hex.encode([raw.body[0]])) as its crypto header and the last 4 bytes as its MAC)"
            )
        }
        return DecodeReport(
            kind: "frame", lines: lines,
            frame: .init(
                direction: "command", sequence: Int(raw.sequence), commandID: Self.idHex(raw.command), command: name,
                length: raw.body.count, secured: frame.envelope != nil,
                cryptoHeader: frame.envelope.map { [$0.cryptoHeader] },
                mac: frame.envelope?.mac, payload: frame.payload, status: nil, data: nil))
    }

    private func response(_ response: ResponseFrame, raw: RawFrame, header: [String]) -> DecodeReport {
        let name = CommandCatalogue.descriptor(for: raw.command)?.name
        var lines = header + Self.envelopeLines(response.envelope)
        var explanations: [ExplainedField]? = nil
        lines.append("response, status \(response.status)\(response.status.info.map { " — " + $0.meaning } ?? "")")
        if !response.data.isEmpty {
            lines.append("data: \(Masking.hex(response.data, separator: " "))")
            // SIGNED_CIPHERED data is ciphertext only the HSM side can read (spec §2.3).
            if response.envelope != nil && CommandCatalogue.modes(for: raw.command).output == .signedCiphered {
                lines.append("  (ciphered: SIGNED_CIPHERED data)")
            } else if let decoded = try? CommandRegistry.decodeResponse(
                id: raw.command, status: response.status, data: response.data)
            {
                lines += ResponseLines.of(decoded).map { "  " + $0 }
                // The summary names the tags; their explanations follow it.
                if let nodes = Self.tlvNodes(response.data) {
                    let fields = Explainer.fields(nodes, context: raw.command == .getInfo ? .getInfo : context)
                    if !fields.isEmpty {
                        lines.append("  explained:")
                        lines += fields.displayLines.map { "    " + $0 }
                        explanations = fields
                    }
                }
            } else if let nodes = Self.tlvNodes(response.data) {
                let tlvContext = raw.command == .getInfo ? TagContext.getInfo : context
                lines += TagValueFormatter.describe(nodes, context: tlvContext, explain: true).map { "  " + $0 }
                explanations = Explainer.fields(nodes, context: tlvContext)
            }
        }
        return DecodeReport(
            kind: "frame", lines: lines,
            frame: .init(
                direction: "response", sequence: Int(raw.sequence), commandID: Self.idHex(raw.command), command: name,
                length: raw.body.count, secured: response.envelope != nil,
                cryptoHeader: response.envelope.map { [$0.cryptoHeader] }, mac: response.envelope?.mac, payload: nil,
                status: .init(response.status), data: response.data),
            explanations: explanations.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The TLV objects of a response's data, or nil when it is not TLV.
    private static func tlvNodes(_ bytes: [UInt8]) -> [TLV]? {
        guard !bytes.isEmpty else { return nil }
        return try? TLVParser.parse(bytes, rules: .terminal)
    }

    private static func envelopeLines(_ envelope: SecuredEnvelope?) -> [String] {
        guard let envelope else { return [] }
        let mac = envelope.mac.isEmpty ? "no MAC (no data)" : "MAC \(Hex.encode(envelope.mac, separator: " "))"
        return ["secured: crypto header \(Hex.encode([envelope.cryptoHeader])), \(mac)"]
    }

    /// A plain reading of what may be a secured command: the SDK's crypto header 0x7F first, room for a MAC, and
    /// a command that is wrapped in a session.
    private static func looksSecured(_ raw: RawFrame) -> Bool {
        raw.body.count >= FrameLimits.cryptoHeaderSize + FrameLimits.macSize
            && raw.body[0] == FrameLimits.defaultCryptoHeader
            && FrameLayout.inSession.wrapsCommand(raw.command, body: raw.body)
    }

    private static func idHex(_ id: CommandID) -> String {
        Hex.encode([UInt8(id.rawValue >> 8), UInt8(id.rawValue & 0xFF)])
    }

    func tlv() throws -> DecodeReport {
        let nodes: [TLV]
        do {
            nodes = try TLVParser.parse(bytes, rules: .terminal)
        } catch {
            throw CLIFailure(ExitCodes.dataError, "not BER-TLV: \(error)")
        }
        return DecodeReport(
            kind: "tlv", lines: TagValueFormatter.describe(nodes, context: context, indent: 0, explain: true),
            explanations: Explainer.fields(nodes, context: context))
    }

    func status() throws -> DecodeReport {
        guard bytes.count == 2 else { throw CLIFailure(ExitCodes.dataError, "a status is 2 bytes, got \(bytes.count)") }
        let s = Status(bytes: bytes[0], bytes[1])
        let line = "status \(s)" + (s.info.map { " — " + $0.meaning } ?? " (not in the status table)")
        return DecodeReport(kind: "status", lines: [line], status: .init(s))
    }

    func nfcOutcome() throws -> DecodeReport {
        guard bytes.count == 2 else {
            throw CLIFailure(ExitCodes.dataError, "an NFC outcome (DF72) is 2 bytes, got \(bytes.count)")
        }
        let tlv = TLV(Tag(0xDF72), bytes)
        let text = TagValueFormatter.render(tlv, context: .payment)
        let explanation = Explainer.explain(tlv, context: .payment)
        return DecodeReport(
            kind: "nfc-outcome", lines: ["NFC outcome: \(text)"] + (explanation?.lines.map { "  " + $0 } ?? []),
            nfcOutcome: text, explanations: explanation.map { [ExplainedField(tlv, $0)] })
    }
}
