/// A streaming decoder for RPC frames: bytes in, `RawFrame`s out (spec §2.2 receiver rule).
///
/// `next()` returns `nil` when more bytes are needed and leaves the buffer as it was. It throws `FrameError` for a
/// bad frame. After a throw the decoder has already resynchronised, so the next call goes on:
/// - wrong CRC: STX, LEN and ETX agreed, so the frame's bounds are trusted and the whole frame is dropped (a stray
///   0x02 inside its corrupted body is never taken for the start of the next frame);
/// - missing ETX or oversize LEN: the LEN is not trusted, so only the STX is dropped and the search for the next STX
///   starts from the byte after it. Bytes before an STX are garbage and are
/// dropped (counted in `discardedBytes`). Bytes after a complete frame stay for the next call (spec §2.2, A-BT).
package struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// Garbage bytes dropped while looking for STX, and bytes of rejected frames.
    package private(set) var discardedBytes = 0
    /// `discardedBytes` when the last valid frame was returned (or the decoder was reset).
    private var discardedAtLastFrame = 0
    /// Bytes dropped since the last valid frame: noise. A peer that sends more of it than a bound without one valid
    /// frame is not talking the protocol, and each side drops it (`LinkRules.maxNoiseBytes`,
    /// `SimulatorChoices.maxNoiseBytes`).
    package var noiseSinceLastFrame: Int { discardedBytes - discardedAtLastFrame }
    /// The largest frame accepted (spec §2.2): `FrameLimits.maxFrameSize` (2068, the 2020 SDK's and ucube's), or
    /// `FrameLimits.currentSDKMaxFrameSize` (2560) for a peer that must read what the current SDK may send.
    package let maxFrameSize: Int

    package init(maxFrameSize: Int = FrameLimits.maxFrameSize) {
        precondition(maxFrameSize >= FrameLimits.overhead, "a frame limit below the 9 framing bytes")
        self.maxFrameSize = maxFrameSize
    }

    /// Bytes received but not yet returned as frames.
    package var bufferedCount: Int { buffer.count - start }

    package mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The same for an array, what every transport delivers: specialised here, where the generic version called from
    /// another module looks up `Array`'s conformances at run time the first time (a scan of the binary's 11,000, a
    /// sizeable part of a short command's start-up).
    package mutating func append(_ bytes: [UInt8]) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Forgets everything buffered (e.g. after a link reset).
    package mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
        discardedAtLastFrame = discardedBytes
    }

    /// The next complete frame, `nil` if more bytes are needed, or a throw for a bad frame.
    package mutating func next() throws(FrameError) -> RawFrame? {
        // Skip garbage up to the next STX.
        while start < buffer.count && buffer[start] != FrameLimits.stx {
            start += 1
            discardedBytes += 1
        }
        let available = buffer.count - start
        guard available >= 3 else { return nil }
        let len = Int(buffer[start + 1]) << 8 | Int(buffer[start + 2])
        let size = len + FrameLimits.overhead
        guard size <= maxFrameSize else {
            dropOne()
            throw FrameError(
                .oversize, "announced frame of \(size) bytes (LEN \(len)) exceeds the \(maxFrameSize)-byte limit")
        }
        guard available >= size else { return nil }
        let end = start + size
        guard buffer[end - 1] == FrameLimits.etx else {
            let got = buffer[end - 1]
            dropOne()
            throw FrameError(.missingETX, "byte \(size - 1) of the frame is 0x\(Hex.encode([got])), expected ETX 0x03")
        }
        let expected = UInt16(buffer[end - 3]) << 8 | UInt16(buffer[end - 2])
        let actual = CRC16.xmodem(buffer[(start + 1)..<(end - 3)])
        guard expected == actual else {
            discardedBytes += size
            start = end
            throw FrameError(
                .crcMismatch,
                "CRC 0x\(Hex.encode([UInt8(expected >> 8), UInt8(expected & 0xFF)])) does not match the computed 0x\(Hex.encode([UInt8(actual >> 8), UInt8(actual & 0xFF)]))"
            )
        }
        let frame = RawFrame(
            sequence: buffer[start + 3],
            command: CommandID(UInt16(buffer[start + 4]) << 8 | UInt16(buffer[start + 5])),
            body: Array(buffer[(start + 6)..<(end - 3)]))
        start = end
        discardedAtLastFrame = discardedBytes
        return frame
    }

    private mutating func dropOne() {
        start += 1
        discardedBytes += 1
    }

    private mutating func compact() {
        if start > 0 && (start >= 4096 || start == buffer.count) {
            buffer.removeFirst(start)
            start = 0
        }
    }
}
