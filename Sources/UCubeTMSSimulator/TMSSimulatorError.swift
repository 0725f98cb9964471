import UCubeProtocol

/// Why the TMS simulator could not start or serve.
package struct TMSSimulatorError: CodedError {
    package enum Code: String, Hashable, Sendable {
        /// The catalogue directory, its `catalogue.json` or a file it names is missing or invalid.
        case invalidCatalogue
        /// The state directory or the CA kept in it could not be read, created or trusted.
        case stateDirectory
        /// A certificate, key or PKCS#12 could not be built.
        case pki
        /// The listening socket could not be bound.
        case bind
        /// The address to listen on is already taken by another socket (EADDRINUSE).
        case addressInUse
        /// `start` on a running simulator, or an address that is not usable.
        case invalidArgument
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
