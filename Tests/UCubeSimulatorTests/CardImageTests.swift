import Foundation
import Testing
import UCubeProtocol

@testable import UCubeSimulator

/// A suite's card image decodes to the card profile and script it describes, and every bad field is refused with
/// its JSON path.
struct CardImageTests {
    static func decode(_ json: String) throws -> CardImage {
        try JSONDecoder().decode([String: CardImage].self, from: Data(json.utf8))["card"]!
    }

    static func path(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
        return CardImage.describe(error)
    }

    @Test func aFullImageDecodes() throws {
        let image = try Self.decode(
            """
            {"card": {"interfaces": ["contactless", "contact"], "preferredInterface": "contactless",
              "pan": "5413330089020094", "expiry": "2711", "effectiveDate": "2301", "serviceCode": "221",
              "cardholderName": "TEST/CARD", "issuerCountry": "826", "panSequenceNumber": 2,
              "applications": [{"aid": "A0000000043060", "label": "MAESTRO", "priority": 2, "version": "0002"},
                               {"aid": "A0000000041010", "label": "MASTERCARD"}],
              "cvm": "online-pin", "cryptogram": "TC", "contactlessOutcome": "3436", "magstripeAction": "01",
              "refusesTransaction": true, "aip": "3900", "initialATC": 300,
              "tags": {"9F27": "C0", "issuerActionCodeDenial": "0000000000"}, "omitTags": ["9F26"],
              "answers": {"TransactionInit": "-32", "nfc-start": "CANCELLED"},
              "faults": {"cardRemovedAt": "TransactionProcess", "disconnectAt": "transaction-finalisation"},
              "presentationDelay": 1.5}}
            """)
        let card = image.profile
        #expect(card.name == "card")
        #expect(card.interfaces == [.contact, .contactless])
        #expect(card.preferredInterface == .contactless)
        #expect(card.pan == "5413330089020094")
        #expect(card.expiry == "2711" && card.effectiveDate == "2301" && card.serviceCode == "221")
        #expect(card.issuerCountry == 0x0826)
        #expect(card.panSequenceNumber == 2)
        #expect(card.applications.map(\.label) == ["MAESTRO", "MASTERCARD"])
        #expect(card.applications[0].priority == 2 && card.applications[1].priority == 1)
        #expect(card.applications[0].aid == [0xA0, 0x00, 0x00, 0x00, 0x04, 0x30, 0x60])
        #expect(card.cardholderVerification == .onlinePIN)
        #expect(card.firstCryptogram == .tc)
        #expect(card.contactlessOutcome == [0x34, 0x36])
        #expect(card.magstripeAction == 0x01)
        #expect(card.refusesTransaction)
        #expect(card.aip == [0x39, 0x00])
        #expect(card.initialATC == 300)
        #expect(card.tagOverrides[0x9F27] == [0xC0])
        #expect(card.tagOverrides[0x9F08] == nil)
        #expect(card.tagOverrides.count == 2)
        #expect(card.omittedTags == [0x9F26])
        #expect(card.commandStatuses[.transactionInit] == Status(-32))
        #expect(card.commandStatuses[.nfcStartTransaction] != nil)
        #expect(image.faults.cardRemovedAt == .transactionProcess)
        #expect(image.faults.disconnectAt == .transactionFinalisation)
        #expect(image.presentationDelay == .milliseconds(1500))
        #expect(image.readers == [.icc, .nfc])
        let script = image.script(pin: "4321", choices: [2])
        #expect(script.card == card && script.pin == "4321" && script.choices == [2])
        #expect(script.cardPresentationDelay == .milliseconds(1500))
    }

    /// 5F34 is n2, two BCD digits (EMV Book 3 Annex A): PSN 12 is the byte 0x12, which the card's key derivation
    /// reads as the digits "12" (spec §12.4).
    @Test func thePANSequenceNumberIsBCD() throws {
        let image = try Self.decode(
            """
            {"card": {"interfaces": ["contact"], "pan": "4761739001010010", "expiry": "2512", "panSequenceNumber": 12,
              "applications": [{"aid": "A0000000031010", "label": "VISA"}]}}
            """)
        #expect(image.profile.panSequenceNumber == 0x12)
    }

    @Test func defaultsAreTheCatalogueCardsDefaults() throws {
        let image = try Self.decode(
            """
            {"card": {"interfaces": ["magstripe"], "pan": "5413330089020060", "expiry": "2611",
              "applications": [{"aid": "A0000000041010", "label": "MASTERCARD"}]}}
            """)
        #expect(image.profile.preferredInterface == .magstripe)
        #expect(image.profile.firstCryptogram == .arqc)
        #expect(image.profile.cardholderVerification == .noCVMRequired)
        #expect(image.profile.contactlessOutcome == [0x30, 0x36])
        #expect(image.profile.tagOverrides.isEmpty && image.profile.commandStatuses.isEmpty)
        #expect(image.faults == .none && image.presentationDelay == .zero)
        #expect(image.readers == [.msr])
    }

    static let good =
        #""interfaces": ["contact"], "pan": "4761739001010010", "expiry": "2512", "applications": [{"aid": "A0000000031010", "label": "VISA"}]"#

    @Test(arguments: [
        (
            #"{"card": {"interfaces": [], "pan": "4761739001010010", "expiry": "2512", "applications": []}}"#,
            "card.interfaces: a card has at least one interface"
        ),
        (
            #"{"card": {"interfaces": ["contact"], "pan": "47617390", "expiry": "2512", "applications": []}}"#,
            "card.pan: a PAN is 12 to 19 digits"
        ),
        (
            #"{"card": {"interfaces": ["contact"], "pan": "4761739001010010", "expiry": "2513", "applications": []}}"#,
            "card.expiry: '2513' is not a date YYMM"
        ),
        (
            #"{"card": {"interfaces": ["contact"], "pan": "4761739001010010", "applications": []}}"#,
            "card.expiry: missing"
        ),
        (
            #"{"card": {"interfaces": ["contact"], "pan": "4761739001010010", "expiry": "2512", "applications": [{"aid": "A000", "label": "X"}]}}"#,
            "card.applications[0].aid: 'A000' must be 5 to 16 bytes in hex"
        ),
        (
            #"{"card": {"interfaces": ["contact"], "pan": "4761739001010010", "expiry": "2512", "applications": [{"aid": "A0000000031010", "label": "X", "priority": 16}]}}"#,
            "card.applications[0].priority: a priority is 0 to 15"
        ),
        (#"{"card": {"# + good + #", "cvm": "pin"}}"#, "card.cvm: 'pin' is not a CVM"),
        (#"{"card": {"# + good + #", "cryptogram": "XYZ"}}"#, "card.cryptogram: 'XYZ' is not a cryptogram type"),
        (
            #"{"card": {"# + good + #", "contactlessOutcome": "30"}}"#,
            "card.contactlessOutcome: '30' must be 2 bytes in hex"
        ),
        (#"{"card": {"# + good + #", "tags": {"ZZ": "00"}}}"#, "card.tags: 'ZZ'"),
        (
            #"{"card": {"# + good + #", "answers": {"NoSuchCommand": "-32"}}}"#,
            "card.answers: 'NoSuchCommand' is not a command"
        ),
        (
            #"{"card": {"# + good + #", "answers": {"TransactionInit": "soon"}}}"#,
            "card.answers: 'TransactionInit': 'soon' is not a status"
        ),
        (
            #"{"card": {"# + good + #", "faults": {"pulledAt": "TransactionProcess"}}}"#,
            "card.faults.pulledAt: unknown field"
        ),
        (#"{"card": {"# + good + #", "colour": "gold"}}"#, "card.colour: unknown field"),
        (
            #"{"card": {"interfaces": ["contact"], "pan": 4761739001010010, "expiry": "2512", "applications": []}}"#,
            "card.pan: expected a string"
        ),
        (
            #"{"card": {"# + good + #", "presentationDelay": -1}}"#,
            "card.presentationDelay: a presentation delay is 0 to 255 seconds"
        ),
    ])
    func aBadFieldIsNamed(_ json: String, _ message: String) {
        #expect(throws: DecodingError.self) { try Self.decode(json) }
        do {
            _ = try Self.decode(json)
        } catch {
            #expect(Self.path(error).hasPrefix(message), "\(Self.path(error))")
        }
    }

    /// A card image's overrides reach the terminal's answers: a tag given, a tag left out, a command answered with a
    /// status of its own.
    @Test func overridesShapeTheSimulatorsAnswers() async throws {
        var card = CardCatalogue.visa("override", [.contact])
        card.tagOverrides[0x9F27] = [0xC0]
        card.omittedTags = [0x9F26]
        let simulator = try TerminalSimulator(
            configuration: SimulatorConfiguration(script: SimulatorScript(card: card)))
        var transaction = CardTransaction()
        transaction.data[0x9F27] = [0x80]
        transaction.data[0x9F26] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(await simulator.dataObject(0x9F27, transaction, cardAtReader: true) == [0xC0])
        #expect(await simulator.dataObject(0x9F26, transaction, cardAtReader: true) == nil)
        // Without the card at the reader, the transaction's own values.
        #expect(await simulator.dataObject(0x9F27, transaction, cardAtReader: false) == [0x80])
    }
}
