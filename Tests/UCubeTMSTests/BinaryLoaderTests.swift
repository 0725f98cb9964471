import Foundation
import Testing
import UCubeLink
import UCubeProtocol
import UCubeSimulator

@testable import UCubeTMS

/// The loader against the in-process simulator: installs, refusals, a link drop then a re-run, cancellation, and the
/// reboot after an SVPP firmware.
@Suite struct BinaryLoaderTests {
    @Test func aLocalConfigurationInstallsWithProgress() async throws {
        let rig = try Rig()
        let files = try writeLocalImage(.iccConfig, "1.0.0.6", payloadSize: 9_000, in: try temporaryDirectory())
        let log = ProgressLog()
        let client = rig.connect()
        let result = try await BinaryLoader(client: client).load(
            LocalImage(imagePath: files.image, signaturePath: files.signature), progress: { log.record($0) })
        #expect(result == LoadResult(totalBytes: 9_013, blockCount: 5))
        let events = log.events
        #expect(events.map(\.blocksSent) == [0, 1, 2, 3, 4, 5])
        #expect(events.map(\.bytesSent) == [0, 2040, 4080, 6120, 8160, 9013])
        #expect(events.last?.isComplete == true)
        #expect(events.allSatisfy { $0.totalBytes == 9_013 && $0.blockCount == 5 })
        #expect(try await client.send(GetInfo()).response?.emvICCConfigVersion == FirmwareVersion("1.0.0.6"))
        await client.close()
    }

    @Test func aTMSPackageInstalls() async throws {
        let directory = try temporaryDirectory()
        let image = SimulatedFirmware.makeImage(
            type: .nfcConfig, version: FirmwareVersion("1.0.0.5")!, payloadSize: 3_000, seed: 3)
        let signature = try SimulatedFirmware.sign(image)
        let blocks = stride(from: 0, to: image.count, by: 1000).map { Array(image[$0..<min($0 + 1000, image.count)]) }
        let path = directory + "/nfc.bin"
        try Data(package(signature: signature, blocks: blocks)).write(to: URL(fileURLWithPath: path))
        let rig = try Rig()
        let client = rig.connect()
        let result = try await BinaryLoader(client: client).load(TMSBinaryPackage(path: path))
        #expect(result.blockCount == 4)
        await client.close()
        #expect(try await rig.versions().emvNFCConfigVersion == FirmwareVersion("1.0.0.5"))
    }

    @Test func aTamperedBinaryIsRefusedWithTheOldFirmwareStillRunning() async throws {
        let rig = try Rig()
        let files = try writeLocalImage(.svppFirmware, "6.0.1.0", payloadSize: 6_000, in: try temporaryDirectory())
        // Flip one payload byte in the file.
        let handle = try #require(FileHandle(forUpdatingAtPath: files.image))
        try handle.seek(toOffset: 4_321)
        let byte = try #require(try handle.read(upToCount: 1))
        try handle.seek(toOffset: 4_321)
        try handle.write(contentsOf: [byte[0] ^ 0x01])
        try handle.close()

        let client = rig.connect()
        await #expect(throws: UpdateError(.signatureRejected, "")) {
            try await BinaryLoader(client: client).load(
                LocalImage(imagePath: files.image, signaturePath: files.signature))
        }
        do {
            try await BinaryLoader(client: client).load(
                LocalImage(imagePath: files.image, signaturePath: files.signature))
        } catch {
            #expect(error.status == .imageSignatureInvalid)
            #expect(error.reason.contains("IMAGE_SIGNATURE_INVALID"))
        }
        #expect(
            try await client.send(GetInfo()).response?.firmwareVersion == SimulatorChoices.DefaultDevice.firmwareVersion
        )
        #expect(await rig.simulator.rebootCount == 0)
        await client.close()
    }

    @Test func theSameVersionIsRefused() async throws {
        let rig = try Rig()
        let files = try writeLocalImage(.iccConfig, "1.0.0.5", payloadSize: 100, in: try temporaryDirectory())
        let client = rig.connect()
        await #expect(throws: UpdateError(.versionRejected, "")) {
            try await BinaryLoader(client: client).load(
                LocalImage(imagePath: files.image, signaturePath: files.signature))
        }
        await client.close()
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aLinkDropAtARandomLoadBlockThenARerunCompletes(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let payload = 20_000
        let blockCount = (payload + 13 + 2039) / 2040
        let dropAt = Int.random(in: 1...blockCount, using: &random)
        var script = SimulatorScript.default
        script.faults = SimulatorFaults(disconnectAt: .load, disconnectOccurrence: dropAt)
        let rig = try Rig(script: script)
        let files = try writeLocalImage(.iccConfig, "1.0.0.8", payloadSize: payload, in: try temporaryDirectory())
        let binary = LocalImage(imagePath: files.image, signaturePath: files.signature)
        let log = ProgressLog()

        let first = rig.connect()
        await #expect(throws: UpdateError(.link, "")) {
            try await BinaryLoader(client: first).load(binary, progress: { log.record($0) })
        }
        #expect(log.events.last?.blocksSent == dropAt - 1, "dropped at Load \(dropAt) of \(blockCount)")
        #expect(try await rig.versions().emvICCConfigVersion == SimulatorChoices.DefaultDevice.iccConfigVersion)

        let second = rig.connect()
        let result = try await BinaryLoader(client: second).load(binary)
        #expect(result.blockCount == blockCount)
        #expect(try await second.send(GetInfo()).response?.emvICCConfigVersion == FirmwareVersion("1.0.0.8"))
        await second.close()
    }

    @Test func cancellationBetweenBlocksLeavesTheOldVersion() async throws {
        let rig = try Rig()
        let files = try writeLocalImage(.svppFirmware, "6.0.1.0", payloadSize: 20_000, in: try temporaryDirectory())
        let client = rig.connect()
        let log = ProgressLog()
        let loading = Task {
            try await BinaryLoader(client: client).load(
                LocalImage(imagePath: files.image, signaturePath: files.signature),
                progress: { progress in
                    log.record(progress)
                    if progress.blocksSent == 3 { withUnsafeCurrentTask { $0?.cancel() } }
                })
        }
        await #expect(throws: UpdateError(.cancelled, "")) { try await loading.value }
        #expect(log.events.last?.blocksSent == 3)
        #expect(
            try await client.send(GetInfo()).response?.firmwareVersion == SimulatorChoices.DefaultDevice.firmwareVersion
        )
        #expect(await rig.simulator.rebootCount == 0)
        await client.close()
    }

    @Test func anSVPPFirmwareRebootsAndRebootWaitReconnects() async throws {
        let rig = try Rig()
        let files = try writeLocalImage(.svppFirmware, "6.0.1.0", payloadSize: 8_000, in: try temporaryDirectory())
        let client = rig.connect()
        try await BinaryLoader(client: client).load(LocalImage(imagePath: files.image, signaturePath: files.signature))
        let (next, info) = try await RebootWait(initialDelay: .milliseconds(20)).wait(
            after: client, reconnect: rig.connect)
        #expect(info.firmwareVersion == FirmwareVersion("6.0.1.0"))
        #expect(await client.isConnected == false)
        #expect(await rig.simulator.rebootCount == 1)
        // The new link carries on: the next item of an update.
        let config = try writeLocalImage(.iccConfig, "1.0.0.6", payloadSize: 500, in: try temporaryDirectory())
        try await BinaryLoader(client: next).load(LocalImage(imagePath: config.image, signaturePath: config.signature))
        #expect(try await next.send(GetInfo()).response?.emvICCConfigVersion == FirmwareVersion("1.0.0.6"))
        await next.close()
    }

    @Test func rebootWaitGivesUpAtItsDeadline() async throws {
        let rig = try Rig()
        let client = rig.connect()
        await client.close()
        let wait = RebootWait(
            dropTimeout: .milliseconds(10), initialDelay: .milliseconds(10), deadline: .milliseconds(200))
        await #expect(throws: UpdateError(.rebootTimeout, "")) {
            _ = try await wait.wait(after: client, reconnect: { throw LinkError(.connectFailed, "no terminal") })
        }
    }

    @Test func transferMeterRateAndETA() {
        var meter = TransferMeter()
        #expect(meter.eta(remaining: 100) == nil)
        meter.record(bytes: 0, at: .seconds(1))
        meter.record(bytes: 2_000, at: .seconds(3))
        #expect(meter.bytesPerSecond == 1_000)
        #expect(meter.eta(remaining: 500) == .milliseconds(500))
    }
}
