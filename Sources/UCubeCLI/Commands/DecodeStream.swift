import Foundation
import UCubeLink
import UCubeProtocol
import UCubeRuntime

/// `decode`'s text, decoded as it is read (issue 27): each frame of a recording or a `--trace` dump is shown as soon as
/// its line (and, in a dump, the note line after it) has come, so memory holds one line and one report, not the
/// input. Text that turns out to be neither is hex: its lines are kept, and `finish` gives them back.
///
/// The first line says which: a recording starts with its magic; a dump is known at its first frame line; hex is
/// what is left at the end. Frames are decoded in order by one `TraceDecoder`, which follows the secure session.
struct DecodeStream {
    private enum Kind { case undecided, recording, trace }

    private var kind = Kind.undecided
    private var linesRead = 0
    /// The lines read while the text may still be hex.
    private var kept: [String] = []
    private var recording = Recording.Parser()
    private var trace = TraceLineReader()
    private var decoder: TraceDecoder
    private let output: ReportOutput

    init(output: ReportOutput, context: TagContext, secured: Bool) {
        self.output = output
        // A recording notes every frame's layout: `--secured` is for dumps and hex only.
        decoder = TraceDecoder(context: context, inSession: secured)
    }

    /// One line of the text, without its "\n".
    mutating func read(_ line: String) throws {
        linesRead += 1
        if linesRead == 1 && line.hasPrefix(Recording.magic) {
            kind = .recording
            decoder = TraceDecoder(context: decoder.context, inSession: false)
        }
        switch kind {
        case .recording:
            let record: Recording.Parser.Record?
            do {
                record = try recording.read(Substring(line))
            } catch {
                throw CLIFailure(ExitCodes.dataError, "not a usable recording: \(error)")
            }
            if case .event(let event)? = record, let entry = TraceDump.Entry(event) { try show(entry) }
        case .trace:
            for entry in trace.read(Substring(line)) { try show(entry) }
        case .undecided:
            let entries = trace.read(Substring(line))
            guard trace.sawFrame else {
                kept.append(line)
                return
            }
            // The first frame line: a dump. The lines before it are not frames, and not hex.
            kind = .trace
            kept = []
            for entry in entries { try show(entry) }
        }
    }

    /// After the last line: the text to decode as hex when it was neither a recording nor a dump, else nil (every
    /// frame has been shown, and a JSON array closed).
    mutating func finish() throws -> String? {
        switch kind {
        case .undecided:
            return kept.joined(separator: "\n")
        case .recording:
            do {
                try recording.finish()
            } catch {
                throw CLIFailure(ExitCodes.dataError, "not a usable recording: \(error)")
            }
        case .trace:
            if let last = trace.finish() { try show(last) }
        }
        output.close()
        return nil
    }

    /// After a failure: the frames shown stay shown, and a JSON array begun is closed.
    func abandon() { output.abandon() }

    private mutating func show(_ entry: TraceDump.Entry) throws {
        try output.emit(try decoder.decode(entry))
    }
}

/// Where `decode` puts its frame reports as they are decoded: stdout, as text (a blank line between frames) or as one
/// JSON array written element by element, in the shape `JSONOutput.print` gives the whole array; or a list (the
/// fuzz surface and `Decode.reports`). Output goes through `Console.out`, as every `print` does.
final class ReportOutput {
    private enum Sink { case text, json, list }

    private let sink: Sink
    private(set) var collected: [DecodeReport] = []
    private var count = 0
    private var closed = false

    init(json: Bool) { sink = json ? .json : .text }

    private init(sink: Sink) { self.sink = sink }

    static func collecting() -> ReportOutput { ReportOutput(sink: .list) }

    func emit(_ report: DecodeReport) throws {
        switch sink {
        case .list:
            collected.append(report)
        case .text:
            Console.out((count > 0 ? "\n" : "") + report.lines.map { $0 + "\n" }.joined())
        case .json:
            // Indented, or on one line when stdout is JSON lines (the shell).
            let pretty = !Console.jsonLines
            let element = try JSONOutput.encode(report, pretty: pretty, indent: 1, versioned: true)
            Console.outJSON((count == 0 ? "[" : ",") + (pretty ? "\n  " : "") + element)
            // The array is the result: a failure after its first element closes it and adds no error object.
            if count == 0 { Console.noteResult() }
        }
        count += 1
    }

    /// After the last report: a JSON array is closed (`[]` when there was none).
    func close() {
        guard !closed else { return }
        closed = true
        guard sink == .json else { return }
        Console.out(count == 0 ? "[]\n" : Console.jsonLines ? "]\n" : "\n]\n")
        Console.noteResult()
    }

    /// After a failure: an array begun is closed; none is begun (the failure's own JSON object is the output).
    func abandon() {
        if count > 0 { close() }
        closed = true
    }
}

/// `decode`'s input a line at a time: the arguments (as one text), a file, or standard input, the last two read as
/// the decoding goes and refused (exit 65) once past `Decode.maxTextSize`, without waiting for their end.
final class InputLines {
    private var arguments: [Substring]
    private var argumentIndex = 0
    private var reader: BoundedFile.Lines?
    /// The descriptor of a file this opened.
    private let file: Int32?
    private let name: String?

    init(arguments: [String]) {
        self.arguments = arguments.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        file = nil
        name = nil
    }

    init(file fd: Int32, name: String) {
        arguments = []
        reader = BoundedFile.Lines(descriptor: fd, limit: UCube.Decode.maxTextSize)
        file = fd
        self.name = name
    }

    init(standardInput: Void) {
        arguments = []
        reader = BoundedFile.Lines(descriptor: STDIN_FILENO, limit: UCube.Decode.maxTextSize)
        file = nil
        name = nil
    }

    deinit {
        if let file { close(file) }
    }

    /// The next line without its "\n", nil at the end.
    func next() throws -> String? {
        guard reader != nil else {
            guard argumentIndex < arguments.count else { return nil }
            argumentIndex += 1
            return String(arguments[argumentIndex - 1])
        }
        do {
            return try reader!.next()
        } catch {
            let limit = BoundedFile.limitText(UCube.Decode.maxTextSize)
            switch (error, name) {
            case (.unreadable(let why), let path?): throw CLIFailure(ExitCodes.ioError, "cannot read \(path): \(why)")
            case (.tooLarge, let path?): throw CLIFailure(ExitCodes.dataError, "\(path) is larger than \(limit)")
            case (.unreadable(let why), nil): throw CLIFailure(ExitCodes.ioError, "cannot read standard input: \(why)")
            case (.tooLarge, nil):
                throw CLIFailure(ExitCodes.dataError, "the text on standard input is larger than \(limit)")
            }
        }
    }
}

extension TraceDump.Entry {
    /// A recorded frame, with the layout the recorder noted; nil for a link's drop or close.
    init?(_ event: Recording.Event) {
        switch event.kind {
        case .sent(let bytes, let secured): self.init(direction: .command, bytes: bytes, securedNote: secured)
        case .received(let bytes, let secured): self.init(direction: .response, bytes: bytes, securedNote: secured)
        case .dropped, .closed: return nil
        }
    }
}
