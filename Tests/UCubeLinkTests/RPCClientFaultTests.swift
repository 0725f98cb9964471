import Foundation
import Synchronization
import Testing
import UCubeProtocol
import UCubeSupport

@testable import UCubeLink

/// The client against a scripted peer that answers with chosen bytes: every fault becomes a typed error, never a
/// hang (each test bounds its own time through the client's timeout).
@Suite struct RPCClientFaultTests {
    /// A peer that reads one command frame and answers with what `answer` returns for it.
    static func client(
        timeout: Duration = .seconds(30), answer: @escaping @Sendable (RawFrame) -> [[UInt8]]
    ) -> (RPCClient, Task<Void, Never>) {
        let (transport, peer) = InMemoryTransport.pair()
        let task = Task {
            var decoder = FrameDecoder()
            for await chunk in peer.input {
                decoder.append(chunk)
                while let frame = try? decoder.next() {
                    for bytes in answer(frame) {
                        if bytes.isEmpty { peer.disconnect() } else { peer.write(bytes) }
                    }
                }
            }
        }
        return (RPCClient(transport: transport, defaultTimeout: timeout), task)
    }

    static func ok(_ frame: RawFrame, data: [UInt8] = []) -> [UInt8] {
        try! ResponseFrame(sequence: frame.sequence, command: frame.command, status: .success, data: data).encoded()
    }

    @Test func successAndSequenceNumbers() async throws {
        let (client, task) = Self.client { [Self.ok($0, data: [0xC4, 0x01, 0x02])] }
        let first = try await client.send(GetInfo(tags: [0xC4]))
        #expect(first.sequence == 0)
        #expect(first.response?.state == .ready)
        let second = try await client.send(GetInfo(tags: [0xC4]))
        #expect(second.sequence == 1)
        await client.close()
        task.cancel()
    }

    /// A terminal that announces a frame (STX, LEN) and goes silent fails the command once the link has been silent
    /// for `frameSilence`, not after the command's own timeout (65 s for TransactionProcess).
    @Test func aFrameBegunThenSilentFailsAfterTheSilenceBound() async throws {
        let (transport, peer) = InMemoryTransport.pair()
        let task = Task {
            for await _ in peer.input { peer.write([0x02, 0x00, 0x20, 0x00, 0x55]) }
        }
        // The command's own timeout is far beyond anything the test could wait for: the error's words say which
        // bound ended it, whatever the machine's speed.
        let client = RPCClient(transport: transport, defaultTimeout: .seconds(3600), frameSilence: .milliseconds(200))
        do {
            _ = try await client.send(GetInfo(tags: [0xC4]))
            Issue.record("a half frame was taken for an answer")
        } catch {
            #expect(error.code == .timeout)
            #expect(error.reason.contains("went silent after 5 bytes"), "\(error.reason)")
        }
        await client.close()
        task.cancel()
    }

    /// A slow answer that keeps coming, byte after byte, is not cut off: the bound is on silence, not on the frame.
    /// The whole answer takes longer than the bound (14 bytes, 1 s apart: 13 s against 8 s), so a bound on the frame
    /// would fail it; the bytes are written from a thread of their own, and the 7 s of slack is seven times the gap
    /// (a 1.5 s bound with 200 ms gaps failed once at load 20, stop 47: the reader ran late).
    @Test func aSlowButSteadyAnswerCompletes() async throws {
        let (transport, peer) = InMemoryTransport.pair()
        let task = Task {
            var decoder = FrameDecoder()
            for await chunk in peer.input {
                decoder.append(chunk)
                while let frame = try? decoder.next() {
                    let answer = Self.ok(frame, data: [0xC4, 0x01, 0x02])
                    Thread {
                        for byte in answer {
                            peer.write([byte])
                            usleep(1_000_000)
                        }
                    }.start()
                }
            }
        }
        let client = RPCClient(transport: transport, defaultTimeout: .seconds(600), frameSilence: .seconds(8))
        let started = ContinuousClock.now
        let reply = try await client.send(GetInfo(tags: [0xC4]))
        #expect(reply.response?.state == .ready)
        #expect(ContinuousClock.now - started > .seconds(8), "the answer did not outlast the silence bound")
        await client.close()
        task.cancel()
    }

    @Test func wrongCRCIsATypedError() async throws {
        let (client, task) = Self.client { frame in
            var bytes = Self.ok(frame, data: [0xC4, 0x01, 0x02])
            bytes[bytes.count - 2] ^= 0xFF
            return [bytes]
        }
        await #expect(throws: LinkError(.badFrame, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        await client.close()
        task.cancel()
    }

    @Test func badETXIsATypedError() async throws {
        let (client, task) = Self.client { frame in
            var bytes = Self.ok(frame)
            bytes[bytes.count - 1] = 0x00
            return [bytes]
        }
        await #expect(throws: LinkError(.badFrame, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        await client.close()
        task.cancel()
    }

    @Test func oversizeLENIsATypedError() async throws {
        let (client, task) = Self.client { _ in [[0x02, 0xFF, 0xFF, 0x00, 0x50, 0x01]] }
        await #expect(throws: LinkError(.badFrame, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        await client.close()
        task.cancel()
    }

    /// The SEQ of the command waiting with another command's id is a protocol violation, not a stale answer.
    @Test func mismatchedCommandIDIsATypedError() async throws {
        let (client, task) = Self.client { frame in
            [try! ResponseFrame(sequence: frame.sequence, command: .waitCard, status: .success).encoded()]
        }
        await #expect(throws: LinkError(.unexpectedResponse, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        #expect(await client.staleAnswersDropped == 0)
        await client.close()
        task.cancel()
    }

    /// spec §2.4: an answer is the pending command's only with its SEQ. Before each command's own answer the peer sends
    /// the previous command's answer again (a duplicate of one already taken, as a relay that repeats would) and an
    /// answer with a SEQ never sent; both are dropped and counted, and every command gets its own answer. (Matched by
    /// CMD alone, the replayed GetInfo answer was taken for the next GetInfo, and every later command was one answer
    /// behind.)
    @Test func staleAndUnknownSequenceAnswersAreDropped() async throws {
        let previous = Mutex<[UInt8]?>(nil)
        let (client, task) = Self.client { frame in
            let own = Self.ok(frame, data: [frame.sequence])
            let unknown = try! ResponseFrame(
                sequence: frame.sequence &+ 100, command: frame.command, status: .success, data: [0xEE]
            ).encoded()
            return previous.withLock { last in
                defer { last = own }
                return (last.map { [$0] } ?? []) + [unknown, own]
            }
        }
        for expected in UInt8(0)..<3 {
            let reply = try await client.sendRaw(id: CommandID(0x5001), payload: [0xC4])
            #expect(reply.frame.sequence == expected)
            #expect(reply.frame.data == [expected], "command \(expected) got its own answer")
        }
        #expect(await client.staleAnswersDropped == 5)
        await client.close()
        task.cancel()
    }

    /// Issue 39: a terminal whose every answer carries the wrong SEQ ended in "no answer to 0x0202 CancelAll within
    /// 3.0 seconds", which hid that it did answer. The timeout now says how many answers were dropped, and why. (The
    /// deadline only ends the wait: the three answers are written at once, in process, long before it.)
    @Test func aTimeoutSaysHowManyAnswersCameWithTheWrongSequence() async throws {
        let (client, task) = Self.client(timeout: .seconds(3)) { frame in
            (1...3).map { shift in
                try! ResponseFrame(sequence: frame.sequence &+ UInt8(shift), command: frame.command, status: .success)
                    .encoded()
            }
        }
        do {
            _ = try await client.cancelAll()
            Issue.record("an answer with the wrong SEQ was taken")
        } catch {
            #expect(error.code == .timeout)
            #expect(
                error.reason.contains("3 answers came in that time with a SEQ no waiting command had"),
                "\(error.reason)")
            #expect(
                error.reason.contains("the last seq 3") && error.reason.contains("went with seq 0"), "\(error.reason)")
        }
        await client.close()
        task.cancel()
    }

    /// spec §2.8: a card wait left pending by an earlier process (the terminal kept it through a dropped link) ends
    /// with −32 after the resynchronisation's CancelAll, and that answer may carry the SEQ of the command sent next.
    /// It is dropped as stale, and ExitSecureSession gets its own answer (the BLE test bed found it failing `info`
    /// with "answered NFCStartTransaction while ExitSecureSession was pending"). Any other answer of another command
    /// with the pending SEQ still fails the command.
    @Test func theLateCancelledAnswerOfAnEarlierProcessIsStale() async throws {
        let (client, task) = Self.client { frame in
            guard frame.command == ExitSecureSession.id else { return [Self.ok(frame)] }
            let late = try! ResponseFrame(sequence: frame.sequence, command: CommandID(0x5530), status: .cancelled)
                .encoded()
            return [late, Self.ok(frame)]
        }
        #expect(try await client.cancelAll() == .success)
        #expect(try await client.send(ExitSecureSession()).status == .success)
        #expect(await client.staleAnswersDropped == 1)
        // Not right after a CancelAll: the same answer breaks the protocol.
        await #expect(throws: LinkError(.unexpectedResponse, "")) { try await client.send(ExitSecureSession()) }
        await client.close()
        task.cancel()
    }

    // spec §2.7: 0x8000 answers the pending command; its status is a value.
    @Test func unrecognisedCommandIsAStatus() async throws {
        let (client, task) = Self.client { frame in
            [try! ResponseFrame(sequence: frame.sequence, command: .unrecognised, status: .unknownCommand).encoded()]
        }
        let reply = try await client.sendRaw(id: CommandID(0x1234), payload: [])
        #expect(reply.frame.command == .unrecognised)
        #expect(reply.frame.status == Status(-1))
        await client.close()
        task.cancel()
    }

    @Test func silenceTimesOut() async throws {
        let (client, task) = Self.client(timeout: .milliseconds(200)) { _ in [] as [[UInt8]] }
        // The error is the timeout, not a hang (how long it took depends on the machine's load; not asserted here).
        await #expect(throws: LinkError(.timeout, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        // The link is still usable after a timeout.
        #expect(await client.isConnected)
        await client.close()
        task.cancel()
    }

    @Test func droppedLinkFailsAtOnceAndStaysDown() async throws {
        // A 5-minute client deadline: `.disconnected` (not `.timeout`) shows the drop was seen when it happened.
        let (client, task) = Self.client(timeout: .seconds(300)) { _ in [[]] }  // [] = disconnect
        await #expect(throws: LinkError(.disconnected, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        await #expect(throws: LinkError(.notConnected, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        task.cancel()
    }

    @Test func malformedSuccessDataIsATypedError() async throws {
        let (client, task) = Self.client { [Self.ok($0, data: [0xC4, 0x05, 0x02])] }  // TLV says 5 bytes, 1 follows
        await #expect(throws: LinkError(.malformedResponse, "")) { try await client.send(GetInfo(tags: [0xC4])) }
        await client.close()
        task.cancel()
    }

    @Test func tooLongRequestIsRefusedBeforeSending() async throws {
        let (client, task) = Self.client { [Self.ok($0)] }
        await #expect(throws: LinkError(.invalidRequest, "")) {
            try await client.sendRaw(id: .load, payload: [UInt8](repeating: 0, count: 3000))
        }
        await client.close()
        task.cancel()
    }
}
