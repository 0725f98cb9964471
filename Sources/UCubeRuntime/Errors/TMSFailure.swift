import UCubeTMS

extension ExitCodes {
    /// The one place a TMS failure becomes an exit code: configuration mistakes are usage errors, a local file
    /// that cannot be read or written an I/O error, Ctrl-C `cancelled`, everything the server or the network did `tms`.
    package static func code(for error: TMSError) -> Entry {
        switch error.code {
        case .notConfigured, .configuration, .insecureURL: usage
        case .file: ioError
        case .cancelled: cancelled
        case .httpStatus, .network, .timeout, .tls, .tlsUntrustedCertificate, .tlsHostnameMismatch,
            .tlsCertificateRejected,
            .tlsCertificateExpired, .malformedReply, .refused, .notRegistered:
            tms
        }
    }
}

extension CLIFailure {
    package init(_ error: TMSError) {
        code = CLIErrorCode.name(of: error.code)
        exit = ExitCodes.code(for: error)
        message = error.reason
        hint = error.hint
        detail = error.detail
    }
}

/// A TMS-layer call whose typed error becomes the CLI's (in a closure, `do`/`catch` loses the error's type).
package func tmsChecked<T>(_ body: () throws(TMSError) -> T) throws(CLIFailure) -> T {
    do { return try body() } catch { throw CLIFailure(error) }
}
