import ArgumentParser
import UCubeProtocol
import UCubeRuntime

// The PIN and payment commands of `ucube rpc` (spec §5.2 0x5171, 0x5511…0x5513, 0x5530, 0x5531). They run in a
// secure session: `ucube rpc enter-secure-session` first.

extension RPCSubcommands {
    /// `rpc simplified-online-pin --amount … --currency … [--pin-format …]`.
    struct SimplifiedOnlinePINSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            SimplifiedOnlinePIN.self,
            "The terminal shows the amount, takes the PIN and answers the PIN KSN and the enciphered PIN block."
        )

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var amount: AmountOptions

        @Option(help: "ISO 9564 PIN block format; 0, 1, 3, 4 are accepted too (default: iso0).")
        var pinFormat: PINBlockFormatCode?

        @Option(help: ArgumentHelp("Prompt shown above the PIN digits.", valueName: "text"))
        var prompt: String = SimplifiedOnlinePIN.defaultPrompt.text

        @Option(help: ArgumentHelp("Fewest PIN digits, 4…12 (DF30).", valueName: "digits"))
        var minDigits: UInt8 = SimplifiedOnlinePIN.defaultMinDigits

        @Option(help: ArgumentHelp("Most PIN digits, 4…12 (DF31).", valueName: "digits"))
        var maxDigits: UInt8 = SimplifiedOnlinePIN.defaultMaxDigits

        @Option(help: ArgumentHelp("Seconds for the whole PIN entry, 1…60 (DF34).", valueName: "seconds"))
        var timeout: UInt16 = SimplifiedOnlinePIN.defaultGlobalTimeout

        @Option(
            help: "What the correction key does (DF35; default: \(SimplifiedOnlinePIN.defaultCorrectionKeyMode.name))."
        )
        var correctionKey: CorrectionKeyMode?

        func request() throws -> SimplifiedOnlinePIN {
            var prompt = SimplifiedOnlinePIN.defaultPrompt
            prompt.text = self.prompt
            return SimplifiedOnlinePIN(
                amountText: try SimplifiedOnlinePIN.amountText(
                    minorUnits: try amount.minorUnits(),
                    exponent: amount.exponent
                ),
                currencyLabel: amount.currency.alpha,
                pinBlockFormat: pinFormat ?? .iso0,
                prompt: prompt,
                minDigits: minDigits,
                maxDigits: maxDigits,
                globalTimeout: timeout,
                correctionKeyMode: correctionKey ?? SimplifiedOnlinePIN.defaultCorrectionKeyMode
            )
        }
    }

    /// `rpc transaction-init --aid HEX --amount … --currency … [--type] [--lang fr,en] [--tags …]`.
    struct TransactionInitSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            TransactionInit.self,
            "Run after build-candidate-list, with the AID the cardholder or the selection chose."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "AID of the selected application (84), 5…16 bytes hex, e.g. A0000000041010.",
                valueName: "hex"
            ),
            transform: Parse.hex
        )
        var aid: [UInt8]

        @OptionGroup var amount: AmountOptions
        @OptionGroup var transaction: TransactionTypeOptions

        @Option(
            name: .customLong("lang"),
            help: ArgumentHelp(
                "Preferred languages (DF2D), comma-separated ISO 639 codes, at most 6, e.g. fr,en.",
                valueName: "codes"
            ),
            transform: Parse.languages
        )
        var languages: [String]?

        @Flag(help: "Let the cardholder enter a tip on the terminal (DF50).")
        var tip = false

        @OptionGroup var date: TransactionDateOptions
        @OptionGroup var requested: RequestedTagOptions

        func request() throws -> TransactionInit {
            TransactionInit(
                aid: aid,
                currencyCode: amount.currency.numeric,
                exponent: amount.exponent,
                type: transaction.type,
                amount: try amount.minorUnits(),
                cashback: try transaction.cashbackMinorUnits(amount.currency),
                languages: languages ?? [],
                tipEnabled: tip ? true : nil,
                date: date.date,
                time: date.time,
                requestedTags: requested.tags
            )
        }
    }

    /// `rpc transaction-process [--tvr HEX] [risk-management fields] [--tags …]`.
    struct TransactionProcessSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            TransactionProcess.self,
            "The answer carries 9F27 (the cryptogram type): ARQC go online, TC approved offline, AAC declined."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Terminal verification results (95), 5 bytes hex (default: 0000000000).",
                valueName: "hex"
            ),
            transform: Parse.hex
        )
        var tvr: [UInt8]?

        @OptionGroup var date: TransactionDateOptions

        @Option(help: ArgumentHelp("Transaction sequence counter (9F41), 0…99999999.", valueName: "number"))
        var sequenceCounter: Int?

        @Option(
            help: ArgumentHelp("Application version number (9F09), 2 bytes hex, e.g. 008C.", valueName: "hex"),
            transform: Parse.hex
        )
        var appVersion: [UInt8]?

        @Option(
            help: ArgumentHelp("Terminal action code default (D8), 5 bytes hex.", valueName: "hex"),
            transform: Parse.hex
        )
        var tacDefault: [UInt8]?

        @Option(
            help: ArgumentHelp("Terminal action code denial (D9), 5 bytes hex.", valueName: "hex"),
            transform: Parse.hex
        )
        var tacDenial: [UInt8]?

        @Option(
            help: ArgumentHelp("Terminal action code online (DA), 5 bytes hex.", valueName: "hex"),
            transform: Parse.hex
        )
        var tacOnline: [UInt8]?

        @Option(help: ArgumentHelp("PIN floor limit (DF12) in minor units.", valueName: "minor-units"))
        var pinFloorLimit: UInt32?

        @Option(help: ArgumentHelp("Signature floor limit (DF13) in minor units.", valueName: "minor-units"))
        var signatureFloorLimit: UInt32?

        @OptionGroup var requested: RequestedTagOptions

        func request() throws -> TransactionProcess {
            var counter: [UInt8]? = nil
            if let sequenceCounter {
                guard let bcd = Parse.packedBCD(sequenceCounter, bytes: 4) else {
                    throw ValidationError("--sequence-counter must be 0…99999999, got \(sequenceCounter)")
                }
                counter = bcd
            }
            return TransactionProcess(
                tvr: tvr ?? [0, 0, 0, 0, 0],
                date: date.date,
                time: date.time,
                transactionSequenceCounter: counter,
                applicationVersion: appVersion,
                tacDefault: tacDefault,
                tacDenial: tacDenial,
                tacOnline: tacOnline,
                pinFloorLimit: pinFloorLimit,
                signatureFloorLimit: signatureFloorLimit,
                requestedTags: requested.tags
            )
        }
    }

    /// `rpc transaction-finalisation --arc 00 [--issuer-auth HEX] [--script1 HEX] [--script2 HEX] [--tags …]`.
    struct TransactionFinalisationSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            TransactionFinalisation.self,
            "Status 7 (APPROVED_TC) and 8 (DECLINED_AAC) are the terminal's answers; both print the requested tags."
        )

        /// DF15 (spec §5.2).
        enum ForceFlag: String, CaseIterable, ExpressibleByArgument {
            case notForced = "none"
            case afterAuthorisation = "after-authorisation"
            case voiceReferralAccepted = "voice-referral-accepted"
            case voiceReferralDeclined = "voice-referral-declined"

            var byte: UInt8 {
                switch self {
                case .notForced: TransactionFinalisation.forceNone
                case .afterAuthorisation: TransactionFinalisation.forceAfterAuthorisation
                case .voiceReferralAccepted: TransactionFinalisation.voiceReferralAccepted
                case .voiceReferralDeclined: TransactionFinalisation.voiceReferralDeclined
                }
            }
        }

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Authorisation response code (8A): two characters (00) or 4 hex digits (3030).",
                valueName: "code"
            ),
            transform: Parse.responseCode
        )
        var arc: [UInt8]

        @Option(
            help:
                "Authorisation status (DF16). Default: from --arc (00 approved, 9x unable to go online, else declined)."
        )
        var authStatus: AuthorisationStatus?

        @Option(help: "Force flag (DF15).")
        var force: ForceFlag = .notForced

        @Option(
            help: ArgumentHelp("Issuer authentication data (91), 8…16 bytes hex.", valueName: "hex"),
            transform: Parse.hex
        )
        var issuerAuth: [UInt8]?

        @Option(
            help: ArgumentHelp("Issuer script template 1 (71) value, hex, at most 255 bytes.", valueName: "hex"),
            transform: Parse.hex
        )
        var script1: [UInt8]?

        @Option(
            help: ArgumentHelp("Issuer script template 2 (72) value, hex, at most 255 bytes.", valueName: "hex"),
            transform: Parse.hex
        )
        var script2: [UInt8]?

        @OptionGroup var requested: RequestedTagOptions

        func request() -> TransactionFinalisation {
            TransactionFinalisation(
                forceFlag: force.byte,
                authorisationStatus: authStatus ?? TransactionFinalisation.authorisationStatus(forResponseCode: arc),
                authorisationResponseCode: arc,
                issuerAuthenticationData: issuerAuth,
                issuerScript1: script1,
                issuerScript2: script2,
                requestedTags: requested.tags
            )
        }
    }

    /// `rpc nfc-start --amount … --currency … [--readers] [--timeout] [--force-online]`.
    struct NFCStartSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            NFCStartTransaction.self,
            "Answers DF70 (the activated reader) and, for NFC, DF72 (the contactless outcome) with the requested tags."
        )

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var amount: AmountOptions
        @OptionGroup var transaction: TransactionTypeOptions

        @Option(
            help: ArgumentHelp(
                "Readers (DF70), comma-separated: \(CardReader.valueList) (default: icc,nfc).",
                valueName: "readers"
            ),
            completion: .list(CardReader.allValueStrings),
            transform: Parse.names
        )
        var readers: [CardReader] = [.icc, .nfc]

        @Option(
            help: ArgumentHelp("Seconds to wait for a card (DF71), 0…255 (default: 30).", valueName: "seconds"),
            transform: Parse.seconds
        )
        var timeout: UInt8 = 30

        @Flag(help: "Ask for online authorisation (DF7F).")
        var forceOnline = false

        @Flag(help: "The cardholder types the amount on the terminal (DF52); 9F02 comes back in the answer.")
        var amountOnTerminal = false

        @OptionGroup var date: TransactionDateOptions
        @OptionGroup var requested: RequestedTagOptions

        func request() throws -> NFCStartTransaction {
            NFCStartTransaction(
                readers: readers,
                cardWaitTimeout: timeout,
                amountOnTerminal: amountOnTerminal,
                type: transaction.type,
                currencyCode: amount.currency.numeric,
                exponent: amount.exponent,
                amount: try amount.minorUnits(),
                cashback: try transaction.cashbackMinorUnits(amount.currency),
                date: date.date,
                time: date.time,
                forceOnline: forceOnline,
                requestedTags: requested.tags
            )
        }
    }

    /// `rpc nfc-complete [--arc 3030] [--tags …]`.
    struct NFCCompleteSubcommand: RPCSubcommand {
        static let configuration = RPCSubcommands.configuration(
            NFCCompleteTransaction.self,
            "Answers DF72, the final contactless outcome, with the requested tags."
        )

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Authorisation response code (DF73): two characters or 4 hex digits (default: 6060, technical issue).",
                valueName: "code"
            ),
            transform: Parse.responseCode
        )
        var arc: [UInt8] = NFCCompleteTransaction.technicalIssue

        @OptionGroup var requested: RequestedTagOptions

        func request() -> NFCCompleteTransaction {
            NFCCompleteTransaction(authorisationResponseCode: arc, requestedTags: requested.tags)
        }
    }
}
