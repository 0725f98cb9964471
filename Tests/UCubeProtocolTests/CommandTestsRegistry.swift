import Foundation
import Testing

@testable import UCubeProtocol

private typealias T = CommandTestSupport
/// The protocol's BER tag, not Swift Testing's `Tag`.
private typealias Tag = UCubeProtocol.Tag

/// The registry table, generic decoding, JSON output, and "must not crash" inputs for every command.
@Suite struct CommandTestsRegistry {
    @Test func everyCatalogueCommandHasExactlyOneType() {
        let registered = CommandRegistry.types.map { $0.id }
        #expect(Set(registered).count == registered.count, "a command type is listed twice")
        #expect(Set(registered) == Set(CommandCatalogue.all.map(\.id)))
        // Same order as the catalogue, so the two tables read side by side.
        #expect(registered == CommandCatalogue.all.map(\.id))
        for type in CommandRegistry.types {
            #expect(CommandRegistry.type(for: type.id) == type)
            #expect(type.descriptor.id == type.id)
        }
    }

    @Test func describeRequestUsesTheTypedDecoder() throws {
        // Spec §2.6: GetInfo payload C1 C4 D1.
        #expect(try GetInfo(tags: [0xC1, 0xC4, 0xD1]).encodePayload() == T.bytes("C1 C4 D1"))
        let getInfo = CommandRegistry.describeRequest(id: .getInfo, payload: T.bytes("C1 C4 D1"))
        #expect((getInfo as? GetInfo)?.tags == [0xC1, 0xC4, 0xD1])
        let waitCard = CommandRegistry.describeRequest(id: .waitCard, payload: T.bytes("11 21 1E"))
        #expect(waitCard as? WaitCard == WaitCard(readers: [.icc, .nfc], timeoutSeconds: 30))
        #expect(CommandRegistry.describeRequest(id: .waitCard, payload: []) == nil)
        #expect(CommandRegistry.describeRequest(id: .unrecognised, payload: []) == nil)
        #expect(T.errorCode { _ = try CommandRegistry.decodeRequest(id: .waitCard, payload: []) } == .truncated)
        #expect(try CommandRegistry.decodeRequest(id: CommandID(0x1234), payload: []) == nil)
    }

    @Test func decodeResponseByID() throws {
        let ksn = T.bytes("FFFF9876543210E00001")
        let response = try CommandRegistry.decodeResponse(id: .enterSecureSession, status: .success, data: ksn)
        #expect((response as? EnterSecureSession.Response)?.ksn == ksn)
        #expect(try CommandRegistry.decodeResponse(id: .waitCard, status: .timeout, data: []) == nil)
        #expect(try CommandRegistry.decodeResponse(id: .unrecognised, status: .unknownCommand, data: []) == nil)
        #expect(try CommandRegistry.decodeResponse(id: CommandID(0x1234), status: .success, data: []) == nil)
        #expect(
            T.errorCode { _ = try CommandRegistry.decodeResponse(id: .displayListBox, status: .success, data: []) }
                == .truncated
        )
        let empty = try CommandRegistry.decodeResponse(id: .cancelAll, status: .success, data: [])
        #expect(empty is EmptyResponse)
    }

    /// One representative request per command, for checks that run over the whole table.
    static let samples: [any RPCCommand] = [
        CancelAll(), RTCGet(), RTCSet(day: 1, month: 1, year: 2025, hour: 0, minute: 0, second: 0),
        RepeatLastMessage(), GetStatus(), GetInfo(),
        SetInfoProd(payload: [0x01]), SetInfoField.speedMode(.quick), WaitCard(readers: [.icc], timeoutSeconds: 30),
        WaitCardRemoval(), CardSendAPDU(payload: T.bytes("00 B2 01 0C")), CardPowerOff(), MagstripeRead(),
        GetSecuredTag(tags: [Tag(0x5A)]), GetPlainTag(tags: [Tag(0x9F27)]), DisplayMessage(text: "Hi"),
        DisplayListBox(items: ["A", "B"]), DisplayMessageWithKI(payload: [0x01]),
        DisplayMessageWithKICustom(payload: [0x02]), PowerOff(), EnterSecureSession(), ExitSecureSession(),
        GetKeyInfo(), ExportPublicKey(), ImportPublicKeyCert(payload: [0x30]),
        ImportPublicKeyPersoCert(payload: [0x30]),
        InstallForLoadKey(), LoadKey(payload: [0x42]), InstallForLoad(signature: [0xAA], method: .plain),
        Load(isLast: true, block: [0x01]), OnlinePIN(payload: [0x00]),
        SimplifiedOnlinePIN(amountText: "1.00", currencyLabel: "EUR"), BankParametersDownload(payload: [0x84]),
        BankParametersGet(), BuildCandidateList(),
        TransactionInit(aid: T.bytes("A0000000031010"), currencyCode: 978, exponent: 2, type: .purchase, amount: 100),
        TransactionProcess(),
        TransactionFinalisation(authorisationStatus: .approved, authorisationResponseCode: [0x30, 0x30]),
        NFCStartTransaction(
            readers: [.nfc],
            cardWaitTimeout: 30,
            type: .purchase,
            currencyCode: 978,
            exponent: 2,
            amount: 100
        ),
        NFCCompleteTransaction(),
    ]

    @Test func everyCommandRoundTripsThroughTheRegistry() throws {
        #expect(Set(Self.samples.map { type(of: $0).id }) == Set(CommandCatalogue.all.map(\.id)))
        for sample in Self.samples {
            let id = type(of: sample).id
            let payload = try sample.encodePayload()
            let decoded = try #require(CommandRegistry.describeRequest(id: id, payload: payload), "\(id)")
            #expect(try decoded.encodePayload() == payload, "\(id)")
            #expect(type(of: decoded) == type(of: sample))
        }
    }

    /// Long-running commands (catalogue, spec §9) wait longer than the client's default; the others use it.
    @Test func longRunningCommandsHaveTheirOwnTimeout() {
        for sample in Self.samples {
            let descriptor = type(of: sample).descriptor
            #expect((sample.responseTimeout != nil) == descriptor.isLongRunning, "\(descriptor.name)")
        }
    }

    // MARK: Hostile input

    /// Every registered type's request and response decoders meet deterministic pseudo-random bytes, and bytes that
    /// start like real layouts; each must return a value or throw a `CommandError`, never trap.
    @Test func randomBytesNeverCrashAnyDecoder() {
        var generator = T.Bytes(seed: 0x5543_7562_6531)
        let prefixes: [[UInt8]] = [
            [], [0x11], [0x84], [0x02], [0xDF, 0x70], [0xDF, 0x3E], [0x9F, 0x27], [0x00, 0x03], [0x01, 0x07, 0xF8],
            T.bytes("02 00 05 01 00"), T.bytes("3C 00 01 00 00 00 00"),
        ]
        var decoded = 0
        var refused = 0
        for type in CommandRegistry.types {
            for round in 0..<300 {
                let body = prefixes[round % prefixes.count] + generator.array(count: Int(generator.next() % 96))
                if (try? CommandRegistry.decodeRequest(id: type.id, payload: body)) != nil {
                    decoded += 1
                } else {
                    refused += 1
                }
                for status in [Status.success, Status(7)] {
                    do {
                        _ = try CommandRegistry.decodeResponse(id: type.id, status: status, data: body)
                        decoded += 1
                    } catch {
                        refused += 1
                    }
                }
            }
        }
        #expect(decoded > 0 && refused > 0)
    }

    @Test func candidateListWithHugeCountIsTruncatedNotATrap() {
        #expect(
            T.errorCode { _ = try BuildCandidateList.Response(status: .success, data: [0xFF, 0x84]) } == .truncated
        )
    }

    // MARK: JSON (`--json`)

    private func json(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func requestsEncodeWithNamedFieldsAndHex() throws {
        let apdu = try json(CardSendAPDU(payload: T.bytes("00 A4 04 00")))
        #expect(apdu["payload"] as? String == "00A40400")
        let wait = try json(WaitCard(readers: [.icc, .nfc], timeoutSeconds: 30))
        #expect(wait["readers"] as? [String] == ["icc", "nfc"])
        #expect(wait["timeoutSeconds"] as? Int == 30)
        let tags = try json(GetPlainTag(tags: [Tag(0xDF60), Tag(0x9F27)]))
        #expect(tags["tags"] as? [String] == ["DF60", "9F27"])
        let start = try json(
            NFCStartTransaction(
                readers: [.nfc],
                cardWaitTimeout: 30,
                type: .purchaseCashback,
                currencyCode: 978,
                exponent: 2,
                amount: 100,
                cashback: 50
            )
        )
        #expect(start["type"] as? String == "purchase-cashback")
        #expect(start["cashback"] as? Int == 50)
        #expect(try json(CancelAll()).isEmpty)
    }

    @Test func responsesEncodeWithNamedFieldsAndHex() throws {
        let ksn = try json(EnterSecureSession.Response(ksn: T.bytes("FFFF9876543210E00001")))
        #expect(ksn["ksn"] as? String == "FFFF9876543210E00001")
        let outcome = try json(
            NFCStartTransaction.Response(
                activatedReader: .nfc,
                outcome: NFCOutcome(cvm: .onlinePIN, result: .onlineRequest)
            )
        )
        #expect(outcome["activatedReader"] as? String == "nfc")
        let outcomeFields = try #require(outcome["outcome"] as? [String: Any])
        #expect(outcomeFields["result"] as? String == "online-request")
        #expect(outcomeFields["onlinePINRequested"] as? Bool == true)
        #expect(outcomeFields["raw"] as? String == "343E")
        let tlv = try json(TLVResponse(tlvs: [TLV(Tag(0x9F27), [0x80])]))
        #expect(tlv["cryptogram"] as? String == "arqc")
        let first = try #require((tlv["tlvs"] as? [[String: Any]])?.first)
        #expect(first["tag"] as? String == "9F27")
        #expect(first["value"] as? String == "80")
        let candidates = try json(
            BuildCandidateList.Response(candidates: [
                CandidateApplication(aid: T.bytes("A0000000031010"), label: "VISA")
            ])
        )
        let app = try #require((candidates["candidates"] as? [[String: Any]])?.first)
        #expect(app["aid"] as? String == "A0000000031010")
        #expect(try json(DisplayListBox.Response(selectedIndex: 2))["selectedIndex"] as? Int == 2)
    }

    @Test func cardholderDataNeverLeavesInClear() throws {
        // A PAN (5A) in a plain-tag answer: no hex value in JSON, and JSON does not hold the digits (the text
        // lines are the CLI's: ResponseTextTests).
        let response = TLVResponse(tlvs: [TLV(Tag(0x5A), T.bytes("47 61 73 90 01 01 00 10"))])
        let encoded = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        #expect(!encoded.contains("4761739001010010"))
        let first = try #require((try json(response)["tlvs"] as? [[String: Any]])?.first)
        #expect(first["value"] == nil)
        #expect(first["tag"] as? String == "5A")
    }
}
