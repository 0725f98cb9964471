import Foundation
import Testing
import UCubeProtocol

@testable import UCubePayment

@Suite struct PaymentJournalTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ucube-journal-\(UUID())/state/journal.jsonl")
            .path
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
        try journal.recordStart(request, payment: nil, deviceName: "sim", time: "2025-01-01T00:00:00.000Z")
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
        try journal.recordStart(
            PaymentRequest(amount: 100, requestID: "died"), payment: nil, deviceName: nil, time: "t1")
        try journal.recordStart(PaymentRequest(amount: 200, requestID: "ok"), payment: nil, deviceName: nil, time: "t2")
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
        try journal.recordStart(PaymentRequest(amount: 100, requestID: "a"), payment: nil, deviceName: nil, time: "t1")
        // The process died in the middle of writing the outcome.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"kind":"outcome","requestID":"a","sta"#.utf8))
        try handle.close()

        var history = try PaymentJournal.history(path)
        #expect(history.count == 1)
        #expect(history.first?.status == JournalEntry.unknownStatus)

        // The next payment's records are not glued to the torn line.
        try journal.recordStart(PaymentRequest(amount: 300, requestID: "b"), payment: nil, deviceName: nil, time: "t2")
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
        try journal.recordStart(
            PaymentRequest(amount: 100, requestID: "pan-check"), payment: nil, deviceName: nil, time: "t1")
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

/// Steps, resolutions and the phases of a payment's timings, read back from journal lines.
struct JournalStepsAndResolutionsTests {
    static func lines(_ records: [String]) -> Data { Data((records.joined(separator: "\n") + "\n").utf8) }

    @Test func theLastStepIsTheLastCommandKnownToHaveReachedTheTerminal() {
        let history = PaymentJournal.history(
            parsing: Self.lines([
                #"{"kind":"start","requestID":"a","time":"t0","amount":700,"currency":"EUR"}"#,
                #"{"kind":"step","requestID":"a","time":"t1","command":"GetInfo","result":0,"state":"GET_INFO"}"#,
                #"{"kind":"step","requestID":"a","time":"t2","command":"TransactionProcess","result":0,"state":"SMC_PROCESS_TRANSACTION"}"#,
            ]))
        #expect(history.count == 1)
        #expect(history[0].isUnresolved && history[0].status == JournalEntry.unknownStatus)
        #expect(history[0].lastCommand == "TransactionProcess" && history[0].lastState == "SMC_PROCESS_TRANSACTION")
    }

    @Test func aResolutionKeepsTheOriginalAndOnlyTheFirstCounts() {
        let history = PaymentJournal.history(
            parsing: Self.lines([
                #"{"kind":"start","requestID":"a","time":"t0"}"#,
                #"{"kind":"resolution","requestID":"a","time":"t1","status":"DECLINED","note":"acquirer"}"#,
                #"{"kind":"resolution","requestID":"a","time":"t2","status":"APPROVED"}"#,
                #"{"kind":"start","requestID":"b","time":"t3"}"#,
                #"{"kind":"outcome","requestID":"b","time":"t4","status":"APPROVED"}"#,
                #"{"kind":"resolution","requestID":"b","time":"t5","status":"DECLINED"}"#,
            ]))
        #expect(
            history[0].status == "unknown" && history[0].resolution?.status == "DECLINED" && !history[0].isUnresolved)
        #expect(history[0].resolution?.note == "acquirer")
        #expect(history[1].status == "APPROVED" && history[1].resolution == nil, "a finished payment is not resolved")
    }

    @Test func aSecondOutcomeForOnePaymentIsNotASecondPayment() {
        let history = PaymentJournal.history(
            parsing: Self.lines([
                #"{"kind":"start","requestID":"a","time":"t0"}"#,
                #"{"kind":"outcome","requestID":"a","time":"t1","status":"APPROVED"}"#,
                #"{"kind":"outcome","requestID":"a","time":"t2","status":"DECLINED"}"#,
            ]))
        #expect(history.count == 1 && history[0].status == "APPROVED")
    }

    @Test func timingsAddEachStateToItsPhase() {
        let timings = PaymentTimings(
            states: [
                (.startCancelAll, 0), (.getInfo, 0.1), (.startTransaction, 0.2), (.cardReadEnd, 1.2),
                (.smcProcessTransaction, 1.3), (.onlinePIN, 1.5), (.authorization, 2.5), (.smcFinalizeTransaction, 3),
                (.smcRemoveCard, 3.25), (.endExitSecureSession, 3.5),
            ],
            end: 3.75)
        let seconds = Dictionary(uniqueKeysWithValues: timings.phases.map { ($0.phase, $0.seconds) })
        #expect(abs(seconds[.start]! - 0.2) < 1e-9)
        #expect(abs(seconds[.cardWait]! - 1.0) < 1e-9)
        #expect(abs(seconds[.cardRead]! - 0.3) < 1e-9)
        #expect(abs(seconds[.pin]! - 1.0) < 1e-9)
        #expect(abs(seconds[.authorization]! - 0.5) < 1e-9)
        #expect(abs(seconds[.finalisation]! - 0.25) < 1e-9)
        #expect(abs(seconds[.cardRemoval]! - 0.25) < 1e-9)
        #expect(abs(seconds[.end]! - 0.25) < 1e-9)
        #expect(timings.phases.map(\.phase) == PaymentPhase.allCases)
    }

    /// 9F34 1F 03 02 is "No CVM required, successful" (EMV Book 3 Annex C3, Book 4 Annex A4).
    @Test func aReceiptFitsFortyColumnsAndSaysWhatTheCardDid() {
        var entry = PaymentJournal.history(
            parsing: Self.lines([
                #"{"kind":"start","requestID":"5B0C8E2A-0F1B-4F3C-9A77-2C1D3E4F5A6B","time":"2026-11-24T09:00:00.000Z","amount":1250,"currency":"EUR","type":"purchase"}"#,
                #"{"kind":"outcome","requestID":"5B0C8E2A-0F1B-4F3C-9A77-2C1D3E4F5A6B","time":"2026-11-24T09:00:02.500Z","status":"APPROVED","maskedPAN":"476173******0010","aid":"A0000000031010","applicationLabel":"VISA CREDIT","entryMode":"icc","cvmResults":"1F0302","signatureRequired":false,"authorizationResponseCode":"00","cryptogramType":"TC","cryptogram":"69214DEDAC480179","tvr":"0000000000","tsi":"E800"}"#,
            ]))[0]
        let lines = Receipt(entry).lines(offset: { _ in 0 })
        #expect(lines.allSatisfy { $0.count <= 40 })
        #expect(lines.contains("Date          2026-11-24 09:00:02 +00:00"))
        // A receipt is for people: local time, here India's (+05:30).
        let kolkata = Receipt(entry).lines(offset: { _ in 19_800 })
        #expect(kolkata.contains("Date          2026-11-24 14:30:02 +05:30"))
        #expect(lines.contains("Amount                         12.50 EUR"))
        #expect(lines.contains("CVM                      No CVM required"))
        #expect(lines.contains("Cryptogram           TC 69214DEDAC480179"))
        #expect(!lines.contains { $0.contains("signature") })
        entry.signatureRequired = true
        #expect(Receipt(entry).lines().last?.contains("Cardholder signature") == true)
    }

    /// Issue 39, item 4: two payments with one request id, interleaved as two writers would write them, each with its
    /// own key. Each keeps its own steps, outcome and amount; the request id is only data.
    @Test func twoPaymentsWithOneRequestIDKeepTheirOwnRecords() throws {
        let path = PaymentJournalTests.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let journal = PaymentJournal(path: path)
        let (a, b) = (PaymentJournal.newPaymentKey(), PaymentJournal.newPaymentKey())
        #expect(a != b)
        try journal.recordStart(
            PaymentRequest(amount: 1000, currency: .eur, requestID: "X"), payment: a, deviceName: "tcp://a:1",
            time: "t1")
        try journal.recordStart(
            PaymentRequest(amount: 500, currency: .eur, requestID: "X"), payment: b, deviceName: "tcp://b:2",
            time: "t2")
        try journal.recordStep(
            requestID: "X", payment: a, command: .getInfo, status: .success, state: nil, time: "t3")
        try journal.recordStep(
            requestID: "X", payment: b, command: .cancelAll, status: .success, state: nil, time: "t4")
        var approved = PaymentJournalTests.finishedContext("X", status: .approved)
        approved.payment = a
        var declined = PaymentJournalTests.finishedContext("X", status: .declined)
        declined.payment = b
        // B ends first: a pairing by request id gave B's outcome to A (the latest start) and lost A's.
        try journal.recordOutcome(declined, time: "t5")
        try journal.recordOutcome(approved, time: "t6")

        let history = try PaymentJournal.history(path)
        #expect(history.count == 2)
        #expect(history.map(\.payment) == [a, b])
        #expect(history.map(\.requestID) == ["X", "X"])
        #expect(history[0].status == "APPROVED" && history[0].device == "tcp://a:1" && history[0].finishedAt == "t6")
        #expect(history[1].status == "DECLINED" && history[1].device == "tcp://b:2" && history[1].finishedAt == "t5")
        #expect(history[0].lastCommand != history[1].lastCommand)

        // A resolution and a reversal name their payment: the other one with the id is untouched.
        var crashed = PaymentJournal.Record(kind: "start", requestID: "X", time: "t7")
        crashed.payment = PaymentJournal.newPaymentKey()
        try journal.append(crashed)
        try journal.recordResolution(
            requestID: "X", payment: crashed.payment, status: .declined, note: "acquirer", time: "t8")
        let after = try PaymentJournal.history(path)
        #expect(after.count == 3)
        #expect(after[2].isUnknown && after[2].resolution?.status == "DECLINED")
        #expect(after[0].resolution == nil && after[1].resolution == nil)
    }

    /// A record without a payment key (a journal written before the key existed) pairs by request id, as it did: an
    /// outcome with the latest payment of its id still open; a keyed record never attaches to another payment.
    @Test func recordsWithoutAPaymentKeyPairByRequestIDAsBefore() {
        let history = PaymentJournal.history(
            parsing: Self.lines([
                #"{"kind":"start","requestID":"old","time":"t1","amount":100}"#,
                #"{"kind":"start","requestID":"old","time":"t2","amount":200,"payment":"p-new"}"#,
                #"{"kind":"outcome","requestID":"old","time":"t3","status":"DECLINED","payment":"p-new"}"#,
                #"{"kind":"outcome","requestID":"old","time":"t4","status":"APPROVED"}"#,
                #"{"kind":"resolution","requestID":"old","time":"t5","status":"APPROVED"}"#,
            ]))
        #expect(history.count == 2)
        #expect(history[0].payment == nil && history[0].amount == 100 && history[0].status == "APPROVED")
        #expect(history[1].payment == "p-new" && history[1].amount == 200 && history[1].status == "DECLINED")
        #expect(history.allSatisfy { $0.resolution == nil }, "neither is unknown")
    }
}
