import Foundation
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubeTMS

/// The loader over the TCP simulator: a firmware install closes the socket (reboot), RebootWait reconnects once the
/// server serves again; and a ciphered §10.5 package travels with method DYNAMIC and its session key.
@Suite struct UpdateOverTCPTests {
    @Test func aFirmwareInstallOverTCPRebootsAndReconnects() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            try await SimulatorServer.listen(host: "127.0.0.1", port: 0, simulator: simulator) {
                portContinuation.yield($0)
            }
        }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let connect: @Sendable () async throws -> RPCClient = {
            RPCClient(
                transport: try await TransportFactory().open(.tcp(host: "127.0.0.1", port: port)).transport,
                defaultTimeout: .seconds(30))
        }
        let files = try writeLocalImage(.svppFirmware, "6.0.1.0", payloadSize: 30_000, in: try temporaryDirectory())
        let client = try await connect()
        let result = try await BinaryLoader(client: client).load(
            LocalImage(imagePath: files.image, signaturePath: files.signature))
        #expect(result.blockCount == 15)
        // The terminal reboots on its own after the last block (30 s hang guard). The client is not required to have
        // seen the socket close by then: in about one full-suite run in three, the in-process client still read the
        // link as open 30 s after the simulator had rebooted (cause not found). RebootWait closes the old link itself
        // after its drop timeout, as it must for a terminal that reboots without the host seeing the link go.
        let clock = ContinuousClock()
        let start = clock.now
        while await simulator.rebootCount == 0, clock.now - start < .seconds(30) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await simulator.rebootCount == 1)
        let (next, info) = try await RebootWait(initialDelay: .milliseconds(20)).wait(after: client, reconnect: connect)
        #expect(info.firmwareVersion == FirmwareVersion("6.0.1.0"))
        #expect(await simulator.rebootCount == 1, "one reboot, not one per reconnection")
        #expect(await client.isConnected == false, "RebootWait closed the old link")
        await next.close()
        server.cancel()
        _ = await server.result
    }

    @Test func aCipheredPackageIsAnnouncedWithItsSessionKey() async throws {
        let directory = try temporaryDirectory()
        let image = SimulatedFirmware.makeImage(
            type: .iccConfig, version: FirmwareVersion("1.0.0.6")!, payloadSize: 2_500, seed: 5)
        let signature = try SimulatedFirmware.sign(image)
        let key = [UInt8](repeating: 0x6B, count: 256)
        let path = directory + "/icc.bin"
        try Data(package(signature: signature, key: key, blocks: [Array(image[0..<2000]), Array(image[2000...])]))
            .write(to: URL(fileURLWithPath: path))
        let opened = try await TMSBinaryPackage(path: path, ciphered: true).open()
        #expect(opened.sessionKey == key)
        // The simulator has no session-key scheme: it verifies the blocks as received (SimulatorChoices).
        let rig = try Rig()
        let client = rig.connect()
        try await BinaryLoader(client: client).load(TMSBinaryPackage(path: path, ciphered: true))
        #expect(try await client.send(GetInfo()).response?.emvICCConfigVersion == FirmwareVersion("1.0.0.6"))
        await client.close()
    }
}
