import Foundation
import Testing
import UCubeProtocol
@testable import UCubePayment

@Suite struct PaymentJournalTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ucube-journal-\(UUID())/state/journal.jsonl").path
    }

    static func finishedContext(_ id: String, status: PaymentStatus) -> PaymentContext {
        var context = PaymentContext(request: PaymentRequest(amount: 1250, currency: .eur, requestID: id))
        context.status = status
        context.entryMode = .icc
        context.maskedPAN = Fixture.maskedPAN
        context.selectedAID = Fixture.visa.aid
        context.sredKSN = Fixture.sredKSN
        context.pinKSN = Fixture.pinKSN
        return context
    }

    @Test func startAndOutcomeArePairedAndDurable() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = PaymentJournal(path: path)
        let request = PaymentRequest(amount: 1250, currency: .eur, requestID: "pay-1")
        try journal.recordStart(request, deviceName: "sim", time: "2025-01-01T00:00:00.000Z")
        // Durable before return: another reader sees the line at once.
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasSuffix("\n"))
        try journal.recordOutcome(Self.finishedContext("pay-1", status: .approved), time: "2025-01-01T00:00:05.000Z")

        let history = try PaymentJournal.history(path)
        #expect(history.count == 1)
        let entry = try #require(history.first)
        #expect(entry.requestID == "pay-1")
        #expect(entry.status == "APPROVED")
        #expect(entry.amount == 1250 && entry.currency == "EUR" && entry.type == "purchase" && entry.device == "sim")
        #expect(entry.maskedPAN == Fixture.maskedPAN)
        #expect(entry.aid == Fixture.visa.aid.hex)
        #expect(entry.sredKSN == Fixture.sredKSN.hex && entry.pinKSN == Fixture.pinKSN.hex)
        #expect(entry.entryMode == "icc")
        #expect(entry.startedAt == "2025-01-01T00:00:00.000Z" && entry.finishedAt == "2025-01-01T00:00:05.000Z")

        // The file is private.
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func aStartWithoutAnOutcomeIsUnknown() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = PaymentJournal(path: path)
        try journal.recordStart(PaymentRequest(amount: 100, requestID: "died"), deviceName: nil, time: "t1")
        try journal.recordStart(PaymentRequest(amount: 200, requestID: "ok"), deviceName: nil, time: "t2")
        try journal.recordOutcome(Self.finishedContext("ok", status: .declined), time: "t3")
        let history = try PaymentJournal.history(path)
        #expect(history.map(\.requestID) == ["died", "ok"])
        #expect(history[0].status == JournalEntry.unknownStatus && history[0].isUnknown)
        #expect(history[1].status == "DECLINED" && !history[1].isUnknown)
    }

    @Test func aTornLastLineStillReadsAndTheNextRecordStartsOnANewLine() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = PaymentJournal(path: path)
        try journal.recordStart(PaymentRequest(amount: 100, requestID: "a"), deviceName: nil, time: "t1")
        // The process died in the middle of writing the outcome.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"kind":"outcome","requestID":"a","sta"#.utf8))
        try handle.close()

        var history = try PaymentJournal.history(path)
        #expect(history.count == 1)
        #expect(history.first?.status == JournalEntry.unknownStatus)

        // The next payment's records are not glued to the torn line.
        try journal.recordStart(PaymentRequest(amount: 300, requestID: "b"), deviceName: nil, time: "t2")
        try journal.recordOutcome(Self.finishedContext("b", status: .approved), time: "t3")
        history = try PaymentJournal.history(path)
        #expect(history.map(\.requestID) == ["a", "b"])
        #expect(history.map(\.status) == [JournalEntry.unknownStatus, "APPROVED"])
    }

    @Test func aMissingJournalIsAnEmptyHistory() throws {
        #expect(try PaymentJournal.history(Self.temporaryPath()).isEmpty)
    }

    @Test func noRecordHoldsAClearPAN() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = PaymentJournal(path: path)
        // A careless caller puts a PAN in a free-text field: it is redacted before it reaches the disk.
        var context = Self.finishedContext("pan-check", status: .error)
        context.statusReason = "card \(Fixture.panDigits) refused"
        try journal.recordStart(PaymentRequest(amount: 100, requestID: "pan-check"), deviceName: nil, time: "t1")
        try journal.recordOutcome(context, time: "t2")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!Masking.containsUnmaskedPAN(text))
        #expect(!text.contains(Fixture.panDigits))
        #expect(text.contains(Fixture.maskedPAN))
        for line in text.split(separator: "\n") { #expect(!Masking.containsUnmaskedPAN(String(line))) }
    }
}

@Suite struct TaskTests {
    @Test func emvPriority() {
        let a = CandidateApplication(aid: [0xA0, 0, 0, 0, 1], label: "A", priority: 2)
        let b = CandidateApplication(aid: [0xA0, 0, 0, 0, 2], label: "B", priority: 1, blocked: true)
        let c = CandidateApplication(aid: [0xA0, 0, 0, 0, 3], label: "C", priority: 0)
        let d = CandidateApplication(aid: [0xA0, 0, 0, 0, 4], label: "D", priority: 2)
        // B is blocked; A and D tie at 2 (card order keeps A); C has no priority and comes last.
        #expect(EMVPrioritySelection.choose([c, b, a, d]) == a)
        #expect(EMVPrioritySelection.choose([c]) == c)
        #expect(EMVPrioritySelection.choose([b]) == nil)
    }

    @Test func fixedAuthorizations() throws {
        #expect(FixedAuthorization(.approve).response.arc == Array("00".utf8))
        #expect(FixedAuthorization(.decline).response.arc == Array("05".utf8))
        #expect(FixedAuthorization(.unable).response.arc == Array("98".utf8))
        let raw = try AuthorizationResponse(parsing: "3141:0102030405060708")
        #expect(raw.arc == [0x31, 0x41] && raw.issuerAuthenticationData == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(throws: AuthorizationParseError(.badLength, "")) { try AuthorizationResponse(parsing: "30") }
        #expect(throws: AuthorizationParseError(.badHex, "")) { try AuthorizationResponse(parsing: "zz00") }
        #expect(throws: AuthorizationParseError(.badLength, "")) { try AuthorizationResponse(parsing: "3030:0102") }
    }

    @Test func requestValidation() {
        func code(_ change: (inout PaymentRequest) -> Void) -> PaymentRequestError.Code? {
            var request = PaymentRequest(amount: 100, requestID: "v")
            change(&request)
            do {
                try request.validate()
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code { _ in } == nil)
        #expect(code { $0.amount = 1_000_000_000_000 } == .amountOutOfRange)
        #expect(code { $0.cashback = 10 } == .cashbackNotAllowed)
        #expect(code { $0.cardWaitTimeout = 0 } == .cardWaitTimeout)
        #expect(code { $0.cardWaitTimeout = 256 } == .cardWaitTimeout)
        #expect(code { $0.preferredLanguages = [] } == .languages)
        #expect(code { $0.preferredLanguages = Array(repeating: "en", count: 7) } == .languages)
        #expect(code { $0.preferredLanguages = ["xx"] } == .languages)
        #expect(code { $0.readers = [] } == .readers)
        #expect(code { $0.readers = [.icc, .icc] } == .readers)
        #expect(code { $0.requestID = "" } == .requestID)
    }
}
