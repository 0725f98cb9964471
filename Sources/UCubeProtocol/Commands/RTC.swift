/// The terminal clock's wire layout (0x0301 RTCGet response, 0x0302 RTCSet request).
///
/// PROJECT CHOICE (the byte layout is not in the sources, spec §5.1/§14): six binary bytes
/// `day ‖ month ‖ year − 2000 ‖ hour ‖ minute ‖ second`, in the order MP-README names the fields. This enum is the
/// only place that knows it.
public enum RTCLayout {
    public static let size = 6
    public static let baseYear = 2000

    /// A validated date and time as six bytes.
    static func encode(_ time: RTCDateTime) throws(CommandError) -> [UInt8] {
        try time.validate()
        return [
            UInt8(time.day), UInt8(time.month), UInt8(time.year - baseYear),
            UInt8(time.hour), UInt8(time.minute), UInt8(time.second),
        ]
    }

    /// Six bytes as a date and time; out-of-range fields are `.malformed`.
    static func decode(_ bytes: [UInt8], what: String) throws(CommandError) -> RTCDateTime {
        var reader = ByteReader(bytes, what: what)
        let day = Int(try reader.u8("day"))
        let month = Int(try reader.u8("month"))
        let year = baseYear + Int(try reader.u8("year"))
        let hour = Int(try reader.u8("hour"))
        let minute = Int(try reader.u8("minute"))
        let second = Int(try reader.u8("second"))
        let time = RTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        do {
            try time.validate()
        } catch {
            throw CommandError(.malformed, "\(what): \(error.reason)")
        }
        return time
    }
}

/// A calendar date and time of day as the terminal's clock holds it (no time zone; years 2000…2255).
public struct RTCDateTime: Hashable, Sendable, Encodable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Throws `.invalidArgument` naming the first field out of range.
    public func validate() throws(CommandError) {
        let maxYear = RTCLayout.baseYear + 255
        guard (RTCLayout.baseYear...maxYear).contains(year) else {
            throw CommandError(.invalidArgument, "year must be \(RTCLayout.baseYear)…\(maxYear), got \(year)")
        }
        guard (1...12).contains(month) else {
            throw CommandError(.invalidArgument, "month must be 1…12, got \(month)")
        }
        let days = Self.daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            throw CommandError(.invalidArgument, "day must be 1…\(days) for \(year)-\(Self.pad(month)), got \(day)")
        }
        guard (0...23).contains(hour) else { throw CommandError(.invalidArgument, "hour must be 0…23, got \(hour)") }
        guard (0...59).contains(minute) else {
            throw CommandError(.invalidArgument, "minute must be 0…59, got \(minute)")
        }
        guard (0...59).contains(second) else {
            throw CommandError(.invalidArgument, "second must be 0…59, got \(second)")
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// "2024-02-29 13:05:09".
    public var description: String {
        "\(year)-\(Self.pad(month))-\(Self.pad(day)) \(Self.pad(hour)):\(Self.pad(minute)):\(Self.pad(second))"
    }
}

/// 0x0301 RTCGet: reads the terminal's clock (MP-README). Request empty.
public struct RTCGet: EmptyPayloadCommand {
    public static let id = CommandID.rtcGet
    public init() {}

    /// The clock, in the `RTCLayout` (PROJECT CHOICE). Trailing bytes are ignored.
    public struct Response: RPCResponse, Hashable {
        public var dateTime: RTCDateTime

        public init(dateTime: RTCDateTime) { self.dateTime = dateTime }

        public init(day: Int, month: Int, year: Int, hour: Int, minute: Int, second: Int) {
            dateTime = RTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }

        public init(status: Status, data: [UInt8]) throws(CommandError) {
            dateTime = try RTCLayout.decode(data, what: "RTCGet response")
        }

        public var day: Int { dateTime.day }
        public var month: Int { dateTime.month }
        public var year: Int { dateTime.year }
        public var hour: Int { dateTime.hour }
        public var minute: Int { dateTime.minute }
        public var second: Int { dateTime.second }

        /// The six clock bytes; a value outside the layout (our own bug in the simulator) writes zeros.
        public func encodeData() -> [UInt8] {
            (try? RTCLayout.encode(dateTime)) ?? [UInt8](repeating: 0, count: RTCLayout.size)
        }

        private enum CodingKeys: String, CodingKey { case dateTime }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(dateTime.description, forKey: .dateTime)
        }
    }
}

/// 0x0302 RTCSet: sets the terminal's clock (MP-README; the Android sample does it inside a secure session).
public struct RTCSet: RPCCommand, Hashable {
    public typealias Response = EmptyResponse
    public static let id = CommandID.rtcSet

    public var dateTime: RTCDateTime

    public init(_ dateTime: RTCDateTime) { self.dateTime = dateTime }

    public init(day: Int, month: Int, year: Int, hour: Int, minute: Int, second: Int) {
        dateTime = RTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    public var day: Int { dateTime.day }
    public var month: Int { dateTime.month }
    public var year: Int { dateTime.year }
    public var hour: Int { dateTime.hour }
    public var minute: Int { dateTime.minute }
    public var second: Int { dateTime.second }

    public func encodePayload() throws(CommandError) -> [UInt8] { try RTCLayout.encode(dateTime) }

    public init(payload: [UInt8]) throws(CommandError) {
        guard payload.count <= RTCLayout.size else {
            throw CommandError(.malformed, "RTCSet request is \(payload.count) bytes; the layout has \(RTCLayout.size)")
        }
        dateTime = try RTCLayout.decode(payload, what: "RTCSet request")
    }

    private enum CodingKeys: String, CodingKey { case dateTime }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dateTime.description, forKey: .dateTime)
    }
}
