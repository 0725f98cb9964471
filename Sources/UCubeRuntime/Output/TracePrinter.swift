import UCubeBluetooth
import UCubeLink
import UCubeProtocol
import UCubeSupport

/// `--trace`: every frame, both ways, as hex with its fields (spec §2 layout), on stderr.
package enum TracePrinter {
    package static func print(_ event: TraceEvent) {
        switch event {
        // `ucube decode` reads these lines back: the arrow gives the direction, the note the layout.
        case .sent(let bytes, let frame):
            StandardError.write("> \(Masking.hex(bytes, separator: " "))")
            StandardError.write(
                "  SEQ \(Hex.encode([frame.sequence])) CMD \(frame.command) LEN \(bytes.count - 9)\(note(frame.envelope))"
            )
        case .received(let bytes, let frame, let secured):
            StandardError.write("< \(Masking.hex(bytes, separator: " "))")
            let envelope = secured ? (try? ResponseFrame(raw: frame, secured: true))?.envelope : nil
            StandardError.write(
                "  SEQ \(Hex.encode([frame.sequence])) CMD \(frame.command) LEN \(frame.body.count)\(note(envelope))")
        case .rejected(let error):
            StandardError.write("! rejected bytes: \(error.reason)")
        case .disconnected(let reason):
            StandardError.write("! link down: \(reason)")
        }
    }

    /// ` secured crypto=7F MAC=00000000` for a frame in the SECURED layout (spec §2.3).
    private static func note(_ envelope: SecuredEnvelope?) -> String {
        guard let envelope else { return "" }
        return " secured crypto=\(Hex.encode([envelope.cryptoHeader])) MAC=\(Hex.encode(envelope.mac))"
    }

    /// The BLE layer under the frames (spec §3.1): stuffing, each write of at most MTU − 3 bytes, notifications.
    package static func print(_ event: BLETraceEvent) {
        switch event {
        case .stuffed(let frame, let stuffed, let writes, let chunkSize):
            StandardError.write(
                "ble stuffed \(frame.count) → \(stuffed.count) bytes (with end-of-message 0E 0F), \(writes) write\(writes == 1 ? "" : "s") of at most \(chunkSize): \(Masking.hex(stuffed, separator: " "))"
            )
        case .write(let index, let count, let bytes):
            StandardError.write(
                "ble> write \(index)/\(count) (\(bytes.count) bytes): \(Masking.hex(bytes, separator: " "))")
        case .notified(let bytes):
            StandardError.write("ble< notification (\(bytes.count) bytes): \(Masking.hex(bytes, separator: " "))")
        case .step(let text):
            StandardError.write("ble: \(text)")
        }
    }
}
