// Payment speed over the simulator's BLE link model (issue 3): for a contact and a contactless payment, the wall
// time, the number of RPC round trips, the latency floor (round trips × 2 × one-way latency), and the modelled link
// time of every frame actually sent and received (latency + chunks + throughput, LinkModel). The difference between
// wall time and modelled link time is ucube's own overhead (driver, engine, simulator, scheduling).
//
//   swift run -c release PaymentBenchmark [runs]        (default 5 runs per flow; the median is printed)

import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeSimulator

final class FrameLog: @unchecked Sendable {
    private let lock = NSLock()
    private var frames: [[UInt8]] = []
    func add(_ bytes: [UInt8]) { lock.withLock { frames.append(bytes) } }
    var all: [[UInt8]] { lock.withLock { frames } }
}

struct Measurement {
    let wall: Duration
    let roundTrips: Int
    let modelled: Duration
    let status: PaymentStatus?
}

func measure(card: String, readers: [CardReader], model: LinkModel) async throws -> Measurement {
    guard let scenario = CardCatalogue.named(card) else { fatalError("unknown card \(card)") }
    var configuration = scenario.configuration(SimulatorConfiguration())
    configuration.linkModel = model
    let simulator = try TerminalSimulator(configuration: configuration)
    let (transport, peer) = InMemoryTransport.pair()
    let serving = Task { _ = await simulator.serve(input: peer.input, output: { peer.write($0) }) }
    let log = FrameLog()
    let client = RPCClient(transport: transport, defaultTimeout: .seconds(120)) { event in
        switch event {
        case .sent(let bytes, _), .received(let bytes, _, _): log.add(bytes)
        default: break
        }
    }
    let engine = PaymentEngine(client: client, authorization: FixedAuthorization(.approve))
    let request = PaymentRequest(amount: 1250, readers: readers, requestID: UUID().uuidString)
    let clock = ContinuousClock()
    let start = clock.now
    let context = await engine.run(request)
    let wall = clock.now - start
    await client.close()
    _ = await serving.value
    let modelled = log.all.reduce(Duration.zero) { $0 + model.transferTime(forFrame: $1) }
    return Measurement(wall: wall, roundTrips: context.roundTrips, modelled: modelled, status: context.status)
}

func ms(_ d: Duration) -> String {
    String(format: "%8.1f ms", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
}

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 5
let model = LinkModel.ble
print("link model: \(model)")
print("flow          status     round trips   wall (median)   floor (RT × 2 × latency)   modelled link time   overhead")
for (name, card, readers) in [("contact", "visa-contact", [CardReader.icc, .nfc]), ("contactless", "visa-contactless", [CardReader.nfc])] {
    var results: [Measurement] = []
    for _ in 0..<runs { results.append(try await measure(card: card, readers: readers, model: model)) }
    let sorted = results.sorted { $0.wall < $1.wall }
    let median = sorted[sorted.count / 2]
    let floor = model.latency * (2 * median.roundTrips)
    print(
        "\(name.padding(toLength: 13, withPad: " ", startingAt: 0)) \((median.status?.name ?? "?").padding(toLength: 10, withPad: " ", startingAt: 0)) \(String(format: "%11d", median.roundTrips))   \(ms(median.wall))     \(ms(floor))                   \(ms(median.modelled))        \(ms(median.wall - median.modelled))"
    )
}
