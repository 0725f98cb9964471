import UCubeLink
import UCubeProtocol

/// Why loading a binary onto the terminal failed. `code` is stable; `reason` says what happened and what to do.
package struct UpdateError: CodedError {
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// A file could not be opened or read.
        case fileUnreadable
        /// A §10.5 package or a file ends before a length says it should (or without the `00 00` terminator).
        case truncated
        /// Bytes follow the `00 00` terminator of a §10.5 package.
        case trailingBytes
        /// A length is not acceptable: an empty signature or key, a block above `Load.maxBlockSize`, a signature
        /// file too large for InstallForLoad.
        case badLength
        /// The binary has no block at all.
        case emptyBinary
        /// The terminal refused: the signature does not verify (`Status.imageSignatureInvalid`).
        case signatureRejected
        /// The terminal refused: the image is malformed (`Status.imageMalformed`).
        case imageRejected
        /// The terminal refused: not newer than the installed version (`Status.imageNotNewer`).
        case versionRejected
        /// The terminal answered another non-zero status to InstallForLoad or Load.
        case terminalRefused
        /// The link failed (dropped, timed out); the terminal keeps its old version, a re-run starts over.
        case link
        /// The task was cancelled between blocks; the terminal keeps its old version.
        case cancelled
        /// The terminal did not come back after its reboot before the deadline.
        case rebootTimeout
    }

    package let code: Code
    package let reason: String
    /// The terminal's status, for the refusal codes.
    package let status: Status?

    package init(_ code: Code, _ reason: String, status: Status? = nil) {
        self.code = code
        self.reason = reason
        self.status = status
    }

    /// The error for a non-zero status answered to `command`.
    static func refused(_ status: Status, by command: String) -> UpdateError {
        let code: Code =
            switch status {
            case .imageSignatureInvalid: .signatureRejected
            case .imageMalformed: .imageRejected
            case .imageNotNewer: .versionRejected
            default: .terminalRefused
            }
        let meaning = status.info.map { ": \($0.meaning)" } ?? ""
        return UpdateError(code, "the terminal refused \(command) with \(status)\(meaning)", status: status)
    }

    static func link(_ error: LinkError, during step: String) -> UpdateError {
        UpdateError(
            .link,
            "\(step): \(error.reason); the terminal keeps its installed version, run the update again")
    }
}
