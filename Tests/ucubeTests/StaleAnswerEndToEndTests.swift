#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import UCubeProtocol

/// Issue 23, item 9: a relay between ucube and the terminal that sends every answer frame twice. Matched by command id
/// alone, the copies put every later command one answer behind, and a payment the card and issuer approved ended ERROR
/// (exit 13). Matched by SEQ (spec §2.4), each copy is dropped and the payment is APPROVED.
@Suite struct StaleAnswerEndToEndTests {
    /// Accepts connections on loopback and joins each to the terminal at `upstream`, writing every answer frame from
    /// the terminal `copies` times. Each direction is a thread of its own; the relay lives as long as the test.
    final class DuplicatingRelay: @unchecked Sendable {
        let port: Int
        private let listener: Int32

        init(upstream: Int, copies: Int) throws {
            (listener, port) = try FakeTerminal.listenOnLoopback()
            let listener = self.listener
            Thread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0, let terminal = try? FakeTerminal.connectToLoopback(upstream) else { return }
                    Thread { Self.pump(from: client, to: terminal, copies: 1) }.start()
                    Thread { Self.pump(from: terminal, to: client, copies: copies) }.start()
                }
            }.start()
        }

        deinit { close(listener) }

        /// Copies whole frames from `source` to `destination`, each `copies` times, until either side closes.
        private static func pump(from source: Int32, to destination: Int32, copies: Int) {
            var decoder = FrameDecoder()
            var buffer = [UInt8](repeating: 0, count: 4096)
            defer {
                shutdown(source, Int32(SHUT_RDWR))
                shutdown(destination, Int32(SHUT_RDWR))
            }
            while true {
                let n = read(source, &buffer, buffer.count)
                if n <= 0 { return }
                decoder.append(buffer[..<n])
                while let frame = try? decoder.next(), let bytes = try? frame.encoded() {
                    for _ in 0..<copies {
                        guard bytes.withUnsafeBytes({ write(destination, $0.baseAddress, $0.count) }) == bytes.count else { return }
                    }
                }
            }
        }
    }

    @Test func aPaymentThroughARelayThatDuplicatesEveryAnswerIsApproved() async throws {
        let sandbox = try UCubeSandbox()
        let (server, port) = try await sandbox.startSimulator(["--card", "visa-contact"])
        defer { server.terminate() }
        let relay = try DuplicatingRelay(upstream: port, copies: 2)
        let device = "tcp://127.0.0.1:\(relay.port)"
        let pay = try await sandbox.run(["--device", device, "--log-level", "warning", "pay", "10", "--authorize", "approve"])
        #expect(pay.status == 0, "\(pay.stdout)\(pay.stderr)")
        #expect(pay.stdout.contains("status: APPROVED"), "\(pay.stdout)")
        // The next command on the same terminal works: nothing was left one answer behind.
        let info = try await sandbox.run(["--device", device, "info"])
        #expect(info.status == 0 && info.stdout.contains("state: READY"), "\(info.stdout)\(info.stderr)")
        withExtendedLifetime(relay) {}
    }
}
