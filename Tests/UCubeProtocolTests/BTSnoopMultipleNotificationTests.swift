import Foundation
import Testing

@testable import UCubeProtocol

/// ATT Multiple Handle Value Notification (opcode 0x23) in a btsnoop capture (issue 24). Bluetooth Core Specification
/// 5.2 and later, Vol 3 Part F §3.4.7.4 (ATT_MULTIPLE_HANDLE_VALUE_NTF): the PDU is the opcode, then a list of
/// {handle (2 bytes), length (2 bytes), value (length bytes)}, little-endian. BlueZ sends its notifications this way
/// when it is the GATT server, so a capture of a peripheral run on BlueZ carries the terminal's answers in 0x23 PDUs
/// only: before this reader split them, `ucube decode` found 0 notifications where tshark listed 33.
@Suite struct BTSnoopMultipleNotificationTests {
    /// One 0x23 PDU spelled out byte by byte from the layout in §3.4.7.4, not made by the writer: handle 0x0012 with
    /// 3 bytes, handle 0x0017 with 1 byte, handle 0x0020 with an empty value.
    static let specPDU: [UInt8] = [
        0x23,
        0x12, 0x00, 0x03, 0x00, 0x02, 0x00, 0x0C,
        0x17, 0x00, 0x01, 0x00, 0x34,
        0x20, 0x00, 0x00, 0x00,
    ]

    @Test func eachPairIsANotificationOfItsHandle() throws {
        var w = BTSnoopWriter(.monitor)
        w.att(sent: false, Self.specPDU)
        let att = ATTCapture(try BTSnoopFile(bytes: w.bytes))
        #expect(att.notes.isEmpty, "\(att.notes)")
        #expect(att.values.map(\.handle) == [0x0012, 0x0017, 0x0020])
        #expect(att.values.map(\.value) == [[0x02, 0x00, 0x0C], [0x34], []])
        #expect(
            att.values.allSatisfy { $0.opcode == 0x23 && !$0.isWrite && $0.record == 1 && $0.direction == .received })
        // The writer's helper makes the same bytes as the hand-written PDU.
        #expect(
            BTSnoopWriter.multipleNotification([(0x12, [0x02, 0x00, 0x0C]), (0x17, [0x34]), (0x20, [])]) == Self.specPDU
        )
    }

    /// A pair whose length runs past the PDU, or a tail too short for a handle and a length, ends the PDU with a
    /// note; the complete pairs before it are kept.
    @Test func aPairCutShortIsNotedAndThePairsBeforeItKept() throws {
        var w = BTSnoopWriter(.h4)
        w.att(sent: false, [0x23, 0x12, 0x00, 0x01, 0x00, 0xAA, 0x17, 0x00, 0x05, 0x00, 0x01, 0x02])
        w.att(sent: false, [0x23, 0x12, 0x00, 0x01, 0x00, 0xBB, 0x17, 0x00, 0x05])
        w.att(sent: false, [0x23])
        let att = ATTCapture(try BTSnoopFile(bytes: w.bytes))
        #expect(att.values.map(\.value) == [[0xAA], [0xBB]])
        try #require(att.notes.count == 2, "\(att.notes)")
        #expect(att.notes[0].contains("announces 5 bytes for handle 0x0017, 2 follow"))
        #expect(att.notes[1].contains("too few for a handle and a length"))
    }

    /// The committed uCube Touch session with every answer notified as BlueZ sends it: each chunk in a 0x23 PDU,
    /// and in the GetInfo answer two chunks a PDU with the battery level between them. Every frame comes back.
    static func session() throws -> [UInt8] {
        typealias W = BTSnoopWriter
        let txRx = UCubeCaptureFixture.txRx
        var w = BTSnoopWriter(.monitor)
        w.newIndex()
        w.att(sent: true, [0x08] + W.le16(0x0010) + W.le16(0xFFFF) + W.le16(0x2803))
        w.att(sent: false, [0x09, 21] + W.le16(0x0011) + [0x1A] + W.le16(txRx) + UCubeCaptureFixture.txRxUUID)
        w.att(sent: true, [0x02] + W.le16(247))
        w.att(sent: false, [0x03] + W.le16(247))
        for exchange in try UCubeCaptureFixture.exchanges() {
            let chunks = BLECodec.chunks(BLECodec.stuff(exchange.frame), chunkSize: exchange.chunk)
            if exchange.write {
                for chunk in chunks { w.att(sent: true, W.writeCommand(txRx, chunk)) }
                continue
            }
            var index = 0
            while index < chunks.count {
                if chunks.count > 4, index + 1 < chunks.count {
                    w.att(
                        sent: false,
                        W.multipleNotification([(txRx, chunks[index]), (0x0020, [0x57]), (txRx, chunks[index + 1])]))
                    index += 2
                } else {
                    w.att(sent: false, W.multipleNotification([(txRx, chunks[index])]))
                    index += 1
                }
            }
        }
        return w.bytes
    }

    @Test func theTerminalsAnswersInMultipleNotificationsAreDecoded() throws {
        let att = ATTCapture(try BTSnoopFile(bytes: try Self.session()))
        let captured = CapturedFrames(att, txRxUUID: UCubeCaptureFixture.txRxUUID)
        #expect(att.notes.isEmpty && captured.notes.isEmpty, "\(att.notes) \(captured.notes)")
        let expected = try UCubeCaptureFixture.exchanges()
        #expect(captured.frames.map(\.bytes) == expected.map(\.frame))
        #expect(captured.frames.map { $0.flow == .terminalToHost } == expected.map { !$0.write })
        #expect(captured.txRx.count == 1 && captured.txRx.first?.notifications ?? 0 > 0)
        #expect(att.values.contains { $0.opcode == 0x23 && $0.handle == 0x0020 })
    }

    /// tshark (Debian 12's 4.0) names 0x23 but does not split it; it is the judge of which records hold one, and
    /// ours are the same records.
    @Test func tsharkFindsTheMultipleNotificationsInTheSameRecords() async throws {
        let bytes = try Self.session()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ucube-0x23-\(UUID().uuidString).btsnoop")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let judged = try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try Self.tsharkRecords(url) }) }.start()
        }
        let att = ATTCapture(try BTSnoopFile(bytes: bytes))
        let ours = Set(att.values.filter { $0.opcode == 0x23 }.map(\.record))
        #expect(judged.count >= 10, "tshark found too little to judge: \(judged)")
        #expect(Set(judged) == ours)
    }

    /// `tshark -r FILE -Y 'btatt.opcode == 0x23' -T fields -e frame.number`.
    static func tsharkRecords(_ url: URL) throws -> [Int] {
        try BTSnoopTests.Tshark.fields(url, filter: "btatt.opcode == 0x23", ["frame.number"]).compactMap { Int($0) }
    }
}
