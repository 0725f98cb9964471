import Testing
import UCubeProtocol

@testable import UCubeSimulator

/// The simulator schedules a link model's frames against absolute deadlines (issue 27): its lateness in waking does
/// not add up frame after frame, and the link is never faster than its model.
@Suite struct LinkTimelineTests {
    static let command = Duration.microseconds(2_250)
    static let answer = Duration.microseconds(209)

    /// 1,000 stop-and-wait round trips whose every wake-up is 80 µs late and whose host answers at once: the last
    /// answer is due at exactly 1,000 × the modelled round trip; slept as durations, it would be 160 ms later.
    @Test func lateWakeUpsDoNotAddUp() {
        var timeline = LinkTimeline()
        let late = Duration.microseconds(80)
        var now = Duration.zero
        var delivered = Duration.zero
        for _ in 0..<1_000 {
            let arrival = timeline.arrival(seenAt: now, transfer: Self.command)
            now = arrival + late
            timeline.commandArrived(due: arrival, woke: now)
            delivered = timeline.delivery(readyAt: now, notBefore: .zero, transfer: Self.answer)
            now = max(now, delivered) + late
            timeline.answerDelivered(due: delivered, woke: now)
        }
        #expect(delivered == (Self.command + Self.answer) * 1_000)
    }

    /// The time the terminal spends handling a command, and the host's own time, still count.
    @Test func handlingTimeCounts() {
        var timeline = LinkTimeline()
        let arrival = timeline.arrival(seenAt: .zero, transfer: Self.command)
        timeline.commandArrived(due: arrival, woke: arrival + .microseconds(50))
        let handled = arrival + .microseconds(50) + .microseconds(30)
        let delivered = timeline.delivery(readyAt: handled, notBefore: .zero, transfer: Self.answer)
        #expect(delivered == arrival + .microseconds(30) + Self.answer)
        timeline.answerDelivered(due: delivered, woke: delivered + .microseconds(70))
        let next = timeline.arrival(seenAt: delivered + .microseconds(70) + .microseconds(40), transfer: Self.command)
        #expect(next == delivered + .microseconds(40) + Self.command)
    }

    /// A frame never starts before the link is free in its direction, nor earlier than it was seen when it came
    /// before the late wake-up (it cannot be a reaction to it); `notBefore` holds an answer back.
    @Test func neverFasterThanTheModel() {
        var timeline = LinkTimeline()
        let first = timeline.arrival(seenAt: .zero, transfer: Self.command)
        // A second command written at once waits for the first to cross.
        let second = timeline.arrival(seenAt: .microseconds(10), transfer: Self.command)
        #expect(second == first + Self.command)

        timeline.answerDelivered(due: .milliseconds(10), woke: .milliseconds(11))
        // Seen before that late wake-up: no credit.
        let early = timeline.arrival(seenAt: .microseconds(10_500), transfer: Self.command)
        #expect(early == .microseconds(10_500) + Self.command)

        timeline.commandArrived(due: .milliseconds(20), woke: .milliseconds(21))
        // An answer produced before the late wake-up (another command's): no credit; `notBefore` holds it back.
        let held = timeline.delivery(
            readyAt: .microseconds(20_500), notBefore: .milliseconds(30), transfer: Self.answer)
        #expect(held == .milliseconds(30) + Self.answer)
    }

    /// The transfer time of a decoded frame, from its size, is the one of its encoded bytes (and of its stuffed
    /// bytes over BLE).
    @Test func transferTimeOfADecodedFrame() throws {
        let frame = RawFrame(sequence: 3, command: .load, body: [0x00, 0x00, 0x04, 0x00, 0x0C, 0x0D, 0x02])
        let bytes = try frame.encoded()
        for model in [LinkModel.classic, .ble, LinkModel(latency: .microseconds(200), bytesPerSecond: 1_000_000)] {
            #expect(model.transferTime(for: frame) == model.transferTime(forFrame: bytes))
        }
    }
}
