import UCubeLink
import UCubeProtocol

/// The starting steps (spec §8.6: the reset, GetInfo, the secure session) and the card wait (spec §8.1, §8.2), up to
/// the card read, where the flow branches on the reader that read the card.
extension PaymentStateMachine {
    /// What the starting steps know and have learned (spec §8.6).
    struct Start: Sendable {
        /// What the link said about the terminal when the payment started: which starting steps are due.
        var link: LinkStart
        /// CancelAll was sent at the start: the starting steps run in full.
        var fullStart = false
        /// The GetInfo answer this payment read, or the known terminal's once its KSN matched.
        var terminalInfo: [UInt8]?

        /// A known terminal from a clean link, still to be confirmed by EnterSecureSession's KSN.
        var usableKnownTerminal: KnownTerminal? { link.idle ? link.terminal : nil }
    }

    /// A starting step or the card wait, with its command outstanding. No card yet.
    enum StartStep: Sendable {
        case cancelAll(Start)
        case exitSecureSession(Start)
        case getInfo(Start)
        case enterSecureSession(Start)
        /// StartNFC; `left`: what its C1 leaves of the NFC plain lists (nil when NFC is not asked for).
        case startTransaction(left: PlainLeft?)
        case waitingCard

        var name: PaymentState {
            switch self {
            case .cancelAll: .startCancelAll
            case .exitSecureSession: .startExitSecureSession
            case .getInfo: .getInfo
            case .enterSecureSession: .enterSecureSession
            case .startTransaction: .startTransaction
            case .waitingCard: .waitingCard
            }
        }
    }

    mutating func startResponse(_ step: StartStep, _ response: TerminalResponse) -> Action {
        switch step {
        // CancelAll and ExitSecureSession reset the terminal; their statuses do not matter.
        case .cancelAll(let start):
            return go(.start(.exitSecureSession(start)), .exitSecureSession(ExitSecureSession()))
        case .exitSecureSession(let start):
            return terminalInfoStep(start)
        case .getInfo(var start):
            guard response.status.isSuccess else { return failed(.start(step), response) }
            if !response.ciphered {
                start.terminalInfo = response.data
                applyTerminalInfo(response.data)
            }
            return enterSecureSession(start)
        case .enterSecureSession(let start):
            return secureSessionEntered(response, start)
        case .startTransaction(let left):
            return startTransactionAnswered(response, left: left)
        case .waitingCard:
            return waitCardAnswered(response)
        }
    }

    // MARK: Starting steps

    /// The starting steps the link's state calls for (spec §8.6, PROJECT CHOICE): CancelAll only when something may
    /// be pending, ExitSecureSession only when a session may be open, GetInfo only when the terminal is not known.
    mutating func startingSteps(_ start: Start) -> Action {
        guard start.link.idle else { return fullStartingSteps(start) }
        if start.link.secured {
            return go(.start(.exitSecureSession(start)), .exitSecureSession(ExitSecureSession()))
        }
        return terminalInfoStep(start)
    }

    /// CancelAll, ExitSecureSession, GetInfo: what the SDKs always send, and what ucube sends when the link's state is
    /// not known.
    private mutating func fullStartingSteps(_ start: Start) -> Action {
        var start = start
        start.fullStart = true
        start.link = .unknown
        return go(.start(.cancelAll(start)), .cancelAll(CancelAll()))
    }

    /// GetInfo (D1 firmware, ED NFC module state), unless the link knows the terminal.
    private mutating func terminalInfoStep(_ start: Start) -> Action {
        if start.usableKnownTerminal != nil { return enterSecureSession(start) }
        return go(.start(.getInfo(start)), .getInfo(GetInfo(tags: Self.terminalInfoTags)))
    }

    /// The GetInfo tags of the starting steps: D1 the firmware version, ED the NFC module state.
    static let terminalInfoTags: [UInt8] = [0xD1, 0xED]

    private mutating func applyTerminalInfo(_ data: [UInt8]) {
        let info: DeviceInfo
        do throws(CommandError) {
            info = try DeviceInfo(status: .success, data: data)
        } catch {
            context.errors.append(PaymentError(state: currentState, "GetInfo's D1/ED", decoding: error))
            return
        }
        context.firmwareVersion = info.firmwareVersion?.description
        context.nfcModuleState = info.nfcModuleState.flatMap { UInt8(exactly: $0) }
        if request.readersFromTerminal,
            let readers = TerminalReaders.readers(firmware: info.firmwareVersion, nfcModuleState: info.nfcModuleState)
        {
            context.request.readers = readers
        }
    }

    mutating func enterSecureSession(_ start: Start) -> Action {
        go(.start(.enterSecureSession(start)), .enterSecureSession(EnterSecureSession()))
    }

    private mutating func secureSessionEntered(_ response: TerminalResponse, _ start: Start) -> Action {
        var start = start
        guard response.status.isSuccess else {
            // Starting steps skipped on the link's word, and the terminal disagrees: it was not READY and idle
            // after all (another host used it, it rebooted into a state). Nothing is decided yet: start again
            // with the full sequence, once.
            if !start.fullStart, !request.skipStartingSteps { return fullStartingSteps(start) }
            return failed(.start(.enterSecureSession(start)), response)
        }
        guard keepKSN(response), let ksn = context.sredKSN else {
            return end(.error, "EnterSecureSession answered no 10-byte SRED KSN", card: nil)
        }
        if start.terminalInfo == nil, !request.skipStartingSteps, let known = start.usableKnownTerminal {
            // GetInfo was skipped for the terminal met before; the KSN says whether this is that terminal.
            guard known.matches(ksn: ksn) else {
                start.link.terminal = nil
                return go(.start(.exitSecureSession(start)), .exitSecureSession(ExitSecureSession()))
            }
            start.terminalInfo = known.info
            applyTerminalInfo(known.info)
        }
        context.knownTerminal = start.terminalInfo.flatMap { KnownTerminal(ksn: ksn, info: $0) }
        pass(.ksnAvailable)
        return startCardWait()
    }

    @discardableResult
    mutating func keepKSN(_ response: TerminalResponse) -> Bool {
        let decoded = decode(EnterSecureSession.Response.self, response)
        guard case .success(let session) = decoded else {
            if let error = decoded.failure {
                context.errors.append(PaymentError(state: currentState, "EnterSecureSession's KSN", decoding: error))
            }
            return false
        }
        context.sredKSN = session.ksn
        return true
    }

    // MARK: Card wait

    /// START_TRANSACTION (0x5530, single entry point) whenever NFC is enabled or the amount is typed on the
    /// terminal; WAITING_CARD (0x5020) for a contact/magstripe-only request (spec §8.1, §8.2 `PaymentService`).
    private mutating func startCardWait() -> Action {
        let timeout = UInt8(clamping: request.cardWaitTimeout)
        if request.readers.contains(.nfc) || request.amount == nil {
            let (tags, left) = startTransactionTags()
            let command = NFCStartTransaction(
                readers: request.readers,
                cardWaitTimeout: timeout,
                amountOnTerminal: request.amount == nil,
                type: request.transactionType,
                currencyCode: request.currency.numeric,
                exponent: UInt8(clamping: request.currency.exponent),
                amount: request.amount ?? 0,
                cashback: request.cashback,
                forceOnline: request.forceAuthorization,
                requestedTags: tags
            )
            return go(.start(.startTransaction(left: left)), .startTransaction(command))
        }
        return go(.start(.waitingCard), .waitCard(WaitCard(readers: request.readers, timeoutSeconds: timeout)))
    }

    /// StartNFC's C1: what identifies the contactless application and its first cryptogram, and, when NFC is enabled,
    /// the NFC plain tag lists, so that a contactless card needs no GetPlainTag (the current SDK puts the
    /// authorisation list there too, spec §5.2 0x5530). `left`: what C1 leaves of each list (nil without NFC).
    private func startTransactionTags() -> (tags: [Tag], left: PlainLeft?) {
        guard request.readers.contains(.nfc) else { return (PaymentTagDefaults.startTransaction, nil) }
        let (tags, left) = Self.requestedTags(
            PaymentTagDefaults.startTransaction,
            adding: [request.authorizationPlainTags(for: .nfc), request.finalizationPlainTags(for: .nfc)])
        return (tags, PlainLeft(authorization: left[0], finalization: left[1]))
    }

    private mutating func startTransactionAnswered(_ response: TerminalResponse, left: PlainLeft?) -> Action {
        guard response.status.isSuccess else {
            // PROJECT CHOICE: −2 (no card before the card-wait timeout) → CARD_WAIT_FAILED, as the newer SDK's
            // status list says ("no card / StartNFC failed", spec §8.1), not the legacy service's CANCELLED (§8.2):
            // CANCELLED stays the answer to a cancel (−32, −28, handled before this point), so a script can tell a
            // customer who never tapped from an operator who cancelled. NFC module errors → NFC_MPOS_ERROR.
            if response.status == .timeout {
                return end(.cardWaitFailed, "no card within the card wait timeout (-2)", card: nil)
            }
            if response.status.isNFCModuleError {
                return end(.nfcMPOSError, "NFCStartTransaction answered \(response.status)", card: nil)
            }
            return end(.cardWaitFailed, "NFCStartTransaction answered \(response.status)", card: nil)
        }
        let decoded = decode(NFCStartTransaction.Response.self, response)
        guard case .success(let answer) = decoded else {
            return end(.error, "NFCStartTransaction answered bad TLVs", decoded.failure, card: nil)
        }
        guard let reader = answer.activatedReader, request.readers.contains(reader) else {
            let raw = answer.tlvs[NFCStartTransaction.Response.activatedReaderTag].map(\.hex) ?? "none"
            return end(.errorWrongActivatedReader, "activated reader (DF70) \(raw) was not requested", card: nil)
        }
        if request.amount == nil {
            if let typed = answer.tlvs[Tag(0x9F02)] {
                do throws(AmountError) {
                    context.typedAmount = try Currency.minorUnits(fromBCD: typed)
                } catch {
                    context.errors.append(
                        PaymentError(
                            state: currentState, code: error.code.rawValue,
                            reason: "the typed amount (9F02): \(error.reason)"))
                }
            }
        }
        return cardRead(reader, answer: answer, left: left)
    }

    private mutating func waitCardAnswered(_ response: TerminalResponse) -> Action {
        guard response.status.isSuccess else {
            // spec §8.2 PaymentService: anything but −32 → CARD_WAIT_FAILED.
            return end(.cardWaitFailed, "WaitCard answered \(response.status)", card: nil)
        }
        let decoded = decode(WaitCard.Response.self, response)
        guard case .success(let answer) = decoded else {
            return end(.errorWrongActivatedReader, "WaitCard answered an unknown reader", decoded.failure, card: nil)
        }
        guard answer.reader != .nfc, request.readers.contains(answer.reader) else {
            return end(
                .errorWrongActivatedReader, "WaitCard activated \(answer.reader), which was not requested", card: nil)
        }
        return cardRead(answer.reader, answer: nil, left: nil)
    }

    /// The card is read (CARD_READ_END): from here on every state carries it, and the flow of its reader begins.
    /// `left`: what StartNFC's C1 left of the NFC plain lists.
    private mutating func cardRead(
        _ reader: CardReader, answer: NFCStartTransaction.Response?, left: PlainLeft?
    ) -> Action {
        context.activatedReader = reader
        pass(.cardReadEnd)
        switch reader {
        case .icc: return chipInserted()
        case .nfc: return contactlessRead(answer, left: left)
        case .msr: return magstripeSwiped()
        }
    }
}
