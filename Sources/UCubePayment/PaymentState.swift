import UCubeProtocol

/// A progress state of a payment (spec §8.1), named as the SDKs name it (`rawValue`, e.g. "SMC_BUILD_CANDIDATE_LIST").
/// The engine emits one event each time the payment enters one.
package enum PaymentState: String, CaseIterable, Sendable, Hashable, Encodable, CustomStringConvertible {
    // MARK: Starting steps

    /// We sent CancelAll to end whatever the terminal was doing (skipped with `skipStartingSteps`).
    case startCancelAll = "START_CANCEL_ALL"
    /// We sent ExitSecureSession so the session we open next is fresh (skipped with `skipStartingSteps`).
    case startExitSecureSession = "START_EXIT_SECURE_SESSION"
    /// We sent GetInfo (D1 firmware, ED NFC module state) (skipped with `skipStartingSteps`).
    case getInfo = "GET_INFO"
    /// We sent EnterSecureSession; its answer carries the SRED KSN.
    case enterSecureSession = "ENTER_SECURE_SESSION"
    /// The secure session is open and the SRED KSN is known.
    case ksnAvailable = "KSN_AVAILABLE"

    // MARK: Card

    /// We sent NFCStartTransaction (0x5530): the terminal waits for a card; for NFC the whole read happens here.
    case startTransaction = "START_TRANSACTION"
    /// We sent WaitCard (0x5020), the contact/magstripe-only path when no NFC reader is asked for.
    case waitingCard = "WAITING_CARD"
    /// The card-wait command answered with an activated reader (DF70); the flow branches on it.
    case cardReadEnd = "CARD_READ_END"

    // MARK: Contact (ICC)

    /// A card is in the chip reader; the contact flow begins.
    case startICC = "START_ICC"
    /// We sent BuildCandidateList (0x5510).
    case smcBuildCandidateList = "SMC_BUILD_CANDIDATE_LIST"
    /// The application-selection task is choosing among several candidates.
    case smcSelectApplication = "SMC_SELECT_APPLICATION"
    /// We sent DisplayListBox (0x5042): the cardholder chooses the application on the terminal.
    case smcUserSelectApplication = "SMC_USER_SELECT_APPLICATION"
    /// We sent TransactionInitialization (0x5511) for the selected AID.
    case smcInitTransaction = "SMC_INIT_TRANSACTION"
    /// The risk-management task is computing the TVR.
    case smcRiskManagement = "SMC_RISK_MANAGEMENT"
    /// We sent TransactionProcess (0x5512); its answer must carry 9F27.
    case smcProcessTransaction = "SMC_PROCESS_TRANSACTION"
    /// We sent GetSecuredTag (0x5025) for the authorization secured tags (after an ARQC).
    case smcGetAuthorizationSecuredTags = "SMC_GET_AUTHORIZATION_SECURED_TAGS"
    /// We sent GetPlainTag (0x5026) for the authorization plain tags (after an ARQC).
    case smcGetAuthorizationPlainTags = "SMC_GET_AUTHORIZATION_PLAIN_TAGS"
    /// The authorization task is asking the issuer (ICC ARQC, NFC online request, MSR).
    case authorization = "AUTHORIZATION"
    /// We sent TransactionFinalisation (0x5513); status 7 approves, 8 declines.
    case smcFinalizeTransaction = "SMC_FINALIZE_TRANSACTION"
    /// We sent WaitCardRemoval (0x5021) (skipped with `skipCardRemoval`).
    case smcRemoveCard = "SMC_REMOVE_CARD"

    // MARK: Contactless (NFC)

    /// A card was read contactlessly; its outcome (DF72) is in the NFCStartTransaction answer.
    case startNFC = "START_NFC"
    /// We sent GetSecuredTag (0x5025) for the NFC authorization secured tags.
    case nfcGetAuthorizationSecuredTags = "NFC_GET_AUTHORIZATION_SECURED_TAGS"
    /// We sent GetPlainTag (0x5026) for the NFC authorization plain tags.
    case nfcGetAuthorizationPlainTags = "NFC_GET_AUTHORIZATION_PLAIN_TAGS"
    /// We sent SimplifiedOnlinePIN (0x5171): outcome byte 0 was 0x34 or the request forces online PIN.
    case nfcSimplifiedOnlinePIN = "NFC_SIMPLIFIED_ONLINE_PIN"
    /// We sent NFCCompleteTransaction (0x5531) with DF73 = the authorization response code.
    case nfcCompleteTransaction = "NFC_COMPLETE_TRANSACTION"

    // MARK: Magstripe (MSR)

    /// A card was swiped; the magstripe flow begins.
    case startMSR = "START_MSR"
    /// We sent GetSecuredTag (0x5025) for the card data block (DF62).
    case msrGetSecuredTags = "MSR_GET_SECURED_TAGS"
    /// We sent GetPlainTag (0x5026) for the MSR action (DF60) and BIN (DF61).
    case msrGetPlainTags = "MSR_GET_PLAIN_TAGS"

    // MARK: PIN progress (Android)

    /// We sent SimplifiedOnlinePIN (0x5171) in the magstripe flow.
    case onlinePIN = "ONLINE_PIN"
    /// Offline PIN entry. It happens inside TransactionProcess (spec §5.2 0x5512), where the host cannot see it, so
    /// this machine never enters the state; it is listed because the Android SDK names it.
    case offlinePIN = "OFFLINE_PIN"

    // MARK: Ending

    /// We sent GetSecuredTag (0x5025) for the finalization secured tags (approved or declined payments).
    case getFinalizationSecuredTags = "GET_FINALIZATION_SECURED_TAGS"
    /// We sent GetPlainTag (0x5026) for the finalization plain tags (approved or declined payments).
    case getFinalizationPlainTags = "GET_FINALIZATION_PLAIN_TAGS"
    /// We sent GetInfo CC (SVPP level-2 log record 2) (with `retrieveL2Logs`).
    case getCCL2Log = "GET_CC_L2_LOG"
    /// We sent GetInfo F4 (SVPP level-2 log part) (with `retrieveL2Logs`).
    case getF4L2Log = "GET_F4_L2_LOG"
    /// We sent GetInfo F5 (SVPP level-2 log part) (with `retrieveL2Logs`).
    case getF5L2Log = "GET_F5_L2_LOG"
    /// We sent ExitSecureSession: every end path goes through here, except after a disconnect.
    case endExitSecureSession = "END_EXIT_SECURE_SESSION"

    /// The SDK name, "SMC_BUILD_CANDIDATE_LIST".
    package var name: String { rawValue }
    package var description: String { rawValue }

    /// Whether a cancel may still stop the payment in this state (spec §8.1 "Cancel rules": only before the card has
    /// been read — during the starting steps and START_TRANSACTION / WAITING_CARD). For NFC the end of
    /// START_TRANSACTION means the card was read; for contact START_TRANSACTION only waits for insertion, so
    /// CARD_READ_END onward is too late for both. Every state is listed: adding one breaks the build here.
    var cancelWindow: CancelWindow {
        switch self {
        case .startCancelAll, .startExitSecureSession, .getInfo, .enterSecureSession, .ksnAvailable:
            return .open(longCommandPending: false)
        case .startTransaction, .waitingCard:
            return .open(longCommandPending: true)
        case .cardReadEnd,
            .startICC, .smcBuildCandidateList, .smcSelectApplication, .smcUserSelectApplication, .smcInitTransaction,
            .smcRiskManagement, .smcProcessTransaction, .smcGetAuthorizationSecuredTags, .smcGetAuthorizationPlainTags,
            .authorization, .smcFinalizeTransaction, .smcRemoveCard,
            .startNFC, .nfcGetAuthorizationSecuredTags, .nfcGetAuthorizationPlainTags, .nfcSimplifiedOnlinePIN,
            .nfcCompleteTransaction,
            .startMSR, .msrGetSecuredTags, .msrGetPlainTags,
            .onlinePIN, .offlinePIN,
            .getFinalizationSecuredTags, .getFinalizationPlainTags, .getCCL2Log, .getF4L2Log, .getF5L2Log,
            .endExitSecureSession:
            return .closed
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

extension PaymentState {
    /// The phase this state belongs to. Every state is listed: adding one breaks the build here.
    package var phase: PaymentPhase {
        switch self {
        case .startCancelAll, .startExitSecureSession, .getInfo, .enterSecureSession, .ksnAvailable: .start
        case .startTransaction, .waitingCard: .cardWait
        case .cardReadEnd, .startICC, .smcBuildCandidateList, .smcSelectApplication, .smcUserSelectApplication,
            .smcInitTransaction, .smcRiskManagement, .smcProcessTransaction, .smcGetAuthorizationSecuredTags,
            .smcGetAuthorizationPlainTags, .startNFC, .nfcGetAuthorizationSecuredTags, .nfcGetAuthorizationPlainTags,
            .startMSR, .msrGetSecuredTags, .msrGetPlainTags:
            .cardRead
        case .onlinePIN, .offlinePIN, .nfcSimplifiedOnlinePIN: .pin
        case .authorization: .authorization
        case .smcFinalizeTransaction, .nfcCompleteTransaction, .getFinalizationSecuredTags, .getFinalizationPlainTags:
            .finalisation
        case .smcRemoveCard: .cardRemoval
        case .getCCL2Log, .getF4L2Log, .getF5L2Log, .endExitSecureSession: .end
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
enum CancelWindow: Equatable {
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
