/// 0x5020 WaitCard (CardWaitInsertion): waits for a card on the given readers (spec §5.2).
///
/// Request: reader ids followed by a one-byte timeout in seconds (last byte). Errors: −32 cancelled, −2 timeout.
package struct WaitCard: RPCCommand, Hashable {
    package static let id = CommandID.waitCard

    package var readers: [CardReader]
    package var timeoutSeconds: UInt8

    package init(readers: [CardReader], timeoutSeconds: UInt8) {
        self.readers = readers
        self.timeoutSeconds = timeoutSeconds
    }

    package var responseTimeout: Duration? { ResponseTimeouts.after(seconds: timeoutSeconds) }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        try ReaderList.check(readers, "WaitCard")
        return readers.map(\.rawValue) + [timeoutSeconds]
    }

    package init(payload: [UInt8]) throws(CommandError) {
        guard let timeout = payload.last else { throw CommandError(.truncated, "WaitCard request is empty") }
        guard payload.count >= 2 else { throw CommandError(.truncated, "WaitCard request names no reader") }
        readers = try ReaderList.parse(payload.dropLast(), "WaitCard request")
        timeoutSeconds = timeout
    }

    private enum CodingKeys: String, CodingKey { case readers, timeoutSeconds }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(readers, forKey: .readers)
        try container.encode(timeoutSeconds, forKey: .timeoutSeconds)
    }

    /// Byte 0 the activated reader; for ICC, the ICC status, the ATR length and the ATR (spec §5.2). For NFC and MSR
    /// only byte 0 is read (trailing bytes ignored, as the SDK does).
    package struct Response: RPCResponse, Hashable {
        package var reader: CardReader
        /// ICC only.
        package var iccStatus: UInt8?
        /// ICC only: the card's answer to reset.
        package var atr: [UInt8]?

        package init(reader: CardReader, iccStatus: UInt8? = nil, atr: [UInt8]? = nil) {
            self.reader = reader
            self.iccStatus = iccStatus
            self.atr = atr
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            var reader = ByteReader(data, what: "WaitCard response")
            let id = try reader.u8("activated reader")
            guard let activated = CardReader(rawValue: id) else {
                throw CommandError(.malformed, "WaitCard response: unknown reader id 0x\(Hex.encode([id]))")
            }
            self.reader = activated
            if activated == .icc {
                iccStatus = try reader.u8("ICC status")
                let length = Int(try reader.u8("ATR length"))
                atr = try reader.take(length, "ATR")
            }
        }

        /// For ICC a missing status or ATR is written as 0 / empty; an ATR over 255 bytes (our own bug) is cut.
        package func encodeData() -> [UInt8] {
            guard reader == .icc else { return [reader.rawValue] }
            let atrBytes = Array((atr ?? []).prefix(255))
            return [reader.rawValue, iccStatus ?? 0, UInt8(atrBytes.count)] + atrBytes
        }

        private enum CodingKeys: String, CodingKey { case reader, iccStatus, atr }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reader, forKey: .reader)
            try container.encodeIfPresent(iccStatus, forKey: .iccStatus)
            try container.encodeHexIfPresent(atr, forKey: .atr)
        }
    }
}

/// 0x5021 WaitCardRemoval: powers the card off and waits for its removal. Request `11 tt` (spec §5.2).
package struct WaitCardRemoval: RPCCommand, Hashable {
    package typealias Response = EmptyResponse
    package static let id = CommandID.waitCardRemoval

    /// The SDK's default (spec §5.2).
    package static let defaultTimeout: UInt8 = 30

    package var timeoutSeconds: UInt8

    package init(timeoutSeconds: UInt8 = WaitCardRemoval.defaultTimeout) { self.timeoutSeconds = timeoutSeconds }

    package var responseTimeout: Duration? { ResponseTimeouts.after(seconds: timeoutSeconds) }

    package func encodePayload() throws(CommandError) -> [UInt8] { [CardReader.icc.rawValue, timeoutSeconds] }

    package init(payload: [UInt8]) throws(CommandError) {
        var reader = ByteReader(payload, what: "WaitCardRemoval request")
        let id = try reader.u8("reader")
        guard id == CardReader.icc.rawValue else {
            throw CommandError(.malformed, "WaitCardRemoval request: reader must be 11 (ICC), got \(Hex.encode([id]))")
        }
        timeoutSeconds = try reader.u8("timeout")
        guard reader.isAtEnd else {
            throw CommandError(.malformed, "WaitCardRemoval request has \(reader.remaining) bytes after the timeout")
        }
    }

    private enum CodingKeys: String, CodingKey { case timeoutSeconds }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeoutSeconds, forKey: .timeoutSeconds)
    }
}

/// Reader lists (WaitCard payload, StartNFC DF70): at least one reader, each once.
enum ReaderList {
    static func check(_ readers: [CardReader], _ command: String) throws(CommandError) {
        guard !readers.isEmpty else { throw CommandError(.invalidArgument, "\(command) needs at least one reader") }
        guard Set(readers).count == readers.count else {
            throw CommandError(.invalidArgument, "\(command) names a reader twice")
        }
    }

    static func parse<S: Sequence>(_ bytes: S, _ what: String) throws(CommandError) -> [CardReader]
    where S.Element == UInt8 {
        var readers: [CardReader] = []
        for byte in bytes {
            guard let reader = CardReader(rawValue: byte) else {
                throw CommandError(.malformed, "\(what): unknown reader id 0x\(Hex.encode([byte]))")
            }
            readers.append(reader)
        }
        guard !readers.isEmpty else { throw CommandError(.truncated, "\(what) names no reader") }
        return readers
    }
}
