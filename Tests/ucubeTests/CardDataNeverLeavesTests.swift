import Foundation
import Testing
import UCubeLink
import UCubeProtocol

/// The one door out (docs/architecture.md, "Nothing sensitive leaks"), proved end to end: every subcommand that
/// reaches a terminal is recorded against the simulator; the recording is rewritten so that every answer of the
/// terminal also carries a PAN (5A), track 2 (57) and track 1 (56) in clear, in plain and in secured (SIGNED) frames
/// alike; then the command is replayed from that recording plain, with `--json`, with `--trace`, and with both and
/// the log mirrored at trace level. Neither stream, nor the log, the journal, the history or the recording made
/// during the replay may hold the PAN or the track data in any form: digits, BCD in hex, ASCII in hex.
///
/// What the commands do with answers that carry three more tags differs (most ignore them, some show them, some
/// refuse the answer and say why, and a replay whose command goes elsewhere stops with both frames shown): each of
/// those paths is an exit for the bytes, and each is checked.
struct CardDataNeverLeavesTests {
    /// A Visa test PAN (Luhn-valid), as the terminal's answers will carry it.
    static let pan = "4761739001010010"
    /// Track 2 equivalent data: PAN, separator D, expiry 2512, service code 201, discretionary data, F pad
    /// (EMV Book 3 Annex A, tag 57; ISO/IEC 7813 layout).
    static let track2Nibbles = pan + "D25122011234567890123F"
    /// Track 1 (ISO/IEC 7813 format B): B, PAN, ^, name, ^, expiry, service code, discretionary data.
    static let track1 = "B\(pan)^TEST/CARDHOLDER^25122011234567890"
    static let discretionary = "1234567890123"

    /// 5A ‖ 57 ‖ 56, each a TLV in clear.
    static var injected: [UInt8] {
        let panBytes = try! Hex.decode(pan)
        let track2 = try! Hex.decode(track2Nibbles)
        let track1Bytes = Array(track1.utf8)
        return [0x5A, UInt8(panBytes.count)] + panBytes + [0x57, UInt8(track2.count)] + track2
            + [0x56, UInt8(track1Bytes.count)] + track1Bytes
    }

    /// Every form of the secrets that must not appear, upper case (texts are compared upper-cased).
    static var forbidden: [String] {
        let spaced: (String) -> String = { hex in
            stride(from: 0, to: hex.count, by: 2).map { i in
                String(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 2)])
            }.joined(separator: " ")
        }
        let asciiHex = Hex.encode(Array(pan.utf8))
        return [
            pan, spaced(pan), asciiHex, spaced(asciiHex), discretionary, Hex.encode(Array(discretionary.utf8)),
            "TEST/CARDHOLDER", Hex.encode(Array("TEST/CARDHOLDER".utf8)),
        ].map { $0.uppercased() }
    }

    /// What in `text` gives a secret away, if anything.
    static func leaks(in text: String) -> [String] {
        let upper = text.uppercased()
        var found = forbidden.filter { upper.contains($0) }
        if Masking.containsUnmaskedPAN(text) { found.append("a Luhn-valid PAN or track 2 data") }
        return found
    }

    /// What in a recording gives a secret away: a secret in any form on any line, and any frame with a card-data
    /// value still shaped like one (the masker would find something left to hide). The Luhn detector is not run over
    /// the frames' hex, where it finds digit runs that pass by chance.
    static func recordingLeaks(_ text: String) -> [String] {
        var found = forbidden.filter { text.uppercased().contains($0) }
        guard let recording = try? Recording(parsing: text) else { return found + ["not a recording"] }
        if Masking.containsUnmaskedPAN(recording.command) { found.append("the command line") }
        for event in recording.links.flatMap(\.frames) {
            switch event.kind {
            case .sent(let bytes, _), .received(let bytes, _):
                if Masking.maskingCardData(in: bytes) != bytes { found.append("card data in \(Hex.encode(bytes))") }
            case .dropped, .closed: break
            }
        }
        return found
    }

    /// The recording at `path` with `injected` in every answer of the terminal: in a plain answer after its data,
    /// in a secured one before its MAC (a secured answer without data gets the tags and a MAC). EnterSecureSession's
    /// answer is left as it is: its whole data is the KSN (spec §5.2), so bytes after it make it malformed, not a
    /// carrier of card data, and the payment would end before any card data is read.
    static func rewritingAnswers(_ text: String) throws -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "<", let bytes = try? Hex.decode(String(words[3])),
                bytes.count >= FrameLimits.overhead + FrameLimits.statusSize
            else {
                lines.append(String(line))
                continue
            }
            let secured = words[2] == "secured"
            let command = CommandID(rawValue: UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
            if command == .enterSecureSession {
                lines.append(String(line))
                continue
            }
            let body = Array(bytes[6..<(bytes.count - 3)])
            let rewritten: [UInt8]
            if secured {
                let hasMAC = body.count > FrameLimits.cryptoHeaderSize + FrameLimits.statusSize
                rewritten =
                    hasMAC
                    ? Array(body.dropLast(FrameLimits.macSize)) + injected + Array(body.suffix(FrameLimits.macSize))
                    : body + injected + [0x11, 0x22, 0x33, 0x44]
            } else {
                rewritten = body + injected
            }
            guard let frame = try? RawFrame(sequence: bytes[3], command: command, body: rewritten).encoded() else {
                lines.append(String(line))
                continue
            }
            lines.append("\(words[0]) \(words[1]) \(words[2]) \(Hex.encode(frame))")
        }
        return lines.joined(separator: "\n")
    }

    struct Command: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        var testDescription: String { name }
    }

    static let suite = UCubeSandbox.binary.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Suites/payments.json").path

    /// Every subcommand that exchanges frames with a terminal (scan and simulate have no recording to replay; the
    /// TMS commands' terminal side is GetInfo and Load, the same answers `info` and `rpc` see).
    static let commands: [Command] = [
        .init(name: "info", arguments: ["info"]),
        .init(name: "rpc get-info", arguments: ["rpc", "get-info"]),
        .init(name: "rpc raw GetPlainTag", arguments: ["rpc", "raw", "5026", "5A57"]),
        .init(name: "pay contact", arguments: ["pay", "10", "--card", "visa-contact", "--receipt"]),
        .init(name: "pay contactless", arguments: ["pay", "10", "--card", "visa-contactless", "--receipt"]),
        .init(name: "pay magstripe", arguments: ["pay", "10", "--card", "magstripe-chip-required"]),
        .init(name: "read-card", arguments: ["read-card", "--card", "visa-contact"]),
        .init(name: "display", arguments: ["display", "hello"]),
        .init(name: "choose", arguments: ["choose", "a", "b"]),
        .init(name: "cancel", arguments: ["cancel"]),
        .init(name: "locale get", arguments: ["locale", "get"]),
        .init(name: "locale list", arguments: ["locale", "list"]),
        .init(name: "diagnose", arguments: ["diagnose"]),
        .init(name: "test", arguments: ["test", suite, "--case", "contact online approved"]),
    ]

    @Test(arguments: commands)
    func noSecretLeavesThroughAnyExit(_ command: Command) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        sandbox.environment["UCUBE_SIM_SEED"] = "7"
        let recorded = sandbox.directory.appendingPathComponent("live.rec")
        _ = try await sandbox.run(
            ["--device", "sim", "--record", recorded.path] + command.arguments, timeout: .seconds(120))
        let original = try String(contentsOf: recorded, encoding: .utf8)
        #expect(original.contains("\n< "), "\(command.name): nothing was recorded from the terminal")
        let forged = sandbox.directory.appendingPathComponent("forged.rec")
        try Self.rewritingAnswers(original).write(to: forged, atomically: true, encoding: .utf8)
        #expect(
            !Self.leaks(in: try String(contentsOf: forged, encoding: .utf8)).isEmpty,
            "the forged recording has the secrets")

        var shownMasked = false
        let variants: [[String]] = [[], ["--json"], ["--trace"], ["--json", "--trace", "--log-level", "trace"]]
        for (index, options) in variants.enumerated() {
            let again = sandbox.directory.appendingPathComponent("replay-\(index).rec")
            let run = try await sandbox.run(
                ["--device", "replay:" + forged.path, "--fast", "--record", again.path] + options + command.arguments,
                timeout: .seconds(120))
            let label = "\(command.name) \(options.joined(separator: " "))"
            #expect(
                Self.leaks(in: run.stdout).isEmpty,
                "\(label): stdout \(Self.leaks(in: run.stdout)): \(run.stdout.suffix(800))")
            #expect(
                Self.leaks(in: run.stderr).isEmpty,
                "\(label): stderr \(Self.leaks(in: run.stderr)): \(run.stderr.suffix(800))")
            if let text = try? String(contentsOf: again, encoding: .utf8) {
                #expect(Self.recordingLeaks(text).isEmpty, "\(label): the recording \(Self.recordingLeaks(text))")
            }
            shownMasked = shownMasked || (run.stdout + run.stderr).contains("476173")
        }
        // The journal, the log, the history: everything the runs left in the state directory.
        let state = sandbox.directory.appendingPathComponent("state")
        let files =
            FileManager.default.enumerator(at: state, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            #expect(Self.leaks(in: text).isEmpty, "\(command.name): \(file.lastPathComponent) \(Self.leaks(in: text))")
        }
        // `history` shows what the journal kept.
        for options in [[], ["--json"]] {
            let history = try await sandbox.run(options + ["history"])
            #expect(Self.leaks(in: history.stdout + history.stderr).isEmpty, "\(command.name): history \(options)")
        }
        if ["rpc raw GetPlainTag", "rpc get-info", "read-card"].contains(command.name) {
            #expect(shownMasked, "\(command.name): the injected PAN was never shown, masked: the test proved nothing")
        }
    }

    /// `decode` of the forged recording itself (the input holds the secrets in clear), text and JSON, and of the same
    /// bytes as a hex dump on stdin.
    @Test func decodeOfARecordingWithClearCardData() async throws {
        let sandbox = try UCubeSandbox()
        let recorded = sandbox.directory.appendingPathComponent("live.rec")
        _ = try await sandbox.run(["--device", "sim", "--record", recorded.path, "pay", "10", "--card", "visa-contact"])
        let forged = sandbox.directory.appendingPathComponent("forged.rec")
        try Self.rewritingAnswers(try String(contentsOf: recorded, encoding: .utf8))
            .write(to: forged, atomically: true, encoding: .utf8)
        for options in [[], ["--json"]] {
            let run = try await sandbox.run(options + ["decode", forged.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.leaks(in: run.stdout + run.stderr).isEmpty, "decode \(options): \(Self.leaks(in: run.stdout))")
            #expect(run.stdout.contains("476173"), "decode \(options) showed no masked PAN: \(run.stdout.prefix(400))")
        }
        let hex = sandbox.directory.appendingPathComponent("answer.hex")
        let answer = try #require(
            try Self.rewritingAnswers(try String(contentsOf: recorded, encoding: .utf8))
                .split(separator: "\n").first { $0.hasPrefix("< ") }?.split(separator: " ").last)
        try String(answer).write(to: hex, atomically: true, encoding: .utf8)
        let piped = try await sandbox.run(["decode", "-"], stdinFile: hex)
        #expect(Self.leaks(in: piped.stdout + piped.stderr).isEmpty, "decode -: \(piped.stdout)")
    }

    /// The scrubber at the exit is the last line of defence: a masked form never matches, a clear one always does.
    @Test func theLeakDetectorFindsEveryForm() {
        #expect(Self.leaks(in: "pan 476173******0010 track 476173******0010=****").isEmpty)
        for form in Self.forbidden { #expect(!Self.leaks(in: "x \(form) y").isEmpty, "\(form)") }
        #expect(!Self.leaks(in: Hex.encode(Self.injected)).isEmpty)
    }
}
