import UCubeProtocol

/// A terminal command the payment sends: one case per typed command of spec §5.2 the flows use.
package enum PaymentCommand: Hashable, Sendable {
    case cancelAll(CancelAll)
    case exitSecureSession(ExitSecureSession)
    case getInfo(GetInfo)
    case enterSecureSession(EnterSecureSession)
    case startTransaction(NFCStartTransaction)
    case waitCard(WaitCard)
    case buildCandidateList(BuildCandidateList)
    case displayListBox(DisplayListBox)
    case transactionInit(TransactionInit)
    case transactionProcess(TransactionProcess)
    case transactionFinalisation(TransactionFinalisation)
    case waitCardRemoval(WaitCardRemoval)
    case getSecuredTag(GetSecuredTag)
    case getPlainTag(GetPlainTag)
    case simplifiedOnlinePIN(SimplifiedOnlinePIN)
    case completeTransaction(NFCCompleteTransaction)

    /// The wrapped command, to be sent as it is: the engine sends whatever the machine chose without switching over
    /// the cases again.
    package var rpc: any RPCCommand {
        switch self {
        case .cancelAll(let c): c
        case .exitSecureSession(let c): c
        case .getInfo(let c): c
        case .enterSecureSession(let c): c
        case .startTransaction(let c): c
        case .waitCard(let c): c
        case .buildCandidateList(let c): c
        case .displayListBox(let c): c
        case .transactionInit(let c): c
        case .transactionProcess(let c): c
        case .transactionFinalisation(let c): c
        case .waitCardRemoval(let c): c
        case .getSecuredTag(let c): c
        case .getPlainTag(let c): c
        case .simplifiedOnlinePIN(let c): c
        case .completeTransaction(let c): c
        }
    }

    /// The wire id of the wrapped command.
    package var id: CommandID { type(of: rpc).id }

    /// Whether this is the payment's card wait (WaitCard, or StartNFCTransaction for contactless): the one command a
    /// cancel interrupts with CancelAll, once it was sent (spec §2.8).
    package var isCardWait: Bool {
        switch self {
        case .startTransaction, .waitCard: true
        default: false
        }
    }
}

/// A terminal's answer as the machine reads it: the command it answers, the status (a value), and the DATA field.
/// The machine decodes `data` with the command's typed response, so tests can build answers without a link.
package struct TerminalResponse: Hashable, Sendable {
    package var command: CommandID
    package var status: Status
    /// The response DATA field; ciphertext when `ciphered`.
    package var data: [UInt8]
    /// The data is SIGNED_CIPHERED ciphertext (secure session, spec §2.3): it is kept, never read.
    package var ciphered: Bool

    package init(command: CommandID, status: Status, data: [UInt8] = [], ciphered: Bool = false) {
        self.command = command
        self.status = status
        self.data = data
        self.ciphered = ciphered
    }

    /// A success answer carrying `response`'s data (status 0, or the status the response names for
    /// TransactionFinalisation).
    package static func ok<C: RPCCommand>(_ command: C.Type, _ response: C.Response) -> TerminalResponse {
        var status = Status.success
        if let finalisation = response as? TransactionFinalisation.Response { status = finalisation.status }
        return TerminalResponse(command: C.id, status: status, data: response.encodeData())
    }

    /// An answer with `status` and no data.
    package static func status<C: RPCCommand>(_ command: C.Type, _ status: Status) -> TerminalResponse {
        TerminalResponse(command: C.id, status: status)
    }
}

/// Work the engine hands to a task hook.
package enum TaskRequest: Hashable, Sendable {
    /// Choose among these candidates (more than one, none blocked).
    case selectApplication([CandidateApplication])
    /// Compute the TVR for the application TransactionInitialization selected.
    case riskManagement(aid: [UInt8])
    /// Ask the issuer; `cryptogram` is the card's (ARQC for ICC, from 9F27 when given for NFC).
    case authorize(AuthorizationRequest)
}

/// What the authorization task is asked to authorize.
package struct AuthorizationRequest: Hashable, Sendable, Encodable {
    package var entryMode: EntryMode
    /// Minor units (the typed amount when the cardholder typed it).
    package var amount: UInt64
    package var currency: String
    package var cryptogram: CryptogramType?
    /// The online PIN was taken (its block is in the context).
    package var onlinePIN: Bool

    package init(entryMode: EntryMode, amount: UInt64, currency: String, cryptogram: CryptogramType?, onlinePIN: Bool) {
        self.entryMode = entryMode
        self.amount = amount
        self.currency = currency
        self.cryptogram = cryptogram
        self.onlinePIN = onlinePIN
    }
}

/// What a task hook produced.
package enum TaskResult: Hashable, Sendable {
    /// The application-selection task's choice; `nil`: the task cancelled the payment.
    case applicationSelected(CandidateApplication?)
    /// The risk-management task's TVR (5 bytes).
    case riskManagementDone(tvr: [UInt8])
    /// The issuer's answer.
    case authorized(AuthorizationResponse)
    /// The task gave up (prompt aborted, cancelled): the payment ends CANCELLED.
    case cancelled
    /// The task failed: the payment ends ERROR with its reason, and its code in the payment's errors.
    case failed(TaskFailure)
}

/// How a payment ended: its status and, when not self-explanatory, why.
package struct PaymentOutcome: Hashable, Sendable, Encodable {
    package var status: PaymentStatus
    package var reason: String?

    package init(_ status: PaymentStatus, reason: String? = nil) {
        self.status = status
        self.reason = reason
    }
}

/// What to do next, as plain data (STYLE: AsyncHTTPClient `Action`).
package enum PaymentAction: Hashable, Sendable {
    /// Send this command and feed its answer to `responseReceived` (a link failure to `linkLost` / `commandFailed`).
    case send(PaymentCommand)
    /// Run this task hook and feed its result to `taskFinished`.
    case runTask(TaskRequest)
    /// Send CancelAll now: the pending card-wait command will answer −32.
    case cancelPendingCommand
    /// Nothing to do (waiting for an outstanding answer, or the payment already finished).
    case none
    /// The payment is over: report this outcome. Returned exactly once per payment.
    case finish(PaymentOutcome)
}

/// The answer to a cancel request (spec §8.1 "Cancel rules"). Each request gets exactly one, however many come and
/// in whatever order: the first one the rule allows is `accepted`, every later one learns that the payment already
/// ends CANCELLED, and one that comes after the card was read is refused.
package enum CancelDecision: Hashable, Sendable {
    /// This request decided it: the payment will end CANCELLED; perform the action (`.cancelPendingCommand` while a
    /// card wait is pending).
    case accepted(PaymentAction)
    /// Nothing to do: the payment already ends (or has ended) CANCELLED, because an earlier request was accepted or
    /// the terminal itself answered −32.
    case alreadyCancelled
    /// Too late: the payment runs to its end (or has ended with another status).
    case refused(String)

    /// The refusal after the card has been read.
    package static let tooLate = "too late — card already read"
}
