/// A typed terminal command: its id, how its payload is written and read, and the response type it names
/// (in the style of smpclient's request → response typing). Both directions are implemented so the simulator,
/// which is a peer, reads requests and writes responses with the same code the driver uses.
package protocol RPCCommand: Sendable, Encodable {
    associatedtype Response: RPCResponse
    static var id: CommandID { get }
    /// The request payload (spec §5.2 layout).
    func encodePayload() throws(CommandError) -> [UInt8]
    /// Reads a request payload (simulator, `ucube decode`).
    init(payload: [UInt8]) throws(CommandError)
    /// Statuses whose response carries this command's data (default: 0 only; TransactionFinalisation: 7 and 8).
    static var successStatuses: [Status] { get }
    /// How long the terminal may take before answering. `nil`: the client's default RPC timeout. Long-running
    /// commands (WaitCard, StartNFC, displays, PIN) use their own timeout plus a margin.
    var responseTimeout: Duration? { get }
}

extension RPCCommand {
    package static var successStatuses: [Status] { [.success] }
    package var responseTimeout: Duration? { nil }
    package static var descriptor: CommandDescriptor {
        guard let d = CommandCatalogue.descriptor(for: id) else {
            preconditionFailure("every RPCCommand type is in CommandCatalogue: \(id)")
        }
        return d
    }
}

/// A typed response: read from and written to the DATA field of a response frame.
package protocol RPCResponse: Sendable, Encodable {
    init(status: Status, data: [UInt8]) throws(CommandError)
    /// The DATA field (simulator).
    func encodeData() -> [UInt8]
}

/// A response without data.
package struct EmptyResponse: RPCResponse, Equatable {
    package init() {}
    package init(status: Status, data: [UInt8]) throws(CommandError) {
        // Tolerate trailing bytes: some firmware pads; nothing is lost since nothing is expected.
    }
    package func encodeData() -> [UInt8] { [] }
}

/// A request or response that does not match its command's layout. `code` is stable; `reason` says what.
package struct CommandError: CodedError {
    package enum Code: String, Sendable, Hashable {
        /// A field is out of its allowed range (a timeout over 255 s, a text over 254 characters, …).
        case invalidArgument
        /// The payload or data is shorter than its layout.
        case truncated
        /// The payload or data does not follow its layout.
        case malformed
        /// The command's payload exceeds what fits in a frame.
        case tooLong
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}

/// A tiny cursor for reading fixed layouts; every read is bounds-checked and throws `.truncated`.
package struct ByteReader: Sendable {
    package let bytes: [UInt8]
    package private(set) var offset: Int = 0
    let what: String

    package init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    package var remaining: Int { bytes.count - offset }
    package var isAtEnd: Bool { offset >= bytes.count }

    package mutating func u8(_ field: String) throws(CommandError) -> UInt8 {
        guard offset < bytes.count else {
            throw CommandError(.truncated, "\(what): missing \(field) at byte \(offset)")
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16(_ field: String) throws(CommandError) -> UInt16 {
        let hi = try u8(field)
        let lo = try u8(field)
        return UInt16(hi) << 8 | UInt16(lo)
    }

    package mutating func take(_ count: Int, _ field: String) throws(CommandError) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw CommandError(
                .truncated, "\(what): \(field) needs \(count) bytes at byte \(offset), \(remaining) remain")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    package mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}

extension TLVParser {
    /// Parses command data as TLV, mapping a TLV failure to a `CommandError` that names the command.
    package static func parseCommandData(_ bytes: [UInt8], _ what: String, rules: TLVRules = .terminal)
        throws(CommandError) -> [TLV]
    {
        do {
            return try parse(bytes, rules: rules)
        } catch {
            throw CommandError(.malformed, "\(what): \(error)")
        }
    }
}
