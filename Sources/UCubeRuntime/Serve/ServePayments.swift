import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// The body of `POST /v1/payments`. The amount is a string in the currency's units, as `pay` takes it ("12.50").
package struct PaymentOrder: Decodable, Sendable {
    package var amount: String
    package var currency: String?
    package var type: String?
    package var cashback: String?
    package var requestId: String?
    package var device: String?
    /// The built-in simulator's card (`--device sim` only), as `pay --card`.
    package var card: String?
    /// auto, first, an AID in hex, or prompt (the default: the client is asked, `POST …/choice`).
    package var select: String?
    /// Seconds to wait for a card, 1…255.
    package var cardTimeout: Int?
}

/// Starts, runs and cancels the payments `ucube serve` takes, as `pay` runs one: the request id claimed in the journal
/// (`RequestClaim`, so that it holds across processes), the terminal's lock and control socket (`Connection`), the
/// engine through `PaymentRunner` (the cancel rule, Ctrl-C and SIGTERM, `ucube cancel`), the host's settlement.
package struct ServePayments: Sendable {
    package let desk: PaymentDesk
    /// The server's context: each payment runs in its terminal's (`single`).
    package let context: CommandContext
    /// `--authorize` (and the host's files), else each terminal's own hook, else `$UCUBE_AUTHORIZE`, else approve: a
    /// web page never decides the issuer's answer.
    package let authorizeWord: String?
    package let hostFiles: HostTLSFiles
    package let hostTimeout: Duration
    /// `pay`'s own parser over an order's words (the command line's, handed in by `serve`): the settings, or the
    /// message of why they are not valid.
    package let parsePayment: @Sendable ([String]) -> Result<any PaymentWords, PaymentWordsRefused>

    package init(
        desk: PaymentDesk,
        context: CommandContext,
        authorizeWord: String?,
        hostFiles: HostTLSFiles,
        hostTimeout: Duration,
        parsePayment: @escaping @Sendable ([String]) -> Result<any PaymentWords, PaymentWordsRefused>
    ) {
        self.desk = desk
        self.context = context
        self.authorizeWord = authorizeWord
        self.hostFiles = hostFiles
        self.hostTimeout = hostTimeout
        self.parsePayment = parsePayment
    }

    /// Starts `order`: 202 and the new payment, 200 and the payment its request id already names, or a refusal.
    package func start(_ order: PaymentOrder) async -> Result<(Int, ServedPayment), ServeError> {
        let device: String
        if let named = order.device {
            guard desk.devices.contains(named) else { return .failure(unknownTerminal(named)) }
            device = named
        } else if desk.devices.count == 1 {
            device = desk.devices[0]
        } else {
            return .failure(
                ServeError(
                    400, "device-required", "this server has \(desk.devices.count) terminals: name one in `device`",
                    hint: "GET /v1/terminals lists them"))
        }
        let prepared: Prepared
        switch prepare(order, device: device) {
        case .success(let value): prepared = value
        case .failure(let error): return .failure(error)
        }
        let request = prepared.request
        let served = ServedPayment(
            requestID: request.requestID, device: device, amount: request.amount ?? 0,
            currency: request.currency.alpha, type: request.transactionType.name)
        switch desk.reserve(served) {
        case .existing(let payment): return .success((200, payment))
        case .refused(let error): return .failure(error)
        case .reserved: break
        }
        // Another process (a `ucube pay`, another server) may hold the terminal: refused before anything is claimed.
        let address = prepared.address
        if let holder = DeviceLock.holder(key: Environment.fileKey(address)), holder != getpid() {
            desk.release(request.requestID)
            return .failure(
                ServeError(
                    409, "terminal-busy", "\(device) is held by another ucube process (pid \(holder))",
                    hint: "one payment per terminal at a time"))
        }
        let journal = PaymentJournal(path: Environment.journalPath)
        let verdict: RequestClaim.Verdict
        do {
            try Environment.requireStateDirectory()
            verdict = try await RequestClaim.claim(request.requestID, journal: journal)
        } catch let failure as CLIFailure {
            desk.release(request.requestID)
            return .failure(ServeError(500, failure.code, failure.message, hint: failure.hint))
        } catch {
            desk.release(request.requestID)
            return .failure(ServeError(500, "journal", "the journal cannot claim the request id: \(error)"))
        }
        switch verdict {
        case .claimed:
            break
        case .finished(let entry):
            desk.release(request.requestID)
            let payment = Self.journalled(entry)
            desk.remember(payment)
            return .success((200, payment))
        case .running(let pid):
            desk.release(request.requestID)
            return .failure(
                ServeError(
                    409, "request-id-running", "a payment with request id \(request.requestID) is running (pid \(pid))",
                    hint: "one payment per request id"))
        case .unresolved(let entry):
            desk.release(request.requestID)
            return .failure(
                ServeError(
                    409, "request-id-unresolved",
                    "a payment with request id \(entry.requestID) started at \(entry.startedAt ?? "?") and its outcome is unknown: no new payment taken",
                    hint: "`ucube history resolve \(entry.requestID) --status …` once its outcome is known"))
        }
        let payments = self
        Task { await payments.run(request.requestID, device: device, prepared, journal: journal) }
        return .success((202, desk.payment(request.requestID) ?? served))
    }

    /// A payment's settings, checked as `pay` checks its command line: the order becomes `pay`'s words (each a word
    /// of its own, options as `--name=value`, the amount after `--`), parsed by `pay`'s own parser.
    private struct Prepared: Sendable {
        package let request: PaymentRequest
        package let scenario: CardScenario?
        package let selection: any ApplicationSelectionTask
        package let authorization: any AuthorizationTask
        package let address: DeviceAddress
    }

    private func prepare(_ order: PaymentOrder, device: String) -> Result<Prepared, ServeError> {
        var words: [String] = []
        if let currency = order.currency { words.append("--currency=\(currency)") }
        if let type = order.type { words.append("--type=\(type)") }
        if let cashback = order.cashback { words.append("--cashback=\(cashback)") }
        if let id = order.requestId { words.append("--request-id=\(id)") }
        if let card = order.card { words.append("--card=\(card)") }
        if let timeout = order.cardTimeout { words.append("--card-timeout=\(timeout)") }
        let select = order.select ?? "prompt"
        if select != "prompt" { words.append("--select=\(select)") }
        words += ["--authorize=approve", "--", order.amount]
        let pay: any PaymentWords
        switch parsePayment(words) {
        case .success(let parsed):
            pay = parsed
        case .failure(let refused):
            let message = refused.message.replacingOccurrences(of: "--", with: "")
            return .failure(ServeError(400, "invalid-payment", message, hint: "docs/openapi.yaml: PaymentOrder"))
        }
        let address: DeviceAddress
        do {
            address = try Connection.resolve(try DeviceAddress(parsing: device), context.single(device, json: true))
        } catch let failure as CLIFailure {
            return .failure(ServeError(500, failure.code, failure.message))
        } catch {
            return .failure(ServeError(500, "device", "\(device): \(error)"))
        }
        var replay = false
        if case .replay = address { replay = true }
        if order.card != nil && address != .simulator && !replay {
            return .failure(
                ServeError(
                    400, "invalid-payment", "card chooses the built-in simulator's card: \(device) is not the simulator"
                ))
        }
        do {
            let hook =
                authorizeWord.map { RememberedHook(word: $0, ca: nil) } ?? context.defaultAuthorization(for: device)
            var files = hostFiles
            if files.ca == nil, let ca = hook.ca { files.ca = ca }
            var request = try pay.request(authorizing: hook)
            if order.requestId == nil { request.requestID = UUID().uuidString }
            let selection: any ApplicationSelectionTask =
                select == "prompt"
                ? ServedSelection(desk: desk, requestID: request.requestID, timeout: ServeChoices.choiceTimeout)
                : try pay.selectionTask()
            let authorization = try PaymentTasks.authorization(
                hook.word, prompt: nil, timeout: hostTimeout, files: files)
            let scenario = try order.card.map(BuiltInSimulator.scenario(named:))
            return .success(
                Prepared(
                    request: request, scenario: scenario, selection: selection, authorization: authorization,
                    address: address))
        } catch let error as UsageError {
            return .failure(ServeError(400, "invalid-payment", error.message))
        } catch let failure as CLIFailure {
            return .failure(ServeError(400, "invalid-payment", failure.message))
        } catch {
            return .failure(ServeError(400, "invalid-payment", "\(error)"))
        }
    }

    /// Runs the payment on its terminal, in the terminal's unit of work (`ControlSocket.inUnit`): `ucube cancel
    /// --device D` and `POST …/cancel` reach it the same way.
    private func run(_ id: String, device: String, _ prepared: Prepared, journal: PaymentJournal) async {
        let early = StopRequest()
        let desk = desk
        let context = context.single(device, json: true)
        do {
            let payment = try await ControlSocket.inUnit(
                device,
                stop: {
                    early.request()
                    return CancelAnswer(.accepted, "cancelling the payment before its first command")
                }
            ) {
                try await withConnection(context, card: prepared.scenario, prepare: .payment) { connection in
                    desk.started(id)
                    return await PaymentRunner.run(
                        on: connection, shell: nil, request: prepared.request, selection: prepared.selection,
                        authorization: prepared.authorization, journal: journal, progress: nil, attach: nil,
                        early: early, observe: { event in desk.note(id, event) })
                }
            }
            // A host's approval the payment did not keep is reversed before the outcome is answered.
            let host = await (prepared.authorization as? HostAuthorization)?.settle(payment)
            let receipt = Receipt(
                JournalEntry(payment, startedAt: payment.startedAt, finishedAt: payment.finishedAt ?? ""))
            let status = payment.status?.rawValue
            StandardError.write("serve: payment \(id) on \(device): \(status ?? "no status")")
            desk.finish(
                id,
                outcome: ServedOutcome(
                    status: status, result: PaymentContextJSON(context: payment, receipt: receipt, host: host),
                    receiptLines: receipt.lines()))
        } catch let failure as CLIFailure {
            StandardError.write("serve: payment \(id) on \(device) did not start: \(failure.message)")
            let status = failure.exit.code == ExitCodes.busy.code ? 409 : 503
            desk.failed(id, ServeError(status, failure.code, failure.message, hint: failure.hint))
        } catch {
            desk.failed(id, ServeError(503, "failure", "the payment did not start: \(error)"))
        }
    }

    /// `POST /v1/payments/{id}/cancel`: what `ucube cancel` would answer for this payment, and its HTTP status.
    package func cancel(_ id: String) async -> (Int, CancelReport) {
        guard let payment = desk.payment(id) ?? Self.fromJournal(id) else {
            return (404, CancelReport(result: "no-payment", message: "no payment \(id) is known"))
        }
        if !payment.phase.isFinal {
            // An application choice waiting: the cardholder's cancel, as at the shell's prompt.
            if payment.prompt != nil, desk.answer(id, nil) {
                let answer = CancelAnswer(.accepted, "the application choice is cancelled: the payment ends CANCELLED")
                desk.cancelAnswered(id, answer)
                return (202, CancelReport(result: "cancelled", message: answer.message))
            }
            let answer = await ControlSocket.cancelInProcess(unit: payment.device)
            switch answer.kind {
            case .accepted, .already, .refused:
                desk.cancelAnswered(id, answer)
                return Self.report(answer)
            default:
                break
            }
        }
        let final = desk.payment(id) ?? payment
        if final.status == PaymentStatus.cancelled.rawValue {
            return Self.report(CancelAnswer(.already, "the payment ended CANCELLED"))
        }
        if final.phase == .failed {
            return (409, CancelReport(result: "refused", message: "the payment did not start: nothing to cancel"))
        }
        return Self.report(CancelAnswer(.refused, "the payment ended \(final.status ?? "without a status")"))
    }

    private static func report(_ answer: CancelAnswer) -> (Int, CancelReport) {
        switch answer.kind {
        case .accepted: return (202, CancelReport(result: "cancelled", message: answer.message))
        case .already: return (200, CancelReport(result: "already-cancelled", message: answer.message))
        case .refused: return (409, CancelReport(result: "refused", message: answer.message))
        default: return (409, CancelReport(result: "no-payment", message: answer.message))
        }
    }

    package func unknownTerminal(_ device: String) -> ServeError {
        ServeError(
            404, "unknown-terminal", "\(device) is not one of this server's terminals",
            hint: "GET /v1/terminals lists them")
    }

    /// The payment the journal holds for `id` (the last with that request id), as the server answers it.
    package static func fromJournal(_ id: String) -> ServedPayment? {
        guard let entries = try? PaymentJournal.history(Environment.journalPath),
            let entry = entries.last(where: { $0.requestID == id })
        else { return nil }
        return journalled(RunningPayments.marked([entry])[0])
    }

    package static func journalled(_ entry: JournalEntry) -> ServedPayment {
        var payment = ServedPayment(
            requestID: entry.requestID, device: entry.device ?? "", amount: entry.amount ?? 0,
            currency: entry.currency ?? "", type: entry.type ?? "purchase")
        let status = entry.resolution?.status ?? (entry.isUnknown ? nil : entry.status)
        payment.phase = status == nil ? .running : .finished
        payment.status = status
        payment.journalled = entry
        if status != nil {
            let receipt = Receipt(entry)
            payment.receiptFromJournal = receipt.lines()
        }
        return payment
    }
}

/// `select: prompt`: the client chooses (`POST /v1/payments/{id}/choice`), as the shell's prompt would.
package struct ServedSelection: ApplicationSelectionTask {
    package let desk: PaymentDesk
    package let requestID: String
    package let timeout: Duration

    package func select(_ candidates: [CandidateApplication], context: PaymentContext) async throws
        -> CandidateApplication?
    {
        guard let index = await desk.chooseApplication(requestID, candidates, timeout: timeout),
            candidates.indices.contains(index)
        else { return nil }
        return candidates[index]
    }
}
