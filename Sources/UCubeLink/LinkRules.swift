import UCubeProtocol

/// The link's protocol state, as a value: sequence numbers (spec §2.4), the secure session flag (spec §2.3) and the
/// per-command wrapping rule. Tested without a transport.
package struct LinkRules: Sendable, Hashable {
    /// PROJECT CHOICE: the bytes a link's receive queue (`ByteQueue`) holds before the transport stops reading its
    /// socket or device file (backpressure): 256 KiB, a hundred of the largest frames (spec §2.2), so a terminal's
    /// answers never wait on it, and a peer streaming at full speed costs this process no more than that.
    package static let receiveHighWater = 256 * 1024
    /// PROJECT CHOICE: the bytes of noise (bytes before an STX, rejected frames) the client takes from a terminal
    /// without one valid frame before it drops the link: 1 MiB, five hundred times the largest frame (spec §2.2), far
    /// beyond line noise, and reached in a fraction of a second by a peer that streams garbage.
    package static let maxNoiseBytes = 1024 * 1024

    /// The SEQ the next command carries.
    package private(set) var nextSequence: UInt8 = 0
    /// The SEQ of the last command sent (`getCurrentSequenceNumber()` of the newer SDK); nil before the first.
    package private(set) var lastSequence: UInt8? = nil
    /// True after a successful EnterSecureSession, false after a successful ExitSecureSession.
    package private(set) var secured = false

    package init(secured: Bool = false, nextSequence: UInt8 = 0) {
        self.secured = secured
        self.nextSequence = nextSequence
    }

    /// Takes the SEQ for a command about to be sent.
    ///
    /// > "Reset to 0 immediately before sending ENTER_SECURED_SESSION, so 0x5101 always carries SEQ 0 and the next
    /// > command SEQ 1." — spec §2.4. Increments after every command, wrapping modulo 256.
    package mutating func takeSequence(for command: CommandID) -> UInt8 {
        if command == .enterSecureSession { nextSequence = 0 }
        let seq = nextSequence
        lastSequence = seq
        nextSequence = seq &+ 1
        return seq
    }

    /// Whether a command travels in the SECURED layout (PROJECT CHOICE rule, spec §2.3): in SECURED state, iff its
    /// input mode is not NONE and its payload is non-empty; 0x5102 always plain.
    package func wraps(_ command: CommandID, payload: [UInt8], inputMode: SecurityMode) -> Bool {
        secured && command != .exitSecureSession && inputMode != .none && !payload.isEmpty
    }

    /// Whether the answer comes in the SECURED layout: in SECURED state iff the output mode is not NONE; 0x5102 and
    /// the 0x8000 "unrecognised" answer always plain.
    package func expectsSecuredResponse(_ command: CommandID, outputMode: SecurityMode) -> Bool {
        secured && command != .exitSecureSession && command != .unrecognised && outputMode != .none
    }

    /// Applies a response's effect on the session (A-RPCMgr `processMessage`).
    package mutating func responseReceived(_ command: CommandID, status: Status) {
        // An ExitSecureSession refused for the terminal's state: there was no session to leave (the terminal
        // rebooted, or another process closed it), so the terminal is READY whatever this process believed.
        if command == .exitSecureSession && status == .badTerminalState { secured = false }
        guard status.isSuccess else { return }
        if command == .enterSecureSession { secured = true }
        if command == .exitSecureSession { secured = false }
    }

    /// The terminal answered in the READY layout where the SECURED one was due: it is not in a secure session (it
    /// rebooted, or another process closed the session), so commands go plain from now on.
    package mutating func secureSessionLost() { secured = false }

    /// Numbers the commands afresh from 0, as after the SDK's start (spec §2.4): after the terminal was brought back
    /// to READY from an unknown state, nothing holds an older number.
    package mutating func restartNumbering() { nextSequence = 0 }

    /// Forgets the session after a link drop: the next connection starts in READY framing with SEQ 0.
    package mutating func reset() { self = LinkRules() }
}
