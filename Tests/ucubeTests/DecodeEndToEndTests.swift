import Foundation
import Testing
import UCubeProtocol

/// `ucube decode` of frames exchanged in a secure session (spec §2.3), given `--secured` or read from a `--trace`
/// dump (issue 12: the crypto header and MAC were read as payload, a secured answer as a command).
@Suite struct DecodeEndToEndTests {
    /// Spec §2.6, "Secured GetPlainTag (0x5026), SEQ 1, payload DF60 9F27, crypto 0x7F, zero MAC".
    static let securedGetPlainTag = "02 00 09 01 50 26 7F DF 60 9F 27 00 00 00 00 1D 63 03"

    /// A secured answer to it: crypto header 7F, status 0, data DF60 00 9F27 01 80, a MAC (spec §2.3).
    static func securedAnswer() throws -> [UInt8] {
        try ResponseFrame(
            sequence: 1, command: .getPlainTag, status: .success, data: [0xDF, 0x60, 0x00, 0x9F, 0x27, 0x01, 0x80],
            envelope: SecuredEnvelope(cryptoHeader: 0x7F, mac: [0x11, 0x22, 0x33, 0x44])
        ).encoded()
    }

    @Test func theSpecsWorkedSecuredGetPlainTagDecodesToItsPayload() async throws {
        let sandbox = try UCubeSandbox()
        let run = try await sandbox.run(["decode", "--secured", Self.securedGetPlainTag])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("secured: crypto header 7F, MAC 00 00 00 00"), "\(run.stdout)")
        #expect(run.stdout.contains("command GetPlainTag, payload: DF 60 9F 27\n"), "\(run.stdout)")

        let json = try await sandbox.run(["decode", "--secured", "--json", Self.securedGetPlainTag])
        let frame = try #require(Self.object(json.stdout)?["frame"] as? [String: Any], "\(json.stdout)")
        #expect(frame["direction"] as? String == "command")
        #expect(frame["payload"] as? String == "DF609F27")
        #expect(frame["cryptoHeader"] as? String == "7F")
        #expect(frame["mac"] as? String == "00000000")
        #expect(frame["secured"] as? Bool == true)
        #expect(frame["sequence"] as? Int == 1)
    }

    /// Without --secured the frame is read in the READY layout, as before, with a hint.
    @Test func withoutSecuredTheCryptoHeaderIsPayloadAndAHintSaysSo() async throws {
        let run = try await UCubeSandbox().run(["decode", Self.securedGetPlainTag])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("payload: 7F DF 60 9F 27 00 00 00 00"), "\(run.stdout)")
        #expect(run.stdout.contains("--secured"), "\(run.stdout)")
    }

    @Test func aSecuredAnswerHasItsStatusAndData() async throws {
        let sandbox = try UCubeSandbox()
        let hex = Hex.encode(try Self.securedAnswer(), separator: " ")
        let run = try await sandbox.run(["decode", "--secured", hex])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("secured: crypto header 7F, MAC 11 22 33 44"), "\(run.stdout)")
        #expect(run.stdout.contains("response, status 0"), "\(run.stdout)")
        #expect(run.stdout.contains("data: DF 60 00 9F 27 01 80\n"), "\(run.stdout)")

        // Read plain, 7F 00 is no known status: the answer was taken for a command.
        let plain = try await sandbox.run(["decode", hex])
        #expect(plain.stdout.contains("command GetPlainTag, payload: 7F 00 00"), "\(plain.stdout)")
    }

    /// Commands of input mode NONE travel plain in a session: --secured does not strip them.
    @Test func aNoneModeCommandStaysPlainInASession() async throws {
        let frame = try CommandFrame(sequence: 2, command: .waitCard, payload: [0x01, 0x1E]).encoded()
        let run = try await UCubeSandbox().run(["decode", "--secured", Hex.encode(frame, separator: " ")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("payload: 01 1E"), "\(run.stdout)")
        #expect(!run.stdout.contains("secured:"), "\(run.stdout)")
    }

    /// A `--trace` dump of a secure session, read back on standard input: each frame in its direction and layout.
    @Test func aTraceDumpOfASecureSession() async throws {
        let sandbox = try UCubeSandbox()
        let script = "set trace on\nrpc enter-secure-session\nrpc get-plain-tag DF60 9F27\nrpc exit-secure-session\n"
        let session = try await sandbox.run(["shell"], input: script)
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stderr.contains(" secured crypto=7F MAC=00000000"), "the sent note: \(session.stderr)")
        let traced = session.stderr.split(separator: "\n")
        let answer = try #require(
            traced.firstIndex { $0.hasPrefix("< ") && $0.contains(" 50 26 ") }, "\(session.stderr)")
        #expect(traced[answer + 1].contains(" secured crypto="), "the received note: \(session.stderr)")

        let decoded = try await sandbox.run(["decode"], input: session.stderr)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let all = decoded.stdout.components(separatedBy: "\n\n")
        // The shell's link had no session file: it first resets the terminal (CancelAll, ExitSecureSession).
        #expect(all.count == 10, "two reset commands, then three commands, each with its answer: \(decoded.stdout)")
        guard all.count == 10 else { return }
        #expect(all[0].contains("command CancelAll") && all[2].contains("command ExitSecureSession"), "\(all[0])")
        let frames = Array(all.dropFirst(4))
        #expect(frames[0].hasPrefix("> frame:") && frames[0].contains("command EnterSecureSession"), "\(frames[0])")
        #expect(frames[1].hasPrefix("< frame:") && frames[1].contains("response, status 0"), "\(frames[1])")
        #expect(frames[2].contains("secured: crypto header 7F, MAC 00 00 00 00"), "\(frames[2])")
        #expect(frames[2].contains("command GetPlainTag, payload: DF 60 9F 27\n"), "\(frames[2])")
        #expect(frames[3].hasPrefix("< frame:") && frames[3].contains("secured: crypto header"), "\(frames[3])")
        #expect(frames[3].contains("response, status 0"), "\(frames[3])")
        #expect(frames[4].contains("command ExitSecureSession") && !frames[4].contains("secured:"), "\(frames[4])")
        #expect(frames[5].contains("response, status 0") && !frames[5].contains("secured:"), "\(frames[5])")

        let json = try await sandbox.run(["decode", "--json"], input: session.stderr)
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let directions = reports.compactMap { ($0["frame"] as? [String: Any])?["direction"] as? String }
        #expect(directions == Array(repeating: ["command", "response"], count: 5).flatMap { $0 })
    }

    /// An older dump, whose received lines carry no note: the session opened by EnterSecureSession decides.
    @Test func aTraceWithoutReceivedNotesFollowsTheSession() async throws {
        let enter = "02 00 00 00 51 01 2D AF 03"
        let entered = "02 00 0C 00 51 01 00 00 FF FF 98 76 54 32 10 E0 00 01 CD 60 03"
        let dump = """
            > \(enter)
              SEQ 00 CMD 0x5101 EnterSecureSession LEN 0
            < \(entered)
              SEQ 00 CMD 0x5101 EnterSecureSession LEN 12
            < \(Hex.encode(try Self.securedAnswer(), separator: " "))
            """
        let run = try await UCubeSandbox().run(["decode"], input: dump)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("< frame:"))
        #expect(run.stdout.contains("data: DF 60 00 9F 27 01 80\n"), "\(run.stdout)")
    }

    /// In a shell script, `decode` without hex does not read the script's own lines as its input.
    @Test func decodeWithoutHexInTheShellLeavesTheScriptAlone() async throws {
        let run = try await UCubeSandbox().run(
            ["shell", "--keep-going"], input: "decode\ninfo\n")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stdout.contains("state: READY"), "info still ran: \(run.stdout)")
    }

    private static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}

/// `decode FILE` reads a recording or a `--trace` dump as `decode < FILE` does, and `-` is standard input (issue 25's
/// smaller findings).
@Suite struct DecodeFileArgumentTests {
    @Test func aRecordingFileAndDashAreRead() async throws {
        let sandbox = try UCubeSandbox()
        let recording = sandbox.directory.appendingPathComponent("info.rec")
        #expect(try await sandbox.run(["--device", "sim", "--record", recording.path, "info"]).status == 0)
        let fromFile = try await sandbox.run(["decode", recording.path])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout.contains("CMD 0x5001 GetInfo"), "\(fromFile.stdout)")
        let fromStdin = try await sandbox.run(["decode", "-"], stdinFile: recording)
        #expect(fromStdin.status == 0)
        #expect(fromStdin.stdout == fromFile.stdout)
        // Hex that happens to name no file is still hex.
        let status = try await sandbox.run(["decode", "FFFE"])
        #expect(status.stdout.contains("TIMEOUT"), "\(status.stdout)")
    }
}
