import Foundation
import Testing

/// `ucube decode` of a Bluetooth HCI capture (spec §3.5, issue 15): the committed fixtures of
/// Tests/Fixtures/btsnoop/ (made by `UCubeCaptureFixture` in the protocol tests).
@Suite struct DecodeCaptureEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/btsnoop")
    static let h4 = fixtures.appendingPathComponent("ucube-touch-h4.btsnoop").path
    static let monitor = fixtures.appendingPathComponent("ucube-touch-btmon.btsnoop").path

    @Test(arguments: [["--as", "btsnoop", h4], [h4], ["--as", "btsnoop", monitor]])
    func eachExchangeShowsItsCommandSequenceSecurityAndStatus(arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(["decode"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let out = run.stdout
        #expect(
            out.contains("TxRx: handle 0x0012 on connection 0x0040 (announced by the GATT discovery in the capture)"),
            "\(out)")
        #expect(out.contains("12 frames\n"), "\(out)")
        #expect(!out.contains("note:"), "\(out)")
        // GetInfo: the command, its sequence, the answer's status and the GetInfo tags decoded.
        #expect(out.contains("> frame: STX, LEN 22, SEQ 0, CMD 0x5001"), "\(out)")
        #expect(out.contains("command GetInfo, payload: C1 C2 C3"), "\(out)")
        #expect(out.contains("response, status 0"), "\(out)")
        #expect(out.contains("UCUBE-TOUCH-EU"), "\(out)")
        // The WaitCard that timed out: its status and meaning.
        #expect(out.contains("command WaitCard"), "\(out)")
        #expect(out.contains("TIMEOUT — the terminal's own timeout expired"), "\(out)")
        // The secure session: the GetPlainTag is read with its crypto header and MAC, its answer's TLV decoded.
        #expect(out.contains("secured: crypto header 7F, MAC 5E C0 0D E0"), "\(out)")
        #expect(out.contains("command GetPlainTag, payload: 5A 5F 24 9F 27 84"), "\(out)")
        // The test card's PAN only masked.
        #expect(out.contains("476173******0010"), "\(out)")
        #expect(!out.contains("4761739001010010") && !out.contains("47 61 73 90 01 01 00 10"), "\(out)")
        #expect(out.contains("record "), "\(out)")
    }

    @Test func theJSONFormHasTheFramesAsDecodeReportsThem() async throws {
        let run = try await UCubeSandbox().run(["decode", "--json", "--as", "btsnoop", Self.h4])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(object["kind"] as? String == "btsnoop")
        let txRx = try #require(object["txRx"] as? [[String: Any]])
        #expect(txRx.first?["handle"] as? Int == 0x12)
        #expect(txRx.first?["source"] as? String == "discovery")
        let frames = try #require(object["frames"] as? [[String: Any]])
        #expect(frames.count == 12)
        let first = try #require(frames.first?["frame"] as? [String: Any])
        #expect(first["command"] as? String == "GetInfo")
        #expect(first["direction"] as? String == "command")
        #expect(frames.first?["kind"] as? String == "frame")
        #expect(frames.first?["handle"] as? Int == 0x12)
        #expect((frames.first?["record"] as? Int ?? 0) > 1)
        let timeout = try #require(frames[5]["frame"] as? [String: Any])
        #expect((timeout["status"] as? [String: Any])?["value"] as? Int == -2, "\(timeout)")
        // The ATT list names each write and notification (the 26 tshark lists) without its bytes.
        let att = try #require(object["att"] as? [[String: Any]])
        #expect(att.count == 26 && att.allSatisfy { $0["value"] == nil }, "\(att.count)")
        // The answer's data is masked as the lines are.
        let answer = try #require(frames[9]["frame"] as? [String: Any])
        #expect((answer["data"] as? String)?.hasPrefix("5A08476173******0010") == true, "\(answer)")
        #expect(!run.stdout.contains("4761739001010010"))
    }

    @Test func aFileThatIsNotACaptureOrIsMissingIsAnError() async throws {
        let sandbox = try UCubeSandbox()
        let notCapture = sandbox.directory.appendingPathComponent("frame.txt")
        try Data("02 00 03 00 50 01 C1 C4 D1 AB 0F 03".utf8).write(to: notCapture)
        let bad = try await sandbox.run(["decode", "--as", "btsnoop", notCapture.path])
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.contains("not a btsnoop capture"), "\(bad.stderr)")
        let missing = try await sandbox.run(["decode", "--as", "btsnoop", notCapture.path + ".none"])
        #expect(missing.status == 64 && missing.stderr.contains("no such file"), "\(missing.stderr)")
        let handle = try await sandbox.run(["decode", "--as", "btsnoop", "--handle", "zz", Self.h4])
        #expect(handle.status == 64, "\(handle.stderr)")
        // --handle names the handle: another one finds no frame there.
        let other = try await sandbox.run(["decode", "--as", "btsnoop", "--handle", "0x0015", Self.h4])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(
            other.stdout.contains("TxRx: handle 0x0015 on connection 0x0040 (given by --handle): 1 writes"),
            "\(other.stdout)")
        #expect(other.stdout.contains("0 frames"), "\(other.stdout)")
    }

    @Test func aCaptureOnStandardInputNeedsTheKind() async throws {
        let sandbox = try UCubeSandbox()
        let environment = sandbox.environment
        let run = try await blocking {
            let process = Process()
            process.executableURL = UCubeSandbox.binary
            process.arguments = ["decode", "--as", "btsnoop"]
            process.environment = environment
            let out = Pipe.cloexec()
            process.standardInput = FileHandle(forReadingAtPath: Self.h4)
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try UCubeSandbox.start(process)
            let data = out.fileHandleForReading.readAllRetryingInterrupts()
            return (process.waitForEnd().status, String(decoding: data, as: UTF8.self))
        }
        #expect(run.0 == 0)
        #expect(run.1.contains("12 frames"), "\(run.1)")
    }
}
