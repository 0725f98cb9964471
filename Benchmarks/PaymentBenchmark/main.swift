// Payment cost over the simulator's BLE link model (issues 3 and 27), for each flow and each starting state of the
// link: the commands sent, the bytes on the link (raw RPC frames both ways, and as written over BLE: byte-stuffed
// with the end-of-message pair), the modelled link time (LinkModel: latency + one write per connection interval +
// stuffing) at ATT MTU 23 and at larger MTUs, the wall time of the run with the MTU-23 model applied, and the vendor
// SDK's command count for the same flow.
//
//   swift run -c release PaymentBenchmark [runs]        (default 3 runs per flow and link state; medians printed)
//
// "crash" is the link after a process that did not exit cleanly, or the first payment on a machine: the full starting
// sequence (CancelAll, ExitSecureSession, GetInfo, EnterSecureSession). "clean" is the link after a clean exit that
// recorded the terminal (spec §8.6): EnterSecureSession first. Each starts from the link session record such a process
// leaves, through the CLI's rules (`LinkSession`). The commands are counted on the link (frames written),
// and the payment's own count (`roundTrips`) must agree with it, or the benchmark stops.

import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeSimulator

final class FrameLog: @unchecked Sendable {
    private let lock = NSLock()
    private var frames: [(sent: Bool, bytes: [UInt8])] = []
    func add(_ bytes: [UInt8], sent: Bool) { lock.withLock { frames.append((sent, bytes)) } }
    var all: [(sent: Bool, bytes: [UInt8])] { lock.withLock { frames } }
}

/// The vendor SDK's command counts for the same payment (facts, docs/protocol.md §8.4, from
/// L:EMVPaymentStateMachine of libApp 3.5.13 and 1.3.8.19, and the 2020 A-Pay services): "current" with no tag lists
/// set, "current, 4 lists" with the four tag lists the samples set, and 2020.
struct VendorCounts {
    let current: Int
    let currentWithLists: Int
    let sdk2020: Int
}

struct Flow {
    let name: String
    let card: String
    let readers: [CardReader]
    let vendor: VendorCounts?
}

let flows = [
    Flow(
        name: "contact online", card: "visa-contact", readers: [.icc, .nfc],
        vendor: VendorCounts(current: 11, currentWithLists: 14, sdk2020: 17)),
    Flow(
        name: "contactless online", card: "mc-contactless-online", readers: [.icc, .nfc],
        vendor: VendorCounts(current: 7, currentWithLists: 10, sdk2020: 12)),
    Flow(name: "contactless offline", card: "visa-contactless", readers: [.icc, .nfc], vendor: nil),
]

/// The MTUs the link time is modelled at: BLE's default, a common phone's, and BlueZ's maximum.
let mtus = [23, 247, 517]

struct Measurement {
    let wall: Duration
    let commands: Int
    let roundTrips: Int
    let rawBytes: Int
    let stuffedBytes: Int
    let modelled: [Int: Duration]
    let status: PaymentStatus?
    let terminal: KnownTerminal?
}

/// One payment on a link opened as `ucube pay` opens it from `record` (`LinkSession`, the CLI's rules): the client
/// starts with the rules it trusts, and the payment from what it knows.
func measure(_ flow: Flow, record: SessionRecord.Loaded, model: LinkModel) async throws -> Measurement {
    guard let scenario = CardCatalogue.named(flow.card) else { fatalError("unknown card \(flow.card)") }
    var configuration = scenario.configuration(SimulatorConfiguration())
    configuration.linkModel = model
    let simulator = try TerminalSimulator(configuration: configuration)
    let link = try await TransportFactory(inProcess: { peer in
        _ = await simulator.serve(input: peer.input, output: { peer.write($0) })
    }).open(.simulator)
    let log = FrameLog()
    let session = LinkSession(record: record, preparation: .payment) { rules in
        RPCClient(transport: link.transport, defaultTimeout: .seconds(120), rules: rules) { event in
            switch event {
            case .sent(let bytes, _): log.add(bytes, sent: true)
            case .received(let bytes, _, _): log.add(bytes, sent: false)
            default: break
            }
        }
    }
    let client = session.client
    let engine = PaymentEngine(client: client, authorization: FixedAuthorization(.approve))
    let request = PaymentRequest(amount: 1250, readers: flow.readers, requestID: UUID().uuidString)
    let clock = ContinuousClock()
    let start = clock.now
    try await session.start()
    let context = await engine.run(request, link: await session.linkStart())
    let wall = clock.now - start
    await client.close()
    await link.peer?.value
    let frames = log.all
    var modelled: [Int: Duration] = [:]
    for mtu in mtus {
        let m = LinkModel.ble(mtu: mtu)
        modelled[mtu] = frames.reduce(Duration.zero) { $0 + m.transferTime(forFrame: $1.bytes) }
    }
    return Measurement(
        wall: wall, commands: frames.filter(\.sent).count, roundTrips: context.roundTrips,
        rawBytes: frames.reduce(0) { $0 + $1.bytes.count },
        stuffedBytes: frames.reduce(0) { $0 + BLECodec.stuff($1.bytes).count },
        modelled: modelled, status: context.status, terminal: context.knownTerminal)
}

func ms(_ d: Duration) -> String {
    String(format: "%.0f", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func padLeft(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

let runs = max(1, CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3)
print("link model: \(LinkModel.ble); link time modelled at ATT MTU \(mtus.map(String.init).joined(separator: ", "))")
print(
    "vendor: commands of the vendor SDK's same flow, current (no tag lists / the samples' four lists) and 2020 (docs/protocol.md §8.4)"
)
print(
    pad("flow", 20) + pad("link", 7) + pad("status", 10) + padLeft("cmds", 5) + padLeft("vendor", 12)
        + padLeft("raw B", 7) + padLeft("BLE B", 7) + mtus.map { padLeft("MTU \($0) ms", 12) }.joined()
        + padLeft("wall ms", 9))
for flow in flows {
    // The first payment learns the terminal; the "clean" runs start from what it learned, as the next process would
    // from the link session file.
    let first = try await measure(flow, record: .missing, model: .none)
    guard let terminal = first.terminal else { fatalError("\(flow.name): the payment learned no terminal") }
    let records: [(String, SessionRecord.Loaded)] = [
        ("crash", .stale(owner: 4242)), ("clean", .clean(LinkRules(), terminal)),
    ]
    for (label, record) in records {
        var results: [Measurement] = []
        for _ in 0..<runs { results.append(try await measure(flow, record: record, model: .ble)) }
        let median = results.sorted { $0.wall < $1.wall }[results.count / 2]
        guard results.allSatisfy({ $0.commands == $0.roundTrips }) else {
            fatalError(
                "\(flow.name) \(label): the payment counted \(median.roundTrips) commands, the link saw \(median.commands)"
            )
        }
        let vendor = flow.vendor.map { "\($0.current)/\($0.currentWithLists)/\($0.sdk2020)" } ?? "-"
        print(
            pad(flow.name, 20) + pad(label, 7) + pad(median.status?.name ?? "?", 10) + padLeft("\(median.commands)", 5)
                + padLeft(vendor, 12) + padLeft("\(median.rawBytes)", 7) + padLeft("\(median.stuffedBytes)", 7)
                + mtus.map { padLeft(ms(median.modelled[$0] ?? .zero), 12) }.joined() + padLeft(ms(median.wall), 9))
    }
}
