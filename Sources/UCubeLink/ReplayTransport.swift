import Synchronization
import UCubeProtocol
import UCubeSupport

/// A recorded link acting as the terminal (`--device replay:FILE`, docs/recording.md). Each frame the host writes must
/// be the next frame the recording has the host sending (compared after the same masking the recorder applied);
/// then the terminal's recorded answers up to the host's next frame are sent back, at their recorded pace, or at
/// once with `fast`. The first frame that differs (another command, payload or sequence number, or a command the
/// recording does not have) stops the replay: the write fails with `.replayDiverged`, the link ends, and `outcome`
/// keeps the failure for the caller, since a payment turns link failures into its own status.
package struct ReplayTransport: Transport {
    package let name: String
    package let incoming: ByteQueue
    private let engine: Engine

    /// What the replay of one link found.
    package final class Outcome: Sendable {
        private let state = Mutex<LinkError?>(nil)
        package init() {}
        /// The divergence, when the command left the recording.
        package var divergence: LinkError? { state.withLock { $0 } }
        func record(_ error: LinkError) { state.withLock { if $0 == nil { $0 = error } } }
    }

    package let outcome: Outcome

    package init(link: Recording.Link, name: String, fast: Bool) {
        self.name = name
        incoming = ByteQueue()
        outcome = Outcome()
        engine = Engine(events: link.events, fast: fast, incoming: incoming, outcome: outcome)
    }

    package func write(_ bytes: [UInt8]) async throws { try await engine.hostWrote(bytes) }

    package func close() async { await engine.close() }

    actor Engine {
        private let events: [Recording.Event]
        private let fast: Bool
        private let incoming: ByteQueue
        private let outcome: Outcome
        /// The next event to match or to send.
        private var cursor = 0
        /// How many host frames matched.
        private var matched = 0
        private var decoder = FrameDecoder()
        /// Sends the answers of each matched frame in turn.
        private var sender: Task<Void, Never>? = nil
        private var ended = false

        init(
            events: [Recording.Event], fast: Bool, incoming: ByteQueue, outcome: Outcome
        ) {
            self.events = events
            self.fast = fast
            self.incoming = incoming
            self.outcome = outcome
        }

        func hostWrote(_ bytes: [UInt8]) throws(LinkError) {
            guard !ended else { throw LinkError(.notConnected, "the replayed link has ended") }
            decoder.append(bytes)
            while true {
                let frame: RawFrame?
                do {
                    frame = try decoder.next()
                } catch {
                    throw diverge(actual: bytes, note: "the command wrote bytes that are not a frame: \(error.reason)")
                }
                guard let frame else { return }
                let actual = (try? frame.encoded()) ?? bytes
                try accept(actual)
            }
        }

        private func accept(_ actual: [UInt8]) throws(LinkError) {
            guard cursor < events.count, case .sent(let expected, let secured) = events[cursor].kind else {
                throw diverge(actual: actual, note: "the recording has no more frames from the host here")
            }
            // A recording made before secured frames were masked too kept them as sent: either form matches.
            guard Recording.masked(frame: actual) == expected || (secured && actual == expected) else {
                throw diverge(actual: actual, note: nil)
            }
            let sentAt = events[cursor].time
            cursor += 1
            matched += 1
            var answers: [Recording.Event] = []
            while cursor < events.count {
                if case .sent = events[cursor].kind { break }
                if case .closed = events[cursor].kind { break }
                answers.append(events[cursor])
                cursor += 1
            }
            guard !answers.isEmpty else { return }
            let previous = sender
            let fast = fast
            let incoming = incoming
            sender = Task {
                await previous?.value
                var last = sentAt
                for answer in answers {
                    if !fast, answer.time > last {
                        try? await Task.sleep(for: .microseconds(Int64((answer.time - last) * 1_000_000)))
                    }
                    last = answer.time
                    switch answer.kind {
                    case .received(let bytes, _): incoming.send(bytes)
                    case .dropped(let reason):
                        incoming.finish(
                            throwing: LinkError(.disconnected, "the recorded terminal dropped the link: \(reason)"))
                        return
                    case .sent, .closed: return
                    }
                }
            }
        }

        /// Ends the replay on the first frame that differs, showing both.
        private func diverge(actual: [UInt8], note: String?) -> LinkError {
            let frameNumber = matched + 1
            var lines = ["the command left the recording at the host's frame \(frameNumber):"]
            if cursor < events.count, case .sent(let expected, _) = events[cursor].kind {
                lines.append("  recorded: > \(Self.describe(expected))")
            } else {
                lines.append("  recorded: nothing more from the host")
            }
            lines.append("  sent:     > \(Self.describe(actual))")
            if let note { lines.append("  (\(note))") }
            let error = LinkError(
                .replayDiverged, lines.joined(separator: "\n"),
                hint: "replay the same command line and options as the recording's (`ucube decode < FILE` shows it)")
            outcome.record(error)
            end(error)
            return error
        }

        /// The host closed the link: a recording with frames from the host still to come diverged too.
        func close() {
            if !ended, cursor < events.count, case .sent(let expected, _) = events[cursor].kind {
                let error = LinkError(
                    .replayDiverged,
                    "the command ended before the recording did: the recording goes on with > \(Self.describe(expected))",
                    hint: "replay the same command line and options as the recording's (`ucube decode < FILE` shows it)"
                )
                outcome.record(error)
            }
            sender?.cancel()
            end(nil)
        }

        private func end(_ error: LinkError?) {
            guard !ended else { return }
            ended = true
            incoming.finish(throwing: error)
        }

        /// "GetInfo seq 3: 02 00 03 …" with card data masked.
        static func describe(_ bytes: [UInt8]) -> String {
            let hex = Masking.hex(bytes, separator: " ")
            guard bytes.count >= 6, bytes[0] == FrameLimits.stx else { return hex }
            let id = CommandID(rawValue: UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
            return "\(id) seq \(bytes[3]): \(hex)"
        }
    }
}
