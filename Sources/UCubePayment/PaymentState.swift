import UCubeProtocol

/// A progress state of a payment (spec §8.1). The engine emits one event each time the payment enters one. What is
/// known of each state (its SDK name, the command it sends, its phase, whether a cancel can still stop it, what the
/// cardholder is asked to do) is its row in the state table (`PaymentState.row`, below the cases), and only
/// there.
package enum PaymentState: CaseIterable, Sendable, Hashable, Encodable, CustomStringConvertible {
    // MARK: Starting steps

    /// We sent CancelAll to end whatever the terminal was doing (skipped with `skipStartingSteps`).
    case startCancelAll
    /// We sent ExitSecureSession so the session we open next is fresh (skipped with `skipStartingSteps`).
    case startExitSecureSession
    /// We sent GetInfo (D1 firmware, ED NFC module state) (skipped with `skipStartingSteps`).
    case getInfo
    /// We sent EnterSecureSession; its answer carries the SRED KSN.
    case enterSecureSession
    /// The secure session is open and the SRED KSN is known.
    case ksnAvailable

    // MARK: Card

    /// We sent NFCStartTransaction (0x5530): the terminal waits for a card; for NFC the whole read happens here.
    case startTransaction
    /// We sent WaitCard (0x5020), the contact/magstripe-only path when no NFC reader is asked for.
    case waitingCard
    /// The card-wait command answered with an activated reader (DF70); the flow branches on it.
    case cardReadEnd

    // MARK: Contact (ICC)

    /// A card is in the chip reader; the contact flow begins.
    case startICC
    /// We sent BuildCandidateList (0x5510).
    case smcBuildCandidateList
    /// The application-selection task is choosing among several candidates.
    case smcSelectApplication
    /// We sent DisplayListBox (0x5042): the cardholder chooses the application on the terminal.
    case smcUserSelectApplication
    /// We sent TransactionInitialization (0x5511) for the selected AID.
    case smcInitTransaction
    /// The risk-management task is computing the TVR.
    case smcRiskManagement
    /// We sent TransactionProcess (0x5512); its answer must carry 9F27.
    case smcProcessTransaction
    /// We sent GetSecuredTag (0x5025) for the authorization secured tags (after an ARQC).
    case smcGetAuthorizationSecuredTags
    /// We sent GetPlainTag (0x5026) for the authorization plain tags (after an ARQC).
    case smcGetAuthorizationPlainTags
    /// The authorization task is asking the issuer (ICC ARQC, NFC online request, MSR).
    case authorization
    /// We sent TransactionFinalisation (0x5513); status 7 approves, 8 declines.
    case smcFinalizeTransaction
    /// We sent WaitCardRemoval (0x5021) (skipped with `skipCardRemoval`).
    case smcRemoveCard

    // MARK: Contactless (NFC)

    /// A card was read contactlessly; its outcome (DF72) is in the NFCStartTransaction answer.
    case startNFC
    /// We sent GetSecuredTag (0x5025) for the NFC authorization secured tags.
    case nfcGetAuthorizationSecuredTags
    /// We sent GetPlainTag (0x5026) for the NFC authorization plain tags.
    case nfcGetAuthorizationPlainTags
    /// We sent SimplifiedOnlinePIN (0x5171): outcome byte 0 was 0x34 or the request forces online PIN.
    case nfcSimplifiedOnlinePIN
    /// We sent NFCCompleteTransaction (0x5531) with DF73 = the authorization response code.
    case nfcCompleteTransaction

    // MARK: Magstripe (MSR)

    /// A card was swiped; the magstripe flow begins.
    case startMSR
    /// We sent GetSecuredTag (0x5025) for the card data block (DF62).
    case msrGetSecuredTags
    /// We sent GetPlainTag (0x5026) for the MSR action (DF60) and BIN (DF61).
    case msrGetPlainTags

    // MARK: PIN progress (Android)

    /// We sent SimplifiedOnlinePIN (0x5171) in the magstripe flow.
    case onlinePIN
    /// Offline PIN entry. It happens inside TransactionProcess (spec §5.2 0x5512), where the host cannot see it, so
    /// this machine never enters the state; it is listed because the Android SDK names it.
    case offlinePIN

    // MARK: Ending

    /// We sent GetSecuredTag (0x5025) for the finalization secured tags (approved or declined payments).
    case getFinalizationSecuredTags
    /// We sent GetPlainTag (0x5026) for the finalization plain tags (approved or declined payments).
    case getFinalizationPlainTags
    /// We sent GetInfo CC (SVPP level-2 log record 2) (with `retrieveL2Logs`).
    case getCCL2Log
    /// We sent GetInfo F4 (SVPP level-2 log part) (with `retrieveL2Logs`).
    case getF4L2Log
    /// We sent GetInfo F5 (SVPP level-2 log part) (with `retrieveL2Logs`).
    case getF5L2Log
    /// We sent ExitSecureSession: every end path goes through here, except after a disconnect.
    case endExitSecureSession

    /// The SDK name, "SMC_BUILD_CANDIDATE_LIST": the state table's (`row`).
    package var name: String { row.name }
    package var description: String { row.name }

    /// Whether a cancel may still stop the payment in this state: the state table's (`row`).
    var cancelWindow: CancelWindow { row.cancelWindow }

    /// The phase this state belongs to: the state table's (`row`).
    package var phase: PaymentPhase { row.phase }

    /// The command this state sends, nil for a task's state or one the payment passes through: the state table's.
    package var command: CommandID? { row.command }

    /// Encoded as its name.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}

extension PaymentState {
    /// A row of the state table: what is known of one state.
    package struct Row: Sendable, Hashable {
        /// The SDKs' name (spec §8.1), as logged, journalled, shown and written in JSON: "SMC_BUILD_CANDIDATE_LIST".
        package let name: String
        /// The command the state sends, whose answer is awaited in it; nil for a task's state or one the payment
        /// passes through. The machine checks every command it sends, and every answer it is fed, against it.
        package let command: CommandID?
        /// The part of the payment an operator times (`PaymentTimings`).
        package let phase: PaymentPhase
        /// Whether a cancel may still stop the payment (spec §8.1 "Cancel rules": only before the card has been
        /// read — during the starting steps and START_TRANSACTION / WAITING_CARD). For NFC the end of
        /// START_TRANSACTION means the card was read; for contact START_TRANSACTION only waits for insertion, so
        /// CARD_READ_END onward is too late for both.
        let cancelWindow: CancelWindow
        /// What the cardholder is asked to do meanwhile; nil: nothing.
        package let cardholder: Prompt?

        init(
            _ name: String, sends command: CommandID? = nil, _ phase: PaymentPhase,
            cancel cancelWindow: CancelWindow = .closed, cardholder: Prompt? = nil
        ) {
            self.name = name
            self.command = command
            self.phase = phase
            self.cancelWindow = cancelWindow
            self.cardholder = cardholder
        }
    }

    /// What a state asks of the cardholder, for an operator's display to word.
    package enum Prompt: Sendable, Hashable, CaseIterable {
        /// Insert, tap or swipe a card (as the request's readers allow): the card wait.
        case presentCard
        /// The card is being read: leave it in the reader (and enter the PIN if the terminal asks).
        case leaveCardInReader
        /// Choose the application on the terminal.
        case chooseApplication
        /// Enter the PIN on the terminal.
        case enterPIN
        /// The payment is finishing: leave the card in the reader.
        case leaveCardWhileFinishing
        /// Remove the card.
        case removeCard
    }

    /// The state table: each state's row, the one place a state is named and described. Every state is listed:
    /// adding one breaks the build here, and only here.
    package var row: Row {
        let beforeCard = CancelWindow.open(longCommandPending: false)
        let cardWait = CancelWindow.open(longCommandPending: true)
        return switch self {
        // Starting steps
        case .startCancelAll: Row("START_CANCEL_ALL", sends: .cancelAll, .start, cancel: beforeCard)
        case .startExitSecureSession:
            Row("START_EXIT_SECURE_SESSION", sends: .exitSecureSession, .start, cancel: beforeCard)
        case .getInfo: Row("GET_INFO", sends: .getInfo, .start, cancel: beforeCard)
        case .enterSecureSession: Row("ENTER_SECURE_SESSION", sends: .enterSecureSession, .start, cancel: beforeCard)
        case .ksnAvailable: Row("KSN_AVAILABLE", .start, cancel: beforeCard)
        // Card
        case .startTransaction:
            Row("START_TRANSACTION", sends: .nfcStartTransaction, .cardWait, cancel: cardWait, cardholder: .presentCard)
        case .waitingCard: Row("WAITING_CARD", sends: .waitCard, .cardWait, cancel: cardWait, cardholder: .presentCard)
        case .cardReadEnd: Row("CARD_READ_END", .cardRead)
        // Contact (ICC)
        case .startICC: Row("START_ICC", .cardRead, cardholder: .leaveCardInReader)
        case .smcBuildCandidateList:
            Row("SMC_BUILD_CANDIDATE_LIST", sends: .buildCandidateList, .cardRead, cardholder: .leaveCardInReader)
        case .smcSelectApplication: Row("SMC_SELECT_APPLICATION", .cardRead)
        case .smcUserSelectApplication:
            Row("SMC_USER_SELECT_APPLICATION", sends: .displayListBox, .cardRead, cardholder: .chooseApplication)
        case .smcInitTransaction:
            Row("SMC_INIT_TRANSACTION", sends: .transactionInit, .cardRead, cardholder: .leaveCardInReader)
        case .smcRiskManagement: Row("SMC_RISK_MANAGEMENT", .cardRead)
        case .smcProcessTransaction:
            Row("SMC_PROCESS_TRANSACTION", sends: .transactionProcess, .cardRead, cardholder: .leaveCardInReader)
        case .smcGetAuthorizationSecuredTags:
            Row("SMC_GET_AUTHORIZATION_SECURED_TAGS", sends: .getSecuredTag, .cardRead)
        case .smcGetAuthorizationPlainTags: Row("SMC_GET_AUTHORIZATION_PLAIN_TAGS", sends: .getPlainTag, .cardRead)
        case .authorization: Row("AUTHORIZATION", .authorization)
        case .smcFinalizeTransaction:
            Row(
                "SMC_FINALIZE_TRANSACTION", sends: .transactionFinalisation, .finalisation,
                cardholder: .leaveCardWhileFinishing)
        case .smcRemoveCard: Row("SMC_REMOVE_CARD", sends: .waitCardRemoval, .cardRemoval, cardholder: .removeCard)
        // Contactless (NFC)
        case .startNFC: Row("START_NFC", .cardRead)
        case .nfcGetAuthorizationSecuredTags:
            Row("NFC_GET_AUTHORIZATION_SECURED_TAGS", sends: .getSecuredTag, .cardRead)
        case .nfcGetAuthorizationPlainTags: Row("NFC_GET_AUTHORIZATION_PLAIN_TAGS", sends: .getPlainTag, .cardRead)
        case .nfcSimplifiedOnlinePIN:
            Row("NFC_SIMPLIFIED_ONLINE_PIN", sends: .simplifiedOnlinePIN, .pin, cardholder: .enterPIN)
        case .nfcCompleteTransaction: Row("NFC_COMPLETE_TRANSACTION", sends: .nfcCompleteTransaction, .finalisation)
        // Magstripe (MSR)
        case .startMSR: Row("START_MSR", .cardRead)
        case .msrGetSecuredTags: Row("MSR_GET_SECURED_TAGS", sends: .getSecuredTag, .cardRead)
        case .msrGetPlainTags: Row("MSR_GET_PLAIN_TAGS", sends: .getPlainTag, .cardRead)
        // PIN
        case .onlinePIN: Row("ONLINE_PIN", sends: .simplifiedOnlinePIN, .pin, cardholder: .enterPIN)
        case .offlinePIN: Row("OFFLINE_PIN", .pin)
        // Ending
        case .getFinalizationSecuredTags: Row("GET_FINALIZATION_SECURED_TAGS", sends: .getSecuredTag, .finalisation)
        case .getFinalizationPlainTags: Row("GET_FINALIZATION_PLAIN_TAGS", sends: .getPlainTag, .finalisation)
        case .getCCL2Log: Row("GET_CC_L2_LOG", sends: .getInfo, .end)
        case .getF4L2Log: Row("GET_F4_L2_LOG", sends: .getInfo, .end)
        case .getF5L2Log: Row("GET_F5_L2_LOG", sends: .getInfo, .end)
        case .endExitSecureSession: Row("END_EXIT_SECURE_SESSION", sends: .exitSecureSession, .end)
        }
    }
}

/// The parts of a payment an operator times (`pay --json` `timings`, the summary's `timings:` line). PROJECT CHOICE:
/// the phases follow the states (spec §8.1) as `PaymentState.phase` maps them; a contact card's offline PIN is
/// entered inside TransactionProcess and so counts as reading the card, and PIN is the states that ask for one
/// (online PIN, NFC simplified online PIN).
package enum PaymentPhase: String, Sendable, CaseIterable, Codable {
    /// The starting steps: resynchronisation, GetInfo, the secure session.
    case start
    /// WaitCard / StartNFC until a card is there.
    case cardWait
    /// Reading the card: application selection, the EMV or NFC transaction, the authorization tags.
    case cardRead
    case pin
    /// The host's authorization (the issuer, or the operator's prompt).
    case authorization
    /// TransactionFinalisation or CompleteNFC and the final tags.
    case finalisation
    case cardRemoval
    /// The closing steps: level-2 logs, ExitSecureSession.
    case end

    /// "card wait", for the summary.
    package var label: String {
        switch self {
        case .start: "start"
        case .cardWait: "card wait"
        case .cardRead: "card read"
        case .pin: "PIN"
        case .authorization: "authorization"
        case .finalisation: "finalisation"
        case .cardRemoval: "card removal"
        case .end: "end"
        }
    }
}

/// Seconds spent in each phase of a payment, in phase order; a phase the flow did not go through is absent.
package struct PaymentTimings: Hashable, Sendable, Encodable {
    package private(set) var seconds: [PaymentPhase: Double] = [:]

    package init() {}

    /// From the states entered and when (seconds since the payment started), and the time it ended: each state
    /// lasts until the next one is entered.
    /// `pinInProcess`: a contact card's PIN (offline, or online enciphered) was entered during TransactionProcess,
    /// which has no state of its own for it: that state's time counts as the PIN phase (the cardholder typing is
    /// what it waits for), not as reading the card.
    package init(states: [(PaymentState, Double)], end: Double, pinInProcess: Bool = false) {
        for (index, (state, entered)) in states.enumerated() {
            let left = index + 1 < states.count ? states[index + 1].1 : end
            let phase = pinInProcess && state == .smcProcessTransaction ? .pin : state.phase
            seconds[phase, default: 0] += max(0, left - entered)
        }
    }

    /// Whether CVM results (9F34, EMV Book 3 Annex C3) say a PIN was entered: the method (byte 1, bits 6–1) is a
    /// plaintext or enciphered offline PIN or an enciphered online PIN (01–05), and the result (byte 3) is not
    /// "failed" (01).
    package static func pinEntered(cvmResults: [UInt8]?) -> Bool {
        guard let cvm = cvmResults, cvm.count == 3 else { return false }
        return (1...5).contains(cvm[0] & 0x3F) && cvm[2] != 0x01
    }

    /// The phases present, in order.
    package var phases: [(phase: PaymentPhase, seconds: Double)] {
        PaymentPhase.allCases.compactMap { phase in seconds[phase].map { (phase, $0) } }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: PhaseKey.self)
        for (phase, value) in phases { try c.encode((value * 1000).rounded() / 1000, forKey: PhaseKey(phase)) }
    }

    private struct PhaseKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ phase: PaymentPhase) { stringValue = phase.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Whether a cancel request can still stop the payment.
enum CancelWindow: Hashable, Sendable {
    /// Cancel is possible; `longCommandPending`: a card-wait command is outstanding and must be ended with CancelAll.
    case open(longCommandPending: Bool)
    /// The card has been read (or the payment is ending): too late.
    case closed
}

/// How the card was read.
package enum EntryMode: String, Sendable, Hashable, Encodable, CaseIterable {
    /// Chip (contact), POS entry mode 0x09.
    case icc
    /// Contactless.
    case nfc
    /// Magnetic stripe, POS entry mode 0x02.
    case msr
}

/// The final status of a payment (spec §8.1 `PaymentStatus`), named as the SDKs name it. Each case says the condition
/// that produces it.
package enum PaymentStatus: String, CaseIterable, Sendable, Hashable, Encodable, CustomStringConvertible {
    /// ICC: TransactionProcess answered TC (PROJECT CHOICE, spec §8.1), or TransactionFinalisation answered status 7.
    /// NFC: outcome byte 1 = 0x36 at StartNFC or at CompleteNFC. MSR: the authorization answered "00".
    case approved = "APPROVED"
    /// ICC: TransactionProcess answered AAC, or TransactionFinalisation answered status 8. NFC: outcome byte 1 = 0x37.
    /// MSR: DF60 = 0x04, or the authorization answered anything but "00".
    case declined = "DECLINED"
    /// A cancel was accepted before the card was read; any command answered −32 or −28; StartNFC answered −2; the NFC
    /// outcome byte 1 is 0x3A; the cardholder aborted the application list (−114); a task reported cancellation.
    case cancelled = "CANCELLED"
    /// The card wait failed: StartNFC answered a status other than −32, −28, −2 or an NFC module error; WaitCard
    /// answered anything but success, −32 or −28.
    case cardWaitFailed = "CARD_WAIT_FAILED"
    /// ICC: no common application — BuildCandidateList answered −300, listed no usable candidate, or every candidate
    /// failed TransactionInitialization.
    case unsupportedCard = "UNSUPPORTED_CARD"
    /// ICC: TransactionProcess answered −301 (EMV not accepted).
    case refusedCard = "REFUSED_CARD"
    /// NFC outcome byte 1 = 0x31: try another interface.
    case nfcOutcomeTryOtherInterface = "NFC_OUTCOME_TRY_OTHER_INTERFACE"
    /// NFC outcome byte 1 = 0x3F: end application.
    case nfcOutcomeEndApplication = "NFC_OUTCOME_END_APPLICATION"
    /// NFC outcome byte 1 = 0x38: failed.
    case nfcOutcomeFailed = "NFC_OUTCOME_FAILED"
    /// MSR: DF60 = 0x02 or 0x03 (chip required): the card must be inserted.
    case chipRequired = "CHIP_REQUIRED"
    /// StartNFC answered a status in the NFC ("mPOS") module error range −0x1020…−0x1030 (spec §6, §8.2).
    case nfcMPOSError = "NFC_MPOS_ERROR"
    /// Any other failure: a command answered an unexpected status, a task failed, the link timed out or sent a bad
    /// frame, a response did not follow its layout.
    case error = "ERROR"
    /// The link to the terminal dropped before the status was decided.
    case errorDisconnect = "ERROR_DISCONNECT"
    /// The terminal is shutting down (spec §6: the status value is not in the sources; no answer maps here yet).
    case errorShuttingDown = "ERROR_SHUTTING_DOWN"
    /// The activated reader (DF70) is missing, unknown, or a reader the request did not enable.
    case errorWrongActivatedReader = "ERROR_WRONG_ACTIVATED_READER"
    /// ICC: TransactionProcess answered without 9F27.
    case errorMissingRequiredCryptogram = "ERROR_MISSING_REQUIRED_CRYPTOGRAM"
    /// ICC: 9F27 is empty or announces the reserved cryptogram type (bits 8–7 = 11).
    case errorWrongCryptogramValue = "ERROR_WRONG_CRYPTOGRAM_VALUE"
    /// NFC: DF72 is missing, not 2 bytes, or its byte 1 is not a known outcome (or an online request after
    /// CompleteNFC).
    case errorWrongNFCOutcome = "ERROR_WRONG_NFC_OUTCOME"

    package var name: String { rawValue }
    package var description: String { rawValue }
}
