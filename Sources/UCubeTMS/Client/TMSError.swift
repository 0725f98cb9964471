import UCubeProtocol

/// Every failure of the TMS client. `code` is stable (tests and exit codes key on it); `reason` names the URL and says
/// what happened and what to do. `status` is the HTTP status when the server answered, `attempts` how many requests
/// were made.
package struct TMSError: CodedError {
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// The server answered with a status other than 200 (after retries for 5xx).
        case httpStatus
        /// The connection failed or dropped (refused, reset, DNS), after retries.
        case network
        /// No connection within the connect timeout, or no byte within the read timeout, after retries.
        case timeout
        /// The TLS handshake failed for a reason none of the `tls…` codes below names.
        case tls
        /// The server's certificate does not chain to a trusted CA (the system's or `--tms-ca`), or is not valid now.
        case tlsUntrustedCertificate
        /// The server's certificate is not valid for the host name in the URL.
        case tlsHostnameMismatch
        /// The server refused this terminal's client certificate (or asked for one we do not have) in the handshake.
        case tlsCertificateRejected
        /// The server says this terminal's client certificate has expired.
        case tlsCertificateExpired
        /// A 200 reply whose body is not what the endpoint returns (bad JSON, status ≠ ok, oversize, bad PKCS#12).
        case malformedReply
        /// HTTP 401/403: the server refused this terminal's client certificate.
        case refused
        /// A plain-http URL to a host that is not loopback; nothing was sent.
        case insecureURL
        /// No client identity stored for this terminal.
        case notRegistered
        /// No TMS URL configured (no --tms, $UCUBE_TMS_URL or tms_url).
        case notConfigured
        /// An unparsable URL, an unreadable CA file or config file.
        case configuration
        /// A local file could not be read or written (download target, logs zip, identity store).
        case file
        /// The task was cancelled.
        case cancelled
    }

    package let code: Code
    package let reason: String
    /// The HTTP status of the last reply, when there was one.
    package let status: Int?
    /// Requests made before giving up (0 when the failure came before any connection).
    package let attempts: Int
    /// What to do about it, when there is something to do.
    package let hint: String?
    /// The HTTP, NIO or BoringSSL library's own text (`--log-level debug`, the log).
    package let detail: String?
    /// The host name did not resolve (the client then tries a bare server name without its `api.` prefix).
    var unresolvedHost = false

    package init(
        _ code: Code, _ reason: String, status: Int? = nil, attempts: Int = 0, hint: String? = nil,
        detail: String? = nil
    ) {
        self.code = code
        self.reason = reason
        self.status = status
        self.attempts = attempts
        self.hint = hint
        self.detail = detail
    }

    /// Whether another attempt may succeed: 5xx, network errors and timeouts.
    var isRetryable: Bool {
        switch code {
        case .network, .timeout: true
        case .httpStatus: (status ?? 0) >= 500
        case .tls, .tlsUntrustedCertificate, .tlsHostnameMismatch, .tlsCertificateRejected, .tlsCertificateExpired,
            .malformedReply, .refused, .insecureURL, .notRegistered, .notConfigured, .configuration, .file, .cancelled:
            false
        }
    }

    func with(attempts: Int) -> TMSError {
        let suffix = attempts > 1 ? " (after \(attempts) attempts)" : ""
        var error = TMSError(code, reason + suffix, status: status, attempts: attempts, hint: hint, detail: detail)
        error.unresolvedHost = unresolvedHost
        return error
    }
}
