import Foundation
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubeTMS

/// One in-process simulated terminal; each `connect()` is a new link to it (as after a reboot or a re-run).
struct Rig {
    let simulator: TerminalSimulator

    init(script: SimulatorScript = .default, linkModel: LinkModel? = nil, timeScale: Double = 0.01) throws {
        simulator = try TerminalSimulator(
            configuration: SimulatorConfiguration(linkModel: linkModel, script: script, timeScale: timeScale))
    }

    /// A client on a fresh link; when the terminal ends the link (fault, reboot) the client sees it close.
    @Sendable func connect() -> RPCClient {
        let simulator = simulator
        let link = TransportFactory.inProcess { peer in
            _ = await simulator.serve(input: peer.input, output: { peer.write($0) })
        }
        return RPCClient(transport: link.transport, defaultTimeout: .seconds(30))
    }

    func versions() async throws -> DeviceInfo {
        let client = connect()
        defer { Task { await client.close() } }
        guard let info = try await client.send(GetInfo()).response else { throw RigError.noInfo }
        await client.close()
        return info
    }
}

enum RigError: Error { case noInfo }

/// A fresh temporary directory.
func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-tms-tests-\(UUID().uuidString)")
        .path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes a signed image and its signature; returns the `LocalImage`.
func writeLocalImage(
    _ type: FirmwareItemType, _ version: String, payloadSize: Int, in directory: String, seed: UInt64 = 7
) throws -> LocalImageFiles {
    let image = directory + "/\(type.rawValue)-\(version).bin"
    let signature = directory + "/\(type.rawValue)-\(version).sig"
    try SimulatedFirmware.writeImage(
        type: type, version: FirmwareVersion(version)!, payloadSize: payloadSize, seed: seed, imagePath: image,
        signaturePath: signature)
    return LocalImageFiles(image: image, signature: signature)
}

struct LocalImageFiles {
    let image: String
    let signature: String
}

/// A §10.5 download: `LLLL` signature, [`LLLL` key], `LLLL` block …, `00 00`.
func package(signature: [UInt8], key: [UInt8]? = nil, blocks: [[UInt8]], trailer: [UInt8] = [0, 0]) -> [UInt8] {
    func prefixed(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
    var out = prefixed(signature)
    if let key { out += prefixed(key) }
    for block in blocks { out += prefixed(block) }
    return out + trailer
}

/// Collects progress events from the loader's callback.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [LoadProgress] = []
    func record(_ p: LoadProgress) { lock.withLock { storage.append(p) } }
    var events: [LoadProgress] { lock.withLock { storage } }
}
