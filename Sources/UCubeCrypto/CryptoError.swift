import UCubeProtocol

/// Error thrown by every UCubeCrypto operation.
///
/// `code` is stable and meant for programmatic checks; `reason` is a human-readable explanation that never contains
/// key material, PINs or plaintext. Two errors compare equal when their codes are equal (the reason is ignored).
package struct CryptoError: CodedError {
    /// Stable error category.
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// A key had the wrong length (TDES: 8 or 16 bytes; BDK, IPEK, MAC key: 16 bytes).
        case invalidKeyLength
        /// Data was not a multiple of the 8-byte block size, or a block had the wrong size.
        case invalidDataLength
        /// A CBC initialisation vector was not 8 bytes.
        case invalidIVLength
        /// A key serial number was not 10 bytes, not valid hex, or a counter value did not fit in 21 bits.
        case invalidKSN
        /// The 21-bit DUKPT transaction counter cannot advance any further (the last valid value is 0x1FF800).
        case counterExhausted
        /// A PIN was not 4 to 12 decimal digits.
        case invalidPIN
        /// A PAN was missing, not decimal, or had an unusable length.
        case invalidPAN
        /// A decoded PIN block did not have the structure its format requires (wrong PAN, wrong key or corrupt data).
        case malformedPINBlock
        /// Not enough caller-supplied random bytes for the requested PIN block format.
        case insufficientRandomBytes
        /// The operation is not supported (e.g. TDES encipherment of an ISO 9564 format 4 block).
        case unsupported
        /// EMV data a cryptogram check needs was absent or malformed (an authorisation request without its 8-byte
        /// ARQC, 9F26).
        case invalidEMVData
        /// A hexadecimal string could not be parsed.
        case invalidHex
        /// libcrypto reported a failure.
        case openSSLFailure
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "CryptoError.\(code.rawValue): \(reason)" }
}
