import ArgumentParser
import UCubePayment
import UCubeRuntime

/// The options of a host's https form, shared by `pay` and `test`.
struct HostOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "With --authorize https://…: a PEM file of the only CAs the host's certificate may chain to (default: $UCUBE_AUTHORIZE_CA, else the system's CAs).",
            valueName: "file"))
    var authorizeCA: String?

    @Option(
        help: ArgumentHelp(
            "With --authorize https://…: a PEM client certificate to present (default: $UCUBE_AUTHORIZE_CERT).",
            valueName: "file"))
    var authorizeCert: String?

    @Option(
        help: ArgumentHelp(
            "The PEM private key of --authorize-cert, when its file lacks it (default: $UCUBE_AUTHORIZE_KEY).",
            valueName: "file"))
    var authorizeKey: String?

    @Option(
        help: ArgumentHelp(
            "With --authorize https://…: a file whose first line is the bearer token (default: $UCUBE_AUTHORIZE_TOKEN_FILE, else the token in $UCUBE_AUTHORIZE_TOKEN). Never the token itself: the command line is visible to every user.",
            valueName: "file"))
    var authorizeTokenFile: String?

    @Option(
        help: ArgumentHelp(
            "How long a host (--authorize exec:… or https://…) has to answer before the payment goes on as unable to go online.",
            valueName: "seconds"))
    var authorizeTimeout: Double = Double(HostChoices.defaultTimeout.components.seconds)

    var files: HostTLSFiles {
        HostChoices.files(ca: authorizeCA, certificate: authorizeCert, key: authorizeKey, tokenFile: authorizeTokenFile)
    }

    /// --authorize-timeout, checked.
    func timeout() throws -> Duration {
        guard authorizeTimeout > 0, authorizeTimeout <= 3600 else {
            throw ValidationError(
                "--authorize-timeout is more than 0 and at most 3600 seconds, not \(authorizeTimeout)")
        }
        return .milliseconds(Int64(authorizeTimeout * 1000))
    }
}
