import Foundation
import Testing
import UCubeCrypto
import UCubeProtocol

@testable import UCubeSimulator

/// The terminal side of updates (spec §5.2 0x5160/0x5161, §9, §10.4; FirmwareImageChoices): signature verified while
/// the blocks stream in, version strictly newer, refusals leave the device unchanged, reboot after SVPP firmware.
@Suite struct FirmwareInstallTests {
    /// Sends InstallForLoad + the image in `blockSize` blocks; returns the last status (or the first non-zero one).
    static func load(
        _ link: SimulatorHarness, image: [UInt8], signature: [UInt8], blockSize: Int = Load.maxBlockSize,
        seq: inout UInt8
    ) async throws -> Status {
        seq &+= 1
        let install = InstallForLoad(signature: signature, method: .plain)
        let first = try await link.exchange(.installForLoad, try install.encodePayload(), seq: seq)
        guard first.status.isSuccess else { return first.status }
        var start = 0
        while start < image.count {
            let end = min(start + blockSize, image.count)
            seq &+= 1
            let load = Load(isLast: end == image.count, block: Array(image[start..<end]))
            let answer = try await link.exchange(.load, try load.encodePayload(), seq: seq)
            guard answer.status.isSuccess else { return answer.status }
            start = end
        }
        return .success
    }

    static func info(_ link: SimulatorHarness, seq: UInt8) async throws -> DeviceInfo {
        let frame = try await link.exchange(.getInfo, try GetInfo().encodePayload(), seq: seq)
        return try DeviceInfo(status: frame.status, data: frame.data)
    }

    static func image(_ type: FirmwareItemType, _ version: String, size: Int = 5_000) -> [UInt8] {
        SimulatedFirmware.makeImage(type: type, version: FirmwareVersion(version)!, payloadSize: size, seed: 42)
    }

    @Test func aValidConfigurationInstallsAndGetInfoShowsIt() async throws {
        let directory = try temporaryStateDirectory()
        let link = try SimulatorHarness(SimulatorConfiguration(stateDirectory: directory, timeScale: 0.01))
        var seq: UInt8 = 0
        let image = Self.image(.iccConfig, "1.0.0.6")
        let status = try await Self.load(link, image: image, signature: try SimulatedFirmware.sign(image), seq: &seq)
        #expect(status == .success)
        #expect(try await Self.info(link, seq: 99).emvICCConfigVersion == FirmwareVersion("1.0.0.6"))
        #expect(await link.simulator.lastInstalled?.version == FirmwareVersion("1.0.0.6"))
        #expect(await link.close() == .inputFinished)
        // Persisted: a new simulator on the same directory reports it.
        let again = try SimulatorHarness(SimulatorConfiguration(stateDirectory: directory, timeScale: 0.01))
        #expect(try await Self.info(again, seq: 1).emvICCConfigVersion == FirmwareVersion("1.0.0.6"))
        await again.close()
    }

    @Test(arguments: ["1.0.0.4", "1.0.0.3", "0.9.9.9"])
    func sameOrOlderVersionsAreRefused(version: String) async throws {
        let link = try SimulatorHarness()
        var seq: UInt8 = 0
        let image = Self.image(.nfcConfig, version)
        let status = try await Self.load(link, image: image, signature: try SimulatedFirmware.sign(image), seq: &seq)
        #expect(status == .imageNotNewer)
        #expect(
            try await Self.info(link, seq: 99).emvNFCConfigVersion == SimulatorChoices.DefaultDevice.nfcConfigVersion)
        await link.close()
    }

    @Test(arguments: [0, 12, 2_040, 3_000, 5_012])
    func aTamperedImageIsRefusedAndTheOldVersionRuns(index: Int) async throws {
        let link = try SimulatorHarness()
        var seq: UInt8 = 0
        let image = Self.image(.svppFirmware, "6.0.1.0")
        let signature = try SimulatedFirmware.sign(image)
        var tampered = image
        tampered[index] ^= 0x80
        #expect(try await Self.load(link, image: tampered, signature: signature, seq: &seq) == .imageSignatureInvalid)
        #expect(try await Self.info(link, seq: 99).firmwareVersion == SimulatorChoices.DefaultDevice.firmwareVersion)
        #expect(await link.simulator.rebootCount == 0)
        #expect(await link.close() == .inputFinished)
    }

    @Test func aSignedButMalformedImageIsRefused() async throws {
        let link = try SimulatorHarness()
        var seq: UInt8 = 0
        var badMagic = Self.image(.iccConfig, "1.0.0.9")
        badMagic[0] = 0x00
        #expect(
            try await Self.load(link, image: badMagic, signature: try CodeSigning.sign(badMagic), seq: &seq)
                == .imageMalformed)
        let short = Array(Self.image(.iccConfig, "1.0.0.9").dropLast())
        #expect(
            try await Self.load(link, image: short, signature: try CodeSigning.sign(short), seq: &seq)
                == .imageMalformed)
        #expect(
            try await Self.info(link, seq: 99).emvICCConfigVersion == SimulatorChoices.DefaultDevice.iccConfigVersion)
        await link.close()
    }

    @Test func typesWithoutAGetInfoTagAreRecordedOnce() async throws {
        let link = try SimulatorHarness()
        var seq: UInt8 = 0
        let image = Self.image(.miscParameters, "1.0.0.0", size: 100)
        let signature = try SimulatedFirmware.sign(image)
        #expect(try await Self.load(link, image: image, signature: signature, seq: &seq) == .success)
        #expect(await link.simulator.device.itemVersions["6"] == FirmwareVersion("1.0.0.0"))
        #expect(try await Self.load(link, image: image, signature: signature, seq: &seq) == .imageNotNewer)
        await link.close()
    }

    @Test func aNewInstallForLoadDropsThePartialStaging() async throws {
        let link = try SimulatorHarness()
        var seq: UInt8 = 0
        let image = Self.image(.iccConfig, "1.0.0.7")
        let signature = try SimulatedFirmware.sign(image)
        // Half of a first attempt, then a complete one: only the second one's bytes count.
        seq &+= 1
        _ = try await link.exchange(
            .installForLoad, try InstallForLoad(signature: signature, method: .plain).encodePayload(), seq: seq)
        seq &+= 1
        _ = try await link.exchange(
            .load, try Load(isLast: false, block: Array(image[0..<2040])).encodePayload(), seq: seq)
        #expect(try await Self.load(link, image: image, signature: signature, seq: &seq) == .success)
        await link.close()
    }

    @Test func aLinkLostMidLoadDiscardsTheStaging() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let image = Self.image(.iccConfig, "1.0.0.7", size: 3_000)
        let signature = try SimulatedFirmware.sign(image)
        let first = SimulatorHarness(simulator: simulator)
        _ = try await first.exchange(
            .installForLoad, try InstallForLoad(signature: signature, method: .plain).encodePayload(), seq: 1)
        _ = try await first.exchange(
            .load, try Load(isLast: false, block: Array(image[0..<2040])).encodePayload(), seq: 2)
        await first.close()
        // The rest of the image on a new link: there is no staging any more.
        let second = SimulatorHarness(simulator: simulator)
        let rest = try await second.exchange(
            .load, try Load(isLast: true, block: Array(image[2040...])).encodePayload(), seq: 3)
        #expect(rest.status == .badTerminalState)
        #expect(await simulator.device.iccConfigVersion == SimulatorChoices.DefaultDevice.iccConfigVersion)
        await second.close()
    }

    @Test func anSVPPFirmwareInstallRebootsAndTheNextConnectionWorks() async throws {
        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let link = SimulatorHarness(simulator: simulator)
        var seq: UInt8 = 0
        let image = Self.image(.svppFirmware, "6.0.1.0", size: 10_000)
        #expect(
            try await Self.load(link, image: image, signature: try SimulatedFirmware.sign(image), seq: &seq) == .success
        )
        // The terminal ends the connection on its own after answering the last Load.
        #expect(await link.ended() == .rebooted)
        #expect(await simulator.rebootCount == 1)
        let next = SimulatorHarness(simulator: simulator)
        let info = try await Self.info(next, seq: 1)
        #expect(info.firmwareVersion == FirmwareVersion("6.0.1.0"))
        #expect(info.state == .ready)
        #expect(await simulator.isRebooting == false)
        #expect(await next.close() == .inputFinished)
    }

    @Test func writeCatalogueWritesTheSharedContract() async throws {
        let directory = try temporaryStateDirectory()
        let catalogue = try SimulatedFirmware.writeCatalogue(directory: directory)
        let json = try String(contentsOfFile: directory + "/catalogue.json", encoding: .utf8)
        #expect(json.contains("\"min_version\" : \"6.0.1.0\""))
        #expect(catalogue.items.map(\.type) == [0, 4, 5])
        #expect(catalogue.items.map(\.version) == ["6.0.1.0", "1.0.0.6", "1.0.0.5"])
        #expect(catalogue.items.map(\.minVersion) == ["6.0.1.0", "1.0.0.5", "1.0.0.4"])
        let decoded = try JSONDecoder().decode(
            SimulatedFirmware.Catalogue.self,
            from: Data(contentsOf: URL(fileURLWithPath: directory + "/catalogue.json")))
        #expect(decoded == catalogue)
        for item in catalogue.items {
            let image = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + item.image)))
            let signature = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + item.signature)))
            #expect(try CodeSigning.verify(signature: signature, of: image))
            #expect(try FirmwareImageHeader(parsing: image).version.description == item.version)
        }
    }
}
