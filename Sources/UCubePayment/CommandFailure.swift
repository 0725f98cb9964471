import UCubeLink

/// The outstanding command failed on the link without a disconnect (a timeout, a bad frame, a malformed answer, a
/// request that could not be encoded), as the engine met it: the command and the link's typed error, whose code the
/// payment's errors keep (`PaymentError.code`).
package struct CommandFailure: Hashable, Sendable {
    /// The command's name, as the catalogue gives it (`CommandDescriptor.name`).
    package let command: String
    package let error: LinkError

    package init(command: String, error: LinkError) {
        self.command = command
        self.error = error
    }

    /// The payment's reason: the command, the link's code and its sentence.
    package var reason: String { "\(command): \(error.code.rawValue): \(error.reason)" }
}
