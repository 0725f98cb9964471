import Foundation
import UCubeProtocol

@testable import UCubePayment

// MARK: - Reading actions in transcripts

extension PaymentAction {
    /// The id of the command a `.send` asks for.
    var command: CommandID? {
        if case .send(let command) = self { return command.id }
        return nil
    }

    /// The status of a `.finish`.
    var finished: PaymentStatus? {
        if case .finish(let outcome) = self { return outcome.status }
        return nil
    }

    var isNone: Bool { self == .none }
}

// MARK: - Fixtures

enum Fixture {
    static let sredKSN: [UInt8] = [0xFF, 0xFF, 0x98, 0x76, 0x54, 0x32, 0x10, 0xE0, 0x00, 0x01]
    static let pinKSN: [UInt8] = [0xFF, 0xFF, 0x98, 0x76, 0x54, 0x32, 0x10, 0xE0, 0x00, 0x02]
    /// The Visa test PAN of the simulator's default card (packed BCD).
    static let panDigits = "4761739001010010"
    static let panBCD: [UInt8] = [0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10]
    static let maskedPAN = "476173******0010"
    static let visa = CandidateApplication(aid: [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], label: "VISA CREDIT", priority: 1)
    static let visaDebit = CandidateApplication(
        aid: [0xA0, 0, 0, 0, 0x03, 0x20, 0x10], label: "VISA DEBIT", priority: 2)
    static let blob: [UInt8] = [0x1B, 0x9C, 0x18, 0x45, 0xEB, 0x99, 0x3A, 0x7A]

    /// The tag lists the transcripts are written with (a payment request may set all four, spec §8.4): each plain list
    /// holds cardholder tags, which only GetPlainTag reads (spec §8.6), so every GetSecuredTag and GetPlainTag step of
    /// the flow still runs. `PaymentStartTests` covers the default lists, which need none of them.
    static let securedList = [Tag(0x57), Tag(0x5A), Tag(0x5F24)]
    static let plainList = [Tag(0x5A), Tag(0x5F24), Tag(0x9F34), Tag(0xDF3E)]
    static let finalList = [Tag(0x5A), Tag(0x5F24), Tag(0x95), Tag(0x9B), Tag(0x9F34)]
    /// What GetPlainTag reads of a list once the rest rode in a command's C1: its cardholder tags.
    static let plainLeft = [Tag(0x5A), Tag(0x5F24)]

    /// TransactionProcess's C1 with the transcripts' lists.
    static let processTags = PaymentStateMachine.requestedTags(
        PaymentTagDefaults.generateAC, adding: [plainList, finalList]
    ).tags
    /// TransactionFinalisation's and CompleteNFC's C1 with the transcripts' lists.
    static let completionTags = PaymentStateMachine.requestedTags(PaymentTagDefaults.generateAC, adding: [finalList])
        .tags

    static func request(
        readers: [CardReader] = [.icc, .nfc],
        forceOnlinePIN: Bool = false,
        forceAuthorization: Bool = false,
        skipStartingSteps: Bool = false
    ) -> PaymentRequest {
        // The magstripe transcripts use its default lists (DF60 first).
        let lists = readers != [.msr]
        return PaymentRequest(
            amount: 1250,
            currency: .eur,
            readers: readers,
            forceOnlinePIN: forceOnlinePIN,
            forceAuthorization: forceAuthorization,
            authorizationPlainTags: lists ? plainList : nil,
            authorizationSecuredTags: lists ? securedList : nil,
            finalizationPlainTags: lists ? finalList : nil,
            skipStartingSteps: skipStartingSteps,
            requestID: "test-1"
        )
    }

    // Answers.
    static let cancelAllOK = TerminalResponse.status(CancelAll.self, .success)
    static let exitOK = TerminalResponse.status(ExitSecureSession.self, .success)
    static let getInfoOK = TerminalResponse.ok(
        GetInfo.self,
        DeviceInfo(tlvs: [TLV(Tag(0xD1), [6, 0, 0, 54]), TLV(Tag(0xED), [3])])
    )
    static let enterOK = TerminalResponse.ok(EnterSecureSession.self, .init(ksn: sredKSN))
    static let iccInserted = TerminalResponse.ok(
        NFCStartTransaction.self,
        .init(activatedReader: .icc, outcome: nil)
    )
    static func tapped(_ cvm: UInt8, _ result: UInt8) -> TerminalResponse {
        .ok(
            NFCStartTransaction.self,
            .init(
                activatedReader: .nfc,
                outcome: NFCOutcome(cvmByte: cvm, resultByte: result),
                tlvs: [
                    TLV(Tag(0x9F27), [result == 0x3E ? 0x80 : 0x40]), TLV(Tag(0x9F26), cryptogram),
                    TLV(Tag(0x9F36), [0x00, 0x2A]),
                ]
            )
        )
    }
    static func candidates(_ apps: [CandidateApplication]) -> TerminalResponse {
        .ok(BuildCandidateList.self, .init(candidates: apps))
    }
    static let initOK = TerminalResponse(command: .transactionInit, status: .success, data: blob, ciphered: true)
    static func processed(cid: [UInt8]?) -> TerminalResponse {
        var tlvs = [TLV(Tag(0x9F26), [1, 2, 3, 4, 5, 6, 7, 8]), TLV(Tag(0x9F36), [0x00, 0x2A])]
        if let cid { tlvs.insert(TLV(Tag(0x9F27), cid), at: 0) }
        tlvs += [TLV(Tag(0x95), [0, 0, 0, 0, 0]), TLV(Tag(0x9B), [0xE8, 0x00])]
        return .ok(TransactionProcess.self, TLVResponse(tlvs: tlvs))
    }
    static let securedOK = TerminalResponse(command: .getSecuredTag, status: .success, data: blob, ciphered: true)
    /// A terminal that gives the PAN in plain: the machine must keep it masked only.
    static let plainWithPAN = TerminalResponse.ok(
        GetPlainTag.self,
        TLVResponse(tlvs: [
            TLV(Tag(0x5A), panBCD), TLV(Tag(0x5F24), [0x27, 0x12, 0x31]), TLV(Tag(0x84), visa.aid),
            TLV(Tag(0x50), Array("VISA CREDIT".utf8)),
        ])
    )
    static let plainOK = TerminalResponse.ok(GetPlainTag.self, TLVResponse(tlvs: [TLV(Tag(0x9F36), [0x00, 0x2A])]))
    /// An application cryptogram (9F26, 8 bytes).
    static let cryptogram: [UInt8] = [0x69, 0x21, 0x4D, 0xED, 0xAC, 0x48, 0x01, 0x79]
    /// TransactionFinalisation's answer: status 7 with the card's TC, or 8 with its AAC, each with 9F26.
    static func finalised(_ approved: Bool) -> TerminalResponse {
        finalised(status: approved, tlvs: [TLV(Tag(0x9F27), [approved ? 0x40 : 0x00]), TLV(Tag(0x9F26), cryptogram)])
    }
    /// TransactionFinalisation's answer with the status (7 approved, 8 declined) and tags given.
    static func finalised(status approved: Bool, tlvs: [TLV]) -> TerminalResponse {
        .ok(TransactionFinalisation.self, .init(approved: approved, tlvs: tlvs))
    }
    static let removedOK = TerminalResponse.status(WaitCardRemoval.self, .success)
    static let pinOK = TerminalResponse.ok(SimplifiedOnlinePIN.self, .init(pinKSN: pinKSN, pinBlock: blob))
    static func completed(_ cvm: UInt8, _ result: UInt8) -> TerminalResponse {
        .ok(NFCCompleteTransaction.self, .init(outcome: NFCOutcome(cvmByte: cvm, resultByte: result)))
    }
}

/// One event fed to a machine, for replaying transcripts.
enum Feed {
    case response(TerminalResponse)
    case task(TaskResult)

    func apply(to machine: inout PaymentStateMachine) -> PaymentAction {
        switch self {
        case .response(let r): machine.responseReceived(r)
        case .task(let t): machine.taskFinished(t)
        }
    }
}

/// The starting steps up to the card wait: CancelAll, ExitSecureSession, GetInfo, EnterSecureSession.
let startingFeeds: [Feed] = [
    .response(Fixture.cancelAllOK), .response(Fixture.exitOK), .response(Fixture.getInfoOK),
    .response(Fixture.enterOK),
]

/// A machine that has run `start()` and `feeds`; returns the last action.
func replay(_ request: PaymentRequest, _ feeds: [Feed]) -> (PaymentStateMachine, PaymentAction) {
    var machine = PaymentStateMachine(request: request)
    var action = machine.start()
    for feed in feeds { action = feed.apply(to: &machine) }
    return (machine, action)
}

func json(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
