/// 0x0330 RepeatLastMessage (current SDK, spec §2.9): the terminal sends its last answer again, with the SEQ and
/// CMD ID of the command it answered, so that a command whose answer was lost can match it. The SDK expects no answer
/// of its own: it marks the command done once written.
package struct RepeatLastMessage: EmptyPayloadCommand {
    package typealias Response = EmptyResponse
    package static let id = CommandID.repeatLastMessage
    package init() {}
}

/// 0x0331 GetStatus (current SDK, spec §2.9): whether the terminal is still busy with a process, asked while a long
/// command waits for its answer. Empty request, NONE both ways.
package struct GetStatus: EmptyPayloadCommand {
    package static let id = CommandID.getStatus
    package init() {}

    /// Status 0 and at least one data byte, the process state (spec §2.9, L:GetStatusCommand): 0 no process, 1 a
    /// secure-firmware process, 2 a non-secure-firmware process, 3 both; anything else is "unknown" to the SDK.
    /// No data byte: the SDK fails the GetStatus. Bytes after the first are ignored.
    package struct Response: RPCResponse, Hashable {
        package static let idle: UInt8 = 0x00
        package static let secureFirmwareBusy: UInt8 = 0x01
        package static let nonSecureFirmwareBusy: UInt8 = 0x02
        package static let bothBusy: UInt8 = 0x03

        /// The process-state byte as received.
        package var processState: UInt8

        package init(processState: UInt8) { self.processState = processState }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            var reader = ByteReader(data, what: "GetStatus response")
            processState = try reader.u8("process state")
        }

        package func encodeData() -> [UInt8] { [processState] }

        /// The SDK's reading of the byte: idle, busy (and which firmware), or unknown.
        package var meaning: String {
            switch processState {
            case Self.idle: "idle"
            case Self.secureFirmwareBusy: "busy (secure firmware)"
            case Self.nonSecureFirmwareBusy: "busy (non-secure firmware)"
            case Self.bothBusy: "busy (secure and non-secure firmware)"
            default: "unknown"
            }
        }

        private enum CodingKeys: String, CodingKey { case processState, meaning }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(processState, forKey: .processState)
            try container.encode(meaning, forKey: .meaning)
        }
    }
}
