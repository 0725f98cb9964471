/// A terminal status: signed 16-bit, big-endian on the wire (spec §2.2, §6). An open set: any value decodes.
package struct Status: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }
    package init(_ rawValue: Int16) { self.rawValue = rawValue }
    /// From the two wire bytes, high byte first.
    package init(bytes high: UInt8, _ low: UInt8) { self.rawValue = Int16(bitPattern: UInt16(high) << 8 | UInt16(low)) }

    /// The two wire bytes, high byte first.
    package var bytes: [UInt8] {
        let u = UInt16(bitPattern: rawValue)
        return [UInt8(u >> 8), UInt8(u & 0xFF)]
    }

    package var isSuccess: Bool { rawValue == 0 }

    /// The table entry, when the value is known.
    package var info: StatusInfo? { StatusTable.info(for: self) }

    /// "-2 (0xFFFE) TIMEOUT" or "-1234 (0xFB2E)".
    package var description: String {
        let hex = "0x" + Hex.encode(bytes)
        if let info { return "\(rawValue) (\(hex)) \(info.name)" }
        return "\(rawValue) (\(hex))"
    }

    package static let success = Status(0)
    package static let finalisationApproved = Status(7)
    package static let finalisationDeclined = Status(8)
    package static let unknownCommand = Status(-1)
    package static let timeout = Status(-2)
    package static let actionCancelled = Status(-28)
    package static let cancelled = Status(-32)
    package static let noCard = Status(-35)
    package static let cardMute = Status(-43)
    package static let aborted = Status(-114)
    package static let badTerminalState = Status(-287)
    package static let emvNotSupported = Status(-300)
    package static let emvNotAccepted = Status(-301)
    package static let cardNotAccepted = Status(-328)
    package static let cardBlocked = Status(-350)
    package static let nfcModuleNotReady = Status(-0x102A)
    /// PROJECT CHOICE (FirmwareImageChoices): the last Load block completed an image whose signature does not verify.
    package static let imageSignatureInvalid = Status(-910)
    /// PROJECT CHOICE (FirmwareImageChoices): the loaded image's header is malformed or its length is wrong.
    package static let imageMalformed = Status(-911)
    /// PROJECT CHOICE (FirmwareImageChoices): the loaded image is not newer than the installed version.
    package static let imageNotNewer = Status(-912)

    /// True for the NFC ("mPOS") module error range −0x1020 … −0x1030 (spec §6).
    package var isNFCModuleError: Bool { (-0x1030)...(-0x1020) ~= Int(rawValue) }
}

/// Name and plain-language meaning of a status.
package struct StatusInfo: Sendable, Hashable {
    package let status: Status
    package let name: String
    package let meaning: String
    /// Where the value comes from (spec §0 citation key).
    package let source: String
}

/// The one table of status meanings (spec §6).
package enum StatusTable {
    package static let all: [StatusInfo] = {
        var list: [StatusInfo] = [
            .init(status: .success, name: "SUCCESS", meaning: "the command succeeded", source: "A-Const"),
            .init(
                status: .finalisationApproved, name: "APPROVED_TC",
                meaning: "TransactionFinalisation: the card approved (TC)",
                source: "A-Cmd:TransactionFinalizationCommand"),
            .init(
                status: .finalisationDeclined, name: "DECLINED_AAC",
                meaning: "TransactionFinalisation: the card declined (AAC)",
                source: "A-Cmd:TransactionFinalizationCommand"),
            .init(
                status: .unknownCommand, name: "UNKNOWN_COMMAND",
                meaning: "the terminal did not recognise the command (answered with command id 0x8000)",
                source: "PROJECT CHOICE spec §2.7"),
            .init(
                status: .timeout, name: "TIMEOUT", meaning: "the terminal's own timeout expired (no card, no key)",
                source: "A-Const"),
            .init(
                status: .actionCancelled, name: "ACTION_CANCELLED",
                meaning: "the action was cancelled on the terminal", source: "IS:Constants"),
            .init(
                status: .cancelled, name: "CANCELLED",
                meaning: "cancelled by CancelAll or by the cardholder's cancel key", source: "A-Const"),
            .init(status: .noCard, name: "NO_CARD", meaning: "no card is present", source: "IS:Constants"),
            .init(
                status: .cardMute, name: "CARD_MUTE", meaning: "the card does not answer; reinsert it",
                source: "F-sil"),
            .init(
                status: .aborted, name: "ECMD_ABORTED",
                meaning: "the display or list box was aborted by the user", source: "IS:Constants"),
            .init(
                status: .badTerminalState, name: "BAD_TERMINAL_STATE",
                meaning: "the command is not allowed in the terminal's current state (READY/SECURED/PERSO)",
                source: "IS:Constants"),
            .init(
                status: .emvNotSupported, name: "EMV_NOT_SUPPORTED",
                meaning: "no application common to card and terminal", source: "A-Const"),
            .init(
                status: .emvNotAccepted, name: "EMV_NOT_ACCEPTED", meaning: "the card refused the transaction",
                source: "A-Const"),
            .init(
                status: .cardNotAccepted, name: "CARD_NOT_ACCEPTED", meaning: "the card is not accepted",
                source: "F-sil"),
            .init(status: .cardBlocked, name: "CARD_BLOCKED", meaning: "the payment card is blocked", source: "F-sil"),
            .init(
                status: .imageSignatureInvalid, name: "IMAGE_SIGNATURE_INVALID",
                meaning: "the loaded binary's signature does not verify; nothing was installed, the old version runs",
                source: "PROJECT CHOICE spec §5.2 0x5161 (FirmwareImageChoices)"),
            .init(
                status: .imageMalformed, name: "IMAGE_MALFORMED",
                meaning: "the loaded binary is not a valid image (header or length); nothing was installed",
                source: "PROJECT CHOICE spec §5.2 0x5161 (FirmwareImageChoices)"),
            .init(
                status: .imageNotNewer, name: "IMAGE_NOT_NEWER",
                meaning: "the loaded binary is the installed version or older; the terminal refuses downgrades",
                source: "PROJECT CHOICE spec §10.4 (FirmwareImageChoices)"),
        ]
        for code in 0x1020...0x1030 where code != 0x102A {
            list.append(
                .init(
                    status: Status(Int16(-code)), name: "NFC_MPOS_ERROR",
                    meaning: "contactless (mPOS) module error", source: "A-Const"))
        }
        list.append(
            .init(
                status: .nfcModuleNotReady, name: "NFC_MODULE_NOT_READY",
                meaning: "the contactless module is not ready yet; retry in a few seconds", source: "A-Const"))
        return list.sorted { $0.status.rawValue > $1.status.rawValue }
    }()

    private static let byValue: [Status: StatusInfo] = Dictionary(uniqueKeysWithValues: all.map { ($0.status, $0) })

    package static func info(for status: Status) -> StatusInfo? { byValue[status] }

    /// Looks a status up by name ("BAD_TERMINAL_STATE") or by decimal/hex value ("-287", "0xFEE1").
    package static func lookup(_ text: String) -> Status? {
        if let v = Int16(text) { return Status(v) }
        if text.hasPrefix("0x") || text.hasPrefix("0X"), let u = UInt16(text.dropFirst(2), radix: 16) {
            return Status(Int16(bitPattern: u))
        }
        return all.first { $0.name.lowercased() == text.lowercased() }?.status
    }
}
