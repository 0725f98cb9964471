/// Every PROJECT CHOICE about simulated firmware images, in one place. Real YouTransactor images are opaque, signed
/// by YouTransactor with a scheme the sources do not give (spec §5.2 0x5160/0x5161, §10.5); the project fixes a
/// simple, documented format so the simulator can verify and install what the driver loads.
///
/// - Image (spec §10.4 types): a 13-byte header then the payload:
///   `magic "UCFW" (4) ‖ item type (1, spec §10.4: 0, 3, 4, 5, 6, 8) ‖ version a.b.c.d (4) ‖ payload length (4, BE)`.
///   The payload is opaque; the image is exactly header + payload length bytes.
/// - Signature: ECDSA P-256 over SHA-256 of the *whole image* (header included), DER-encoded (X9.62 `Ecdsa-Sig-Value`),
///   made and verified with OpenSSL EVP (`UCubeCrypto.CodeSigning`). The vendor key is the published test
///   code-signing key `CryptoChoices.testCodeSigningPrivateKeyPEM` (a test key, like the X9.24 test BDK).
/// - Signature file beside an image: the raw DER bytes.
/// - Local updates (`--file IMAGE --signature SIG`): the image is cut into `Load.maxBlockSize` (2040-byte) blocks,
///   sent with InstallForLoad method PLAIN (spec §5.2 PROJECT CHOICE).
/// - Terminal refusals after the last Load block, each a distinct status (range −910…−912, `StatusTable`):
///   signature does not verify → `Status.imageSignatureInvalid`; header malformed (magic, type, length ≠ bytes
///   received) → `Status.imageMalformed`; version not strictly newer than the installed one of that type →
///   `Status.imageNotNewer` (spec §10.4 "PCI: same-version and downgrade updates are not allowed by the terminal").
package enum FirmwareImageChoices {
    /// "UCFW".
    package static let magic: [UInt8] = [0x55, 0x43, 0x46, 0x57]
    /// magic (4) + type (1) + version (4) + payload length (4).
    package static let headerSize = 13
    /// The largest payload an image may announce: 64 MiB (a real SVPP image is a few MB). Larger lengths are hostile.
    package static let maxPayloadLength: UInt32 = 64 << 20
    /// Blocks for local updates (spec §5.2 Load PROJECT CHOICE).
    package static let localBlockSize = Load.maxBlockSize
}

/// The kinds of loadable item (spec §10.4 `type`).
package enum FirmwareItemType: UInt8, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case svppFirmware = 0
    case nfcFirmware = 3
    case iccConfig = 4
    case nfcConfig = 5
    case miscParameters = 6
    case additionalFiles = 8

    /// A firmware item after which the terminal reboots (spec §9, §10.6: type 0 only).
    package var rebootsTerminal: Bool { self == .svppFirmware }

    package var description: String {
        switch self {
        case .svppFirmware: "SVPP firmware"
        case .nfcFirmware: "NFC firmware"
        case .iccConfig: "ICC EMV configuration"
        case .nfcConfig: "NFC EMV configuration"
        case .miscParameters: "miscellaneous parameters"
        case .additionalFiles: "additional files"
        }
    }
}

/// A bad image header.
package struct FirmwareImageError: CodedError {
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// Fewer bytes than a header, or fewer payload bytes than announced.
        case truncated
        /// The first 4 bytes are not "UCFW".
        case badMagic
        /// The type is not one of spec §10.4's.
        case unknownType
        /// The payload length is above `FirmwareImageChoices.maxPayloadLength`, or bytes follow the payload.
        case badLength
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The header of a simulated image (`FirmwareImageChoices`). Pure encode/parse.
package struct FirmwareImageHeader: Sendable, Hashable {
    package var type: FirmwareItemType
    package var version: FirmwareVersion
    package var payloadLength: UInt32

    package init(type: FirmwareItemType, version: FirmwareVersion, payloadLength: UInt32) {
        self.type = type
        self.version = version
        self.payloadLength = payloadLength
    }

    /// The whole image's size: header + payload.
    package var imageSize: Int { FirmwareImageChoices.headerSize + Int(payloadLength) }

    /// The 13 header bytes. The version must have 4 parts (`FirmwareVersion("a.b.c.d")`); missing parts are 0.
    package func encoded() -> [UInt8] {
        let parts = (version.parts + [0, 0, 0, 0]).prefix(4)
        let n = payloadLength
        return FirmwareImageChoices.magic + [type.rawValue] + parts
            + [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }

    /// Parses the header at the start of `bytes` (only the first `headerSize` bytes are read).
    package init(parsing bytes: some Collection<UInt8>) throws(FirmwareImageError) {
        let head = Array(bytes.prefix(FirmwareImageChoices.headerSize))
        guard head.count == FirmwareImageChoices.headerSize else {
            throw FirmwareImageError(
                .truncated,
                "an image header is \(FirmwareImageChoices.headerSize) bytes; got \(head.count)")
        }
        guard Array(head[0..<4]) == FirmwareImageChoices.magic else {
            throw FirmwareImageError(
                .badMagic, "the image does not start with \"UCFW\" (got \(Hex.encode(Array(head[0..<4]))))")
        }
        guard let type = FirmwareItemType(rawValue: head[4]) else {
            throw FirmwareImageError(.unknownType, "image type \(head[4]) is not one of 0, 3, 4, 5, 6, 8 (spec §10.4)")
        }
        let length = UInt32(head[9]) << 24 | UInt32(head[10]) << 16 | UInt32(head[11]) << 8 | UInt32(head[12])
        guard length <= FirmwareImageChoices.maxPayloadLength else {
            throw FirmwareImageError(
                .badLength,
                "the image announces \(length) payload bytes, above the \(FirmwareImageChoices.maxPayloadLength)-byte limit"
            )
        }
        self.type = type
        self.version = FirmwareVersion(Array(head[5..<9]))
        self.payloadLength = length
    }

    /// Checks that an image of `totalSize` bytes is exactly this header's size.
    package func checkSize(_ totalSize: Int) throws(FirmwareImageError) {
        if totalSize < imageSize {
            throw FirmwareImageError(.truncated, "the image is \(totalSize) bytes; its header announces \(imageSize)")
        }
        if totalSize > imageSize {
            throw FirmwareImageError(
                .badLength, "the image is \(totalSize) bytes, \(totalSize - imageSize) more than its header announces")
        }
    }
}
