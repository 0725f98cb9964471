// Update throughput and memory (issue 5): loads a signed SVPP-firmware-sized image of N MB through the BinaryLoader
// over the in-process simulator with a link model, then prints the throughput, the link's capacity, the fraction,
// and the process's peak memory (VmHWM). Run each size in its own process so the peaks do not mix:
//
//   swift run UpdateBenchmark 1
//   swift run UpdateBenchmark 8
//   swift run UpdateBenchmark 8 nolink 60    (no link model; RPC timeout 60 s instead of 10 s)
//
// Link model: Bluetooth Classic (`LinkModel.classic`: 10 ms per frame, 20 kB/s) sped up 50× so that 8 MB finishes in
// seconds, not minutes: 200 µs per frame, 1 MB/s. Latency and throughput scale together, so the fraction of
// capacity is the one the unscaled model would give (apart from ucube's own per-frame cost, which does not scale).
//
// Capacity = the model's raw throughput (bytesPerSecond): the rate if every byte on the link were image bytes and
// frames had no latency. The stop-and-wait ceiling is what the protocol itself allows on this model: image bytes ÷
// the modelled time of every frame exchanged (one Load of ≤ 2040 bytes + 12 bytes of framing, answered by a 9-byte
// frame, each paying the per-frame latency). Throughput = image bytes ÷ wall time of InstallForLoad + all Loads.

import Foundation
import Synchronization
import UCubeLink
import UCubeProtocol
import UCubeSimulator
import UCubeTMS

func peakMemoryKiB() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
}

/// VmHWM at each quarter of the load, to show whether memory grows with the bytes sent.
final class Samples: @unchecked Sendable {
    private let lock = NSLock()
    private var quarters: [Int] = []
    func record(_ progress: LoadProgress) {
        lock.withLock {
            guard progress.totalBytes > 0, progress.bytesSent * 4 >= progress.totalBytes * (quarters.count + 1) else {
                return
            }
            quarters.append(peakMemoryKiB() ?? -1)
        }
    }
    var all: [Int] { lock.withLock { quarters } }
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

let megabytes = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1
let payloadSize = megabytes * 1_048_576 - FirmwareImageChoices.headerSize
let model =
    CommandLine.arguments.contains("nolink")
    ? LinkModel.none : LinkModel(latency: .microseconds(200), bytesPerSecond: 1_000_000)

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-update-bench-\(UUID().uuidString)")
    .path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
let imagePath = directory + "/svpp.bin"
let signaturePath = directory + "/svpp.sig"
try SimulatedFirmware.writeImage(
    type: .svppFirmware, version: FirmwareVersion([6, 0, 1, 0]), payloadSize: payloadSize, imagePath: imagePath,
    signaturePath: signaturePath)
let peakBefore = peakMemoryKiB()

let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(linkModel: model, timeScale: 0.001))
// How the simulator's side of the link ended (it reboots once the image is installed).
let ending = Mutex<String?>(nil)
let link = try await TransportFactory(inProcess: { peer in
    let end = await simulator.serve(input: peer.input, output: { peer.write($0) })
    ending.withLock { $0 = "\(end)" }
}).open(.simulator)
let rpcTimeout = Duration.seconds(CommandLine.arguments.dropFirst(2).compactMap(Int.init).first ?? 10)
let client = RPCClient(transport: link.transport, defaultTimeout: rpcTimeout)
let clock = ContinuousClock()
let start = clock.now
let samples = Samples()
let result = try await BinaryLoader(client: client).load(
    LocalImage(imagePath: imagePath, signaturePath: signaturePath), progress: { samples.record($0) })
let wall = clock.now - start
await link.peer?.value
let end = ending.withLock { $0 } ?? "unknown"
await client.close()
let installed = await simulator.device.firmwareVersion
let peakAfter = peakMemoryKiB()

let imageBytes = result.totalBytes
let throughput = Double(imageBytes) / seconds(wall)
let capacity = Double(model.bytesPerSecond)
// Modelled time: InstallForLoad (≈ 72-byte signature + 3) and its answer, then each block's Load and answer.
var modelled = model.transferTime(byteCount: 9 + 75) + model.transferTime(byteCount: 9)
let fullBlocks = imageBytes / Load.maxBlockSize
let lastBlock = imageBytes % Load.maxBlockSize
modelled += (model.transferTime(byteCount: 9 + 3 + Load.maxBlockSize) + model.transferTime(byteCount: 9)) * fullBlocks
if lastBlock > 0 { modelled += model.transferTime(byteCount: 9 + 3 + lastBlock) + model.transferTime(byteCount: 9) }
let ceiling = Double(imageBytes) / seconds(modelled)

print(
    "image: \(megabytes) MB (\(imageBytes) bytes, \(result.blockCount) Load blocks), installed \(installed), link end \(end)"
)
print(
    model.bytesPerSecond == 0
        ? "link model: none (ucube + simulator software throughput only)"
        : "link model: \(model) (Bluetooth Classic ×50)")
print(String(format: "wall time:               %8.2f s", seconds(wall)))
print(String(format: "throughput:              %8.1f kB/s", throughput / 1000))
if model.bytesPerSecond > 0 {
    print(String(format: "link capacity:           %8.1f kB/s (raw bytes/s of the model)", capacity / 1000))
    print(String(format: "fraction of capacity:    %8.1f %%", throughput / capacity * 100))
    print(
        String(
            format: "stop-and-wait ceiling:   %8.1f kB/s (%.1f %% of capacity); measured = %.1f %% of the ceiling",
            ceiling / 1000, ceiling / capacity * 100, throughput / ceiling * 100))
    // Issue 27's target: the simulator's timers are no longer the limit at 50× (≥ 96 % of the ceiling).
    print(
        String(format: "of the ceiling:          %8.1f %%", throughput / ceiling * 100)
            + " (target ≥ 96 %: \(throughput / ceiling >= 0.96 ? "met" : "NOT MET"))")
}
let kib: (Int?) -> String = { $0.map { "\($0) KiB" } ?? "?" }
let quarters = samples.all.map(String.init).joined(separator: " / ")
print(
    "peak memory (VmHWM):      \(kib(peakAfter)) (before loading: \(kib(peakBefore)); at 25/50/75/100 %: \(quarters) KiB)"
)
