import ArgumentParser
import UCubeProtocol
import UCubeRuntime

// The terminal, card-reader, display and download commands of `ucube rpc` (spec §5.2).

extension RPCSubcommands {
    /// `rpc get-info [TAG…]`.
    struct GetInfoSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            GetInfo.self,
            """
            Tags are one byte each (spec §5.2), hex or a tag dictionary name. With no tag, the standard set: \
            \(GetInfo.standardTags.map { Hex.encode([$0]) }.joined(separator: " ")).
            """
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("GetInfo tags, e.g. C1 C4 D1.", valueName: "tag"), transform: Parse.tag)
        var tags: [Tag] = []

        func request() throws -> GetInfo {
            guard !tags.isEmpty else { return GetInfo() }
            return GetInfo(
                tags: try tags.map { tag in
                    guard tag.bytes.count == 1 else {
                        throw ValidationError(
                            "<tag>: GetInfo tags are one byte (spec §5.2); \(tag) has \(tag.bytes.count)"
                        )
                    }
                    return tag.bytes[0]
                }
            )
        }
    }

    /// `rpc set-info-field --power-off-timeout N | --speed-mode slow|quick | --locale fr | --tlv HEX`.
    struct SetInfoFieldSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            SetInfoField.self,
            "Options can be combined; the fields are sent in the order listed here."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Power-off timeout (C6): 0 never, else 32…255 s (1…31 are raised to 32, as the SDK does).",
                valueName: "seconds"
            )
        )
        var powerOffTimeout: Int?

        @Option(help: "BLE speed mode (FC).")
        var speedMode: SpeedMode?

        @Option(help: ArgumentHelp("Merchant locale (F7), e.g. fr or en-US.", valueName: "code"))
        var locale: String?

        @Option(
            help: ArgumentHelp("Further fields as BER-TLV hex, e.g. C6013C.", valueName: "hex"),
            transform: Parse.hex
        )
        var tlv: [UInt8]?

        func request() throws -> SetInfoField {
            var fields: [TLV] = []
            if let powerOffTimeout {
                guard (0...255).contains(powerOffTimeout) else {
                    throw ValidationError(
                        "--power-off-timeout must be 0 (never) or 32…255 seconds, got \(powerOffTimeout)"
                    )
                }
                fields += try SetInfoField.powerOffTimeout(powerOffTimeout).fields
            }
            if let speedMode { fields += SetInfoField.speedMode(speedMode).fields }
            if let locale { fields += try SetInfoField.locale(locale).fields }
            if let tlv {
                do {
                    fields += try TLVParser.parse(tlv, rules: .strict)
                } catch {
                    throw ValidationError("--tlv: not BER-TLV: \(error)")
                }
            }
            guard !fields.isEmpty else {
                throw ValidationError("give at least one of --power-off-timeout, --speed-mode, --locale, --tlv")
            }
            return SetInfoField(fields: fields)
        }
    }

    /// `rpc rtc-set [DATE-TIME]`.
    struct RTCSetSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            RTCSet.self,
            "The terminal clock has no time zone; ucube sends UTC."
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "ISO 8601 date and time in UTC, e.g. 2026-11-22T10:00:00 (default: now).",
                valueName: "date-time"
            ),
            transform: Parse.dateTime
        )
        var dateTime: RTCDateTime?

        func request() -> RTCSet { RTCSet(dateTime ?? Parse.now()) }
    }

    /// `rpc wait-card [--readers icc,nfc] [--timeout 30]`.
    struct WaitCardSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            WaitCard.self,
            "Answers the activated reader and, for ICC, the ATR; status -2 when the timeout expires."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Readers, comma-separated: \(CardReader.valueList) (default: icc).",
                valueName: "readers"
            ),
            completion: .list(CardReader.allValueStrings),
            transform: Parse.names
        )
        var readers: [CardReader] = [.icc]

        @Option(
            help: ArgumentHelp("Seconds to wait, 0…255 (default: 30).", valueName: "seconds"),
            transform: Parse.seconds
        )
        var timeout: UInt8 = 30

        func request() -> WaitCard { WaitCard(readers: readers, timeoutSeconds: timeout) }
    }

    /// `rpc wait-card-removal [--timeout 30]`.
    struct WaitCardRemovalSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(WaitCardRemoval.self)

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp("Seconds to wait, 0…255 (default: 30).", valueName: "seconds"),
            transform: Parse.seconds
        )
        var timeout: UInt8 = WaitCardRemoval.defaultTimeout

        func request() -> WaitCardRemoval { WaitCardRemoval(timeoutSeconds: timeout) }
    }

    /// `rpc display-message TEXT [--timeout] [--font] [--x] [--y] [--abort-keys] [--clear]`.
    struct DisplayMessageSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            DisplayMessage.self,
            "One line of ISO-8859-1 text. Answers the key that ended the display, or no key when the timeout expired."
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The text, at most 254 ISO-8859-1 characters.", valueName: "text"))
        var text: String

        @Option(
            help: ArgumentHelp("Seconds to show it, 0…255 (default: 0, answer at once).", valueName: "seconds"),
            transform: Parse.seconds
        )
        var timeout: UInt8 = 0

        @Option(
            help: ArgumentHelp("Font, 0…255 (0, 1, 2 seen; default: 0).", valueName: "byte"),
            transform: Parse.byte
        )
        var font: UInt8 = 0

        @Option(
            help: ArgumentHelp("Column, 0…255; 255 (0xFF) centres the line (default: 255).", valueName: "byte"),
            transform: Parse.byte
        )
        var x: UInt8 = DisplayLine.centred

        @Option(help: ArgumentHelp("Pixel row, 0…255 (default: 0).", valueName: "byte"), transform: Parse.byte)
        var y: UInt8 = 0

        @Option(
            help: ArgumentHelp("Bitmask of keys that end the display, e.g. 0x07 (default: 0).", valueName: "byte"),
            transform: Parse.byte
        )
        var abortKeys: UInt8 = 0

        @Option(
            help: ArgumentHelp("Clear-config bit flags, e.g. 0x02 (default: 0x05).", valueName: "byte"),
            transform: Parse.byte
        )
        var clear: UInt8 = DisplayMessage.defaultClearConfig

        func request() -> DisplayMessage {
            DisplayMessage(
                timeoutSeconds: timeout,
                abortKeys: abortKeys,
                clearConfig: clear,
                lines: [DisplayLine(font: font, text: text, x: x, y: y)]
            )
        }
    }

    /// `rpc display-list-box ITEM… [--title] [--timeout]`.
    struct DisplayListBoxSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            DisplayListBox.self,
            "Printable ASCII items, at most 200 bytes with one terminator each. Status -114: the cardholder aborted."
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The items, in order; the answer numbers them from 1.", valueName: "item"))
        var items: [String] = []

        @Option(help: ArgumentHelp("A title above the list.", valueName: "text"))
        var title: String?

        @Option(
            help: ArgumentHelp("Seconds to wait for a choice, 0…255 (default: 60).", valueName: "seconds"),
            transform: Parse.seconds
        )
        var timeout: UInt8 = DisplayListBox.defaultTimeout

        func request() -> DisplayListBox { DisplayListBox(timeoutSeconds: timeout, title: title, items: items) }
    }

    /// `rpc install-for-load --signature HEX --method plain|dynamic|sred [--session-key HEX]`.
    struct InstallForLoadSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            InstallForLoad.self,
            "Announces a signed binary; send its blocks with `ucube rpc load` afterwards."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("The binary's signature in hex.", valueName: "hex"), transform: Parse.hex)
        var signature: [UInt8]

        @Option(help: "How the binary is protected.")
        var method: EncryptionMethod

        @Option(
            help: ArgumentHelp("The ciphered session key in hex (--method dynamic only).", valueName: "hex"),
            transform: Parse.hex
        )
        var sessionKey: [UInt8]?

        func request() -> InstallForLoad {
            InstallForLoad(signature: signature, method: method, sessionKey: sessionKey)
        }
    }

    /// `rpc load --block HEX [--last]`.
    struct LoadSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            Load.self,
            "One block per command, at most \(Load.maxBlockSize) bytes; mark the final block with --last."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("The block in hex.", valueName: "hex"), transform: Parse.hex)
        var block: [UInt8]

        @Flag(help: "This is the binary's last block.")
        var last = false

        func request() -> Load { Load(isLast: last, block: block) }
    }

    /// `rpc build-candidate-list [--max-applications N]`.
    struct BuildCandidateListSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            BuildCandidateList.self,
            "Status -300 means the card and the terminal share no application."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp("Number of applications (C3), 0…255 (default: not sent).", valueName: "count"),
            transform: Parse.byte
        )
        var maxApplications: UInt8?

        func request() -> BuildCandidateList { BuildCandidateList(maxApplications: maxApplications) }
    }
}
