import Foundation
import Testing
import UCubeProtocol

/// `decode` shows each frame of a recording or a `--trace` dump as its line comes, not once the input has ended
/// (issue 27: a 17 MB recording took 108 MB, 254 MB with --json). Each test feeds a pipe that it keeps open and reads
/// the first frame's report before writing the rest; a decoder that waited for the end of its input would never
/// show it, and the read's deadline would fail the test.
@Suite struct DecodeStreamingTests {
    /// CancelAll (0x0202), SEQ 0, and its answer, status 0 (spec §2.6 framing; from a recording of `pay`).
    static let cancelAll = "020000000202462003"
    static let cancelled = "0200020002020000084803"
    /// The same answer with its CRC's last byte changed.
    static let badCRC = "0200020002020000084903"
    static let header = "ucube-recording 1\ncommand ucube --device sim info\nlink sim session=missing\n"

    @Test(arguments: [false, true])
    func aRecordingIsShownFrameByFrameWhileItIsStillBeingWritten(json: Bool) async throws {
        let sandbox = try UCubeSandbox()
        let input = Pipe.cloexec()
        let run = try sandbox.startCapturing(["decode"] + (json ? ["--json"] : []), stdin: input)
        let writer = input.fileHandleForWriting
        try writer.write(contentsOf: Data((Self.header + "> 0.000100 plain \(Self.cancelAll)\n").utf8))
        var shown = await UCubeSandbox.readUntil(
            run.stdout, contains: json ? #""command": "CancelAll""# : "command CancelAll")
        #expect(run.process.isRunning, "the input is still open")
        #expect(!shown.contains("response"), "\(shown)")

        try writer.write(contentsOf: Data("< 0.000200 plain \(Self.cancelled)\n".utf8))
        shown += await UCubeSandbox.readUntil(
            run.stdout, contains: json ? #""direction": "response""# : "response, status 0")
        #expect(run.process.isRunning)

        try writer.write(contentsOf: Data("end 0.000300\n".utf8))
        try writer.close()
        shown += await UCubeSandbox.readToEnd(run.stdout)
        #expect(await run.process.exit() == 0)
        if json {
            // The array written element by element is the array `decode` always wrote: one document, two frames.
            let frames = try #require(
                try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [[String: Any]], "\(shown)")
            #expect(
                frames.compactMap { ($0["frame"] as? [String: Any])?["direction"] as? String } == [
                    "command", "response",
                ])
            #expect(shown.hasPrefix("[\n  {\n") && shown.hasSuffix("\n]\n"), "\(shown)")
        } else {
            #expect(shown.hasPrefix("> frame: STX, LEN 0, SEQ 0, CMD 0x0202 CancelAll"), "\(shown)")
            #expect(shown.components(separatedBy: "\n\n").count == 2, "a blank line between the two frames: \(shown)")
        }
    }

    /// In a dump, a frame is complete once the line after it has come (it may be its note).
    @Test func aTraceDumpIsShownFrameByFrame() async throws {
        let sandbox = try UCubeSandbox()
        let input = Pipe.cloexec()
        let run = try sandbox.startCapturing(["decode"], stdin: input)
        let writer = input.fileHandleForWriting
        try writer.write(contentsOf: Data("> 02 00 00 00 02 02 46 20 03\n  SEQ 00 CMD 0x0202 CancelAll LEN 0\n".utf8))
        let shown = await UCubeSandbox.readUntil(run.stdout, contains: "command CancelAll")
        #expect(shown.hasPrefix("> frame:"), "\(shown)")
        #expect(run.process.isRunning, "the input is still open")
        try writer.write(contentsOf: Data("< 02 00 02 00 02 02 00 00 08 48 03\n".utf8))
        try writer.close()
        let rest = await UCubeSandbox.readToEnd(run.stdout)
        #expect(await run.process.exit() == 0)
        #expect(rest.contains("response, status 0"), "the last frame, at the end of the input: \(rest)")
    }

    /// A bad frame after good ones: those before it stay shown, the decoding stops with exit 65, and with --json
    /// stdout is still one JSON document (the array, closed), the error on stderr.
    @Test(arguments: [false, true])
    func aBadFrameStopsTheDecodingAfterTheFramesBeforeIt(json: Bool) async throws {
        let sandbox = try UCubeSandbox()
        let path = sandbox.directory.appendingPathComponent("bad.rec")
        let text =
            Self.header + "> 0.1 plain \(Self.cancelAll)\n< 0.2 plain \(Self.cancelled)\n< 0.3 plain \(Self.badCRC)\n"
        try Data(text.utf8).write(to: path)
        let run = try await sandbox.run(["decode"] + (json ? ["--json"] : []) + [path.path])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("not a valid frame: CRC"), "\(run.stderr)")
        if json {
            let frames = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run.stdout)")
            #expect(frames.count == 2)
        } else {
            #expect(
                run.stdout.contains("command CancelAll") && run.stdout.contains("response, status 0"), "\(run.stdout)")
        }
    }

    /// A bad line of a recording is named by its number, after the frames before it.
    @Test func aBadRecordingLineIsNamed() async throws {
        let text = Self.header + "> 0.1 plain \(Self.cancelAll)\nbogus\n"
        let run = try await UCubeSandbox().run(["decode"], input: text)
        #expect(run.status == 65)
        #expect(run.stderr.contains("not a usable recording: line 5: unknown record 'bogus'"), "\(run.stderr)")
        #expect(run.stdout.contains("command CancelAll"), "\(run.stdout)")
    }
}
