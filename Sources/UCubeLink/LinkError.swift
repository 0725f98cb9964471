import UCubeProtocol

/// A failure of the link or of the exchange, never a terminal status (a status is a value in `Reply`).
/// `code` is stable (exit codes and tests key on it); `reason` says what happened and what to do.
package struct LinkError: CodedError {
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// The terminal did not answer in time.
        case timeout
        /// The link dropped (peer closed, radio lost, device removed).
        case disconnected
        /// No link is open.
        case notConnected
        /// The link could not be opened.
        case connectFailed
        /// Nothing listens at the terminal's TCP address (ECONNREFUSED).
        case connectionRefused
        /// No route to the terminal's host or network (EHOSTUNREACH, ENETUNREACH).
        case hostUnreachable
        /// The terminal's host name does not resolve.
        case hostNotFound
        /// Bytes from the terminal were not a valid frame (wrong CRC, missing ETX, oversize LEN).
        case badFrame
        /// A frame answered a command that is not pending.
        case unexpectedResponse
        /// A success response whose data does not follow the command's layout.
        case malformedResponse
        /// Another command is already in flight (one at a time, spec §3.1; only CancelAll may overlap).
        case busy
        /// The request could not be encoded (bad argument, too long for a frame).
        case invalidRequest
        /// A replayed recording (`ReplayTransport`) does not have the frame the host sent.
        case replayDiverged
    }

    package let code: Code
    package let reason: String
    /// What to do about it, when there is something to do.
    package let hint: String?
    /// The transport library's own text (`--log-level debug`, the log).
    package let detail: String?

    package init(_ code: Code, _ reason: String, hint: String? = nil, detail: String? = nil) {
        self.code = code
        self.reason = reason
        self.hint = hint
        self.detail = detail
    }

}
