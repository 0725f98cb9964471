import Foundation
import Testing
import UCubeProtocol
import UCubeSimulator

/// An update interrupted at every Load block, three ways — the link dropped, the process killed, the terminal
/// rebooted — leaves the old firmware running, and a re-run installs the new image, verified (issue 13). And the
/// revert case: a signature refused after the last block leaves the old firmware, with its own verdict.
///
/// Over TCP, so the simulated terminal outlives the killed process as a real one does.
@Suite(.serialized) struct UpdateInterruptionTests {
    static let old = "firmware (SVPP): 6.0.0.54"
    static let new = "firmware (SVPP): 6.0.2.0"

    /// A signed SVPP image of several Load blocks (2040 bytes each).
    final class Image: Sendable {
        let directory: URL
        let path: String
        let signature: String
        /// A signature by the same key over another image: valid DER, refused for this one after the last block.
        let foreignSignature: String

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ucube-update-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("svpp.bin").path
            signature = directory.appendingPathComponent("svpp.sig").path
            foreignSignature = directory.appendingPathComponent("other.sig").path
            try SimulatedFirmware.writeImage(
                type: .svppFirmware, version: FirmwareVersion([6, 0, 2, 0]), payloadSize: 12_000, imagePath: path,
                signaturePath: signature)
            try SimulatedFirmware.writeImage(
                type: .svppFirmware, version: FirmwareVersion([6, 0, 2, 0]), payloadSize: 12_000, seed: 2,
                imagePath: directory.appendingPathComponent("other.bin").path, signaturePath: foreignSignature)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// The 1-based positions, among the frames `ucube --trace` sent, of the Load commands.
    static func loadPositions(_ trace: String) -> [Int] {
        var positions: [Int] = []
        var frame = 0
        for line in trace.split(separator: "\n") {
            if line.hasPrefix("> ") { frame += 1 }
            if line.hasPrefix("  SEQ") && line.contains("CMD 0x5161") && !positions.contains(frame) {
                positions.append(frame)
            }
        }
        return positions
    }

    static func update(_ image: Image, signature: String? = nil) -> [String] {
        ["mdm-update", "--file", image.path, "--signature", signature ?? image.signature]
    }

    @Test func interruptedAtEveryBlockKeepsTheOldFirmwareAndARerunCompletes() async throws {
        let image = try Image()
        // Where the Load blocks are in a clean run.
        let (clean, device, server) = try await RecoveryEndToEndTests.prepare(.tcp, fault: nil)
        let (process, _, err) = try clean.startCapturing(device + ["--trace"] + Self.update(image))
        let trace = await UCubeSandbox.readToEnd(err)
        #expect(await process.exit() == 0, "\(trace.suffix(400))")
        await server?.stop()
        let loads = Self.loadPositions(trace)
        #expect(loads.count >= 5, "the image takes several blocks: \(loads)")

        for (block, position) in loads.enumerated() {
            for mode in ["drop", "silent", "reboot"] {
                let label =
                    "block \(block + 1)/\(loads.count) (frame \(position)), \(mode == "silent" ? "killed" : mode)"
                let (sandbox, device, server) = try await RecoveryEndToEndTests.prepare(
                    .tcp, fault: "\(mode)@\(position)")
                _ = try await RecoveryEndToEndTests.run(
                    sandbox, device: device, Self.update(image), killAfter: mode == "silent" ? position : nil,
                    server: server)
                let info = try await sandbox.run(device + ["info"])
                #expect(
                    info.stdout.contains(Self.old), "\(label): the old firmware runs: \(info.stdout) \(info.stderr)")
                let rerun = try await sandbox.run(device + Self.update(image), timeout: .seconds(90))
                #expect(rerun.status == 0, "\(label): the re-run: \(rerun.stdout) \(rerun.stderr)")
                #expect(rerun.stdout.contains("6.0.0.54 → 6.0.2.0: installed"), "\(label): \(rerun.stdout)")
                let after = try await sandbox.run(device + ["info"])
                #expect(after.stdout.contains(Self.new), "\(label): the new image runs: \(after.stdout)")
                await server?.stop()
            }
        }
    }

    @Test func aSignatureRefusedAfterTheLastBlockKeepsTheOldFirmware() async throws {
        let image = try Image()
        let (sandbox, device, server) = try await RecoveryEndToEndTests.prepare(.tcp, fault: nil)
        let refused = try await sandbox.run(device + Self.update(image, signature: image.foreignSignature))
        #expect(refused.status == 9, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stdout.contains("FAILED") && refused.stdout.contains("signature"), "\(refused.stdout)")
        #expect(try await sandbox.run(device + ["info"]).stdout.contains(Self.old))
        await server?.stop()
    }
}
