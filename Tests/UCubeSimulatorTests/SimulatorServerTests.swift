import Foundation
import Synchronization
import Testing
import UCubeProtocol

@testable import UCubeSimulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("SimulatorServer over TCP and the link model")
struct SimulatorServerTests {
    @Test("the TCP server on port 0 answers GetInfo; state survives a reconnection")
    func tcpGetInfo() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            try await SimulatorServer.listen(host: "127.0.0.1", port: 0, simulator: simulator) { port in
                portContinuation.yield(port)
            }
        }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        #expect(port > 0)

        let request = try CommandFrame(sequence: 0, command: .getInfo, payload: [0xC4, 0xD1]).encoded()
        let answer = try await BlockingClient.exchange(port: port, [request, request])
        var decoder = FrameDecoder()
        decoder.append(answer)
        let response = try ResponseFrame(raw: try #require(try decoder.next()), secured: false)
        #expect(response.status == .success)
        #expect(response.data == [0xC4, 0x01, 0x02, 0xD1, 0x04, 0x06, 0x00, 0x00, 0x36])
        #expect(try decoder.next() != nil)  // the second request on the same connection

        // A second connection after the first closed: the same terminal, now in SECURED state.
        let enter = try CommandFrame(sequence: 0, command: .enterSecureSession, payload: []).encoded()
        _ = try await BlockingClient.exchange(port: port, [enter])
        let state = try CommandFrame(sequence: 1, command: .getInfo, payload: [0xC4]).encoded()
        _ = try await BlockingClient.exchange(port: port, [state])
        #expect(await simulator.device.terminalState == .secured)

        server.cancel()
        _ = await server.result
    }

    @Test("disconnectAt over TCP: the terminal answers up to the chosen command, then closes the connection")
    func tcpDisconnectFault() async throws {
        var configuration = SimulatorConfiguration(timeScale: 0.01)
        configuration.script.faults = SimulatorFaults(disconnectAt: .enterSecureSession)
        let simulator = try TerminalSimulator(configuration: configuration)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            try await SimulatorServer.listen(host: "127.0.0.1", port: 0, simulator: simulator) { port in
                portContinuation.yield(port)
            }
        }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let info = try CommandFrame(sequence: 0, command: .getInfo, payload: [0xC4]).encoded()
        let enter = try CommandFrame(sequence: 1, command: .enterSecureSession, payload: []).encoded()
        let after = try CommandFrame(sequence: 2, command: .getInfo, payload: [0xC4]).encoded()
        // Closed by the server: the client's 60 s receive timeout would throw "the server did not close".
        let received = try await BlockingClient.readUntilClosed(port: port, [info, enter, after])
        var decoder = FrameDecoder()
        decoder.append(received)
        let only = try ResponseFrame(raw: try #require(try decoder.next()), secured: false)
        #expect(only.command == .getInfo)
        #expect(only.data == [0xC4, 0x01, 0x02])
        #expect(try decoder.next() == nil)  // EnterSecureSession and what followed were never answered
        #expect(await simulator.device.terminalState == .ready)

        // The fault fired once: the next connection is served normally.
        let answer = try await BlockingClient.exchange(port: port, [enter])
        decoder.append(answer)
        #expect(try ResponseFrame(raw: try #require(try decoder.next()), secured: false).status == .success)

        server.cancel()
        _ = await server.result
    }

    /// Starts a server on an ephemeral port; returns its port, the task, and the reasons it dropped hosts for.
    static func server(_ simulator: TerminalSimulator, answerBuffer: Int? = nil) async throws -> (
        Int, Task<Void, any Error>, Reasons
    ) {
        let reasons = Reasons()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            try await SimulatorServer.listen(
                host: "127.0.0.1", port: 0, simulator: simulator,
                dropped: { reasons.add($0) }, answerBuffer: answerBuffer
            ) { port in portContinuation.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        return (try #require(await iterator.next()), server, reasons)
    }

    /// Issue 39: a host streaming noise at full speed took the simulator to 2.5 GB. The terminal now drops it once
    /// the noise passes `maxNoiseBytes` without a frame; the host's writes then fail, long before its 64 MiB are out.
    @Test("a host that streams noise is dropped, with the reason")
    func noiseIsDropped() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let (port, server, reasons) = try await Self.server(simulator)
        defer { server.cancel() }
        let noise = [UInt8](repeating: 0x55, count: 65536)
        let sent = try await BlockingClient.flood(port: port, upTo: 64 * 1024 * 1024) { noise }
        #expect(sent < 64 * 1024 * 1024, "the simulator took 64 MiB of noise without dropping the host")
        #expect(sent > SimulatorChoices.maxNoiseBytes)
        let said = reasons.all
        #expect(said.count == 1 && said[0].contains("without one valid frame"), "\(said)")
        // The terminal serves the next host as before.
        let info = try CommandFrame(sequence: 0, command: .getInfo, payload: [0xC4]).encoded()
        #expect(try await !BlockingClient.exchange(port: port, [info]).isEmpty)
    }

    /// Issue 39: a host that sends GetInfo and never reads took the simulator to 3–4 GB. Its answers now wait in the
    /// kernel's buffers, then in NIO's write buffer; once that is full the host is dropped. The host's commands are
    /// counted, not timed: a million GetInfo would be 12 MB of commands and about 30 MB of answers.
    @Test("a host that sends commands and never reads its answers is dropped, with the reason")
    func unreadAnswersDropTheHost() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        // The drop comes once the answers fill what the server holds for the host: 4 KiB here. With the kernel's and
        // NIO's defaults the simulator first answered tens of thousands of commands: 58 s alone at load 6, 300-460 s
        // in a full run at load 15-20; with 4 KiB, 0.4 s (issue 36: data sized to the test's purpose).
        let (port, server, reasons) = try await Self.server(simulator, answerBuffer: 4096)
        defer { server.cancel() }
        var batch: [UInt8] = []
        for seq in 0..<256 {
            batch += try CommandFrame(sequence: UInt8(seq), command: .getInfo, payload: [0xC4, 0xD1]).encoded()
        }
        let frames = batch
        let limit = 1_000_000 / 256 * batch.count
        let sent = try await BlockingClient.flood(port: port, upTo: limit, receiveBuffer: 4096) { frames }
        #expect(sent < limit, "the simulator answered a million commands nobody read without dropping the host")
        let said = reasons.all
        #expect(said.count == 1 && said[0].contains("leaves its answers unread"), "\(said)")
    }

    @Test("link model: BLE time counts stuffed bytes in 20-byte chunks per 30 ms interval")
    func linkModel() throws {
        // spec §3.1: the "Hello world" display frame stuffs to 32 bytes, two BLE writes (20 + 12), so two 20-byte
        // chunks.
        let frame = [UInt8](
            hex: "02 00 14 01 50 40 02 00 05 01 00 0C 48 65 6C 6C 6F 20 77 6F 72 6C 64 00 FF 00 3A C9 03"
        )
        #expect(BLECodec.stuff(frame).count == 32)
        #expect(LinkModel.ble.transferTime(forFrame: frame) == .milliseconds(15 + 2 * 30))
        // A negotiated ATT MTU: writes of MTU − 3 bytes, so a 167-byte frame (stuffed) goes in one write, not nine.
        #expect(LinkModel.ble(mtu: 23).chunkSize == 20 && LinkModel.ble.mtu == 23)
        #expect(LinkModel.ble(mtu: 247).chunkSize == 244 && LinkModel.ble(mtu: 517).chunkSize == 512)
        #expect(LinkModel.ble(mtu: 5).chunkSize == 20 && LinkModel.ble(mtu: 600).chunkSize == 512)
        let big = [UInt8](repeating: 0x41, count: 165)
        #expect(LinkModel.ble.transferTime(byteCount: big.count + 2) == .milliseconds(15 + 9 * 30))
        #expect(LinkModel.ble(mtu: 247).transferTime(byteCount: big.count + 2) == .milliseconds(15 + 30))
        #expect(LinkModel.classic.transferTime(byteCount: 2000) == .milliseconds(10 + 100))
        #expect(LinkModel.none.transferTime(forFrame: frame) == .zero)
    }

    @Test("with a link model the answer takes at least the modelled time")
    func linkModelDelaysFrames() async throws {
        let slow = LinkModel(latency: .milliseconds(40))
        let link = try SimulatorHarness(SimulatorConfiguration(linkModel: slow, timeScale: 0.01))
        defer { Task { await link.close() } }
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await link.exchange(.getInfo, [0xC4], seq: 0)
        #expect(start.duration(to: clock.now) >= .milliseconds(80))  // inbound + outbound
    }

    @Test("the default state directory follows UCUBE_SIM_HOME, then XDG_STATE_HOME")
    func defaultStateDirectory() {
        #expect(
            SimulatorConfiguration.defaultStateDirectory(environment: ["UCUBE_SIM_HOME": "/a", "XDG_STATE_HOME": "/b"])
                == "/a"
        )
        #expect(
            SimulatorConfiguration.defaultStateDirectory(environment: ["XDG_STATE_HOME": "/b"]) == "/b/ucube/simulator"
        )
        #expect(
            SimulatorConfiguration.defaultStateDirectory(environment: ["HOME": "/h"])
                == "/h/.local/state/ucube/simulator"
        )
    }
}

/// What a server said when it dropped hosts.
final class Reasons: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ reason: String) { list.withLock { $0.append(reason) } }
    var all: [String] { list.withLock { $0 } }
}

/// A plain POSIX TCP client, run on its own thread so its blocking calls never hold a Swift concurrency thread.
enum BlockingClient {
    /// Connects to 127.0.0.1:`port`, writes each request, reads until one response frame per request arrived (or
    /// 5 s pass), closes, and returns every byte read.
    static func exchange(port: Int, _ requests: [[UInt8]]) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try run(port: port, requests, untilClosed: false) })
            }
            thread.start()
        }
    }

    /// Connects, writes each request, and reads until the server closes the connection (throws after 5 s).
    static func readUntilClosed(port: Int, _ requests: [[UInt8]]) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try run(port: port, requests, untilClosed: true) })
            }
            thread.start()
        }
    }

    /// A write that blocks this long means the server neither reads nor drops the connection: the flood ends and the
    /// test says so, where a blocking `send` would hold the whole test run (it did once, stop 47: every thread idle,
    /// this one in `send`). A safety net, ten times the test's own minute under load.
    static let stalledWrite: Int = 600

    /// Connects and writes `chunk()` over and over, never reading, until the server drops the connection (a write
    /// fails) or `upTo` bytes are written; returns the bytes written. `receiveBuffer`: the socket's SO_RCVBUF. Throws
    /// when one write waits `stalledWrite` seconds.
    static func flood(
        port: Int, upTo limit: Int, receiveBuffer: Int32? = nil, chunk: @escaping @Sendable () -> [UInt8]
    ) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result {
                        let fd = try connected(port: port, receiveBuffer: receiveBuffer)
                        defer { close(fd) }
                        var timeout = timeval(tv_sec: stalledWrite, tv_usec: 0)
                        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                        let bytes = chunk()
                        var sent = 0
                        while sent < limit {
                            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                                throw HarnessError.socket(
                                    "the server neither read nor dropped the connection for \(stalledWrite) s, after \(sent) bytes"
                                )
                            }
                            guard n > 0 else { break }
                            sent += n
                        }
                        return sent
                    })
            }
            thread.start()
        }
    }

    private static func connected(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw HarnessError.socket("socket() failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw HarnessError.socket("connect() failed")
        }
        return fd
    }

    private static func run(port: Int, _ requests: [[UInt8]], untilClosed: Bool) throws -> [UInt8] {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw HarnessError.socket("socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HarnessError.socket("connect() failed") }
        for request in requests {
            let written = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard written == request.count else { throw HarnessError.socket("short write") }
        }
        var received: [UInt8] = []
        var decoder = FrameDecoder()
        var frames = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        if untilClosed {
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count == 0 { return received }
                guard count > 0 else { throw HarnessError.socket("timed out: the server did not close") }
                received += buffer[0..<count]
            }
        }
        while frames < requests.count {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw HarnessError.socket("connection closed or timed out after \(frames) frames") }
            received += buffer[0..<count]
            decoder.append(buffer[0..<count])
            while (try? decoder.next()) != nil { frames += 1 }
        }
        return received
    }
}
