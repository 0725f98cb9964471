import Foundation
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
