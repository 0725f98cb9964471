import UCubeProtocol

/// One named simulated-card scenario: the card the cardholder presents, the rest of the script (PIN, choices, delays,
/// faults), and the final payment status the SDK rules of spec §8 give for it. The CLI selects one per run
/// (`ucube --device sim pay 10 --card NAME`) and lists them.
package struct CardScenario: Sendable, Hashable, Identifiable {
    /// The CLI word, e.g. "visa-contact".
    package var name: String
    /// One line for `--card` listings.
    package var summary: String
    /// The cardholder script: `card` (nil = no card comes), PIN, list-box choices, presentation delay, faults.
    package var script: SimulatorScript
    /// The final status (spec §8.1 `PaymentStatus` name, or §7.4 CHIP_REQUIRED) a correct driver ends with, for a
    /// purchase with the readers of `readers`, the default application selection (EMV priority / list item 1) and an
    /// issuer that answers 8A "00" whenever the card goes online.
    package var expectedStatus: String
    /// The readers the driver must enable for the scenario to reach the card (spec §7.3); ICC + NFC for all but the
    /// magstripe scenario, which needs the MSR reader of the original uCube.
    package var readers: [CardReader]

    package var id: String { name }
    /// The scenario's card (`nil` for card-timeout).
    package var card: CardProfile? { script.card }

    package init(
        name: String,
        summary: String,
        script: SimulatorScript,
        expectedStatus: String,
        readers: [CardReader] = CardCatalogue.iccAndNFC
    ) {
        self.name = name
        self.summary = summary
        self.script = script
        self.expectedStatus = expectedStatus
        self.readers = readers
    }

    /// `base` with this scenario's script.
    package func configuration(_ base: SimulatorConfiguration = SimulatorConfiguration()) -> SimulatorConfiguration {
        var configuration = base
        configuration.script = script
        return configuration
    }
}

/// Every named card scenario, in one table. `visa-contact` is the default (the card of `SimulatorScript.default`).
package enum CardCatalogue {
    /// ICC and NFC (spec §7.3): what a uCube Touch payment enables.
    package static let iccAndNFC: [CardReader] = [.icc, .nfc]
    /// ICC, NFC and MSR: the original uCube.
    package static let allReaders: [CardReader] = [.icc, .nfc, .msr]

    /// The scenario used when none is named.
    package static let defaultName = "visa-contact"
    package static var `default`: CardScenario { all[0] }

    /// The scenario called `name` (exact CLI word), or `nil`.
    package static func named(_ name: String) -> CardScenario? { all.first { $0.name == name } }

    /// The CLI words, in table order.
    package static var names: [String] { all.map(\.name) }

    // MARK: Applications

    static let visaCredit = CardProfile.Application(
        aid: [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10],
        label: "VISA CREDIT"
    )
    static let mastercard = CardProfile.Application(
        aid: [0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10],
        label: "MASTERCARD",
        priority: 0x01,
        version: [0x00, 0x02]
    )
    static let maestro = CardProfile.Application(
        aid: [0xA0, 0x00, 0x00, 0x00, 0x04, 0x30, 0x60],
        label: "MAESTRO",
        priority: 0x02,
        version: [0x00, 0x02]
    )

    // MARK: Cards

    /// A Visa card on one interface with the given behaviour.
    static func visa(
        _ name: String,
        _ interfaces: Set<CardProfile.Interface>,
        pan: String = "4761739001010010",
        cvm: CardProfile.CardholderVerification = .noCVMRequired,
        cryptogram: CardProfile.Cryptogram = .arqc,
        outcome: [UInt8] = [0x30, 0x36],
        refuses: Bool = false,
        declinesSecondGenerateAC: Bool = false
    ) -> CardProfile {
        CardProfile(
            name: name,
            interfaces: interfaces,
            preferredInterface: interfaces.contains(.contact) ? .contact : .contactless,
            applications: [visaCredit],
            pan: pan,
            expiry: "2512",
            cardholderName: "CARDHOLDER/VISA",
            firstCryptogram: cryptogram,
            declinesSecondGenerateAC: declinesSecondGenerateAC,
            contactlessOutcome: outcome,
            cardholderVerification: cvm,
            refusesTransaction: refuses
        )
    }

    /// A Mastercard card on one interface with the given applications and behaviour.
    static func mastercard(
        _ name: String,
        _ interfaces: Set<CardProfile.Interface>,
        pan: String = "5413330089010434",
        applications: [CardProfile.Application] = [mastercard],
        cvm: CardProfile.CardholderVerification = .noCVMRequired,
        outcome: [UInt8] = [0x30, 0x36],
        magstripeAction: UInt8 = 0x00
    ) -> CardProfile {
        CardProfile(
            name: name,
            interfaces: interfaces,
            preferredInterface: interfaces.contains(.contact)
                ? .contact : interfaces.contains(.contactless) ? .contactless : .magstripe,
            applications: applications,
            pan: pan,
            expiry: "2611",
            cardholderName: "CARDHOLDER/MASTERCARD",
            contactlessOutcome: outcome,
            cardholderVerification: cvm,
            magstripeAction: magstripeAction
        )
    }

    static func script(_ card: CardProfile?, faults: SimulatorFaults = .none) -> SimulatorScript {
        SimulatorScript(card: card, faults: faults)
    }

    // MARK: The table

    /// Every scenario; the first is the default.
    package static let all: [CardScenario] = [
        CardScenario(
            name: "visa-contact",
            summary: "Visa, chip, one application, no CVM; online ARQC, approved when the issuer answers 00",
            script: .default,
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "mc-two-apps",
            summary: "Mastercard chip with two applications (MASTERCARD priority 1, MAESTRO priority 2) to select",
            script: script(
                mastercard("mc-two-apps", [.contact], pan: "5413330089020011", applications: [mastercard, maestro])
            ),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "visa-offline-pin",
            summary: "Visa chip, offline PIN verified by the card in TransactionProcess (9F34 01 03 02); online ARQC",
            script: script(visa("visa-offline-pin", [.contact], pan: "4761739001010119", cvm: .offlinePIN)),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "mc-online-pin",
            summary: "Mastercard chip, online PIN (9F34 42 03 00, DF3E/DF3F); online ARQC",
            script: script(mastercard("mc-online-pin", [.contact], pan: "5413330089020029", cvm: .onlinePIN)),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "visa-contactless",
            summary: "Visa contactless, approved offline (DF72 30 36, 9F27 40)",
            script: script(visa("visa-contactless", [.contactless], pan: "4761739001010127", cryptogram: .tc)),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "mc-contactless-online",
            summary: "Mastercard contactless, online request (DF72 30 3E); CompleteNFC 00 → 30 36, else 30 37",
            script: script(
                mastercard("mc-contactless-online", [.contactless], pan: "5413330089020037", outcome: [0x30, 0x3E])
            ),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "mc-contactless-online-pin",
            summary: "Mastercard contactless, online PIN request (DF72 34 3E): SimplifiedOnlinePIN, then online",
            script: script(
                mastercard("mc-contactless-online-pin", [.contactless], pan: "5413330089020045", outcome: [0x34, 0x3E])
            ),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "visa-contactless-declined",
            summary: "Visa contactless, declined offline (DF72 30 37, 9F27 00)",
            script: script(
                visa("visa-contactless-declined", [.contactless], pan: "4761739001010135", outcome: [0x30, 0x37])
            ),
            expectedStatus: "DECLINED"
        ),
        CardScenario(
            name: "visa-contactless-signature",
            summary: "Visa contactless, approved with signature required (DF72 31 36)",
            script: script(
                visa("visa-contactless-signature", [.contactless], pan: "4761739001010036", outcome: [0x31, 0x36])
            ),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "contactless-try-other",
            summary: "contactless card asks to try another interface (DF72 32 31)",
            script: script(visa("contactless-try-other", [.contactless], outcome: [0x32, 0x31])),
            expectedStatus: "NFC_OUTCOME_TRY_OTHER_INTERFACE"
        ),
        CardScenario(
            name: "contactless-end-application",
            summary: "contactless read ends the application (DF72 32 3F)",
            script: script(visa("contactless-end-application", [.contactless], outcome: [0x32, 0x3F])),
            expectedStatus: "NFC_OUTCOME_END_APPLICATION"
        ),
        CardScenario(
            name: "magstripe-chip-required",
            summary: "original uCube, MSR reader enabled: swipe (DF70 41) of a chip card, DF60 02 chip required",
            script: script(
                mastercard("magstripe-chip-required", [.magstripe], pan: "5413330089020052", magstripeAction: 0x02)
            ),
            expectedStatus: "CHIP_REQUIRED",
            readers: allReaders
        ),
        CardScenario(
            name: "no-common-app",
            summary: "chip card with no application the terminal supports: BuildCandidateList -300",
            script: script(
                CardProfile(
                    name: "no-common-app",
                    interfaces: [.contact],
                    preferredInterface: .contact,
                    applications: [],
                    pan: "6799998900000060018",
                    expiry: "2512",
                    cardholderName: "CARDHOLDER/UNKNOWN"
                )
            ),
            expectedStatus: "UNSUPPORTED_CARD"
        ),
        CardScenario(
            name: "card-refused",
            summary: "Visa chip refuses the transaction: TransactionProcess -301",
            script: script(visa("card-refused", [.contact], refuses: true)),
            expectedStatus: "REFUSED_CARD"
        ),
        CardScenario(
            name: "card-removed",
            summary: "Visa chip pulled out at TransactionProcess: it answers -35 NO_CARD",
            script: script(
                visa("card-removed", [.contact]), faults: SimulatorFaults(cardRemovedAt: .transactionProcess)
            ),
            expectedStatus: "ERROR"
        ),
        CardScenario(
            name: "card-timeout",
            summary: "no card comes: WaitCard / StartNFC answer -2 when the card-wait timeout expires",
            script: script(nil),
            expectedStatus: "CARD_WAIT_FAILED"
        ),
        CardScenario(
            name: "declined-aac",
            summary: "Visa chip declines offline: first GENERATE AC answers AAC (9F27 00)",
            script: script(visa("declined-aac", [.contact], cryptogram: .aac)),
            expectedStatus: "DECLINED"
        ),
        CardScenario(
            name: "approved-offline-tc",
            summary: "Visa chip approves offline: first GENERATE AC answers TC (9F27 40)",
            script: script(visa("approved-offline-tc", [.contact], cryptogram: .tc)),
            expectedStatus: "APPROVED"
        ),
        CardScenario(
            name: "declines-second-ac",
            summary: "Visa chip, online ARQC, then AAC at the second GENERATE AC whatever the issuer answers",
            script: script(
                visa("declines-second-ac", [.contact], pan: "4761739001010150", declinesSecondGenerateAC: true)
            ),
            expectedStatus: "DECLINED"
        ),
    ]
}
