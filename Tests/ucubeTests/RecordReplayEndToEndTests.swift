import Foundation
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

/// `--record FILE` and `--device replay:FILE` through the built binary: every simulator scenario, recorded and then
/// replayed, ends with the same status, exit code and states and exchanges the same frames; no recording carries a
/// Luhn-valid PAN; a command that leaves the recording stops with both frames shown.
@Suite(.serialized) struct RecordReplayEndToEndTests {
    /// The frames of a recording as `direction layout hex`, without their times.
    static func frames(_ path: URL) throws -> [String] {
        let recording = try Recording(parsing: String(contentsOf: path, encoding: .utf8))
        return recording.links.flatMap(\.frames).map { event in
            switch event.kind {
            case .sent(let bytes, let secured): "> \(secured ? "secured" : "plain") \(Hex.encode(bytes))"
            case .received(let bytes, let secured): "< \(secured ? "secured" : "plain") \(Hex.encode(bytes))"
            case .dropped, .closed: ""
            }
        }
    }

    static func context(_ run: UCubeRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test(arguments: PaymentEndToEndTests.scenarios)
    func everyScenarioReplaysToTheSameOutcomeAndFrames(_ scenario: PaymentEndToEndTests.Scenario) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        sandbox.environment["UCUBE_SIM_SEED"] = "7"
        let recorded = sandbox.directory.appendingPathComponent("pay.rec")
        let again = sandbox.directory.appendingPathComponent("replay.rec")
        let live = try await sandbox.run(
            ["--device", "sim", "--json", "--record", recorded.path, "pay", "10", "--card", scenario.card])
        #expect(live.status == scenario.exit, "\(scenario.card): \(live.stderr.suffix(300))")

        // The same command line on another device (`--card` chose the readers then, and does now).
        let replay = try await sandbox.run(
            [
                "--device", "replay:" + recorded.path, "--fast", "--json", "--record", again.path, "pay", "10",
                "--card", scenario.card,
            ])
        #expect(replay.status == live.status, "\(scenario.card): \(replay.stderr.suffix(600))")
        let (first, second) = (try Self.context(live), try Self.context(replay))
        #expect(second["status"] as? String == first["status"] as? String)
        #expect(second["states"] as? [String] == first["states"] as? [String])

        let (liveFrames, replayFrames) = (try Self.frames(recorded), try Self.frames(again))
        #expect(!liveFrames.isEmpty)
        #expect(liveFrames == replayFrames, "\(scenario.card): the replay exchanged other frames")

        // No PAN in clear: not the card's own anywhere, and in no frame a card-data value (5A, 57, 9F6B, 56) that
        // is still shaped like one, Luhn-valid or not (the masker would find something left to hide).
        let text = try String(contentsOf: recorded, encoding: .utf8)
        if let pan = try #require(CardCatalogue.named(scenario.card)).card?.pan {
            #expect(!text.contains(pan), "\(scenario.card): the PAN in the recording")
        }
        for event in try Recording(parsing: text).links.flatMap(\.frames) {
            switch event.kind {
            case .sent(let bytes, _), .received(let bytes, _):
                #expect(Masking.maskingCardData(in: bytes) == bytes, "\(scenario.card): \(Hex.encode(bytes))")
            case .dropped, .closed: break
            }
        }
    }

    /// A PAN typed into a raw command travels plain: the recording keeps it masked, in a frame that still decodes
    /// (its CRC computed again), and the replay of the same command line matches it.
    @Test func aRecordedPANIsMaskedAndTheFrameStillValid() async throws {
        let sandbox = try UCubeSandbox()
        let recorded = sandbox.directory.appendingPathComponent("raw.rec")
        let command = ["rpc", "raw", "5001", "5A084761739001010010"]
        _ = try await sandbox.run(["--record", recorded.path] + command)
        let text = try String(contentsOf: recorded, encoding: .utf8)
        #expect(!text.contains("4761739001010010"))
        let sent = try Recording(parsing: text).links.flatMap(\.frames).compactMap { event -> [UInt8]? in
            if case .sent(let bytes, false) = event.kind, bytes.count > 9, bytes[4] == 0x50, bytes[5] == 0x01 {
                bytes
            } else {
                nil
            }
        }
        let frame = try #require(sent.last)
        var decoder = FrameDecoder()
        decoder.append(frame)
        let decoded = try #require(try decoder.next())
        #expect(Hex.encode(decoded.body) == "5A08476173FFFFFF0010")
        let replay = try await sandbox.run(["--device", "replay:" + recorded.path, "--fast"] + command)
        #expect(replay.status != 15, "\(replay.stderr)")
    }

    @Test func aCommandThatLeavesTheRecordingStopsAndShowsBothFrames() async throws {
        let sandbox = try UCubeSandbox()
        let recorded = sandbox.directory.appendingPathComponent("info.rec")
        #expect(try await sandbox.run(["--record", recorded.path, "rpc", "get-info", "C1"]).status == 0)
        let same = try await sandbox.run(["--device", "replay:" + recorded.path, "--fast", "rpc", "get-info", "C1"])
        #expect(same.status == 0, "\(same.stderr)")
        let other = try await sandbox.run(["--device", "replay:" + recorded.path, "--json", "rpc", "get-info", "C4"])
        #expect(other.status == 15, "\(other.stderr)")
        #expect(other.stderr.contains("recorded: > 0x5001 GetInfo"), "\(other.stderr)")
        #expect(other.stderr.contains("sent:     > 0x5001 GetInfo"), "\(other.stderr)")
        #expect(other.stdout.contains("\"code\":\"replay-diverged\""), "\(other.stdout)")
        // A command the recording does not have at all.
        let fewer = try await sandbox.run(["--device", "replay:" + recorded.path, "info"])
        #expect(fewer.status == 15, "\(fewer.stderr)")
    }

    /// The shell records one link per command line, and its script replays the same way.
    @Test func aShellSessionRecordsEveryLinkAndReplays() async throws {
        let sandbox = try UCubeSandbox()
        let script = sandbox.directory.appendingPathComponent("steps.ucube")
        try "rpc get-info C1\ninfo\npay 3 --card visa-contactless\n".write(
            to: script, atomically: true, encoding: .utf8)
        let recorded = sandbox.directory.appendingPathComponent("shell.rec")
        let live = try await sandbox.run(["--record", recorded.path, "shell", "--script", script.path])
        #expect(live.status == 0, "\(live.stderr)")
        let recording = try Recording(parsing: String(contentsOf: recorded, encoding: .utf8))
        // `rpc` and `info` share the shell's link; `--card` opens a new one (a new simulated card).
        #expect(recording.links.count == 2)
        #expect(recording.links.allSatisfy { $0.frames.count > 4 })
        #expect(recording.command.hasSuffix("shell --script \(script.path)"))

        let replay = try await sandbox.run(
            ["--device", "replay:" + recorded.path, "--fast", "shell", "--script", script.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("status: APPROVED"), "\(replay.stdout)")
        #expect(replay.stdout.components(separatedBy: "serial number:").count == 2, "info ran once: \(replay.stdout)")
    }

    /// At the recorded pace, the answers come no sooner than they did.
    @Test func theRecordedPaceIsKeptUnlessFast() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.05"
        let recorded = sandbox.directory.appendingPathComponent("slow.rec")
        #expect(try await sandbox.run(["--record", recorded.path, "pay", "10", "--card", "visa-contact"]).status == 0)
        let recording = try Recording(parsing: String(contentsOf: recorded, encoding: .utf8))
        let span = try #require(recording.links.last?.frames.last?.time)
        let clock = ContinuousClock()
        let start = clock.now
        let replay = try await sandbox.run(["--device", "replay:" + recorded.path, "pay", "10"])
        let paced = clock.now - start
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(paced >= .milliseconds(Int64(span * 1000 * 0.9)), "replayed in \(paced), recorded over \(span) s")
    }

    @Test func decodeReadsARecording() async throws {
        let sandbox = try UCubeSandbox()
        let recorded = sandbox.directory.appendingPathComponent("decode.rec")
        #expect(try await sandbox.run(["--record", recorded.path, "rpc", "get-info", "C1"]).status == 0)
        let decoded = try await sandbox.run(["decode"], stdinFile: recorded)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.contains("GetInfo"), "\(decoded.stdout)")
        #expect(decoded.stdout.contains("CancelAll"), "the start-up resynchronisation is in it too: \(decoded.stdout)")
    }
}

/// `--record FILE` replaces an earlier recording only once the new command reaches a terminal (issue 25's smaller
/// findings: a command that failed to connect wiped the recording it was given).
@Suite struct RecordKeepsTheOldFileTests {
    @Test func aFailedConnectLeavesTheEarlierRecording() async throws {
        let sandbox = try UCubeSandbox()
        let file = sandbox.directory.appendingPathComponent("session.rec").path
        let good = try await sandbox.run(["--device", "sim", "--record", file, "info"])
        #expect(good.status == 0, "\(good.stderr)")
        let before = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!before.isEmpty)
        let refusing = try ErrorReportingTests.RefusingPort()  // bound, never listened on: connects are refused
        defer { withExtendedLifetime(refusing) {} }
        let failed = try await sandbox.run(["--device", "tcp://127.0.0.1:\(refusing.port)", "--record", file, "info"])
        #expect(failed.status == 5, "\(failed.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
        // A link that opens does replace it.
        let again = try await sandbox.run(["--device", "sim", "--record", file, "rpc", "get-info"])
        #expect(again.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) != before)
    }
}
