import Foundation
import Synchronization
import Testing
import UCubeLink
import UCubeRuntime

@testable import UCubeCLI

/// Every read of standard input or of a file stops at its limit, with the documented exit code, without waiting for
/// an end that may never come: each input here is one byte over the limit from a writer that never closes, as
/// `/dev/zero`, a FIFO or a stuck pipe would be. A read that wanted the whole input first would wait to the deadline.
@Suite struct BoundedReadTests {
    /// `decode`'s text and capture on standard input, and a line of the shell's standard input.
    /// Each limit is lowered to `lowered` bytes ($UCUBE_INPUT_LIMIT): one byte over it is the same refusal as one
    /// byte over 64 MiB, without pushing 64 MiB through a pipe (the nominal limits' speed is Benchmarks/bounded-read.sh's).
    static let lowered = 4096

    @Test(arguments: [
        (["decode"], ExitCodes.dataError.code),
        (["decode", "--as", "btsnoop"], ExitCodes.dataError.code),
        (["--device", "sim", "shell"], ExitCodes.usage.code),
    ])
    func standardInputOverItsLimitIsRefused(_ arguments: [String], _ expected: Int32) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_INPUT_LIMIT"] = String(Self.lowered)
        let bytes = Self.lowered + 1
        let input = Pipe.cloexec()
        let run = try sandbox.startCapturing(arguments, stdin: input)
        let status = try await Self.feed(input.fileHandleForWriting.fileDescriptor, bytes: bytes, to: run)
        try input.fileHandleForWriting.close()
        #expect(status == expected)
    }

    /// A recording replayed, and a shell script, from a FIFO whose writer never closes.
    @Test(arguments: [
        (["--device", "replay:FIFO", "info"], ExitCodes.dataError.code),
        (["--device", "sim", "shell", "--script", "FIFO"], ExitCodes.usage.code),
    ])
    func aFileFromAFIFOOverItsLimitIsRefused(_ arguments: [String], _ expected: Int32) async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_INPUT_LIMIT"] = String(Self.lowered)
        let bytes = Self.lowered + 1
        let fifo = sandbox.directory.appendingPathComponent("input").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Read and write: the open does not wait for the reader, and the FIFO never sees its writer leave.
        let fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0)
        let run = try sandbox.startCapturing(arguments.map { $0.replacingOccurrences(of: "FIFO", with: fifo) })
        let status = try await Self.feed(fd, bytes: bytes, to: run)
        close(fd)
        #expect(status == expected)
    }

    /// A recording replayed, and a shell script, of 1 GiB (sparse): refused from its size, by a process whose address
    /// space (1.5 GB) could not hold the file read whole, as `--device replay:FILE` once read it before checking.
    @Test(arguments: [
        (["--device", "replay:FILE", "info"], ExitCodes.dataError.code),
        (["--device", "sim", "shell", "--script", "FILE"], ExitCodes.usage.code),
    ])
    func aLargeFileIsRefusedWithoutReadingIt(_ arguments: [String], _ expected: Int32) async throws {
        let sandbox = try UCubeSandbox()
        let path = sandbox.directory.appendingPathComponent("large").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(1) << 30) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            [
                "-c", #"ulimit -v 1500000 && exec "$0" "$@""#, UCubeSandbox.binary.path,
            ] + arguments.map { $0.replacingOccurrences(of: "FILE", with: path) }
        process.environment = sandbox.environment
        let stderr = Pipe.cloexec()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try UCubeSandbox.start(process)
        _ = await UCubeSandbox.readToEnd(stderr, within: SafetyNet.process)
        #expect(await process.ended() == ChildExit(status: expected, signalled: false))
    }

    /// A regular file over the limit is refused from its size: the read never starts.
    @Test func aRegularFileOverTheLimitIsRefusedFromItsSize() throws {
        let sandbox = try UCubeSandbox()
        let path = sandbox.directory.appendingPathComponent("sparse").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(1) << 40) == 0)  // 1 TiB, sparse
        #expect(throws: BoundedFile.Failure.self) { try BoundedFile.read(path, limit: 1 << 20) }
        #expect(truncate(path, 10) == 0)
        #expect(try BoundedFile.read(path, limit: 10).count == 10)
    }

    /// Writes `bytes` bytes into `fd` (made non-blocking; the caller closes it) while `run` reads them, waits for
    /// `run` to exit (at most `SafetyNet.process`, a safety net: reaching it fails the test) and returns its status. The writer has
    /// stopped when this returns.
    static func feed(
        _ fd: Int32, bytes: Int, to run: (process: Process, stdout: Pipe, stderr: Pipe)
    ) async throws -> Int32 {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let stop = StopFlag()
        let writer = Task {
            await blocking {
                let chunk = [UInt8](repeating: 0x30, count: 1 << 16)
                var left = bytes
                while left > 0, !stop.isSet {
                    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    guard poll(&ready, 1, 100) > 0 else { continue }
                    let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, min(left, $0.count)) }
                    if written > 0 { left -= written } else if errno != EAGAIN && errno != EINTR { return }
                }
            }
        }
        _ = await UCubeSandbox.readToEnd(run.stderr, within: SafetyNet.process)
        if run.process.isRunning { run.process.terminate() }
        let status = await run.process.exit()
        stop.set()
        await writer.value
        return status
    }
}

/// Tells a writer thread to stop.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
