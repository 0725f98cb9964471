import UCubeProtocol

/// When each frame has crossed the modelled link (`LinkModel`), as absolute deadlines on the simulator's `elapsed()`
/// scale, so that the simulator's own lateness does not add up frame after frame.
///
/// A sleep wakes late: timer slack, and the hand-off from the timer thread to the task that waits. Slept as a
/// duration after each wake-up, every frame would pay that lateness on top of its modelled time, and a link at 50×
/// speed loses several per cent to the simulator's timers (issue 27). Here the lateness of the terminal's last
/// wake-up in one direction is taken back from the start of the next frame in the other: an answer starts when its
/// command was due, plus the time spent handling it; the host's next command starts when the last answer was due, plus
/// the host's own time. A frame never starts before the link is free in its direction, nor before it could have been
/// sent (the credit applies only to what came after the late wake-up), so the link is never faster than its model.
struct LinkTimeline: Sendable {
    /// A sleep's deadline, and when it ended.
    struct Wake: Sendable, Equatable {
        let due: Duration
        let woke: Duration
        var lateness: Duration { max(.zero, woke - due) }
    }

    /// When the last frame each way has finished crossing the link.
    private(set) var inboundFree: Duration = .zero
    private(set) var outboundFree: Duration = .zero
    /// The last wake-up after a command's transfer, and after an answer's: each is credited once.
    private var inboundWake: Wake?
    private var outboundWake: Wake?

    init() {}

    /// A command frame seen at `now` that takes `transfer` on the link: when it has arrived.
    mutating func arrival(seenAt now: Duration, transfer: Duration) -> Duration {
        var ready = now
        if let wake = outboundWake, now >= wake.woke { ready = now - wake.lateness }
        outboundWake = nil
        inboundFree = max(ready, inboundFree) + transfer
        return inboundFree
    }

    /// The simulator woke at `woke` for a command due at `due`.
    mutating func commandArrived(due: Duration, woke: Duration) { inboundWake = Wake(due: due, woke: woke) }

    /// An answer produced at `readyAt`, not to be sent before `notBefore`, that takes `transfer`: when the host has it.
    mutating func delivery(readyAt: Duration, notBefore: Duration, transfer: Duration) -> Duration {
        var ready = readyAt
        if let wake = inboundWake, readyAt >= wake.woke { ready = readyAt - wake.lateness }
        inboundWake = nil
        outboundFree = max(ready, notBefore, outboundFree) + transfer
        return outboundFree
    }

    /// The simulator woke at `woke` to write an answer due at `due`.
    mutating func answerDelivered(due: Duration, woke: Duration) { outboundWake = Wake(due: due, woke: woke) }
}

extension LinkModel {
    /// The modelled transfer time of a decoded frame: from its size, without encoding it again (and computing its CRC
    /// again) unless BLE stuffing needs its bytes.
    func transferTime(for frame: RawFrame) -> Duration {
        guard appliesBLEStuffing else { return transferTime(byteCount: frame.body.count + FrameLimits.overhead) }
        guard let bytes = try? frame.encoded() else {
            return transferTime(byteCount: frame.body.count + FrameLimits.overhead)
        }
        return transferTime(forFrame: bytes)
    }
}
