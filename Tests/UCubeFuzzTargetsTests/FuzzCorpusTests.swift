import Foundation
import Testing
@_spi(Fuzz) import UCubeBluetooth
import UCubePayment
import UCubeProtocol
import UCubeTMS

@testable import UCubeFuzzTargets

/// The fuzz targets' committed inputs, replayed on every `swift test`: the seed corpora (Fuzz/corpus/TARGET) and the
/// minimised crashers found so far (Fuzz/regressions/TARGET). A crasher that comes back traps here.
@Suite struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ target: FuzzTarget, in folder: String) -> [URL] {
        let directory = root.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyCommittedInputRunsCleanly(target: FuzzTarget) async throws {
        let corpus = Self.inputs(target, in: "corpus")
        // Every target ships a corpus: a target whose corpus went missing would replay nothing and pass.
        #expect(!corpus.isEmpty, "Fuzz/corpus/\(target.rawValue) is empty")
        let inputs = try (corpus + Self.inputs(target, in: "regressions")).map { [UInt8](try Data(contentsOf: $0)) }
        // On a thread of its own: the driver target waits on a semaphore for a task of the cooperative pool, which
        // must not be done on a thread of that pool (2 threads on 2 cores, shared by every test running beside it).
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                for input in inputs { target.run(input) }
                continuation.resume()
            }.start()
        }
    }

    /// The virtual terminal is only as good as its fidelity: answering with the simulator's own recorded bodies, it
    /// must take the driver to the same outcome the simulator did, for every card scenario.
    @Test func aRecordedSimulatorSessionReplaysToTheSameOutcome() async {
        let recordings = await VirtualTerminal.recordings()
        #expect(recordings.count >= 10)
        #expect(recordings.contains { $0.outcome.payment == .approved && $0.outcome.cryptogramType == .tc })
        #expect(recordings.contains { $0.outcome.payment == .declined })
        for recording in recordings {
            #expect(recording.outcome.gotInfo, "\(recording.scenario)")
            #expect(recording.outcome.loadedBlocks == 3, "\(recording.scenario)")
            let replayed = await VirtualTerminal.run(recording.script, timeout: .seconds(60))
            #expect(replayed == recording.outcome, "\(recording.scenario)")
        }
    }

    /// The D-Bus seeds get past libdbus's demarshaller (not instrumented, so the fuzzer cannot find its way in alone).
    @Test func theDBusSeedsAreMessagesLibdbusAccepts() {
        let seeds = BlueZFuzzSurface.seedMessages()
        #expect(seeds.count == 4)
        for seed in seeds { #expect(BlueZFuzzSurface.message(seed)?.isEmpty == false) }
    }

    /// The PKCS#12 seeds reach past the MAC check: the keystore with the TMS password is an identity, the others
    /// are refused for what they are.
    @Test func thePKCS12SeedsAreOneIdentityAndThreeRefusals() throws {
        let directory = Self.root.appendingPathComponent("corpus/pkcs12")
        func load(_ name: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        #expect(throws: Never.self) { try TMSIdentity(pkcs12: try load("id.p12"), source: "id.p12") }
        #expect(throws: Never.self) { try TMSIdentity(pkcs12: try load("id-legacy.p12"), source: "id-legacy.p12") }
        for name in ["nokey.p12", "wrongpass.p12"] {
            #expect(throws: TMSError.self) { try TMSIdentity(pkcs12: try load(name), source: name) }
        }
    }

    @Test func aScriptRoundTripsThroughItsEncoding() {
        let script = TerminalScript(steps: [
            .answer([0x00, 0x00, 0x9F], sequenceOffset: 0), .raw([0x02, 0xFF]), .answer([], sequenceOffset: 1),
            .disconnect,
        ])
        #expect(TerminalScript(script.encoded).steps == script.steps)
        // A record cut short takes what is left.
        #expect(TerminalScript([0x00, 0x00, 0x05, 0xAA]).steps == [.answer([0xAA], sequenceOffset: 0)])
    }
}
