import Foundation
import Testing
import UCubeProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Issue 23, items 6 and 9: a hostile relay between ucube and the terminal that adds answer frames. Matched by command
/// id alone, a duplicated answer put every later command one answer behind, and a payment the card and issuer approved
/// ended ERROR (exit 13). Matched by SEQ (spec §2.4), an answer whose SEQ no pending command has (a duplicate, a replay
/// of an older answer, an invented SEQ) is dropped, and the payment is APPROVED.
@Suite struct StaleAnswerEndToEndTests {
    /// What the relay adds to the terminal's answers.
    enum Forgery: String, CaseIterable, Sendable {
        /// Every answer twice.
        case duplicate
        /// Before each answer, the answer before it again: an older answer, its command long answered.
        case replayOlder
        /// Before each answer, a copy with a SEQ no command was sent with (the real SEQ with its top bit flipped).
        case unknownSequence

        /// The frames written for the terminal's `answer`, given the answer before it.
        func frames(_ answer: RawFrame, previous: RawFrame?) -> [RawFrame] {
            switch self {
            case .duplicate: return [answer, answer]
            case .replayOlder: return (previous.map { [$0] } ?? []) + [answer]
            case .unknownSequence:
                var forged = answer
                forged.sequence ^= 0x80
                return [forged, answer]
            }
        }
    }

    /// Accepts connections on loopback and joins each to the terminal at `upstream`, writing the terminal's answers as
    /// `forgery` says. Each direction is a thread of its own; the relay lives as long as the test.
    final class ForgingRelay: @unchecked Sendable {
        let port: Int
        private let listener: Int32

        init(upstream: Int, forgery: Forgery?) throws {
            (listener, port) = try FakeTerminal.listenOnLoopback()
            let listener = self.listener
            // The accepting thread owns the listener and closes it once `accept` fails: `deinit` shuts the socket down,
            // which ends a blocked `accept` (a `close` would not, and the thread would outlive the test, or call
            // `accept` on a descriptor number another test had been given since).
            Thread {
                defer { close(listener) }
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    guard let terminal = try? FakeTerminal.connectToLoopback(upstream) else {
                        close(client)
                        return
                    }
                    // Each pump shuts both sockets down as it ends, which ends the other; the last one closes them.
                    let bothDone = DispatchSemaphore(value: 0)
                    Thread {
                        Self.pump(from: client, to: terminal, forgery: nil)
                        bothDone.signal()
                    }.start()
                    Thread {
                        Self.pump(from: terminal, to: client, forgery: forgery)
                        bothDone.wait()
                        close(client)
                        close(terminal)
                    }.start()
                }
            }.start()
        }

        deinit { shutdown(listener, Int32(SHUT_RDWR)) }

        /// Copies whole frames from `source` to `destination`, forged as `forgery` says, until either side closes.
        private static func pump(from source: Int32, to destination: Int32, forgery: Forgery?) {
            var decoder = FrameDecoder()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var previous: RawFrame?
            defer {
                shutdown(source, Int32(SHUT_RDWR))
                shutdown(destination, Int32(SHUT_RDWR))
            }
            while true {
                let n = read(source, &buffer, buffer.count)
                if n <= 0 { return }
                decoder.append(buffer[..<n])
                while let frame = try? decoder.next() {
                    for forged in forgery?.frames(frame, previous: previous) ?? [frame] {
                        guard let bytes = try? forged.encoded(),
                            bytes.withUnsafeBytes({ write(destination, $0.baseAddress, $0.count) }) == bytes.count
                        else { return }
                    }
                    previous = frame
                }
            }
        }
    }

    @Test(arguments: Forgery.allCases)
    func aPaymentThroughAForgingRelayIsApproved(_ forgery: Forgery) async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--card", "visa-contact"])
        defer { server.terminate() }
        let relay = try ForgingRelay(upstream: port, forgery: forgery)
        let device = "tcp://127.0.0.1:\(relay.port)"
        let pay = try await sandbox.run([
            "--device", device, "--log-level", "notice", "pay", "10", "--authorize", "approve",
        ])
        #expect(pay.status == 0, "\(forgery): \(pay.stdout)\(pay.stderr)")
        #expect(pay.stdout.contains("status: APPROVED"), "\(pay.stdout)")
        // Each forged frame was dropped and said so in the log (spec §2.4), not taken silently.
        let log = try String(
            contentsOf: sandbox.directory.appendingPathComponent("state/ucube/logs/messages.log"), encoding: .utf8)
        #expect(log.contains("dropped"), "\(forgery): no drop was logged")
        // The next command on the same terminal works: nothing was left one answer behind.
        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.status == 0 && info.stdout.contains("state: READY"), "\(info.stdout)\(info.stderr)")
        withExtendedLifetime(relay) {}
    }
}
