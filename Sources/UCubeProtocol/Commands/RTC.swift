/// The terminal clock's wire layout (0x0301 RTCGet response, 0x0302 RTCSet request).
///
/// PROJECT CHOICE (the byte layout is not in the sources, spec §5.1/§14): six binary bytes
/// `day ‖ month ‖ year − 2000 ‖ hour ‖ minute ‖ second`, in the order MP-README names the fields. This enum is the
/// only place that knows it.
package enum RTCLayout {
    package static let size = 6
    package static let baseYear = 2000

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
package struct RTCDateTime: Hashable, Sendable, Encodable, CustomStringConvertible {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Throws `.invalidArgument` naming the first field out of range.
    package func validate() throws(CommandError) {
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
    package var description: String {
        "\(year)-\(Self.pad(month))-\(Self.pad(day)) \(Self.pad(hour)):\(Self.pad(minute)):\(Self.pad(second))"
    }
}

/// 0x0301 RTCGet: reads the terminal's clock (MP-README). Request empty.
package struct RTCGet: EmptyPayloadCommand {
    package static let id = CommandID.rtcGet
    package init() {}

    /// The clock, in the `RTCLayout` (PROJECT CHOICE). Trailing bytes are ignored.
    package struct Response: RPCResponse, Hashable {
        package var dateTime: RTCDateTime

        package init(dateTime: RTCDateTime) { self.dateTime = dateTime }

        package init(day: Int, month: Int, year: Int, hour: Int, minute: Int, second: Int) {
            dateTime = RTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            dateTime = try RTCLayout.decode(data, what: "RTCGet response")
        }

        package var day: Int { dateTime.day }
        package var month: Int { dateTime.month }
        package var year: Int { dateTime.year }
        package var hour: Int { dateTime.hour }
        package var minute: Int { dateTime.minute }
        package var second: Int { dateTime.second }

        /// The six clock bytes; a value outside the layout (our own bug in the simulator) writes zeros.
        package func encodeData() -> [UInt8] {
            (try? RTCLayout.encode(dateTime)) ?? [UInt8](repeating: 0, count: RTCLayout.size)
        }

        private enum CodingKeys: String, CodingKey { case dateTime }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(dateTime.description, forKey: .dateTime)
        }
    }
}

/// 0x0302 RTCSet: sets the terminal's clock (MP-README; the Android sample does it inside a secure session).
package struct RTCSet: RPCCommand, Hashable {
    package typealias Response = EmptyResponse
    package static let id = CommandID.rtcSet

    package var dateTime: RTCDateTime

    package init(_ dateTime: RTCDateTime) { self.dateTime = dateTime }

    package init(day: Int, month: Int, year: Int, hour: Int, minute: Int, second: Int) {
        dateTime = RTCDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    package var day: Int { dateTime.day }
    package var month: Int { dateTime.month }
    package var year: Int { dateTime.year }
    package var hour: Int { dateTime.hour }
    package var minute: Int { dateTime.minute }
    package var second: Int { dateTime.second }

    package func encodePayload() throws(CommandError) -> [UInt8] { try RTCLayout.encode(dateTime) }

    package init(payload: [UInt8]) throws(CommandError) {
        guard payload.count <= RTCLayout.size else {
            throw CommandError(.malformed, "RTCSet request is \(payload.count) bytes; the layout has \(RTCLayout.size)")
        }
        dateTime = try RTCLayout.decode(payload, what: "RTCSet request")
    }

    private enum CodingKeys: String, CodingKey { case dateTime }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dateTime.description, forKey: .dateTime)
    }
}
