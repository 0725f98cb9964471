import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeSimulator
import UCubeSupport
import UCubeTMS

/// What the virtual terminal answers, read from the fuzz input one record at a time:
/// `OP LEN_HI LEN_LO BODY…` (a short last record takes what is left).
///
/// | OP % 4 | the terminal                                                                                  |
/// |--------|-----------------------------------------------------------------------------------------------|
/// | 0      | answers the command with BODY as the frame's body (status, data, and any secured envelope)     |
/// | 1      | the same with the next sequence number (an answer the driver did not ask for)                   |
/// | 2      | writes BODY as raw bytes (noise, half frames), then reads the next record for the same command |
/// | 3      | drops the link                                                                                  |
///
/// The input running out drops the link too, so every run ends without waiting for a timeout.
struct TerminalScript: Sendable {
    enum Step: Equatable {
        case answer([UInt8], sequenceOffset: UInt8)
        case raw([UInt8])
        case disconnect
    }

    let steps: [Step]

    init(_ bytes: [UInt8]) {
        var steps: [Step] = []
        var index = 0
        while index < bytes.count {
            let op = bytes[index]
            let length = index + 2 < bytes.count ? Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) : 0
            let start = min(index + 3, bytes.count)
            let end = min(start + length, bytes.count)
            let body = Array(bytes[start..<end])
            index = end
            switch op % 4 {
            case 0: steps.append(.answer(body, sequenceOffset: 0))
            case 1: steps.append(.answer(body, sequenceOffset: 1))
            case 2: steps.append(.raw(body))
            default: steps.append(.disconnect)
            }
        }
        self.steps = steps
    }

    init(steps: [Step]) { self.steps = steps }

    /// The input that gives these steps back.
    var encoded: [UInt8] {
        steps.flatMap { step -> [UInt8] in
            func record(_ op: UInt8, _ body: [UInt8]) -> [UInt8] {
                [op, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
            }
            switch step {
            case .answer(let body, let offset): return record(offset == 0 ? 0 : 1, body)
            case .raw(let body): return record(2, body)
            case .disconnect: return record(3, [])
            }
        }
    }
}

/// The whole driver against a terminal that answers as a `TerminalScript` says: the start-up resynchronisation a
/// command runs on a terminal left in an unknown state (`LinkSession`: CancelAll, ExitSecureSession), a payment on both
/// readers, a GetInfo and a firmware load. Checks what must hold whatever the terminal says: every flow ends, and an
/// APPROVED payment carries the card's 8-byte cryptogram, never an AAC (docs/protocol.md §8.3).
enum VirtualTerminal {
    /// Runs the flows to their end on a fresh client (libFuzzer calls targets synchronously).
    static func runBlocking(_ script: TerminalScript) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await run(script)
            done.signal()
        }
        done.wait()
    }

    /// How long the client waits for the rest of a frame the script left incomplete. Every other wait ends at once:
    /// the client fails a pending command on any complete frame, and the script running out drops the link. The
    /// RPC timeout (1 s) and the card wait (1 s) are short for another reason: the client's deadline watchdog stays
    /// allocated until its deadline even when the run is over, so long deadlines at a thousand runs a second hold
    /// memory that looks like a leak.
    static let frameSilence = Duration.milliseconds(5)

    /// How the flows ended.
    struct Outcome: Equatable, Sendable {
        var payment: PaymentStatus?
        var cryptogramType: CryptogramType?
        var gotInfo = false
        var loadedBlocks: Int?
    }

    @discardableResult
    /// `timeout`: the client's RPC timeout, 1 s for the fuzzer (see `frameSilence`); a test that shares the machine's
    /// two cooperative threads with a thousand others gives it longer, since no wait here should ever reach it.
    static func run(_ script: TerminalScript, timeout: Duration = .seconds(1)) async -> Outcome {
        let link = TransportFactory.inProcess(name: "fuzz") { peer in await answer(peer: peer, script: script) }
        let session = LinkSession(record: .stale(owner: nil), preparation: .ready) { rules in
            RPCClient(transport: link.transport, defaultTimeout: timeout, rules: rules, frameSilence: Self.frameSilence)
        }
        await session.client.start()
        let outcome = await flows(session)
        await session.client.close()
        await link.peer?.value
        return outcome
    }

    /// What the driver does with a terminal, in the order a CLI session would.
    private static func flows(_ session: LinkSession) async -> Outcome {
        var outcome = Outcome()
        let client = session.client
        // The link opened as the CLI opens it for a command that needs the terminal READY, on a terminal a process
        // left in an unknown state (the session `run` and `recordings` make): the library's session rules
        // (`LinkSession`), CancelAll and ExitSecureSession.
        try? await session.start()
        let engine = PaymentEngine(client: client, authorization: FixedAuthorization(.approve))
        let context = await engine.run(PaymentRequest(amount: 1_250, cardWaitTimeout: 1, requestID: "fuzz"))
        if context.status == .approved {
            precondition(
                context.cryptogram?.count == 8 && context.cryptogramType != .aac,
                "APPROVED without the card's cryptogram: \(String(describing: context.cryptogramType))")
        }
        outcome.payment = context.status
        outcome.cryptogramType = context.cryptogramType
        if let reply = try? await client.send(GetInfo()), reply.status == .success, let info = reply.response {
            _ = DeviceVersions(info)
            outcome.gotInfo = true
        }
        let package = InMemoryPackage(name: "fuzz-image", bytes: FuzzFixtures.package)
        outcome.loadedBlocks = (try? await BinaryLoader(client: client).load(package))?.blockCount
        return outcome
    }

    /// The terminal's side: one script step per command frame received (raw steps do not use up the command).
    private static func answer(peer: InMemoryTransport.PeerEnd, script: TerminalScript) async {
        var steps = script.steps[...]
        var decoder = FrameDecoder()
        reading: for await chunk in peer.input {
            decoder.append(chunk)
            while let frame = try? decoder.next() {
                while true {
                    guard let step = steps.popFirst() else { break reading }
                    switch step {
                    case .raw(let bytes):
                        peer.write(bytes)
                        continue
                    case .disconnect:
                        break reading
                    case .answer(let body, let offset):
                        let raw = RawFrame(sequence: frame.sequence &+ offset, command: frame.command, body: body)
                        // A body too long for a frame goes out as it is: the driver must cope with that too.
                        peer.write((try? raw.encoded()) ?? body)
                    }
                    break
                }
            }
        }
        peer.disconnect()
    }

    /// Scripts recorded from the simulator, one per card scenario: the simulator's own answers to the same flows,
    /// so fuzzing starts from every path a real payment and update take.
    static func recordedSeeds() async -> [[UInt8]] {
        await recordings().map(\.script.encoded)
    }

    /// Each card scenario's flows against the simulator: the script of its answers, and how the flows ended.
    /// `timeout`: the client's RPC timeout. The simulator answers at once (time scale 0), so no wait should reach
    /// it; but in the test suite, where CPU-bound tests hold the two cooperative threads for seconds, a first answer
    /// took 11 s, and a CancelAll that timed out left the recorded script one answer short.
    static func recordings(
        timeout: Duration = .seconds(60)
    ) async -> [(scenario: String, script: TerminalScript, outcome: Outcome)] {
        var recordings: [(scenario: String, script: TerminalScript, outcome: Outcome)] = []
        for scenario in CardCatalogue.all {
            var configuration = scenario.configuration(SimulatorConfiguration(timeScale: 0))
            configuration.stateDirectory = nil
            guard let simulator = try? TerminalSimulator(configuration: configuration) else { continue }
            let recorder = Recorder()
            let link = TransportFactory.inProcess(name: "record") { peer in
                _ = await simulator.serve(input: peer.input) { frame in
                    await recorder.add(frame)
                    peer.write(frame)
                }
            }
            let session = LinkSession(record: .stale(owner: nil), preparation: .ready) { rules in
                RPCClient(transport: link.transport, defaultTimeout: timeout, rules: rules)
            }
            await session.client.start()
            let outcome = await flows(session)
            await session.client.close()
            await link.peer?.value
            recordings.append((scenario.name, await recorder.script, outcome))
        }
        return recordings
    }

    /// The bodies of the frames the simulator sent, as answer steps.
    private actor Recorder {
        private(set) var steps: [TerminalScript.Step] = []
        private var decoder = FrameDecoder()

        func add(_ bytes: [UInt8]) {
            decoder.append(bytes)
            while let frame = try? decoder.next() { steps.append(.answer(frame.body, sequenceOffset: 0)) }
        }

        var script: TerminalScript { TerminalScript(steps: steps) }
    }
}
