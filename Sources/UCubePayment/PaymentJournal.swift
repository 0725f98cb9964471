import Foundation
import UCubeLink
import UCubeProtocol
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The payment journal: JSON lines appended to a file the caller names (the CLI: `$XDG_STATE_HOME/ucube/
/// journal.jsonl`). Each payment writes a `start` record before its first command, a `step` record for each
/// command's answer before acting on it, and an `outcome` record at its end; an operator's decision on a payment whose
/// outcome is unknown is a `resolution` record, appended, the original records kept. Each record is durable
/// (`AppendOnlyFile`: `write` + `fsync`) before the call returns. The file is created with mode 0600 and
/// opened `O_APPEND`. Records hold the masked PAN at most — never clear card data.
///
/// With an authorisation host (`--authorize exec:…|https://…`, docs/authorization.md) a payment also writes a `claim`
/// of its request id before anything else (under the journal's lock: one payment per request id), an
/// `authorization` record before the request goes to the host (`hostDecision` "pending") and another with the host's
/// decision before the card hears it, and `reversal` records: owed (`acknowledged` false) before a reversal is sent,
/// acknowledged once the host says so. A host's approval (or a request whose answer was never journalled) that does
/// not end in an APPROVED payment is owed a reversal until an acknowledged `reversal` record says otherwise.
///
/// Each payment has its own identity, the `payment` key of its start record (a fresh UUID), written in every record
/// of that payment; history pairs records by it. The request id is data: two payments may carry one (a crash, a
/// writer that bypassed the claim, an older journal), and each keeps its own records. Records without the key (a
/// journal written before it existed) are paired by request id, as they were then (`history(parsing:)`).
package struct PaymentJournal: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// One line of the journal.
    package struct Record: Codable, Hashable, Sendable {
        /// "start", "step", "outcome", "resolution" or "reversal".
        package var kind: String
        package var requestID: String
        /// The payment's own identity (a UUID its start record gave it), in every record of that payment; nil in a
        /// journal written before it existed, and in a `claim` (which precedes any payment).
        package var payment: String?
        /// ISO 8601 UTC.
        package var time: String
        package var amount: UInt64?
        package var currency: String?
        package var type: String?
        package var device: String?
        /// A start: the device is a simulator or a recording, so the payment is not a real one (absent: a terminal).
        package var simulated: Bool?
        /// A start: the process that runs the payment, so that a reader can tell "running" from "the process died".
        package var pid: Int32?
        /// A start or a claim: when `pid` started (`ProcessStart`), so that another process given the same pid later
        /// is not taken for it.
        package var pidStart: UInt64?
        package var status: String?
        package var reason: String?
        package var maskedPAN: String?
        package var aid: String?
        package var applicationLabel: String?
        package var sredKSN: String?
        package var pinKSN: String?
        package var entryMode: String?
        /// A step: the command answered ("TransactionProcess"), its status, the state it was sent in.
        package var command: String?
        package var result: Int?
        package var state: String?
        /// A resolution: the operator's note.
        package var note: String?
        /// An outcome: what a receipt shows (`Receipt`). The cryptogram is the card's, hex.
        package var cvmResults: String?
        package var signatureRequired: Bool?
        package var authorizationResponseCode: String?
        package var cryptogramType: String?
        package var cryptogram: String?
        package var tvr: String?
        package var tsi: String?
        /// An outcome: the commands sent to the terminal for the payment, its starting steps included (spec §8.6).
        package var commands: Int?
        /// An authorization: "pending" (sent, not answered yet), "approve", "decline" or "unable".
        package var hostDecision: String?
        /// An authorization: the host's 8A, two characters.
        package var hostResponseCode: String?
        /// An authorization or a reversal: the host's reference for the payment.
        package var hostReference: String?
        /// An authorization: what the host did wrong ("the host did not answer within 30 s"), when it gave no usable
        /// answer.
        package var hostProblem: String?
        /// An authorization: the hook the request went through (`exec:PROGRAM` or the https URL, never a token), so that
        /// a later process can send an owed reversal the same way.
        package var hook: String?
        /// An authorization through an https hook: the files it was reached with (never their contents).
        package var hookFiles: HostTLSFiles?
        /// A reversal: false when owed (written before it is sent), true once the host acknowledged it.
        package var acknowledged: Bool?

        package init(kind: String, requestID: String, time: String) {
            self.kind = kind
            self.requestID = requestID
            self.time = time
        }
    }

    /// A new payment's identity, for its start record and every record after it.
    package static func newPaymentKey() -> String { UUID().uuidString.lowercased() }

    /// Appends the `start` record of a payment about to begin; `payment` is its identity (`newPaymentKey()`).
    package func recordStart(
        _ request: PaymentRequest, payment: String?, deviceName: String?, simulated: Bool = false, time: String
    ) throws(JournalError) {
        try append(Self.start(request, payment: payment, deviceName: deviceName, simulated: simulated, time: time))
    }

    /// The `start` record of a payment.
    static func start(
        _ request: PaymentRequest, payment: String?, deviceName: String?, simulated: Bool = false, time: String
    ) -> Record {
        var record = Record(kind: "start", requestID: request.requestID, time: time)
        record.payment = payment
        record.amount = request.amount
        record.currency = request.currency.alpha
        record.type = request.transactionType.name
        record.device = deviceName
        record.simulated = simulated ? true : nil
        record.pid = ProcessInfo.processInfo.processIdentifier
        record.pidStart = ProcessStart.current
        return record
    }

    /// Appends a `step` record: the terminal answered `command` with `status` while the payment was in `state`.
    package func recordStep(
        requestID: String, payment: String?, command: CommandID, status: Status, state: PaymentState?, time: String
    ) throws(JournalError) {
        var record = Record(kind: "step", requestID: requestID, time: time)
        record.payment = payment
        record.command = CommandCatalogue.descriptor(for: command)?.name ?? "\(command)"
        record.result = Int(status.rawValue)
        record.state = state?.name
        try append(record)
    }

    /// Appends the operator's `resolution` of a payment whose outcome is unknown: the status they decided on (after
    /// checking with the acquirer, say), with a note. The payment's own records stay as they are.
    package func recordResolution(
        requestID: String, payment: String?, status: PaymentStatus, note: String?, time: String
    ) throws(JournalError) {
        var record = Record(kind: "resolution", requestID: requestID, time: time)
        record.payment = payment
        record.status = status.rawValue
        record.note = note
        try append(record)
    }

    /// Appends an `authorization` record: the request is about to go to the host (`decision` "pending"), or the host's
    /// answer, before the card hears it.
    package func recordAuthorization(
        requestID: String, payment: String?, decision: String, responseCode: String?, hostReference: String?,
        problem: String?,
        hook: String, hookFiles: HostTLSFiles? = nil, time: String
    ) throws(JournalError) {
        var record = Record(kind: "authorization", requestID: requestID, time: time)
        record.payment = payment
        record.hookFiles = hookFiles?.nonEmpty
        record.hostDecision = decision
        record.hostResponseCode = responseCode
        record.hostReference = hostReference
        record.hostProblem = problem
        record.hook = hook
        try append(record)
    }

    /// Appends a `reversal` record: owed (before it is sent) or acknowledged by the host.
    package func recordReversal(_ owed: OwedReversal, acknowledged: Bool, time: String) throws(JournalError) {
        var record = Record(kind: "reversal", requestID: owed.requestID, time: time)
        record.payment = owed.payment
        record.hostReference = owed.hostReference
        record.reason = owed.reason
        record.acknowledged = acknowledged
        try append(record)
    }

    /// Appends a `claim` of a request id: the payment that will carry it is about to start, in this process.
    package func recordClaim(requestID: String, time: String) throws(JournalError) {
        var record = Record(kind: "claim", requestID: requestID, time: time)
        record.pid = ProcessInfo.processInfo.processIdentifier
        record.pidStart = ProcessStart.current
        try append(record)
    }

    /// Appends the `outcome` record of a finished payment.
    package func recordOutcome(_ context: PaymentContext, time: String) throws(JournalError) {
        try append(Self.outcome(context, time: time))
    }

    /// The `outcome` record of a finished payment: what the journal keeps of it, and what its receipt shows.
    package static func outcome(_ context: PaymentContext, time: String) -> Record {
        var record = Record(kind: "outcome", requestID: context.request.requestID, time: time)
        record.payment = context.payment
        record.amount = context.amount
        record.currency = context.request.currency.alpha
        record.type = context.request.transactionType.name
        record.status = context.status?.rawValue ?? "unknown"
        record.reason = context.statusReason
        record.maskedPAN = context.maskedPAN
        record.aid = context.selectedAID?.hex
        record.applicationLabel = context.applicationLabel
        record.sredKSN = context.sredKSN?.hex
        record.pinKSN = context.pinKSN?.hex
        record.entryMode = context.entryMode?.rawValue
        let plain = context.finalizationPlainTags + context.authorizationPlainTags
        record.cvmResults = plain.first { $0.tag == Tag(0x9F34) }?.value.hex
        record.signatureRequired = context.signatureRequired
        record.authorizationResponseCode = context.authorization.flatMap { printableASCII($0.arc) }
        record.cryptogramType = context.cryptogramType?.name.uppercased()
        record.cryptogram = context.cryptogram?.hex
        record.tvr = context.tvr?.hex
        record.tsi = context.tsi?.hex
        record.commands = context.roundTrips
        return record
    }

    /// Appends one record as a line; durable on return.
    package func append(_ record: Record) throws(JournalError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line: String
        do {
            line = String(decoding: try encoder.encode(record), as: UTF8.self)
        } catch {
            throw JournalError(.encoding, "journal record: \(error)")
        }
        // Defence in depth: whatever a caller put in a free-text field, no PAN reaches the disk in clear; the line is
        // JSON, masked string by string, so a request id or a number is kept whole.
        line = Masking.redactCardData(in: line)
        do {
            try AppendOnlyFile(path: path).append(Array(line.utf8))
        } catch {
            throw JournalError(.io, error.reason)
        }
    }

    // MARK: - History

    /// The payments in the journal at `path`, oldest first: each start paired with its outcome by request id; a
    /// start without an outcome reads as status "unknown" (the process died); a reversal record marks its payment
    /// reversed. Lines that do not decode (a torn last line), and records of a kind this reader does not know, are
    /// skipped. A missing file is an empty history. Read a chunk at a time (issue 39): what is held is the payments,
    /// never the journal's bytes, so a 120 MB journal is not 120 MB more.
    package static func history(_ path: String) throws(JournalError) -> [JournalEntry] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return [] }
        guard fd >= 0 else { throw JournalError(.io, "cannot read \(path): \(ErrorNumber.text(errno))") }
        defer { close(fd) }
        var builder = HistoryBuilder()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var line: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw JournalError(.io, "cannot read \(path): \(ErrorNumber.text(errno))") }
            if count == 0 { break }
            var start = 0
            // memchr: a debug build runs the standard library's generic search a byte at a time.
            func nextNewline(from: Int) -> Int? {
                buffer.withUnsafeBytes { bytes -> Int? in
                    guard from < count, let found = memchr(bytes.baseAddress! + from, 0x0A, count - from) else {
                        return nil
                    }
                    return UnsafeRawPointer(found) - bytes.baseAddress!
                }
            }
            while let newline = nextNewline(from: start) {
                if line.isEmpty {
                    builder.add(Data(buffer[start..<newline]))
                } else {
                    line += buffer[start..<newline]
                    builder.add(Data(line))
                    line.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            line += buffer[start..<count]
        }
        if !line.isEmpty { builder.add(Data(line)) }
        return builder.entries
    }

    /// The payments in a journal's bytes (`history(_:)` without the file): never throws, whatever the bytes.
    package static func history(parsing data: Data) -> [JournalEntry] {
        var builder = HistoryBuilder()
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) { builder.add(line) }
        return builder.entries
    }

    /// Pairs a journal's records into payments, a line at a time. A record with a payment key pairs only with the
    /// payment whose start gave that key. A record without one (a journal written before the key existed, or a writer
    /// that does not know it) pairs by request id, as it did then: with the latest payment of that id read so far (a
    /// step or an outcome: the latest still open).
    struct HistoryBuilder {
        private(set) var entries: [JournalEntry] = []
        private let decoder = JSONDecoder()
        // The payments waiting for their outcome: by key, and the open ones of each request id, oldest first.
        private var open: [String: Int] = [:]
        private var openByRequestID: [String: [Int]] = [:]
        // The latest payment of each key and of each request id: found without a scan of every payment.
        private var latestByKey: [String: Int] = [:]
        private var latestByRequestID: [String: Int] = [:]

        /// The payment `record` names: by its key, else the latest of its request id.
        private func latest(_ record: Record) -> Int? {
            if let key = record.payment { return latestByKey[key] }
            return latestByRequestID[record.requestID]
        }

        /// The open payment `record` (a step or an outcome) belongs to.
        private func openPayment(_ record: Record) -> Int? {
            if let key = record.payment { return open[key] }
            return openByRequestID[record.requestID]?.last
        }

        private mutating func append(_ entry: JournalEntry) {
            if let key = entry.payment { latestByKey[key] = entries.count }
            latestByRequestID[entry.requestID] = entries.count
            entries.append(entry)
        }

        mutating func add(_ line: Data) {
            guard !line.isEmpty, let record = try? decoder.decode(Record.self, from: line) else { return }
            switch record.kind {
            case "start":
                if let key = record.payment { open[key] = entries.count }
                openByRequestID[record.requestID, default: []].append(entries.count)
                append(JournalEntry(start: record))
            case "step":
                if let index = openPayment(record) { entries[index].apply(step: record) }
            case "outcome":
                if let index = openPayment(record) {
                    entries[index].apply(outcome: record)
                    if let key = entries[index].payment { open[key] = nil }
                    openByRequestID[entries[index].requestID]?.removeAll { $0 == index }
                } else if latest(record) != nil {
                    // A second outcome for one payment is never written; one read back changes nothing.
                    return
                } else {
                    var entry = JournalEntry(start: nil, requestID: record.requestID, time: record.time)
                    entry.payment = record.payment
                    entry.apply(outcome: record)
                    append(entry)
                }
            case "authorization":
                if let index = latest(record) { entries[index].apply(authorization: record) }
            case "resolution":
                if let index = latest(record), entries[index].isUnknown, entries[index].resolution == nil {
                    entries[index].resolution = JournalEntry.Resolution(
                        status: record.status ?? JournalEntry.unknownStatus, time: record.time, note: record.note)
                }
            case "reversal":
                // Owed, then acknowledged: the latest record tells, and an acknowledgement is never taken back.
                if let index = latest(record) {
                    let acknowledged = record.acknowledged == true || entries[index].reversal?.acknowledged == true
                    entries[index].reversal = JournalEntry.Reversal(
                        time: record.time, hostReference: record.hostReference, reason: record.reason,
                        acknowledged: acknowledged)
                }
            default:
                return
            }
        }
    }
}

/// One payment in the journal's history.
package struct JournalEntry: Hashable, Sendable, Encodable {
    package var requestID: String
    /// The payment's own identity, from its records (nil for a payment journalled before it existed).
    package var payment: String?
    package var startedAt: String?
    package var finishedAt: String?
    package var amount: UInt64?
    package var currency: String?
    package var type: String?
    package var device: String?
    /// Taken on a simulator or a recording: not a real payment (`Receipt` prints it as a test).
    package var simulated = false
    /// The process that ran (or runs) the payment, from its start record.
    package var pid: Int32?
    /// When that process started (`ProcessStart`), from the start record; nil in a journal from before it.
    package var pidStart: UInt64?
    /// Set by a reader that found the payment's process alive and holding its terminal: the payment is running, not
    /// unknown (`ucube history`, `diagnose`).
    package var runningPID: Int32?
    /// The final status, or "unknown" when no outcome was recorded (the process died before the end).
    package var status: String
    package var reason: String?
    package var maskedPAN: String?
    package var aid: String?
    package var applicationLabel: String?
    package var sredKSN: String?
    package var pinKSN: String?
    package var entryMode: String?
    /// The last command known to have reached the terminal (its answer was journalled), and its status.
    package var lastCommand: String?
    package var lastResult: Int?
    package var lastState: String?
    /// The operator's decision on a payment whose outcome is unknown (`history resolve`).
    package var resolution: Resolution?
    /// The host authorisation of the payment was reversed, or the reversal is owed: the payment counts as reversed.
    package var reversal: Reversal?
    /// What a receipt shows (`Receipt`), from the outcome.
    package var cvmResults: String?
    package var signatureRequired: Bool?
    package var authorizationResponseCode: String?
    package var cryptogramType: String?
    package var cryptogram: String?
    package var tvr: String?
    package var tsi: String?
    /// The commands sent to the terminal for the payment, from the outcome.
    package var commands: Int?
    /// The host's decision (docs/authorization.md): "pending" while its answer is not journalled, then "approve",
    /// "decline" or "unable"; nil without a host. The card's decision is `status`.
    package var hostDecision: String?
    package var hostResponseCode: String?
    package var hostReference: String?
    package var hostProblem: String?
    /// The hook the authorisation went through (not encoded: an exec hook is a command line).
    package var hook: String?
    /// The files an https hook was reached with (not encoded either).
    package var hookFiles: HostTLSFiles?

    private enum CodingKeys: String, CodingKey {
        case requestID, payment, startedAt, finishedAt, amount, currency, type, device, simulated, pid, runningPID,
            status
        case reason, maskedPAN, aid, applicationLabel, sredKSN, pinKSN, entryMode, lastCommand, lastResult, lastState
        case resolution, cvmResults, signatureRequired, authorizationResponseCode, cryptogramType, cryptogram, tvr, tsi
        case commands, hostDecision, hostResponseCode, hostReference, hostProblem, reversal
    }

    package struct Resolution: Hashable, Sendable, Encodable {
        package var status: String
        package var time: String
        package var note: String?
    }

    /// A `reversal` record of the payment: the latest, acknowledged once any was.
    package struct Reversal: Hashable, Sendable, Encodable {
        package var time: String
        package var hostReference: String?
        package var reason: String?
        /// The host acknowledged the reversal; false: it is owed.
        package var acknowledged: Bool
    }

    /// The status of a start without an outcome.
    package static let unknownStatus = "unknown"

    package var isUnknown: Bool { finishedAt == nil }

    /// Unknown, not running, and no operator has resolved it.
    package var isUnresolved: Bool { isUnknown && resolution == nil && runningPID == nil }

    /// A host is owed a reversal for this payment, not acknowledged yet (`owedReversal`).
    package var reversalOwed: Bool { owedReversal(running: runningPID != nil) != nil }

    /// What tells this payment from another with the same request id: its key, or (journalled before keys existed)
    /// its request id and start.
    package var identity: String { payment ?? "\(requestID) \(startedAt ?? finishedAt ?? "")" }

    init(start: PaymentJournal.Record) {
        self.init(start: start, requestID: start.requestID, time: start.time)
    }

    init(start: PaymentJournal.Record?, requestID: String, time: String) {
        self.requestID = requestID
        payment = start?.payment
        startedAt = start?.time
        amount = start?.amount
        currency = start?.currency
        type = start?.type
        device = start?.device
        simulated = start?.simulated ?? false
        pid = start?.pid
        pidStart = start?.pidStart
        status = Self.unknownStatus
    }

    mutating func apply(step: PaymentJournal.Record) {
        lastCommand = step.command
        lastResult = step.result
        lastState = step.state
    }

    mutating func apply(authorization: PaymentJournal.Record) {
        hostDecision = authorization.hostDecision
        hostResponseCode = authorization.hostResponseCode ?? hostResponseCode
        hostReference = authorization.hostReference ?? hostReference
        hostProblem = authorization.hostProblem
        if let given = authorization.hook {
            hook = given
            hookFiles = authorization.hookFiles
        }
    }

    /// A reversal this payment is owed, if any (docs/authorization.md, "Reversals"): its host approved, or was asked and
    /// never journalled an answer, and the payment did not end APPROVED, and no acknowledged reversal says the host
    /// knows. `running`: the payment's process is alive (its own end decides); the caller knows, this value does not.
    package func owedReversal(running: Bool) -> OwedReversal? {
        guard let hook, hostDecision == "approve" || hostDecision == "pending", reversal?.acknowledged != true else {
            return nil
        }
        if status == PaymentStatus.approved.rawValue { return nil }
        if isUnknown && running { return nil }
        let reason =
            isUnknown
            ? "the payment's process ended before its outcome"
            : "the payment ended \(status)\(self.reason.map { ": " + $0 } ?? "")"
        return OwedReversal(
            requestID: requestID, payment: payment, hostReference: hostReference, reason: reason, amount: amount,
            currency: currency,
            hook: hook, hookFiles: hookFiles)
    }

    mutating func apply(outcome: PaymentJournal.Record) {
        finishedAt = outcome.time
        status = outcome.status ?? Self.unknownStatus
        reason = outcome.reason
        amount = outcome.amount ?? amount
        currency = currency ?? outcome.currency
        type = type ?? outcome.type
        maskedPAN = outcome.maskedPAN
        aid = outcome.aid
        applicationLabel = outcome.applicationLabel
        sredKSN = outcome.sredKSN
        pinKSN = outcome.pinKSN
        entryMode = outcome.entryMode
        cvmResults = outcome.cvmResults
        commands = outcome.commands
        signatureRequired = outcome.signatureRequired
        authorizationResponseCode = outcome.authorizationResponseCode
        cryptogramType = outcome.cryptogramType
        cryptogram = outcome.cryptogram
        tvr = outcome.tvr
        tsi = outcome.tsi
    }

    /// A finished payment as the journal will read it back: its start and its outcome record.
    package init(_ context: PaymentContext, startedAt: String?, finishedAt: String) {
        self.init(
            start: PaymentJournal.start(
                context.request, payment: context.payment, deviceName: context.device, simulated: context.simulated,
                time: startedAt ?? finishedAt
            ))
        apply(outcome: PaymentJournal.outcome(context, time: finishedAt))
    }
}

/// The journal could not be written or read.
package struct JournalError: CodedError {
    package enum Code: String, Sendable, Hashable {
        case io
        case encoding
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

extension PaymentJournal {
    /// The processes that claimed `requestID` (`claim` records: the pid, and when it started), oldest first, in a
    /// journal's bytes.
    package static func claimPIDs(of requestID: String, parsing data: Data) -> [(pid: Int32, start: UInt64?)] {
        let decoder = JSONDecoder()
        let needle = Array(requestID.utf8)
        var pids: [(pid: Int32, start: UInt64?)] = []
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            // Most lines are other payments': skip them before decoding.
            guard line.count >= needle.count, line.firstRange(of: needle) != nil,
                let record = try? decoder.decode(Record.self, from: Data(line)),
                record.kind == "claim", record.requestID == requestID, let pid = record.pid
            else { continue }
            pids.append((pid, record.pidStart))
        }
        return pids
    }
}
