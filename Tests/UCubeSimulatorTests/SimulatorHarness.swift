import Foundation
import UCubeCrypto
import UCubeProtocol
import UCubeSupport

@testable import UCubeSimulator

/// The protocol's BER tag (Swift Testing also has a `Tag`).
typealias Tag = UCubeProtocol.Tag

/// Drives one `TerminalSimulator.serve` connection in memory: frames in through an `AsyncStream`, answers collected
/// and decoded with `FrameDecoder`, as a host would.
final class SimulatorHarness: Sendable {
    let simulator: TerminalSimulator
    let inbox = Inbox()
    private let input: ByteQueue
    private let serving: Task<TerminalSimulator.ConnectionEnd, Never>

    convenience init(_ configuration: SimulatorConfiguration = SimulatorConfiguration(timeScale: 0.01)) throws {
        self.init(simulator: try TerminalSimulator(configuration: configuration))
    }

    /// A new connection to an existing simulator (its device state carries over).
    init(simulator: TerminalSimulator) {
        let input = ByteQueue()
        let inbox = self.inbox
        self.simulator = simulator
        self.input = input
        self.serving = Task {
            let end = await simulator.serve(input: input) { await inbox.received($0) }
            await inbox.ended(end)
            return end
        }
    }

    /// How `serve` ended, once it has (the terminal dropped the link, or `close()`).
    func ended() async -> TerminalSimulator.ConnectionEnd { await serving.value }

    /// Writes raw bytes as the host would.
    func write(_ bytes: [UInt8]) { input.send(bytes) }

    /// Writes one command, wrapped (crypto header 7F + zero MAC, as the SDK sends it) when `secured`.
    func send(_ command: CommandID, _ payload: [UInt8] = [], seq: UInt8, secured: Bool = false) throws {
        let frame = CommandFrame(
            sequence: seq,
            command: command,
            payload: payload,
            envelope: secured ? SecuredEnvelope() : nil
        )
        write(try frame.encoded())
    }

    /// The next response frame (raw), waiting up to `timeout`.
    func next(timeout: Duration = .seconds(30)) async throws -> RawFrame {
        try await inbox.next(timeout: timeout)
    }

    /// The next response read in READY layout.
    func plain(timeout: Duration = .seconds(30)) async throws -> ResponseFrame {
        try ResponseFrame(raw: try await next(timeout: timeout), secured: false)
    }

    /// The next response read in SECURED layout.
    func secured(timeout: Duration = .seconds(30)) async throws -> ResponseFrame {
        try ResponseFrame(raw: try await next(timeout: timeout), secured: true)
    }

    /// Sends and reads one plain exchange.
    func exchange(_ command: CommandID, _ payload: [UInt8] = [], seq: UInt8) async throws -> ResponseFrame {
        try send(command, payload, seq: seq)
        return try await plain()
    }

    /// Ends the connection and waits for `serve` to return.
    @discardableResult
    func close() async -> TerminalSimulator.ConnectionEnd {
        input.finish()
        return await serving.value
    }
}

/// Collects what the simulator writes; every write is one whole frame, still decoded with `FrameDecoder`.
actor Inbox {
    private var decoder = FrameDecoder()
    private var frames: [RawFrame] = []
    private(set) var transcript: [UInt8] = []
    /// Set when `serve` returned: no more frames will come.
    private(set) var end: TerminalSimulator.ConnectionEnd?

    func ended(_ end: TerminalSimulator.ConnectionEnd) { self.end = end }

    func received(_ bytes: [UInt8]) {
        transcript += bytes
        decoder.append(bytes)
        while let frame = try? decoder.next() { frames.append(frame) }
    }

    func next(timeout: Duration) async throws -> RawFrame {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while frames.isEmpty {
            if end != nil { throw HarnessError.disconnected }
            guard clock.now < deadline else { throw HarnessError.noResponse }
            try await Task.sleep(for: .milliseconds(2))
        }
        return frames.removeFirst()
    }

    var pendingCount: Int { frames.count }
}

enum HarnessError: Error {
    case noResponse
    /// The simulator's `serve` returned: the link is gone.
    case disconnected
    case socket(String)
}

/// Independent host-side keys from the X9.24 test BDK (spec §12.3).
enum HostKeys {
    static func ksn(_ hex: String) throws -> KSN { try KSN(hex: hex) }

    static func key(_ variant: DUKPT.KeyVariant, ksn: String) throws -> [UInt8] {
        try DUKPT.sessionKey(bdk: CryptoChoices.testBDK, ksn: try KSN(hex: ksn), variant: variant)
    }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        do {
            self = try Hex.decode(hex)
        } catch {
            preconditionFailure("bad hex literal in a test: \(hex)")
        }
    }
}

/// A fresh, empty state directory under the temporary directory.
func temporaryStateDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("ucube-sim-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
