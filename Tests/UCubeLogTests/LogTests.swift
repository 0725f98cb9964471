import Foundation
import Logging
import Testing
import UCubeProtocol
import ZIPFoundation

@testable import UCubeLog

/// A fresh directory under the temporary directory, removed by `cleanUp`.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "ucube-log-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? ""
    }

    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// Runs `body` on a thread of its own (blocking file I/O stays off the cooperative pool) and awaits it.
func onThread(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread {
            body()
            done.resume()
        }.start()
    }
}

/// The sequence number of a test line ("… n=000123 …").
func sequenceNumber(_ line: Substring) -> Int? {
    guard let range = line.range(of: "n=") else { return nil }
    return Int(line[range.upperBound...].prefix(6))
}

@Suite("Log rotation like the SDK (spec §11)")
struct LogRotationTests {
    /// More than 6 × 2 MB through one handler: exactly messages.log and messages.1…5.log, each at most 2 MB and one
    /// line, the newest lines in messages.log, and the surviving lines consecutive across every rotation.
    @Test func rotatesLikeTheSDK() async throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanUp() }
        let padding = String(repeating: "x", count: 960)
        let lineCount = Int(6.5 * Double(LogChoices.rotationSize)) / 1000
        await onThread {
            let logger = Logger(label: "ucube.rpc") {
                RotatingFileLogHandler(label: $0, directory: dir.path, level: .debug)
            }
            for n in 0..<lineCount {
                logger.info("n=\(String(format: "%06d", n)) \(padding)")
            }
        }
        let expected = [
            LogChoices.lockFileName, "messages.1.log", "messages.2.log", "messages.3.log", "messages.4.log",
            "messages.5.log", "messages.log",
        ]
        #expect(dir.names == expected)

        var numbers: [Int] = []
        for name in [
            "messages.5.log", "messages.4.log", "messages.3.log", "messages.2.log", "messages.1.log", "messages.log",
        ] {
            let text = dir.read(name)
            let lines = text.split(separator: "\n")
            let longest = lines.map { $0.utf8.count + 1 }.max() ?? 0
            #expect(UInt64(text.utf8.count) <= LogChoices.rotationSize + UInt64(longest), "\(name) is too big")
            if name != "messages.log" { #expect(UInt64(text.utf8.count) > LogChoices.rotationSize) }
            numbers += lines.compactMap(sequenceNumber)
        }
        #expect(numbers.last == lineCount - 1, "the newest line is last in messages.log")
        let gaps = zip(numbers, numbers.dropFirst()).filter { $1 != $0 + 1 }
        #expect(gaps.isEmpty, "lines lost or reordered: \(gaps.prefix(3))")
        // Everything older than five rotations is gone, nothing newer.
        #expect((numbers.first ?? 0) > 0)
    }

    /// The §11 line format: UTC timestamp with milliseconds, level, layer, message, metadata.
    @Test func lineFormat() async throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanUp() }
        await onThread {
            var logger = Logger(label: "ucube.payment") { RotatingFileLogHandler(label: $0, directory: dir.path) }
            logger[metadataKey: "state"] = "SMC_WAIT_CARD"
            logger.info("payment state changed", metadata: ["amount": "1250"])
            logger.debug("below the level: not written")
        }
        let lines = dir.read("messages.log").split(separator: "\n")
        #expect(lines.count == 1)
        let line = String(lines.first ?? "")
        #expect(
            line.wholeMatch(
                of:
                    /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} INFO payment: payment state changed amount=1250 state=SMC_WAIT_CARD/
            ) != nil, "\(line)")
    }

    /// Two handlers with their own files (as two processes have) writing at once, with rotations in between: every
    /// line arrives whole and exactly once.
    @Test func concurrentWritersDoNotInterleaveOrLoseLines() async throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanUp() }
        let perWriter = 3000
        let rotation: UInt64 = 100_000  // about 4 rotations for 2 × 3000 lines of ~80 bytes: none is deleted
        let levels = LogLevelSource(LogLevels(defaultLevel: .info))
        await withTaskGroup(of: Void.self) { group in
            for writer in ["a", "b"] {
                group.addTask {
                    await onThread {
                        let file = LogFile(directory: dir.path, rotationSize: rotation)
                        let logger = Logger(label: "ucube.rpc") {
                            RotatingFileLogHandler(label: $0, file: file, levels: levels)
                        }
                        for n in 0..<perWriter {
                            logger.info("writer=\(writer) n=\(String(format: "%06d", n)) end")
                        }
                    }
                }
            }
        }
        var seen: [String: [Int]] = [:]
        var malformed: [Substring] = []
        for name in dir.names where name.hasSuffix(".log") {
            for line in dir.read(name).split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                guard let match = line.wholeMatch(of: /\S+ \S+ INFO rpc: writer=([ab]) n=(\d{6}) end/) else {
                    malformed.append(line)
                    continue
                }
                seen[String(match.1), default: []].append(Int(match.2)!)
            }
        }
        #expect(malformed.isEmpty, "\(malformed.prefix(3))")
        // A process that rotated never makes another rotate again at once (it would if the other kept writing to
        // the file it had open before): every rotated file was over the size, none over it by more than a line.
        for name in dir.names where name.hasSuffix(".log") && name != "messages.log" {
            let size = UInt64(dir.read(name).utf8.count)
            #expect(size > rotation && size < rotation + 200, "\(name): \(size) bytes")
        }
        #expect(dir.names.contains("messages.3.log"), "the test must rotate several times")
        #expect(!dir.names.contains("messages.5.log"), "no file may have been deleted")
        for writer in ["a", "b"] {
            #expect(seen[writer]?.sorted() == Array(0..<perWriter), "writer \(writer)")
        }
    }

    /// A directory that cannot be created: lines are dropped and counted, the program goes on.
    @Test func unwritableDirectoryDropsLines() async throws {
        let file = LogFile(directory: "/proc/ucube-no-such-dir/logs")
        await onThread {
            let logger = Logger(label: "ucube.api") {
                RotatingFileLogHandler(label: $0, file: file, levels: LogLevelSource())
            }
            logger.error("lost")
            logger.error("lost too")
        }
        #expect(file.droppedLines == 2)
    }
}

@Suite("--log-level parsing")
struct LogLevelParsingTests {
    @Test func singleLevel() throws {
        let levels = try LogLevels(parsing: "debug")
        #expect(levels.defaultLevel == .debug)
        #expect(levels.perLayer.isEmpty)
        #expect(LogLayer.allCases.allSatisfy { levels.level(for: $0) == .debug })
    }

    @Test func perLayer() throws {
        let levels = try LogLevels(parsing: "rpc=trace, MDM=Debug,warning")
        #expect(levels.level(for: .rpc) == .trace)
        #expect(levels.level(for: .mdm) == .debug)
        #expect(levels.level(for: .payment) == .warning)
        #expect(levels.description == "rpc=trace,mdm=debug,warning")
        #expect(levels.lowest == .trace)
    }

    @Test func defaultIsInfo() throws {
        let levels = try LogLevels(parsing: "rpc=debug")
        #expect(levels.level(for: .api) == .info)
        #expect(LogLevels().level(for: .rpc) == LogChoices.defaultLevel)
    }

    @Test(arguments: [
        ("debgu", LogLevelError.Code.unknownLevel, "levels: trace, debug, info, notice, warning, error, critical"),
        ("rcp=debug", .unknownLayer, "layers: connection, rpc, payment, mdm, api"),
        ("rpc=verbose", .unknownLevel, "levels:"),
        ("", .empty, "LEVEL"),
        ("rpc=debug,,info", .empty, "empty item"),
        ("info,debug", .duplicate, "twice"),
        ("rpc=debug,rpc=info", .duplicate, "twice"),
    ])
    func typosAreClearErrors(text: String, code: LogLevelError.Code, hint: String) {
        #expect {
            try LogLevels(parsing: text)
        } throws: { error in
            guard let error = error as? LogLevelError else { return false }
            return error.code == code && error.reason.contains(hint)
        }
    }

    @Test func layersAndLabels() {
        #expect(LogLayer.rpc.label == "ucube.rpc")
        #expect(LogLayer(label: "ucube.payment") == .payment)
        #expect(LogLayer(label: "org.swift.nio") == nil)
        #expect(LogLayer.connection.sdkNumber == 4 && LogLayer.api.sdkNumber == 0)
    }

    /// A shell's `set log-level` reaches loggers made before it.
    @Test func levelSourceChangesExistingLoggers() {
        let source = LogLevelSource(LogLevels(defaultLevel: .info))
        let handler = RotatingFileLogHandler(
            label: "ucube.rpc", file: LogFile(directory: "/nonexistent"), levels: source)
        #expect(handler.logLevel == .info)
        source.current = try! LogLevels(parsing: "rpc=trace")
        #expect(handler.logLevel == .trace)
    }
}

@Suite("The log bundle never holds a PAN (spec §10.7, §11)")
struct LogBundleTests {
    static let pan = "4761739001010010"

    /// Every entry's text.
    func entries(of zip: String) throws -> [String: String] {
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        var out: [String: String] = [:]
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            out[entry.path] = String(decoding: data, as: UTF8.self)
        }
        return out
    }

    @Test func bundleHasNoPAN() async throws {
        let dir = try ScratchDirectory()
        let out = try ScratchDirectory()
        defer {
            dir.cleanUp()
            out.cleanUp()
        }
        let pan = Self.pan
        await onThread {
            let logger = Logger(label: "ucube.payment") {
                RotatingFileLogHandler(label: $0, directory: dir.path, level: .debug)
            }
            logger.info("card read: \(pan)")
            logger.info("spaced 4761 7390 0101 0010 dashed 4761-7390-0101-0010")
            logger.debug("5A: 47 61 73 90 01 01 00 10", metadata: ["track2": "\(pan)=25122011234567890"])
            logger.notice("amount 1250 serial 1234567890123 at 2026-11-22 08:16:51")
        }
        // The handler already masked them on the way to the disk.
        let written = dir.read("messages.log")
        #expect(!Masking.containsUnmaskedPAN(written))
        #expect(!written.contains(pan))
        #expect(written.contains("476173******0010"))
        #expect(written.contains("serial 1234567890123"), "non-PAN numbers stay")
        // A file another tool dropped in the directory, in clear: the bundle scrubs it.
        let raw = "svpp \(pan)\nhex 47 61 73 90 01 01 00 10\ntrack \(pan)D25122011234567890\n"
        try raw.write(toFile: dir.path + "/2026-11-22_08-16-51.log", atomically: true, encoding: .utf8)

        let zip = out.path + "/logs.zip"
        let names = try LogBundle.make(from: dir.path, to: zip)
        #expect(names == ["logs/2026-11-22_08-16-51.log", "logs/messages.log"])
        let contents = try entries(of: zip)
        #expect(contents.keys.sorted() == names)
        for (name, text) in contents {
            #expect(name.hasPrefix("logs/"))
            #expect(!Masking.containsUnmaskedPAN(text), "\(name)")
            #expect(!text.contains(pan))
            for line in text.split(separator: "\n") {
                #expect(
                    !line.contains(/\d{13,19}/) || !Masking.luhnValid(String(line.firstMatch(of: /\d{13,19}/)!.output)))
            }
        }
        #expect(contents["logs/2026-11-22_08-16-51.log"]?.contains("svpp 476173******0010") == true)
        // The directory itself is untouched until the upload succeeded.
        #expect(dir.names.contains("messages.log"))
    }

    @Test func refusesExistingFileAndEmptyDirectory() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanUp() }
        #expect(throws: LogBundleError(.noLogs, "")) { try LogBundle.make(from: dir.path, to: dir.path + "/x.zip") }
        try "line\n".write(toFile: dir.path + "/messages.log", atomically: true, encoding: .utf8)
        try "old".write(toFile: dir.path + "/x.zip", atomically: true, encoding: .utf8)
        #expect(throws: LogBundleError(.exists, "")) { try LogBundle.make(from: dir.path, to: dir.path + "/x.zip") }
    }

    @Test func deleteLogsKeepsTheLockFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanUp() }
        for name in ["messages.log", "messages.1.log", LogChoices.lockFileName] {
            try "x\n".write(toFile: dir.path + "/" + name, atomically: true, encoding: .utf8)
        }
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/link.log", withDestinationPath: "/etc/hostname")
        #expect(LogBundle.files(in: dir.path) == ["messages.1.log", "messages.log"], "no lock file, no link")
        try LogBundle.deleteLogs(in: dir.path)
        #expect(dir.names == [LogChoices.lockFileName, "link.log"])
    }

    /// A file without newlines, longer than the longest line, is still scrubbed: cut only between PANs.
    @Test func scrubCopyHandlesChunkBoundaries() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanUp() }
        var text = ""
        while text.utf8.count < LogChoices.maximumLineLength + 2 * LogChoices.bundleChunkSize {
            text += "pan \(Self.pan) ok; "
        }
        try text.write(toFile: dir.path + "/big.log", atomically: true, encoding: .utf8)
        try LogBundle.scrubCopy(from: dir.path + "/big.log", to: dir.path + "/out")
        let copied = dir.read("out")
        #expect(!Masking.containsUnmaskedPAN(copied))
        #expect(copied.utf8.count == text.utf8.count)
    }
}

@Suite("Log line timestamps")
struct LogTimestampTests {
    /// The expected texts are GNU date's: `date -u -d @1795665239 '+%F %T'` and `date -u -d @951782400 '+%F %T'`.
    @Test(arguments: [
        (1_795_665_239, 868_813_419, "2026-11-26 03:53:59.868"),
        (951_782_400, 7_000_000, "2000-02-29 00:00:00.007"),
        (0, 999_999_999, "1970-01-01 00:00:00.999"),
    ])
    func utcToTheMillisecond(seconds: Int, nanoseconds: Int, expected: String) {
        #expect(LogLine.timestamp(timespec(tv_sec: seconds, tv_nsec: nanoseconds)) == expected)
    }
}
