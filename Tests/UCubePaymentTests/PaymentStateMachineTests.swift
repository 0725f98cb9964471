import Testing
import UCubeLink
import UCubeProtocol

@testable import UCubePayment

/// Transcripts: one event per line, the action it must produce, and why (AsyncHTTPClient style).
@Suite struct ContactTranscriptTests {
    @Test func arqcAuthorizationStatus7Approved() throws {
        var m = PaymentStateMachine(request: Fixture.request())
        // Starting steps: reset the terminal, read its info, open the secure session.
        #expect(m.start() == .send(.cancelAll(CancelAll())))
        #expect(m.responseReceived(Fixture.cancelAllOK) == .send(.exitSecureSession(ExitSecureSession())))
        #expect(m.responseReceived(Fixture.exitOK) == .send(.getInfo(GetInfo(tags: [0xD1, 0xED]))))
        #expect(m.responseReceived(Fixture.getInfoOK) == .send(.enterSecureSession(EnterSecureSession())))
        // The KSN arrives; NFC is enabled, so the single entry point waits for the card.
        #expect(m.responseReceived(Fixture.enterOK).command == .nfcStartTransaction)
        // A card is inserted: the contact flow lists the applications, asking as the current SDK does (full TLV).
        #expect(
            m.responseReceived(Fixture.iccInserted)
                == .send(.buildCandidateList(BuildCandidateList(outputFormat: 1, transactionType: 0x00))))
        // One candidate: straight to TransactionInitialization, no selection.
        #expect(m.responseReceived(Fixture.candidates([Fixture.visa])).command == .transactionInit)
        // Init succeeded (ciphered answer): risk management computes the TVR.
        #expect(m.responseReceived(Fixture.initOK) == .runTask(.riskManagement(aid: Fixture.visa.aid)))
        #expect(
            m.taskFinished(.riskManagementDone(tvr: [0, 0, 0, 0, 0]))
                == .send(
                    .transactionProcess(
                        // DF44 40: the current SDK's default DUKPT key slot (spec §5.2 0x5512).
                        TransactionProcess(tvr: [0, 0, 0, 0, 0], keySlot: 0x40, requestedTags: Fixture.processTags)
                    )
                )
        )
        // ARQC: fetch the authorization data, secured then plain.
        #expect(
            m.responseReceived(Fixture.processed(cid: [0x80]))
                == .send(.getSecuredTag(GetSecuredTag(tags: Fixture.securedList)))
        )
        #expect(
            m.responseReceived(Fixture.securedOK)
                == .send(.getPlainTag(GetPlainTag(tags: Fixture.plainLeft)))
        )
        guard case .runTask(.authorize(let auth)) = m.responseReceived(Fixture.plainWithPAN) else {
            Issue.record("expected the authorization task")
            return
        }
        #expect(auth.cryptogram == .arqc && auth.amount == 1250 && auth.entryMode == .icc)
        // Approved by the issuer: DF16 = approved, 8A = "00".
        #expect(
            m.taskFinished(.authorized(.approved))
                == .send(
                    .transactionFinalisation(
                        TransactionFinalisation(
                            authorisationStatus: .approved,
                            authorisationResponseCode: [0x30, 0x30],
                            requestedTags: Fixture.completionTags
                        )
                    )
                )
        )
        // Status 7: approved. The ending steps follow: finalization tags, card removal, exit session.
        #expect(m.responseReceived(Fixture.finalised(true)).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainOK) == .send(.waitCardRemoval(WaitCardRemoval(timeoutSeconds: 30))))
        #expect(m.responseReceived(Fixture.removedOK) == .send(.exitSecureSession(ExitSecureSession())))
        #expect(m.responseReceived(Fixture.exitOK) == .finish(PaymentOutcome(.approved)))

        #expect(
            m.transitions == [
                .startCancelAll, .startExitSecureSession, .getInfo, .enterSecureSession, .ksnAvailable,
                .startTransaction, .cardReadEnd, .startICC, .smcBuildCandidateList, .smcInitTransaction,
                .smcRiskManagement, .smcProcessTransaction, .smcGetAuthorizationSecuredTags,
                .smcGetAuthorizationPlainTags, .authorization, .smcFinalizeTransaction, .getFinalizationPlainTags,
                .smcRemoveCard, .endExitSecureSession,
            ]
        )
        let context = m.context
        #expect(context.status == .approved)
        #expect(context.sredKSN == Fixture.sredKSN)
        #expect(context.entryMode == .icc)
        #expect(context.selectedAID == Fixture.visa.aid)
        #expect(context.maskedPAN == Fixture.maskedPAN)
        #expect(context.expiryYear == 2027 && context.expiryMonth == 12)
        #expect(context.authorizationSecuredData == Fixture.blob)
        #expect(context.finalisationApproved == true)
        #expect(context.firmwareVersion == "6.0.0.54")
        // The plain 5A and 5F24 were read, but only the masked PAN is kept.
        #expect(!context.authorizationPlainTags.contains { $0.tag == Tag(0x5A) || $0.tag == Tag(0x5F24) })
        let text = try json(context)
        #expect(!Masking.containsUnmaskedPAN(text))
        #expect(!text.contains(Fixture.panDigits))

        // After the finish every event is ignored and a cancel is refused.
        #expect(m.responseReceived(Fixture.exitOK).isNone)
        #expect(m.taskFinished(.cancelled).isNone)
        #expect(m.linkLost().isNone)
        #expect(m.commandFailed(CommandFailure(command: "GetInfo", error: LinkError(.timeout, "late"))).isNone)
        #expect(m.start().isNone)
        #expect(m.cancelRequested() == .refused("the payment has already ended APPROVED"))
        #expect(m.outcome == PaymentOutcome(.approved))
    }

    /// Up to TransactionProcess with one candidate.
    static let toProcess: [Feed] =
        startingFeeds + [
            .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])), .response(Fixture.initOK),
            .task(.riskManagementDone(tvr: [0, 0, 0, 0, 0])),
        ]

    @Test func tcOfflineApprovedWithoutAuthorization() {
        var (m, _) = replay(Fixture.request(), Self.toProcess)
        // PROJECT CHOICE: TC → APPROVED without AUTHORIZATION and without 0x5513.
        #expect(m.responseReceived(Fixture.processed(cid: [0x40])).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainOK).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .approved)
        #expect(!m.transitions.contains(.authorization) && !m.transitions.contains(.smcFinalizeTransaction))
        #expect(m.context.cryptogramType == .tc)
    }

    /// A candidate list that does not decode ends the payment in ERROR, and the decoder's code and reason (with the
    /// offset) are kept in the payment's errors, not dropped.
    @Test func aBadCandidateListKeepsTheDecodersCode() {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.iccInserted)])
        let bad = TerminalResponse(command: .buildCandidateList, status: .success, data: [0xC2, 0x05, 0x00])
        _ = m.responseReceived(bad)
        let error = m.context.errors.last
        #expect(error?.state == .smcBuildCandidateList)
        #expect(error?.code == "truncated" || error?.code == "malformed", "\(String(describing: error))")
        #expect(error?.reason.hasPrefix("BuildCandidateList answered a bad candidate list: ") == true)
    }

    @Test func aacDeclined() {
        var (m, _) = replay(Fixture.request(), Self.toProcess)
        #expect(m.responseReceived(Fixture.processed(cid: [0x00])).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainOK).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .declined)
    }

    @Test func finalisationStatus8Declined() {
        var (m, _) = replay(
            Fixture.request(),
            Self.toProcess + [
                .response(Fixture.processed(cid: [0x80])), .response(Fixture.securedOK), .response(Fixture.plainOK),
            ]
        )
        // The issuer declines: DF16 = declined, 8A = "05".
        #expect(
            m.taskFinished(.authorized(.declined))
                == .send(
                    .transactionFinalisation(
                        TransactionFinalisation(
                            authorisationStatus: .declined,
                            authorisationResponseCode: [0x30, 0x35],
                            requestedTags: Fixture.completionTags
                        )
                    )
                )
        )
        #expect(m.responseReceived(Fixture.finalised(false)).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainOK).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .declined)
        #expect(m.context.finalisationApproved == false)
    }

    @Test func unableToGoOnlineSendsDF16Zero() {
        var (m, _) = replay(
            Fixture.request(),
            Self.toProcess + [
                .response(Fixture.processed(cid: [0x80])), .response(Fixture.securedOK), .response(Fixture.plainOK),
            ]
        )
        guard case .send(.transactionFinalisation(let command)) = m.taskFinished(.authorized(.unableToGoOnline)) else {
            Issue.record("expected TransactionFinalisation")
            return
        }
        #expect(command.authorisationStatus == .unableToGoOnline)
    }

    @Test func twoApplicationsRunTheSelectionTask() {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.iccInserted)])
        let both = [Fixture.visa, Fixture.visaDebit]
        // Several candidates: the selection task chooses.
        #expect(m.responseReceived(Fixture.candidates(both)) == .runTask(.selectApplication(both)))
        #expect(m.cancelRequested() == .refused(CancelDecision.tooLate))
        guard case .send(.transactionInit(let command)) = m.taskFinished(.applicationSelected(Fixture.visaDebit)) else {
            Issue.record("expected TransactionInit")
            return
        }
        #expect(command.aid == Fixture.visaDebit.aid)
        #expect(command.amount == 1250 && command.currencyCode == 978 && command.exponent == 2)
        #expect(m.transitions.suffix(2) == [.smcSelectApplication, .smcInitTransaction])
    }

    @Test func selectionTaskCancels() {
        var (m, _) = replay(
            Fixture.request(),
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa, Fixture.visaDebit])),
            ]
        )
        #expect(m.taskFinished(.applicationSelected(nil)).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .cancelled)
    }

    @Test func cardholderSelectsOnTheTerminal() {
        var request = Fixture.request()
        request.selectApplicationOnTerminal = true
        var (m, _) = replay(request, startingFeeds + [.response(Fixture.iccInserted)])
        #expect(
            m.responseReceived(Fixture.candidates([Fixture.visa, Fixture.visaDebit]))
                == .send(.displayListBox(DisplayListBox(items: ["VISA CREDIT", "VISA DEBIT"])))
        )
        let choice = TerminalResponse.ok(DisplayListBox.self, .init(selectedIndex: 2))
        guard case .send(.transactionInit(let command)) = m.responseReceived(choice) else {
            Issue.record("expected TransactionInit")
            return
        }
        #expect(command.aid == Fixture.visaDebit.aid)
        #expect(m.transitions.contains(.smcUserSelectApplication))
    }

    @Test func initFailureDropsTheAIDAndSelectsAgain() {
        var (m, _) = replay(
            Fixture.request(),
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa, Fixture.visaDebit])),
            ]
        )
        #expect(m.taskFinished(.applicationSelected(Fixture.visa)).command == .transactionInit)
        // Init fails for VISA CREDIT: it is dropped; one candidate remains, so init again without a task.
        guard
            case .send(.transactionInit(let retry)) = m.responseReceived(
                .status(TransactionInit.self, .cardNotAccepted))
        else {
            Issue.record("expected a second TransactionInit")
            return
        }
        #expect(retry.aid == Fixture.visaDebit.aid)
        // And when that one fails too, no application is left.
        #expect(m.responseReceived(.status(TransactionInit.self, .cardNotAccepted)).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .unsupportedCard)
    }

    @Test(arguments: [
        Fixture.candidates([]),
        TerminalResponse.status(BuildCandidateList.self, .emvNotSupported),
        Fixture.candidates([CandidateApplication(aid: Fixture.visa.aid, label: "BLOCKED", blocked: true)]),
    ])
    func noCommonApplicationIsUnsupportedCard(answer: TerminalResponse) {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.iccInserted)])
        #expect(m.responseReceived(answer).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .unsupportedCard)
    }

    /// A terminal of the 2020 dialect refuses the current BuildCandidateList (spec §5.2 0x5510): the 2020 form (empty)
    /// goes once, and its list is used; a second refusal ends the payment ERROR.
    @Test func aRefusedCurrentCandidateListFallsBackToThe2020Form() {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.iccInserted)])
        let malformed = TerminalResponse.status(BuildCandidateList.self, Status(-901))
        #expect(m.responseReceived(malformed) == .send(.buildCandidateList(BuildCandidateList())))
        #expect(m.responseReceived(Fixture.candidates([Fixture.visa])).command == .transactionInit)

        var (again, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.iccInserted)])
        #expect(again.responseReceived(malformed) == .send(.buildCandidateList(BuildCandidateList())))
        #expect(again.responseReceived(malformed).command == .waitCardRemoval)
    }

    @Test func minus301IsRefusedCard() {
        var (m, _) = replay(Fixture.request(), Self.toProcess)
        #expect(m.responseReceived(.status(TransactionProcess.self, .emvNotAccepted)).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .refusedCard)
    }

    @Test func missing9F27() {
        var (m, _) = replay(Fixture.request(), Self.toProcess)
        #expect(m.responseReceived(Fixture.processed(cid: nil)).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .errorMissingRequiredCryptogram)
    }

    @Test(arguments: [[0xC0], [0xC8], []] as [[UInt8]])
    func wrong9F27(cid: [UInt8]) {
        var (m, _) = replay(Fixture.request(), Self.toProcess)
        #expect(m.responseReceived(Fixture.processed(cid: cid)).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .errorWrongCryptogramValue)
    }

    @Test func forceAuthorizationSetsTVRByte4Bit4() {
        let feeds =
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])),
                .response(Fixture.initOK),
            ]
        var (m, _) = replay(Fixture.request(forceAuthorization: true), feeds)
        guard case .send(.transactionProcess(let command)) = m.taskFinished(.riskManagementDone(tvr: [0, 0, 0, 0, 0]))
        else {
            Issue.record("expected TransactionProcess")
            return
        }
        #expect(command.tvr == [0, 0, 0, 0x08, 0])
    }

    @Test func badTVRLengthIsError() {
        let feeds =
            startingFeeds + [
                .response(Fixture.iccInserted), .response(Fixture.candidates([Fixture.visa])),
                .response(Fixture.initOK),
            ]
        var (m, _) = replay(Fixture.request(), feeds)
        #expect(m.taskFinished(.riskManagementDone(tvr: [0, 0])).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .error)
    }

    @Test func contactOnlyUsesWaitCard() {
        var (m, action) = replay(Fixture.request(readers: [.icc]), startingFeeds)
        #expect(action == .send(.waitCard(WaitCard(readers: [.icc], timeoutSeconds: 30))))
        let inserted = TerminalResponse.ok(WaitCard.self, .init(reader: .icc, iccStatus: 0, atr: [0x3B, 0x00]))
        #expect(m.responseReceived(inserted).command == .buildCandidateList)
        #expect(m.transitions.suffix(4) == [.waitingCard, .cardReadEnd, .startICC, .smcBuildCandidateList])
    }

    @Test func skipStartingStepsAndCardRemoval() {
        var request = Fixture.request()
        request.skipStartingSteps = true
        request.skipCardRemoval = true
        request.retrieveL2Logs = true
        var m = PaymentStateMachine(request: request)
        #expect(m.start() == .send(.enterSecureSession(EnterSecureSession())))
        for feed in Array(ContactTranscriptTests.toProcess.dropFirst(3)) { _ = feed.apply(to: &m) }
        #expect(m.responseReceived(Fixture.processed(cid: [0x40])).command == .getPlainTag)
        // No card removal; the level-2 logs CC, F4, F5 come before the exit.
        #expect(m.responseReceived(Fixture.plainOK) == .send(.getInfo(GetInfo(tags: [0xCC]))))
        let log = TerminalResponse(command: .getInfo, status: .success, data: [0xAA, 0xBB], ciphered: true)
        #expect(m.responseReceived(log) == .send(.getInfo(GetInfo(tags: [0xF4]))))
        #expect(m.responseReceived(log) == .send(.getInfo(GetInfo(tags: [0xF5]))))
        #expect(m.responseReceived(log) == .send(.exitSecureSession(ExitSecureSession())))
        #expect(m.responseReceived(Fixture.exitOK).finished == .approved)
        #expect(m.context.l2Logs == ["CC": "AABB", "F4": "AABB", "F5": "AABB"])
        #expect(!m.transitions.contains(.startCancelAll) && !m.transitions.contains(.smcRemoveCard))
    }
}

@Suite struct ContactlessTranscriptTests {
    @Test func approvedOffline3036() {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        // The whole contactless read happened inside StartNFC: the outcome is approved, receipt.
        #expect(m.responseReceived(Fixture.tapped(0x30, 0x36)).command == .getSecuredTag)
        #expect(m.cancelRequested() == .refused(CancelDecision.tooLate))
        #expect(m.responseReceived(Fixture.securedOK).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainWithPAN).command == .getPlainTag)  // finalization plain tags
        #expect(m.responseReceived(Fixture.plainOK).command == .exitSecureSession)  // no card removal for NFC
        #expect(m.responseReceived(Fixture.exitOK).finished == .approved)
        #expect(m.context.signatureRequired == false)
        #expect(m.context.entryMode == .nfc)
        #expect(m.context.maskedPAN == Fixture.maskedPAN)
        #expect(
            m.transitions.suffix(7) == [
                .startTransaction, .cardReadEnd, .startNFC, .nfcGetAuthorizationSecuredTags,
                .nfcGetAuthorizationPlainTags, .getFinalizationPlainTags, .endExitSecureSession,
            ]
        )
        #expect(!m.transitions.contains(.authorization))
    }

    @Test func signatureRequired3136() {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        _ = m.responseReceived(Fixture.tapped(0x31, 0x36))
        #expect(m.context.signatureRequired)
    }

    @Test func declinedOffline3037() {
        let (m, _) = replay(
            Fixture.request(),
            startingFeeds + [
                .response(Fixture.tapped(0x30, 0x37)), .response(Fixture.securedOK), .response(Fixture.plainOK),
                .response(Fixture.plainOK), .response(Fixture.exitOK),
            ]
        )
        #expect(m.outcome?.status == .declined)
    }

    @Test func onlineRequest303EAuthorizesThenCompletes() {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.tapped(0x30, 0x3E))])
        #expect(m.responseReceived(Fixture.securedOK).command == .getPlainTag)
        guard case .runTask(.authorize(let auth)) = m.responseReceived(Fixture.plainOK) else {
            Issue.record("expected the authorization task")
            return
        }
        #expect(auth.entryMode == .nfc && !auth.onlinePIN)
        // DF73 = 8A.
        #expect(
            m.taskFinished(.authorized(.approved))
                == .send(
                    .completeTransaction(
                        NFCCompleteTransaction(
                            authorisationResponseCode: [0x30, 0x30],
                            requestedTags: Fixture.completionTags
                        )
                    )
                )
        )
        #expect(m.responseReceived(Fixture.completed(0x30, 0x36)).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .approved)
        #expect(
            m.transitions.suffix(7) == [
                .startNFC, .nfcGetAuthorizationSecuredTags, .nfcGetAuthorizationPlainTags, .authorization,
                .nfcCompleteTransaction, .getFinalizationPlainTags, .endExitSecureSession,
            ]
        )
    }

    @Test func onlinePIN343E() {
        var (m, _) = replay(
            Fixture.request(),
            startingFeeds + [.response(Fixture.tapped(0x34, 0x3E)), .response(Fixture.securedOK)]
        )
        // Outcome byte 0 = 0x34: the online PIN comes before the authorization.
        guard case .send(.simplifiedOnlinePIN(let pin)) = m.responseReceived(Fixture.plainOK) else {
            Issue.record("expected SimplifiedOnlinePIN")
            return
        }
        #expect(pin.amountText == "12.50" && pin.currencyLabel == "EUR" && pin.pinBlockFormat == .iso0)
        // The current dialect's amount and key slot (spec §5.2 0x5171): 5F2A 0978, 5F36 02, 9F02 1250, DF44 40.
        #expect(
            pin.amount
                == SimplifiedOnlinePIN.Amount(currencyCode: 978, exponent: 2, minorUnits: 1250, keySlot: 0x40))
        guard case .runTask(.authorize(let auth)) = m.responseReceived(Fixture.pinOK) else {
            Issue.record("expected the authorization task")
            return
        }
        #expect(auth.onlinePIN)
        #expect(m.context.pinKSN == Fixture.pinKSN)
        #expect(m.context.onlinePINBlock == Fixture.blob)
        #expect(m.taskFinished(.authorized(.declined)).command == .nfcCompleteTransaction)
        #expect(m.responseReceived(Fixture.completed(0x30, 0x37)).command == .getPlainTag)
        #expect(m.responseReceived(Fixture.plainOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .declined)
        #expect(m.transitions.contains(.nfcSimplifiedOnlinePIN))
    }

    @Test func forceOnlinePINOnAnOnlineRequest() {
        let (_, action) = replay(
            Fixture.request(forceOnlinePIN: true),
            startingFeeds + [
                .response(Fixture.tapped(0x30, 0x3E)), .response(Fixture.securedOK), .response(Fixture.plainOK),
            ]
        )
        #expect(action.command == .simplifiedOnlinePIN)
    }

    @Test(arguments: [
        (UInt8(0x31), PaymentStatus.nfcOutcomeTryOtherInterface),
        (0x3A, .cancelled),
        (0x3F, .nfcOutcomeEndApplication),
        (0x38, .nfcOutcomeFailed),
        (0x40, .errorWrongNFCOutcome),
    ])
    func finalOutcomesAtStart(result: UInt8, status: PaymentStatus) {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        // No tags are fetched for these outcomes: straight to the exit.
        #expect(m.responseReceived(Fixture.tapped(0x30, result)) == .send(.exitSecureSession(ExitSecureSession())))
        #expect(m.responseReceived(Fixture.exitOK).finished == status)
    }

    @Test(arguments: [
        (UInt8(0x3A), PaymentStatus.cancelled), (0x31, .nfcOutcomeTryOtherInterface), (0x3E, .errorWrongNFCOutcome),
        (0x99, .errorWrongNFCOutcome),
    ])
    func finalOutcomesAtComplete(result: UInt8, status: PaymentStatus) {
        var (m, _) = replay(
            Fixture.request(),
            startingFeeds + [
                .response(Fixture.tapped(0x30, 0x3E)), .response(Fixture.securedOK), .response(Fixture.plainOK),
                .task(.authorized(.approved)),
            ]
        )
        #expect(m.responseReceived(Fixture.completed(0x30, result)).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == status)
    }

    @Test func missingOutcomeIsWrongNFCOutcome() {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        let noOutcome = TerminalResponse.ok(NFCStartTransaction.self, .init(activatedReader: .nfc, outcome: nil))
        #expect(m.responseReceived(noOutcome).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .errorWrongNFCOutcome)
    }

    @Test(arguments: [
        NFCStartTransaction.Response(activatedReader: .msr, outcome: nil),  // a reader the request did not enable
        NFCStartTransaction.Response(tlvs: [TLV(Tag(0xDF70), [0x77])]),  // unknown reader
        NFCStartTransaction.Response(tlvs: []),  // no DF70
    ])
    func wrongActivatedReader(answer: NFCStartTransaction.Response) {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        #expect(m.responseReceived(.ok(NFCStartTransaction.self, answer)).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .errorWrongActivatedReader)
    }

    @Test(arguments: [
        (Status.cancelled, PaymentStatus.cancelled), (.actionCancelled, .cancelled), (.timeout, .cardWaitFailed),
        (Status(-0x1025), .nfcMPOSError), (.noCard, .cardWaitFailed), (.badTerminalState, .cardWaitFailed),
    ])
    func startNFCErrors(status: Status, expected: PaymentStatus) {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        #expect(m.responseReceived(.status(NFCStartTransaction.self, status)).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == expected)
    }
}

@Suite struct MagstripeTranscriptTests {
    static let swiped = TerminalResponse.ok(WaitCard.self, .init(reader: .msr))

    static func plain(action: UInt8) -> TerminalResponse {
        .ok(GetPlainTag.self, TLVResponse(tlvs: [TLV(Tag(0xDF60), [action]), TLV(Tag(0xDF61), [0x47, 0x61, 0x73])]))
    }

    @Test(arguments: [
        (UInt8(0x02), PaymentStatus.chipRequired), (0x03, .chipRequired), (0x04, .declined), (0x09, .error),
    ])
    func msrActions(action: UInt8, status: PaymentStatus) {
        var (m, _) = replay(Fixture.request(readers: [.msr]), startingFeeds)
        #expect(m.responseReceived(Self.swiped) == .send(.getSecuredTag(GetSecuredTag(tags: [Tag(0xDF62)]))))
        #expect(
            m.responseReceived(Fixture.securedOK) == .send(.getPlainTag(GetPlainTag(tags: [Tag(0xDF60), Tag(0xDF61)]))))
        #expect(m.responseReceived(Self.plain(action: action)).command != nil)
        while let command = m.currentState.flatMap(PaymentStateMachine.command(of:)) {
            let answer = TerminalResponse(command: command, status: .success)
            if case .finish = m.responseReceived(answer) { break }
        }
        #expect(m.outcome?.status == status)
    }

    @Test func onlinePINThenAuthorization() {
        var (m, _) = replay(
            Fixture.request(readers: [.msr]),
            startingFeeds + [.response(Self.swiped), .response(Fixture.securedOK)]
        )
        #expect(m.responseReceived(Self.plain(action: 0x01)).command == .simplifiedOnlinePIN)
        guard case .runTask(.authorize) = m.responseReceived(Fixture.pinOK) else {
            Issue.record("expected the authorization task")
            return
        }
        #expect(m.taskFinished(.authorized(.approved)).command == .getPlainTag)
        #expect(m.transitions.contains(.onlinePIN) && m.transitions.contains(.startMSR))
    }
}

@Suite struct CancelAndLinkTests {
    @Test func cancelAcceptedWhileWaitingForTheCard() {
        var (m, action) = replay(Fixture.request(), startingFeeds)
        #expect(action.command == .nfcStartTransaction)
        // A card wait is pending: the engine must send CancelAll.
        #expect(m.cancelRequested() == .accepted(.cancelPendingCommand))
        // A second request changes nothing, and is told the payment already ends CANCELLED (issue 23).
        #expect(m.cancelRequested() == .alreadyCancelled)
        // The pending StartNFC answers −32.
        #expect(
            m.responseReceived(.status(NFCStartTransaction.self, .cancelled))
                == .send(.exitSecureSession(ExitSecureSession())))
        // While the ending steps run, and after the end, a request is never "too late" for a cancelled payment.
        #expect(m.cancelRequested() == .alreadyCancelled)
        #expect(
            m.responseReceived(Fixture.exitOK) == .finish(PaymentOutcome(.cancelled, reason: "cancelled by request")))
        #expect(m.cancelRequested() == .alreadyCancelled)
    }

    /// The terminal's own −32 (its cancel key) ends the payment CANCELLED: a request then is told so, not refused.
    @Test func aCancelDuringTheTerminalsOwnCancelIsAlreadyCancelled() {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        #expect(m.responseReceived(.status(NFCStartTransaction.self, .cancelled)).command == .exitSecureSession)
        #expect(m.cancelRequested() == .alreadyCancelled)
    }

    @Test func cancelAcceptedDuringTheStartingSteps() {
        var m = PaymentStateMachine(request: Fixture.request())
        _ = m.start()
        _ = m.responseReceived(Fixture.cancelAllOK)
        // No long command is pending: nothing to send now; the next answer ends the payment.
        #expect(m.cancelRequested() == .accepted(.none))
        #expect(m.responseReceived(Fixture.exitOK) == .send(.exitSecureSession(ExitSecureSession())))
        #expect(m.responseReceived(Fixture.exitOK).finished == .cancelled)
    }

    @Test func cancelBeforeStart() {
        var m = PaymentStateMachine(request: Fixture.request())
        #expect(m.cancelRequested() == .accepted(.none))
        #expect(m.cancelRequested() == .alreadyCancelled)
        #expect(m.start().finished == .cancelled)
        #expect(m.transitions.isEmpty)
    }

    @Test func acceptedCancelWinsOverALateCardRead() {
        var (m, _) = replay(Fixture.request(), startingFeeds)
        #expect(m.cancelRequested() == .accepted(.cancelPendingCommand))
        // The card was read just before CancelAll arrived: the accepted cancel still decides.
        #expect(m.responseReceived(Fixture.tapped(0x30, 0x36)).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .cancelled)
    }

    @Test func cancelRefusedAfterCardReadEndForContact() {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.iccInserted)])
        #expect(m.currentState == .smcBuildCandidateList)
        #expect(m.cancelRequested() == .refused(CancelDecision.tooLate))
        // The payment runs on.
        #expect(m.responseReceived(Fixture.candidates([Fixture.visa])).command == .transactionInit)
    }

    @Test func cancelRefusedAfterStartNFCAnswered() {
        var (m, _) = replay(Fixture.request(), startingFeeds + [.response(Fixture.tapped(0x30, 0x3E))])
        #expect(m.cancelRequested() == .refused(CancelDecision.tooLate))
        #expect(m.responseReceived(Fixture.securedOK).command == .getPlainTag)
    }

    @Test func minus32AnywhereIsCancelled() {
        var (m, _) = replay(Fixture.request(), ContactTranscriptTests.toProcess)
        #expect(m.responseReceived(.status(TransactionProcess.self, .cancelled)).command == .waitCardRemoval)
        #expect(m.responseReceived(Fixture.removedOK).command == .exitSecureSession)
        #expect(m.responseReceived(Fixture.exitOK).finished == .cancelled)
    }

    @Test func commandFailureIsErrorAndStillExitsTheSession() {
        var (m, _) = replay(Fixture.request(), ContactTranscriptTests.toProcess)
        let timeout = LinkError(.timeout, "no answer within 30 s")
        #expect(
            m.commandFailed(CommandFailure(command: "TransactionProcess", error: timeout)).command == .waitCardRemoval)
        #expect(
            m.commandFailed(CommandFailure(command: "WaitCardRemoval", error: timeout)).command == .exitSecureSession)
        #expect(
            m.responseReceived(Fixture.exitOK)
                == .finish(PaymentOutcome(.error, reason: "TransactionProcess: timeout: no answer within 30 s"))
        )
        #expect(m.context.errors.count == 2)
    }

    /// Typed edges (issue 42): a link failure reaches the machine as the link's error, and its code is kept in the
    /// payment's errors beside the sentence, where a string lost it.
    @Test func aLinkFailureKeepsItsCodeInThePaymentsErrors() {
        var (m, _) = replay(Fixture.request(), ContactTranscriptTests.toProcess)
        _ = m.commandFailed(CommandFailure(command: "TransactionProcess", error: LinkError(.badFrame, "CRC mismatch")))
        #expect(
            m.context.errors.first
                == PaymentError(
                    state: .smcProcessTransaction, code: "badFrame",
                    reason: "TransactionProcess: badFrame: CRC mismatch"))

        var (dropped, _) = replay(Fixture.request(), ContactTranscriptTests.toProcess)
        #expect(
            dropped.linkLost(LinkError(.disconnected, "the peer closed the connection")).finished == .errorDisconnect)
        #expect(dropped.context.errors.map(\.code) == ["disconnected"])
        #expect(dropped.context.errors.map(\.reason) == ["the peer closed the connection"])
    }

    /// A task that fails with a coded error: the payment's error keeps the code; any other error keeps its words.
    @Test func aTaskFailureKeepsItsCode() {
        #expect(
            TaskFailure(LinkError(.timeout, "the host did not answer"))
                == TaskFailure(code: "timeout", reason: "the host did not answer"))
        struct Plain: Error, CustomStringConvertible { var description: String { "plain words" } }
        #expect(TaskFailure(Plain()) == TaskFailure(code: nil, reason: "plain words"))

        var (m, _) = replay(
            Fixture.request(),
            ContactTranscriptTests.toProcess + [
                .response(Fixture.processed(cid: [0x80])), .response(Fixture.securedOK), .response(Fixture.plainOK),
            ]
        )
        _ = m.taskFinished(.failed(TaskFailure(code: "host-unreachable", reason: "connection refused")))
        #expect(m.context.errors.last?.code == "host-unreachable")
        #expect(m.context.errors.last?.reason.hasSuffix("task failed: connection refused") == true)
    }

    /// The full contact transcript (ARQC → approved), as feeds.
    static let contactFeeds: [Feed] =
        ContactTranscriptTests.toProcess + [
            .response(Fixture.processed(cid: [0x80])), .response(Fixture.securedOK), .response(Fixture.plainOK),
            .task(.authorized(.approved)), .response(Fixture.finalised(true)), .response(Fixture.plainOK),
            .response(Fixture.removedOK), .response(Fixture.exitOK),
        ]

    /// The full contactless transcript (online request → approved), as feeds.
    static let contactlessFeeds: [Feed] =
        startingFeeds + [
            .response(Fixture.tapped(0x34, 0x3E)), .response(Fixture.securedOK), .response(Fixture.plainOK),
            .response(Fixture.pinOK), .task(.authorized(.approved)), .response(Fixture.completed(0x30, 0x36)),
            .response(Fixture.plainOK), .response(Fixture.exitOK),
        ]

    /// The link drops after each prefix of a flow: exactly one `.finish` — ERROR_DISCONNECT while the status is
    /// undecided, the decided status during the ending steps (PROJECT CHOICE) — and nothing after it.
    @Test(arguments: [("contact", contactFeeds), ("contactless", contactlessFeeds)])
    func linkLostAtEveryState(flow: String, feeds: [Feed]) {
        let (complete, _) = replay(Fixture.request(), feeds)
        #expect(complete.outcome?.status == .approved, "the \(flow) transcript runs to APPROVED")
        var covered = Set<PaymentState>()
        for prefix in 0..<feeds.count {
            var (m, _) = replay(Fixture.request(), Array(feeds.prefix(prefix)))
            guard let state = m.currentState else {
                Issue.record("\(flow): finished after \(prefix) feeds")
                continue
            }
            covered.insert(state)
            let decided = m.context.states.contains(.getFinalizationPlainTags)
            let action = m.linkLost()
            #expect(
                action.finished == (decided ? .approved : .errorDisconnect),
                "\(flow): link lost in \(state)"
            )
            // Nothing after the finish: the rest of the transcript is ignored, and no exit is sent.
            for feed in feeds.dropFirst(prefix) { #expect(feed.apply(to: &m).isNone) }
            #expect(m.linkLost().isNone)
            #expect(m.transitions.last == state)
        }
        #expect(
            covered.isSuperset(of: [.startCancelAll, .enterSecureSession, .startTransaction, .endExitSecureSession]))
    }

    @Test func linkLostBeforeStart() {
        var m = PaymentStateMachine(request: Fixture.request())
        #expect(m.linkLost().finished == .errorDisconnect)
        #expect(m.start().isNone)
    }

    @Test func invalidRequestFinishesWithoutCommands() {
        var request = Fixture.request()
        request.cardWaitTimeout = 300
        var m = PaymentStateMachine(request: request)
        #expect(m.start().finished == .error)
        #expect(m.transitions.isEmpty)
    }
}

/// Every state has a cancel window and, when it sends one, exactly the command its table row names.
@Suite struct StateTableTests {
    @Test func everyStateHasAnSDKName() {
        for state in PaymentState.allCases {
            #expect(state.name == state.name.uppercased())
            #expect(!state.name.isEmpty)
        }
        #expect(PaymentState.smcBuildCandidateList.name == "SMC_BUILD_CANDIDATE_LIST")
        #expect(PaymentStatus.allCases.count == 18)
    }

    @Test func cancelWindow() {
        let open = PaymentState.allCases.filter { $0.cancelWindow != .closed }
        #expect(
            Set(open) == [
                .startCancelAll, .startExitSecureSession, .getInfo, .enterSecureSession, .ksnAvailable,
                .startTransaction, .waitingCard,
            ]
        )
    }
}

@Suite struct MaskingTests {
    @Test(
        arguments: [
            ([0x47, 0x61, 0x73, 0x90, 0x01, 0x01, 0x00, 0x10], "476173******0010"),  // clear
            ([0x47, 0x61, 0x73, 0xFF, 0xFF, 0xFF, 0x00, 0x10], "476173******0010"),  // truncated by the terminal
            ([0x40, 0x12, 0x34, 0x56, 0x78, 0x90, 0x9F], "401234***8909"),  // 13 digits, F padding
            ([0x47, 0x61, 0x73, 0x90, 0x01, 0xFF, 0xFF, 0x10], "476173********10"),  // never more than 6 + 4 shown
        ] as [([UInt8], String)])
    func maskedPANFromBCD(bytes: [UInt8], expected: String) {
        #expect(PaymentContext.maskedPAN(fromBCD: bytes) == expected)
    }
}
