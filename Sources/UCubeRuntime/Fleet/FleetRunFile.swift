import Crypto
import Foundation
import UCubeLink
import UCubeProtocol
import UCubeSupport

#if canImport(Glibc)
import Glibc
#endif

/// The run file: a header line, then each terminal's verdict, one JSON object a line, appended (and synced) as each
/// terminal ends, so a run killed anywhere keeps every verdict it reached. Running the same command again skips the
/// terminals whose last verdict is `ok`; the file is deleted once every terminal of the run is done. Its content comes
/// from disk, so a verdict line that does not decode is ignored (that terminal is simply run again).
///
/// ucube deletes or truncates only files it made and can prove it made: the run file's first line is a header that
/// ucube writes when it creates the file (`O_EXCL`, so never over a file that is already there). A file at the path
/// that does not start with that header (a devices list, a journal, anything a mistyped `--run-file` names) is refused
/// before any terminal is contacted, and left as it is; the end of a run deletes the file only if it still starts with
/// the header.
///
/// The header also carries the run's work (`FleetWork`): a fingerprint of everything that decides what the run does
/// to each terminal. A run file of other work (the suite was edited, the devices file or an option changed) is not
/// resumed from: it is replaced, and every terminal runs again.
package struct FleetRunFile {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// The first line of every run file: what proves that ucube made it.
    package struct Header: Codable, Equatable, Sendable {
        /// Always `Header.kind`: names what the file is, for ucube and for a person who opens it.
        package var ucube: String
        /// The fleet command whose run this is (`mdm-update`, `test`…).
        package var command: String
        /// What decides the run's work (`FleetWork.fingerprint`), as 64 hex digits.
        package var work: String
        /// The form's version, as every JSON ucube writes has (`JSONOutput.version`; docs/json.md); absent from a run
        /// file of an older ucube, which is read all the same.
        package var version: Int?

        /// The `ucube` field's one value.
        package static let kind = "fleet-run"

        package init(command: String, work: String) {
            ucube = Self.kind
            self.command = command
            self.work = work
            version = JSONOutput.version
        }

        /// The header as the file's first line (without its newline).
        package var line: [UInt8] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(self) else {
                preconditionFailure("a run file's header always encodes")
            }
            return Array(data)
        }

        /// The header `line` is, or nil when it is none (any other text, JSON without the `ucube` field, another kind).
        package static func parse(_ line: some Collection<UInt8>) -> Header? {
            guard let header = try? JSONDecoder().decode(Header.self, from: Data(line)), header.ucube == kind else {
                return nil
            }
            return header
        }
    }

    /// What is at a run file's path, read as a run file (`contents(_:)`).
    package enum Contents: Equatable {
        /// Nothing: the run creates the file.
        case missing
        /// A file ucube made: its header, and the last readable verdict of each terminal.
        case runFile(Header, [String: FleetVerdict])
        /// Something else (its first line is not a run file's header; an empty file too): never used, never deleted.
        case foreign
    }

    /// What a run does with the run file it finds (`plan`).
    package enum Plan: Equatable {
        /// There is none: create it.
        case create
        /// A run file of this work: resume from its verdicts.
        case resume([String: FleetVerdict])
        /// A run file of ours to start afresh: `--restart`, or (with the reason said) one kept for other work.
        case replace(because: String?)
        /// Not a run file: refuse it, and leave it alone.
        case refuse
    }

    /// What a run of `header` does with `contents`: pure.
    package static func plan(_ contents: Contents, for header: Header, restart: Bool) -> Plan {
        switch contents {
        case .missing: return .create
        case .foreign: return .refuse
        case .runFile(let found, let verdicts):
            if restart { return .replace(because: nil) }
            if found.command != header.command || found.work != header.work {
                return .replace(
                    because:
                        "it was kept for other work (a suite, script or image, the devices file or an option has changed since): every terminal runs again"
                )
            }
            return .resume(verdicts)
        }
    }

    /// What `bytes` (the file's content; nil: there is no file) is, as a run file: pure.
    package static func contents(_ bytes: [UInt8]?) -> Contents {
        guard let bytes else { return .missing }
        let first = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
        guard let line = first.first, let header = Header.parse(line) else { return .foreign }
        return .runFile(header, first.count > 1 ? parse(Array(first[1])) : [:])
    }

    /// The default place: `$XDG_STATE_HOME/ucube/runs/COMMAND-HASH.jsonl`, the hash of the command line without the
    /// options that only change how the run goes (`FleetChoices.controlOptionsWithValue`, `controlFlags`).
    package static func defaultPath(command: String, arguments: [String]) -> String {
        Environment.stateDirectory + "/runs/\(command)-\(key(arguments)).jsonl"
    }

    /// FNV-1a (64 bits) of the arguments that say what the run does, as 16 hex digits.
    package static func key(_ arguments: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in workArguments(arguments).joined(separator: "\u{0}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16).leftPadded(to: 16, with: "0")
    }

    /// The arguments without the options that only change how the run goes, not what it does.
    package static func workArguments(_ arguments: [String]) -> [String] {
        var kept: [String] = []
        var skipValue = false
        for argument in arguments {
            if skipValue {
                skipValue = false
                continue
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if FleetChoices.controlOptionsWithValue.contains(argument) {
                skipValue = true
                continue
            }
            if FleetChoices.controlOptionsWithValue.contains(name) || FleetChoices.controlFlags.contains(argument) {
                continue
            }
            kept.append(argument)
        }
        return kept
    }

    /// Opens the run for `header`: the earlier verdicts of a run file ucube made for the same work, or none (the file
    /// is then created, or replaced, with its header), and why an earlier run file was not resumed from, if it was
    /// not. `restart`: an earlier run file of ours is replaced, its verdicts ignored. A file that is not a run file is
    /// a usage error, and left alone.
    package func start(_ header: Header, restart: Bool) throws(CLIFailure) -> (
        earlier: [String: FleetVerdict], note: String?
    ) {
        switch Self.plan(Self.contents(try read()), for: header, restart: restart) {
        case .refuse:
            throw CLIFailure(
                ExitCodes.usage,
                "\(path) is not a ucube run file (its first line is not the header ucube writes when it creates one): not used, and left as it is",
                hint:
                    "--run-file names where ucube keeps a fleet run's verdicts: give a path that does not exist yet (ucube creates it), or leave --run-file out"
            )
        case .create:
            try create(header)
            return ([:], nil)
        case .replace(let reason):
            try replace(header)
            return ([:], reason.map { "the run file \(path) was not resumed from: \($0)" })
        case .resume(let verdicts):
            return (verdicts, nil)
        }
    }

    /// The file's bytes, nil when there is none. Only the first line of a file over the limit is read: enough to
    /// tell that it is no run file (a journal, say); a run file that large is a failure.
    private func read() throws(CLIFailure) -> [UInt8]? {
        // Nothing at the path itself (a link is not followed: a dangling one is something, and creating over it fails).
        if FileStatus.identity(ofLink: path) == nil { return nil }
        do {
            return try BoundedFile.readBytes(path, limit: FleetChoices.maximumFileSize)
        } catch {
            switch error {
            case .unreadable(let why):
                throw CLIFailure(
                    ExitCodes.ioError, "cannot read the run file \(path): \(why)",
                    hint: "--run-file names another place")
            case .tooLarge:
                if let start = Self.firstBytes(path), Header.parse(start.prefix { $0 != 0x0A }) == nil {
                    return start
                }
                throw CLIFailure(
                    ExitCodes.ioError,
                    "the run file \(path) is over \(BoundedFile.limitText(FleetChoices.maximumFileSize))",
                    hint: "delete it, or give another --run-file")
            }
        }
    }

    /// The first 4 KiB of `path` at most.
    private static func firstBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(fd, &buffer, buffer.count)
        return count >= 0 ? Array(buffer[..<count]) : nil
    }

    /// Creates the file with its header, never over an existing file (`O_EXCL`), durable on return.
    private func create(_ header: Header) throws(CLIFailure) {
        let fd: Int32
        do throws(PrivateFileError) {
            let directory = PathText.directory(of: path)
            if !directory.isEmpty { try PrivateFile.ensureDirectory(directory) }
            fd = try PrivateFile.open(path, flags: O_EXCL)
        } catch {
            throw CLIFailure(ExitCodes.ioError, "cannot create the run file \(path): \(error.description)")
        }
        defer { close(fd) }
        if let failed = FileDescriptor.writeAll(fd, header.line + [0x0A]) {
            throw CLIFailure(ExitCodes.ioError, "cannot write the run file \(path): \(ErrorNumber.text(failed))")
        }
        guard fsync(fd) == 0 else {
            throw CLIFailure(ExitCodes.ioError, "cannot sync the run file \(path): \(ErrorNumber.text(errno))")
        }
    }

    /// A run file of ours replaced by a new one with `header` (`--restart`, or a run file of other work).
    private func replace(_ header: Header) throws(CLIFailure) {
        removeIfOurs()
        try create(header)
    }

    /// The last decodable verdict per terminal in `bytes` (a run file's lines after its header).
    package static func parse(_ bytes: [UInt8]) -> [String: FleetVerdict] {
        let decoder = JSONDecoder()
        var verdicts: [String: FleetVerdict] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard var verdict = try? decoder.decode(FleetVerdict.self, from: Data(line)) else { continue }
            verdict.earlier = true
            verdicts[verdict.device] = verdict
        }
        return verdicts
    }

    /// Appends `verdict` as one line, on disk when this returns (`AppendOnlyFile`).
    package func append(_ verdict: FleetVerdict) throws(CLIFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let line = try? encoder.encode(VersionedVerdict(verdict: verdict)) else { return }
        do {
            // A failure's message may quote what a terminal or a user gave: masked as every file is.
            try AppendOnlyFile(path: path).append(Masking.redactCardData(in: Array(line)))
        } catch {
            throw CLIFailure(ExitCodes.ioError, "the run file: \(error.reason)")
        }
    }

    /// Deletes the file if it still starts with a run file's header; anything else put in its place stays.
    @discardableResult
    package func removeIfOurs() -> Bool {
        guard let start = Self.firstBytes(path), Header.parse(start.prefix { $0 != 0x0A }) != nil else { return false }
        return unlink(path) == 0
    }
}

/// A verdict line of the run file: the verdict's keys and the form's `version` (`JSONOutput.version`; docs/json.md).
private struct VersionedVerdict: Encodable {
    let verdict: FleetVerdict

    private enum CodingKeys: String, CodingKey { case version }

    func encode(to encoder: any Encoder) throws {
        try verdict.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONOutput.version, forKey: .version)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int, with pad: Character) -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// What decides a resumable fleet run's work, as one SHA-256: the command line without the options that only change
/// how the run goes (`FleetRunFile.workArguments`), and the content of every file the run reads its work from (the
/// devices file; the suite of `test`, the image and signature of `mdm-update --file`, the script of `shell --script`).
/// A run file records it (`FleetRunFile.Header.work`); a run resumes only from a run file of the same work.
package enum FleetWork {
    /// The fingerprint of `arguments` and the files named in `files` (a role and a path each), as 64 hex digits. A
    /// file that cannot be read counts as such (the command then says why it cannot run).
    package static func fingerprint(arguments: [String], files: [(role: String, path: String)]) -> String {
        var hash = SHA256()
        func add(_ field: String) {
            // Length-prefixed, so that no two lists of fields hash alike.
            hash.update(data: Array("\(field.utf8.count):".utf8) + Array(field.utf8))
        }
        add("arguments")
        for argument in FleetRunFile.workArguments(arguments) { add(argument) }
        for (role, path) in files {
            add("file")
            add(role)
            add(digest(of: path))
        }
        return hex(hash.finalize())
    }

    /// SHA-256 of the file at `path` (read in chunks: an image may be large), or why it cannot be read.
    package static func digest(of path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "unreadable: \(ErrorNumber.text(errno))" }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return "unreadable: \(ErrorNumber.text(errno))" }
            if count == 0 { break }
            hash.update(data: buffer[..<count])
        }
        return hex(hash.finalize())
    }

    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String($0, radix: 16).leftPadded(to: 2, with: "0") }.joined()
    }
}
