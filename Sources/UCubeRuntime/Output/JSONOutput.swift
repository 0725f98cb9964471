import Foundation
import UCubeProtocol

/// A small JSON encoder for `--json` output. Unlike Foundation's, it writes every `[UInt8]` as an upper-case hex
/// string (frames, KSNs, cryptograms read as hex everywhere else in ucube) with card data masked as every hex dump
/// masks it (`Masking.hex`: a 5A, 57, 9F6B or 56 value shaped like card data shows `*` for its hidden digits),
/// sorts keys, and emits one line or an indented document.
package enum JSONOutput {
    package indirect enum Value {
        case null, bool(Bool), number(String), string(String), array([Value]), object([(String, Value)])
    }

    /// The version of the form of every JSON document and JSON line ucube writes: the `version` key each one carries
    /// (docs/json.md, with a JSON Schema per output in docs/schemas/). It changes when a key changes meaning or goes;
    /// a new key may come without a change.
    package static let version = 1

    /// `value` as ucube writes it out: an object gains `version` (one that has its own keeps it), and so does each
    /// object of an array (`history --json`, `rpc list --json`: each element is a document of its own).
    package static func versioned(_ value: Value) -> Value {
        switch value {
        case .object(let fields):
            if fields.contains(where: { $0.0 == "version" }) { return value }
            return .object(fields + [("version", .number(String(version)))])
        case .array(let items):
            return .array(items.map { if case .object = $0 { versioned($0) } else { $0 } })
        case .null, .bool, .number, .string:
            return value
        }
    }

    /// `indent`: the depth the value sits at (an element of an array written one element at a time is at 1).
    /// `versioned`: an output of ucube's own, with its `version` (`versioned(_:)`); not a document another party
    /// defines (`serve`'s answers, docs/openapi.yaml; a command's fields inside a trace line).
    package static func encode<T: Encodable>(
        _ value: T, pretty: Bool = true, indent: Int = 0, versioned: Bool = false
    ) throws -> String {
        let tree = try TreeEncoder.encode(value)
        var out = ""
        write(versioned ? Self.versioned(tree) : tree, into: &out, pretty: pretty, indent: indent)
        return out
    }

    /// `value` as a tree (`[UInt8]` as masked hex, as `encode` writes it).
    package static func tree<T: Encodable>(_ value: T) throws -> Value { try TreeEncoder.encode(value) }

    /// Prints `value` as JSON on stdout, with its `version`: the command's result (a failure after it adds no error
    /// object). One line when stdout is JSON lines (`Console.jsonLines`: the shell).
    /// For one terminal of a fleet run (`DeviceOutput`), the result goes to the run as a value instead
    /// (`FleetEvent.result`), with what the run's summary says of it when the value can say (`FleetSummarised`).
    package static func print<T: Encodable>(_ value: T, pretty: Bool = true) throws {
        if let device = DeviceOutput.current {
            device.report(.result(versioned(try tree(value)), (value as? any FleetSummarised)?.fleetSummary ?? .init()))
            return
        }
        let pretty = pretty && !Console.jsonLines
        Console.outcome(try encode(value, pretty: pretty, versioned: true) + "\n", json: true)
        Console.noteResult()
    }

    package static func write(_ value: Value, into out: inout String, pretty: Bool, indent: Int) {
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let closePad = pretty ? String(repeating: "  ", count: indent) : ""
        let nl = pretty ? "\n" : ""
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): out += quote(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, item) in items.enumerated() {
                out += pad
                write(item, into: &out, pretty: pretty, indent: indent + 1)
                out += (i < items.count - 1 ? "," : "") + nl
            }
            out += closePad + "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{" + nl
            let sorted = fields.sorted { $0.0 < $1.0 }
            for (i, (key, item)) in sorted.enumerated() {
                out += pad + quote(key) + (pretty ? ": " : ":")
                write(item, into: &out, pretty: pretty, indent: indent + 1)
                out += (i < sorted.count - 1 ? "," : "") + nl
            }
            out += closePad + "}"
        }
    }

    package static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // C0, DEL and C1: JSON allows the last two raw, but a reader that prints a value must not meet them.
            case _ where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value):
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Builds a `JSONOutput.Value` tree from any `Encodable`; `[UInt8]` becomes a hex string at any depth.
private final class Node {
    enum Kind {
        case value(JSONOutput.Value)
        case object([(String, Node)])
        case array([Node])
    }

    var kind: Kind

    init(_ value: JSONOutput.Value = .null) { kind = .value(value) }

    func set(_ key: String, _ child: Node) {
        var fields: [(String, Node)] = []
        if case .object(let f) = kind { fields = f }
        fields.removeAll { $0.0 == key }
        fields.append((key, child))
        kind = .object(fields)
    }

    func append(_ child: Node) {
        var items: [Node] = []
        if case .array(let a) = kind { items = a }
        items.append(child)
        kind = .array(items)
    }

    var value: JSONOutput.Value {
        switch kind {
        case .value(let v): v
        case .object(let fields): .object(fields.map { ($0.0, $0.1.value) })
        case .array(let items): .array(items.map { $0.value })
        }
    }
}

private final class TreeEncoder: Encoder {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] = [:]
    let node: Node

    init(node: Node, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }

    static func encode<T: Encodable>(_ value: T) throws -> JSONOutput.Value {
        let node = Node()
        try fill(node, with: value, codingPath: [])
        return node.value
    }

    static func fill<T: Encodable>(_ node: Node, with value: T, codingPath: [any CodingKey]) throws {
        // Match the static type: an empty array of anything would also cast to [UInt8].
        if T.self == [UInt8].self, let bytes = value as? [UInt8] {
            node.kind = .value(.string(Masking.hex(bytes)))
            return
        }
        try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object([]) }
        return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array([]) }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(node: node, codingPath: codingPath)
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        var codingPath: [any CodingKey]
        mutating func encodeNil(forKey key: Key) throws { node.set(key.stringValue, Node(.null)) }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            node.set(key.stringValue, Node(.bool(value)))
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            node.set(key.stringValue, Node(.string(value)))
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(value.isFinite ? String(value) : "null")))
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(value.isFinite ? String(value) : "null")))
        }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: Int8, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: Int16, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: Int32, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: Int64, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: UInt8, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: UInt16, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: UInt32, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            node.set(key.stringValue, Node(.number(String(value))))
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let child = Node()
            try TreeEncoder.fill(child, with: value, codingPath: codingPath + [key])
            node.set(key.stringValue, child)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = Node()
            node.set(key.stringValue, child)
            return TreeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node()
            node.set(key.stringValue, child)
            return TreeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { TreeEncoder(node: node, codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = Node()
            node.set(key.stringValue, child)
            return TreeEncoder(node: child, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey]
        var count: Int {
            if case .array(let a) = node.kind { return a.count }
            return 0
        }
        mutating func encodeNil() throws { node.append(Node(.null)) }
        mutating func encode(_ value: Bool) throws { node.append(Node(.bool(value))) }
        mutating func encode(_ value: String) throws { node.append(Node(.string(value))) }
        mutating func encode(_ value: Double) throws {
            node.append(Node(.number(value.isFinite ? String(value) : "null")))
        }
        mutating func encode(_ value: Float) throws {
            node.append(Node(.number(value.isFinite ? String(value) : "null")))
        }
        mutating func encode(_ value: Int) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: Int8) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: Int16) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: Int32) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: Int64) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: UInt) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: UInt8) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: UInt16) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: UInt32) throws { node.append(Node(.number(String(value)))) }
        mutating func encode(_ value: UInt64) throws { node.append(Node(.number(String(value)))) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let child = Node()
            try TreeEncoder.fill(child, with: value, codingPath: codingPath)
            node.append(child)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<
                NestedKey
            >
        {
            let child = Node()
            node.append(child)
            return TreeEncoder(node: child, codingPath: codingPath).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Node()
            node.append(child)
            return TreeEncoder(node: child, codingPath: codingPath).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            let child = Node()
            node.append(child)
            return TreeEncoder(node: child, codingPath: codingPath)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey]
        mutating func encodeNil() throws { node.kind = .value(.null) }
        mutating func encode(_ value: Bool) throws { node.kind = .value(.bool(value)) }
        mutating func encode(_ value: String) throws { node.kind = .value(.string(value)) }
        mutating func encode(_ value: Double) throws {
            node.kind = .value(.number(value.isFinite ? String(value) : "null"))
        }
        mutating func encode(_ value: Float) throws {
            node.kind = .value(.number(value.isFinite ? String(value) : "null"))
        }
        mutating func encode(_ value: Int) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: Int8) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: Int16) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: Int32) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: Int64) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: UInt) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: UInt8) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: UInt16) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: UInt32) throws { node.kind = .value(.number(String(value))) }
        mutating func encode(_ value: UInt64) throws { node.kind = .value(.number(String(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try TreeEncoder.fill(node, with: value, codingPath: codingPath)
        }
    }
}

extension JSONOutput.Value: Decodable {
    /// Any JSON document, read back (a fleet run reads each terminal's events to tag them with the device). Numbers
    /// keep their integer form when they have one.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(String(integer))
        } else if let double = try? container.decode(Double.self) {
            self = .number(String(double))
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONOutput.Value].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONOutput.Value].self).map { ($0.key, $0.value) })
        }
    }

    /// `text` as one JSON document, or nil.
    package static func parse(_ text: Substring) -> JSONOutput.Value? {
        guard let first = text.first(where: { !$0.isWhitespace }), first == "{" || first == "[" else { return nil }
        return try? JSONDecoder().decode(JSONOutput.Value.self, from: Data(text.utf8))
    }

    /// An object's field.
    package subscript(key: String) -> JSONOutput.Value? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }

    /// A string's or a number's text.
    package var text: String? {
        switch self {
        case .string(let s), .number(let s): s
        case .bool(let b): b ? "true" : "false"
        default: nil
        }
    }

    /// One line of JSON.
    package var line: String {
        var out = ""
        JSONOutput.write(self, into: &out, pretty: false, indent: 0)
        return out
    }

    /// One line of JSON as ucube writes it out, with its `version` (`JSONOutput.versioned`).
    package var versionedLine: String { JSONOutput.versioned(self).line }
}
