import Foundation
import Testing

/// `ucube cancel`'s control socket reads a request up to its newline, however the bytes arrive (issue 13).
@Suite struct ControlSocketEndToEndTests {
    /// Connects to the Unix socket at `path`, writes each part with a pause between, and reads the answer line.
    static func request(_ parts: [String], at path: String) -> String? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return nil }
        for part in parts {
            _ = part.withCString { write(fd, $0, strlen($0)) }
            usleep(200_000)
        }
        var answer = [UInt8](repeating: 0, count: 512)
        var total = 0
        while total < answer.count {
            let n = answer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if n <= 0 { break }
            total += n
            if answer[..<total].contains(0x0A) { break }
        }
        return String(decoding: answer[..<total], as: UTF8.self)
    }

    @Test func aRequestSplitAcrossWritesIsOneRequest() async throws {
        let sandbox = try UCubeSandbox()
        let (process, _, err) = try sandbox.startCapturing(["pay", "7", "--card", "card-timeout", "--card-timeout", "20", "--events"])
        defer { kill(process.processIdentifier, SIGKILL) }
        let path = sandbox.directory.appendingPathComponent("run/ucube/control-sim.sock").path
        // The card wait has begun: the socket listens and the cancel rule allows a cancel.
        _ = await UCubeSandbox.readUntil(err, contains: "START_TRANSACTION")
        let answer = await blocking { Self.request(["can", "cel", "\n"], at: path) }
        #expect(answer?.hasPrefix("accepted") == true, "\(answer ?? "no answer")")
        #expect(await process.exit() == 11, "the payment ends CANCELLED")
    }
}
