import Foundation
import UCubeProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The payment journal: JSON lines appended to a file the caller names (the CLI: `$XDG_STATE_HOME/ucube/
/// journal.jsonl`). Each payment writes a `start` record before its first command and an `outcome` record at its
/// end; each record is durable (`write` + `fsync`) before the call returns. The file is created with mode 0600 and
/// opened `O_APPEND`. Records hold the masked PAN at most — never clear card data.
public struct PaymentJournal: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// One line of the journal.
    public struct Record: Codable, Hashable, Sendable {
        /// "start" or "outcome".
        public var kind: String
        public var requestID: String
        /// ISO 8601 UTC.
        public var time: String
        public var amount: UInt64?
        public var currency: String?
        public var type: String?
        public var device: String?
        public var status: String?
        public var reason: String?
        public var maskedPAN: String?
        public var aid: String?
        public var applicationLabel: String?
        public var sredKSN: String?
        public var pinKSN: String?
        public var entryMode: String?

        public init(kind: String, requestID: String, time: String) {
            self.kind = kind
            self.requestID = requestID
            self.time = time
        }
    }

    /// Appends the `start` record of a payment about to begin.
    public func recordStart(_ request: PaymentRequest, deviceName: String?, time: String) throws(JournalError) {
        var record = Record(kind: "start", requestID: request.requestID, time: time)
        record.amount = request.amount
        record.currency = request.currency.alpha
        record.type = request.transactionType.name
        record.device = deviceName
        try append(record)
    }

    /// Appends the `outcome` record of a finished payment.
    public func recordOutcome(_ context: PaymentContext, time: String) throws(JournalError) {
        var record = Record(kind: "outcome", requestID: context.request.requestID, time: time)
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
        try append(record)
    }

    /// Appends one record as a line; durable on return.
    public func append(_ record: Record) throws(JournalError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line: String
        do {
            line = String(decoding: try encoder.encode(record), as: UTF8.self)
        } catch {
            throw JournalError(.encoding, "journal record: \(error)")
        }
        // Defence in depth: whatever a caller put in a free-text field, no PAN reaches the disk in clear.
        if Masking.containsUnmaskedPAN(line) { line = Masking.redactPANs(in: line) }
        try appendLine(Array(line.utf8) + [0x0A])
    }

    private func appendLine(_ bytes: [UInt8]) throws(JournalError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw JournalError(.io, "cannot create \(directory): \(error.localizedDescription)")
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw JournalError(.io, "cannot open \(path): \(Self.errnoText())") }
        defer { close(fd) }
        // A journal created by someone else's umask still ends up private.
        _ = fchmod(fd, 0o600)
        var payload = bytes
        // A torn last line (the process died mid-write) must not swallow this record: start on a new line.
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size > 0 {
            let reader = open(path, O_RDONLY | O_CLOEXEC)
            if reader >= 0 {
                var last: UInt8 = 0
                if pread(reader, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A { payload.insert(0x0A, at: 0) }
                close(reader)
            }
        }
        var offset = 0
        while offset < payload.count {
            let written = payload[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw JournalError(.io, "cannot write \(path): \(Self.errnoText())")
            }
            offset += written
        }
        guard fsync(fd) == 0 else { throw JournalError(.io, "cannot sync \(path): \(Self.errnoText())") }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    // MARK: - History

    /// The payments in the journal at `path`, oldest first: each start paired with its outcome by request id; a
    /// start without an outcome reads as status "unknown" (the process died). Lines that do not decode (a torn last
    /// line) are skipped. A missing file is an empty history.
    public static func history(_ path: String) throws(JournalError) -> [JournalEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JournalError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
        return history(parsing: data)
    }

    /// The payments in a journal's bytes (`history(_:)` without the file): never throws, whatever the bytes.
    public static func history(parsing data: Data) -> [JournalEntry] {
        let decoder = JSONDecoder()
        var entries: [JournalEntry] = []
        var openIndex: [String: Int] = [:]
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            guard let record = try? decoder.decode(Record.self, from: Data(line)) else { continue }
            switch record.kind {
            case "start":
                openIndex[record.requestID] = entries.count
                entries.append(JournalEntry(start: record))
            case "outcome":
                if let index = openIndex.removeValue(forKey: record.requestID) {
                    entries[index].apply(outcome: record)
                } else {
                    var entry = JournalEntry(start: nil, requestID: record.requestID, time: record.time)
                    entry.apply(outcome: record)
                    entries.append(entry)
                }
            default:
                continue
            }
        }
        return entries
    }
}

/// One payment in the journal's history.
public struct JournalEntry: Hashable, Sendable, Encodable {
    public var requestID: String
    public var startedAt: String?
    public var finishedAt: String?
    public var amount: UInt64?
    public var currency: String?
    public var type: String?
    public var device: String?
    /// The final status, or "unknown" when no outcome was recorded (the process died before the end).
    public var status: String
    public var reason: String?
    public var maskedPAN: String?
    public var aid: String?
    public var applicationLabel: String?
    public var sredKSN: String?
    public var pinKSN: String?
    public var entryMode: String?

    /// The status of a start without an outcome.
    public static let unknownStatus = "unknown"

    public var isUnknown: Bool { finishedAt == nil }

    init(start: PaymentJournal.Record) {
        self.init(start: start, requestID: start.requestID, time: start.time)
    }

    init(start: PaymentJournal.Record?, requestID: String, time: String) {
        self.requestID = requestID
        startedAt = start?.time
        amount = start?.amount
        currency = start?.currency
        type = start?.type
        device = start?.device
        status = Self.unknownStatus
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
    }
}

/// The journal could not be written or read.
public struct JournalError: CodedError {
    public enum Code: String, Sendable, Hashable {
        case io
        case encoding
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
