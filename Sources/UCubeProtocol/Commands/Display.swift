/// One line of text on the terminal's screen: `font ‖ length+1 ‖ text ‖ 00 ‖ x ‖ y` (spec §5.2 DisplayMessage; the
/// same block carries SimplifiedOnlinePIN's prompt and wait texts).
package struct DisplayLine: Hashable, Sendable, Encodable {
    /// x = 0xFF centres the line (the SDK's "centered" field).
    package static let centred: UInt8 = 0xFF
    /// "max 254 chars": the length byte also counts the terminator.
    package static let maxTextLength = CountedText.maxTextCount

    package var font: UInt8
    /// ISO-8859-1 text (characters up to U+00FF).
    package var text: String
    package var x: UInt8
    /// Pixel row.
    package var y: UInt8

    package init(font: UInt8 = 0, text: String, x: UInt8 = DisplayLine.centred, y: UInt8 = 0) {
        self.font = font
        self.text = text
        self.x = x
        self.y = y
    }

    func append(to out: inout [UInt8], _ field: String) throws(CommandError) {
        let bytes = try Latin1.encode(text, field: field, maxCount: Self.maxTextLength)
        out.append(font)
        CountedText.append(bytes, to: &out)
        out.append(x)
        out.append(y)
    }

    static func read(_ reader: inout ByteReader, _ field: String) throws(CommandError) -> DisplayLine {
        let font = try reader.u8("\(field) font")
        let text = Latin1.decode(try CountedText.read(&reader, "\(field) text"))
        let x = try reader.u8("\(field) x")
        let y = try reader.u8("\(field) y")
        return DisplayLine(font: font, text: text, x: x, y: y)
    }
}

/// 0x5040 DisplayMessage (without key input): shows lines of text until the timeout expires or an abort key is
/// pressed (spec §5.2).
package struct DisplayMessage: RPCCommand, Hashable {
    package static let id = CommandID.displayMessage

    /// The clear-config the samples use most (0x05, spec §2.6 "Hello world"); bit meanings are not in the sources.
    package static let defaultClearConfig: UInt8 = 0x05

    package var timeoutSeconds: UInt8
    /// Bitmask of keys that end the display (values not in sources; the sample uses 0x07).
    package var abortKeys: UInt8
    /// Bit flags (`SVPP_COM_CLEAR_DISPLAY`, yes/no prompt; values not in sources).
    package var clearConfig: UInt8
    package var lines: [DisplayLine]

    package init(
        timeoutSeconds: UInt8,
        abortKeys: UInt8 = 0,
        clearConfig: UInt8 = DisplayMessage.defaultClearConfig,
        lines: [DisplayLine]
    ) {
        self.timeoutSeconds = timeoutSeconds
        self.abortKeys = abortKeys
        self.clearConfig = clearConfig
        self.lines = lines
    }

    /// One centred line in font 0 on row 0, no abort key, clear config 0x05 — the spec §2.6 "Hello world" shape.
    package init(text: String, timeout: UInt8 = 0) {
        self.init(timeoutSeconds: timeout, lines: [DisplayLine(text: text)])
    }

    package var responseTimeout: Duration? { ResponseTimeouts.after(seconds: timeoutSeconds) }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard !lines.isEmpty else { throw CommandError(.invalidArgument, "DisplayMessage needs at least one line") }
        guard lines.count <= 255 else {
            throw CommandError(.invalidArgument, "DisplayMessage takes at most 255 lines, got \(lines.count)")
        }
        var out: [UInt8] = [timeoutSeconds, abortKeys, clearConfig, UInt8(lines.count)]
        for (index, line) in lines.enumerated() {
            try line.append(to: &out, "line \(index + 1)")
        }
        return try PayloadLimits.checked(out, "DisplayMessage")
    }

    package init(payload: [UInt8]) throws(CommandError) {
        var reader = ByteReader(payload, what: "DisplayMessage request")
        timeoutSeconds = try reader.u8("timeout")
        abortKeys = try reader.u8("abort keys")
        clearConfig = try reader.u8("clear config")
        let count = Int(try reader.u8("number of lines"))
        var lines: [DisplayLine] = []
        for index in 0..<count {
            lines.append(try DisplayLine.read(&reader, "line \(index + 1)"))
        }
        guard reader.isAtEnd else {
            throw CommandError(.malformed, "DisplayMessage request has \(reader.remaining) bytes after its lines")
        }
        self.lines = lines
    }

    private enum CodingKeys: String, CodingKey { case timeoutSeconds, abortKeys, clearConfig, lines }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeoutSeconds, forKey: .timeoutSeconds)
        try container.encode(abortKeys, forKey: .abortKeys)
        try container.encode(clearConfig, forKey: .clearConfig)
        try container.encode(lines, forKey: .lines)
    }

    /// PROJECT CHOICE (spec §5.2): data = one byte, the key that ended the display, or empty on timeout. Bytes after
    /// the first are ignored.
    package struct Response: RPCResponse, Hashable {
        package var key: UInt8?

        package init(key: UInt8? = nil) { self.key = key }
        package init(status: Status, data: [UInt8]) throws(CommandError) { key = data.first }

        package func encodeData() -> [UInt8] { key.map { [$0] } ?? [] }

        private enum CodingKeys: String, CodingKey { case key }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(key, forKey: .key)
        }
    }
}

/// 0x5042 DisplayListBox (DisplayChoice): shows a list and answers the chosen item, 1-based (spec §5.2, SDK layout).
///
/// `timeout ‖ title font ‖ title length ‖ title + 00 ‖ scroll-key font ‖ 00 ‖ text font ‖ list length ‖ items`, each
/// item ASCII + 00. Fonts are written 0 as the SDK does and ignored when read.
package struct DisplayListBox: RPCCommand, Hashable {
    package static let id = CommandID.displayListBox

    /// The SDK default (spec §5.2).
    package static let defaultTimeout: UInt8 = 60
    /// The SDK caps the list at 200 bytes; longer lists are refused rather than cut.
    package static let maxListBytes = 200

    package var timeoutSeconds: UInt8
    /// `nil` sends the SDK's empty title ("\0"); an empty string is the same thing.
    package var title: String?
    package var items: [String]

    package init(timeoutSeconds: UInt8 = DisplayListBox.defaultTimeout, title: String? = nil, items: [String]) {
        self.timeoutSeconds = timeoutSeconds
        self.title = title?.isEmpty == true ? nil : title
        self.items = items
    }

    package var responseTimeout: Duration? { ResponseTimeouts.after(seconds: timeoutSeconds) }

    package func encodePayload() throws(CommandError) -> [UInt8] {
        guard !items.isEmpty else { throw CommandError(.invalidArgument, "DisplayListBox needs at least one item") }
        let titleBytes = try ASCII.encodePrintable(title ?? "", field: "list title")
        guard titleBytes.count <= CountedText.maxTextCount else {
            throw CommandError(.invalidArgument, "list title is \(titleBytes.count) characters; at most 254 allowed")
        }
        var list: [UInt8] = []
        for (index, item) in items.enumerated() {
            list += try ASCII.encodePrintable(item, field: "list item \(index + 1)") + [0x00]
        }
        guard list.count <= Self.maxListBytes else {
            throw CommandError(
                .invalidArgument,
                "the list is \(list.count) bytes (items plus one terminator each); at most \(Self.maxListBytes) allowed"
            )
        }
        var out: [UInt8] = [timeoutSeconds, 0]
        CountedText.append(titleBytes, to: &out)
        out += [0, 0x00, 0, UInt8(list.count)]
        out += list
        return out
    }

    package init(payload: [UInt8]) throws(CommandError) {
        var reader = ByteReader(payload, what: "DisplayListBox request")
        timeoutSeconds = try reader.u8("timeout")
        _ = try reader.u8("title font")
        let titleBytes = try CountedText.read(&reader, "title")
        title = titleBytes.isEmpty ? nil : Latin1.decode(titleBytes)
        _ = try reader.u8("scroll-key label font")
        _ = try reader.u8("scroll-key label")
        _ = try reader.u8("text font")
        let length = Int(try reader.u8("list length"))
        let list = try reader.take(length, "list")
        guard reader.isAtEnd else {
            throw CommandError(.malformed, "DisplayListBox request has \(reader.remaining) bytes after the list")
        }
        guard list.last == 0x00 else {
            throw CommandError(.malformed, "DisplayListBox request: the list does not end with 0x00")
        }
        // MP items end with "\n" before the 0x00 (spec §5.2); drop it.
        items = list.dropLast().split(separator: 0x00, omittingEmptySubsequences: false).map { item in
            Latin1.decode(item.last == 0x0A ? item.dropLast() : item)
        }
    }

    private enum CodingKeys: String, CodingKey { case timeoutSeconds, title, items }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeoutSeconds, forKey: .timeoutSeconds)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(items, forKey: .items)
    }

    /// Byte 0: the selected item, 1-based. Status −114 means the user aborted. Trailing bytes are ignored.
    package struct Response: RPCResponse, Hashable {
        package var selectedIndex: Int

        package init(selectedIndex: Int) { self.selectedIndex = selectedIndex }

        package init(status: Status, data: [UInt8]) throws(CommandError) {
            var reader = ByteReader(data, what: "DisplayListBox response")
            let index = try reader.u8("selected item")
            guard index >= 1 else {
                throw CommandError(.malformed, "DisplayListBox response: selected item is 0; items are numbered from 1")
            }
            selectedIndex = Int(index)
        }

        /// An index outside 1…255 (our own bug in the simulator) is written as 0.
        package func encodeData() -> [UInt8] { [UInt8(exactly: selectedIndex) ?? 0] }

        private enum CodingKeys: String, CodingKey { case selectedIndex }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(selectedIndex, forKey: .selectedIndex)
        }
    }
}
