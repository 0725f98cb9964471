/// What is known of the terminal's link when a payment starts, and so which starting steps it needs (spec §8.6,
/// PROJECT CHOICE). The link session says it (`LinkSession.linkStart`: the link session file written at the last
/// process's clean exit, or this process's own view of the link); the payment state machine (UCubePayment) decides
/// from it alone.
///
/// | known | starting steps sent |
/// |---|---|
/// | nothing (`unknown`: no record, a process died, the record does not parse) | CancelAll, ExitSecureSession, GetInfo, EnterSecureSession |
/// | idle, secure session open | ExitSecureSession, GetInfo (or the known terminal's), EnterSecureSession |
/// | idle, READY, terminal not known | GetInfo, EnterSecureSession |
/// | idle, READY, terminal known | EnterSecureSession (its KSN must match the known terminal's, else ExitSecureSession, GetInfo, EnterSecureSession) |
package struct LinkStart: Sendable, Hashable {
    /// Nothing is pending on the terminal: the process that last used the link closed it with every command answered.
    package var idle: Bool
    /// A secure session is open (meaningful when `idle`).
    package var secured: Bool
    /// The terminal a clean earlier payment on this link met (meaningful when `idle`).
    package var terminal: KnownTerminal?

    package init(idle: Bool, secured: Bool = false, terminal: KnownTerminal? = nil) {
        self.idle = idle
        self.secured = secured
        self.terminal = terminal
    }

    /// Nothing known: the full sequence runs (what the SDKs always do).
    package static let unknown = LinkStart(idle: false)
}
