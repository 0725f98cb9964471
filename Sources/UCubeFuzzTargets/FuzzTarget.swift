import Foundation
import UCubeBluetooth
import UCubeCLI
import UCubeCrypto
import UCubePayment
import UCubeProtocol
import UCubeSimulator
import UCubeTMS
import ZIPFoundation

/// Every input ucube takes from outside the process, as a libFuzzer target (Fuzz/README.md). `run` feeds one input
/// to the same code the driver runs on such bytes. A thrown error is the expected answer to bad input; a trap, a
/// hang (libFuzzer's -timeout) or an allocation over -rss_limit_mb is a finding. `swift test` replays every file
/// under Fuzz/corpus/TARGET and Fuzz/regressions/TARGET through `run`.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// Frames (both layouts), the BLE de-stuffer and reassembler, BER-TLV (both rule sets) and its formatter.
    case frames
    /// A TMS binary download (docs/protocol.md §10.5), plain and ciphered, every block read back; the same bytes as
    /// the current SDK's zip answer, each of its packages scanned.
    case tmsPackage = "tms-package"
    /// The TMS configuration reply (§10.4) and the update plan made from it; a config.json read back from disk.
    case tmsConfig = "tms-config"
    /// The PKCS#12 keystore the TMS returns on register (§10.3), as the identity store loads it.
    case pkcs12
    /// A firmware image and its detached signature, as `mdm-update --file IMAGE --signature SIG` reads them.
    case firmware
    /// D-Bus messages from BlueZ: replies, the object tree, PropertiesChanged and InterfacesRemoved signals.
    case dbus
    /// The journal, the link session record and the remembered devices, read back from disk.
    case stateFiles = "state-files"
    /// A control-socket request in any cut, and the answer `ucube cancel` reads back.
    case controlSocket = "control-socket"
    /// Text typed on the command line or in the shell: hex, tags, amounts, dates, `decode` input, trace dumps.
    case commandLine = "command-line"
    /// A Bluetooth HCI capture, as `ucube decode --as btsnoop FILE` reads it (docs/protocol.md §3.5).
    case btsnoop
    /// The whole driver against a virtual terminal that answers every command as the input says: resynchronisation
    /// (`LinkSession`: CancelAll, ExitSecureSession), a payment, a GetInfo and a firmware load (`VirtualTerminal`).
    case driver

    /// Runs one input.
    package func run(_ bytes: [UInt8]) {
        switch self {
        case .frames: FrameTargets.run(bytes)
        case .tmsPackage:
            for ciphered in [false, true] {
                let source = MemoryByteSource(bytes)
                guard let layout = try? BinaryPackageLayout.scan(source, ciphered: ciphered) else { continue }
                var offset = layout.firstBlockOffset
                var total = 0
                for _ in 0..<layout.blockCount {
                    // scan said every block is there: reading them back must not fail.
                    let (block, next) = try! BinaryPackageLayout.block(at: offset, in: source)
                    total += block.count
                    offset = next
                }
                precondition(total == layout.totalBytes, "the blocks read back do not add up to the scanned total")
                if let zip = try? TMSZipPackage.read(bytes: bytes, ciphered: ciphered, url: "https://tms.invalid/v3") {
                    for binary in zip.binaries {
                        _ = try? BinaryPackageLayout.scan(MemoryByteSource(binary.package), ciphered: ciphered)
                    }
                }
            }
        case .tmsConfig:
            if let items = try? TMSConfigReply.parse(bytes, url: "https://tms.invalid/config") {
                _ = UpdatePlanner.plan(items: items, device: FuzzFixtures.deviceVersions)
                _ = UpdatePlanner.plan(
                    items: items, device: FuzzFixtures.deviceVersions, force: true, firmwareOnly: true)
            }
            _ = try? TMSSettings.fromConfigFile(Data(bytes), directory: "/nonexistent")
        case .pkcs12:
            if let identity = try? TMSIdentity(pkcs12: bytes, source: "fuzz") { precondition(identity.pkcs12 == bytes) }
        case .firmware:
            // The first two bytes say where the signature ends and the image starts.
            let split = bytes.count < 2 ? 0 : min(Int(bytes[0]) << 8 | Int(bytes[1]), bytes.count - 2)
            let signature = Array(bytes.dropFirst(2).prefix(split))
            let image = Array(bytes.dropFirst(2 + split))
            if let header = try? FirmwareImageHeader(parsing: image) {
                _ = try? header.checkSize(image.count)
                _ = header.encoded()
            }
            _ = try? CodeSigning.verify(signature: signature, of: image)
        case .dbus: BlueZFuzzSurface.message(bytes)
        case .stateFiles:
            let data = Data(bytes)
            let history = PaymentJournal.history(parsing: data)
            for entry in history { _ = try? JSONEncoder().encode(entry) }
            // The end of day over whatever the journal holds: the filter reads its times, the totals add its amounts.
            _ = PaymentTotals(HistoryFilter(since: 0, until: .max, statuses: [.unresolved, .reversed]).apply(history))
            _ = PaymentTotals(history)
            CLIFuzzSurface.sessionFile(data)
            CLIFuzzSurface.rememberedDevices(data)
            CLIFuzzSurface.recording(data)
            CLIFuzzSurface.fleetFiles(data)
        case .controlSocket:
            // Byte 0: how many cuts; then one byte each; the rest is what the peer sent.
            let count = bytes.first.map { Int($0 % 8) } ?? 0
            let cuts = bytes.dropFirst().prefix(count).map(Int.init)
            CLIFuzzSurface.controlRequest(Array(bytes.dropFirst(1 + count)), cuts: cuts)
        case .commandLine: CLIFuzzSurface.commandLineText(String(decoding: bytes, as: UTF8.self))
        case .btsnoop: CLIFuzzSurface.capture(bytes)
        case .driver: VirtualTerminal.runBlocking(TerminalScript(bytes))
        }
    }

    /// Inputs to start from, made by the code that writes such inputs for real (the simulator, the PKI of the TMS
    /// simulator's tests is not linked here, so PKCS#12 starts from the committed corpus).
    package func seeds() async -> [[UInt8]] {
        switch self {
        case .driver: return await VirtualTerminal.recordedSeeds()
        case .dbus: return BlueZFuzzSurface.seedMessages()
        case .firmware:
            let image = FuzzFixtures.image
            guard let signature = try? CodeSigning.sign(image) else { return [] }
            return [[UInt8(signature.count >> 8), UInt8(signature.count & 0xFF)] + signature + image]
        case .tmsPackage: return [FuzzFixtures.package, FuzzFixtures.zipAnswer]
        default: return []
        }
    }
}

/// Fixed values the targets compare against.
enum FuzzFixtures {
    static let deviceVersions = DeviceVersions(
        svppFirmware: FirmwareVersion("8.1.0.0"), nfcFirmware: FirmwareVersion("2.0.0.0"),
        iccEMVConfig: FirmwareVersion("1.0.0.5"), nfcEMVConfig: FirmwareVersion("1.0.0.5"))

    /// A small firmware image (a few local blocks), as the simulator makes them.
    static let image: [UInt8] = SimulatedFirmware.makeImage(
        type: .iccConfig, version: FirmwareVersion("1.0.0.9")!, payloadSize: 2_400, seed: 42)

    /// `package` as the current SDK's zip answer (§10.5): key, manifest.json, NAME.sig, NAME.bin.
    static let zipAnswer: [UInt8] = {
        let signatureLength = Int(package[0]) << 8 | Int(package[1])
        let entries: [(String, [UInt8])] = [
            ("key", []), ("manifest.json", Array(#"{"binary_list":["icc"]}"#.utf8)),
            ("icc.sig", Array(package[2..<(2 + signatureLength)])),
            ("icc.bin", Array(package[(2 + signatureLength)...])),
        ]
        guard let archive = try? Archive(data: Data(), accessMode: .create, pathEncoding: nil) else { return [] }
        for (name, bytes) in entries {
            let data = Data(bytes)
            try? archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate
            ) {
                position, size in data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return archive.data.map(Array.init) ?? []
    }()

    /// `image` as a §10.5 download: its signature, then 1000-byte blocks, then the 00 00 terminator.
    static let package: [UInt8] = {
        func field(_ bytes: some Collection<UInt8>) -> [UInt8] {
            [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
        var package = field((try? CodeSigning.sign(image)) ?? [0x30, 0x00])
        var offset = 0
        while offset < image.count {
            package += field(image[offset..<min(offset + 1000, image.count)])
            offset += 1000
        }
        return package + [0, 0]
    }()
}
