import UCubePayment

/// The authorisation host's settings (docs/authorization.md).
package enum HostChoices {
    /// --authorize-timeout's default: a host that has not answered by then is "unable to go online".
    package static let defaultTimeout: Duration = .seconds(30)
    /// The --authorize word when none is given.
    package static let environmentVariable = "UCUBE_AUTHORIZE"
    /// The https hook's files when their options are not given, and its bearer token.
    package static let caVariable = "UCUBE_AUTHORIZE_CA"
    package static let certificateVariable = "UCUBE_AUTHORIZE_CERT"
    package static let keyVariable = "UCUBE_AUTHORIZE_KEY"
    package static let tokenFileVariable = "UCUBE_AUTHORIZE_TOKEN_FILE"
    package static let tokenVariable = "UCUBE_AUTHORIZE_TOKEN"

    /// The https hook's files: each option given, else its variable.
    package static func files(
        ca: String? = nil, certificate: String? = nil, key: String? = nil, tokenFile: String? = nil
    ) -> HostTLSFiles {
        HostTLSFiles(
            ca: ca ?? Environment.value(caVariable), certificate: certificate ?? Environment.value(certificateVariable),
            key: key ?? Environment.value(keyVariable), tokenFile: tokenFile ?? Environment.value(tokenFileVariable))
    }
}
