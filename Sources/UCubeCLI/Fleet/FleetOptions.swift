import ArgumentParser
import Foundation
import UCubeLink

/// How `info`, `mdm-register`, `mdm-update` and `shell --script` run over several terminals: the list (with a repeated
/// `--device`), how many at once, when to stop, the JUnit report and the run file (docs/fleet.md).
struct FleetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A file of terminals, one device name or URL a line (blank lines and `#` comments skipped; `ucube simulate --fleet` writes one): a fleet run. Adds to --device.",
            valueName: "file"),
        completion: .file())
    var devices: String?

    @Option(
        help: ArgumentHelp(
            "In a fleet run, how many terminals are worked on at once, 1…\(FleetChoices.maximumParallel). Default: all of them; Bluetooth terminals still connect one at a time.",
            valueName: "n"))
    var parallel: Int?

    @Option(
        help: ArgumentHelp(
            "Write a JUnit XML report to FILE: a test case per terminal (per item for mdm-update), for GitLab, Jenkins and other CI. A fleet run.",
            valueName: "file"),
        completion: .file())
    var junit: String?

    @Option(help: ArgumentHelp("In a fleet run, start no more terminals once N have failed; the running ones finish.", valueName: "n"))
    var maxFailures: Int?

    @Option(
        help: ArgumentHelp(
            "Where a fleet run keeps each terminal's verdict, so that the same command run again retries only the terminals not yet done (deleted once all are). Default: $XDG_STATE_HOME/ucube/runs/COMMAND-HASH.jsonl.",
            valueName: "file"),
        completion: .file())
    var runFile: String?

    @Flag(help: "In a fleet run, ignore the run file's verdicts and run every terminal again.")
    var restart = false

    func validate() throws {
        if let parallel, !(1...FleetChoices.maximumParallel).contains(parallel) {
            throw ValidationError("--parallel must be 1 to \(FleetChoices.maximumParallel)")
        }
        if let maxFailures, maxFailures < 1 { throw ValidationError("--max-failures must be at least 1") }
    }

    /// Whether these options alone make a run a fleet run (a fleet of one, for its report and run file).
    var asked: Bool { devices != nil || parallel != nil || junit != nil || maxFailures != nil || runFile != nil || restart }
}

/// The fleet run's limits, in one place.
enum FleetChoices {
    static let maximumParallel = 256
    /// Terminals in one run (a devices file longer than this is a mistake, not a fleet).
    static let maximumDevices = 4096
    /// A devices file or a run file is read only up to this size.
    static let maximumFileSize = 4 << 20
    /// The options that change how a run goes, not what it does: left out of the run file's key, so the same command
    /// with another `--parallel` resumes the same run. The ones that take a value come first.
    static let controlOptionsWithValue: Set<String> = ["--parallel", "--max-failures", "--junit", "--run-file"]
    static let controlFlags: Set<String> = ["--restart", "--json"]
}

/// The terminals of a run: every `--device`, then every line of `--devices`, each checked before anything starts.
enum FleetDevices {
    /// The list, or a usage error naming the file and line of a bad entry or a terminal named twice.
    static func list(given: [String], file: String?) throws(CLIFailure) -> [String] {
        var text: String? = nil
        if let file { text = try read(file) }
        return try list(given: given, file: file, text: text)
    }

    /// The list from `--device` values and a devices file's `text` (named `file` in messages): pure.
    static func list(given: [String], file: String?, text: String?) throws(CLIFailure) -> [String] {
        var entries = given.map { ($0, "--device") }
        if let text {
            // `\.isNewline`: in Swift "\r\n" is one Character, which `split(separator: "\n")` never matches, so a CRLF
            // file was one line.
            for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces.union(["\r"]))
                if line.isEmpty || line.hasPrefix("#") { continue }
                entries.append((line, "\(file ?? "devices"):\(index + 1)"))
            }
        }
        guard !entries.isEmpty else {
            throw CLIFailure(ExitCodes.usage, "the devices file \(file ?? "") names no terminal", hint: "one device name or URL a line")
        }
        guard entries.count <= FleetChoices.maximumDevices else {
            throw CLIFailure(ExitCodes.usage, "\(entries.count) terminals in one run: at most \(FleetChoices.maximumDevices)")
        }
        var seen: [String: String] = [:]
        var devices: [String] = []
        for (device, origin) in entries {
            let address: DeviceAddress
            do {
                address = try DeviceAddress(parsing: device)
            } catch {
                throw CLIFailure(ExitCodes.usage, "\(origin): \(error.reason)")
            }
            if case .replay = address {
                throw CLIFailure(ExitCodes.usage, "\(origin): a recording replays one command's session; a fleet run needs terminals")
            }
            let key = address.description
            if let first = seen[key] {
                throw CLIFailure(ExitCodes.usage, "\(origin): \(device) is already in the run (\(first))")
            }
            seen[key] = origin
            devices.append(device)
        }
        return devices
    }

    private static func read(_ path: String) throws(CLIFailure) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let data: Data
        do {
            data = try BoundedFile.read(expanded, limit: FleetChoices.maximumFileSize)
        } catch {
            switch error {
            case .unreadable(let why):
                throw CLIFailure(ExitCodes.usage, "cannot read the devices file \(expanded): \(why)")
            case .tooLarge:
                throw CLIFailure(ExitCodes.usage, "the devices file \(expanded) is over \(FleetChoices.maximumFileSize) bytes")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIFailure(ExitCodes.usage, "the devices file \(expanded) is not UTF-8 text")
        }
        return text
    }
}
