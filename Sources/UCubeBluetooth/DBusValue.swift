import CDBus

/// One D-Bus value, as read from or written to a message (the subset BlueZ uses; Unix file descriptors are skipped).
package indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `a…`: the element signature is kept so an empty array can be written.
    case array(elementSignature: String, [DBusValue])
    /// `a{…}`: key and value signatures, entries in order.
    case dictionary(keySignature: String, valueSignature: String, [DictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    package struct DictEntry: Sendable, Equatable {
        package let key: DBusValue
        package let value: DBusValue
        package init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// A byte array, `ay`.
    package static func bytes(_ bytes: [UInt8]) -> DBusValue {
        .array(elementSignature: "y", bytes.map(DBusValue.byte))
    }

    /// An `a{sv}` options dictionary.
    package static func options(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(keySignature: "s", valueSignature: "v", entries.map { DictEntry(.string($0.0), .variant($0.1)) })
    }

    /// The D-Bus type signature of this value.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    // MARK: Reading helpers (variants are looked through)

    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    package var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    package var bool: Bool? {
        if case .bool(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type, widened.
    package var integer: Int? {
        switch unwrapped {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        default: nil
        }
    }

    /// An `ay` as bytes.
    package var bytes: [UInt8]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let b) = element else { return nil }
            out.append(b)
        }
        return out
    }

    /// An array of strings (`as`, `ao`).
    package var strings: [String]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        return elements.compactMap(\.string)
    }

    /// A dictionary with string or object-path keys (`a{sv}`, `a{oa{…}}`), values as they are (variants kept).
    package var dictionary: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            out[key] = entry.value
        }
        return out
    }
}

/// Reading and writing `DBusValue`s with libdbus's iterator API (its variadic functions are not callable from Swift).
enum DBusCodec {
    static func code(_ c: Character) -> Int32 { Int32(c.asciiValue!) }

    /// Reads every argument of a message.
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            if let value = read(&iter) { values.append(value) }
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    private static func signature(of iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ zero: T) -> T {
        var value = zero
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, UnsafeMutableRawPointer($0)) }
        return value
    }

    /// Reads the value at the iterator (nil at the end, or for a type this client does not use).
    static func read(_ iter: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case code("y"): return .byte(basic(&iter, UInt8(0)))
        case code("b"): return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case code("n"): return .int16(basic(&iter, Int16(0)))
        case code("q"): return .uint16(basic(&iter, UInt16(0)))
        case code("i"): return .int32(basic(&iter, Int32(0)))
        case code("u"): return .uint32(basic(&iter, UInt32(0)))
        case code("x"): return .int64(basic(&iter, Int64(0)))
        case code("t"): return .uint64(basic(&iter, UInt64(0)))
        case code("d"): return .double(basic(&iter, Double(0)))
        case code("s"), code("o"), code("g"):
            let pointer = basic(&iter, UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == code("s") ? .string(text) : type == code("o") ? .objectPath(text) : .signature(text)
        case code("v"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return read(&sub).map(DBusValue.variant)
        case code("r"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            if dbus_message_iter_get_arg_type(&sub) != 0 {
                repeat {
                    if let v = read(&sub) { fields.append(v) }
                } while dbus_message_iter_next(&sub) != 0
            }
            return .structure(fields)
        case code("a"):
            let full = signature(of: &iter)
            let element = String(full.dropFirst())
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            if element.hasPrefix("{") {
                let inner = Array(element.dropFirst().dropLast())
                let keySignature = String(inner.first ?? "s")
                let valueSignature = String(inner.dropFirst())
                var entries: [DBusValue.DictEntry] = []
                while dbus_message_iter_get_arg_type(&sub) == code("e") {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &entry)
                    let key = read(&entry)
                    _ = dbus_message_iter_next(&entry)
                    let value = read(&entry)
                    if let key, let value { entries.append(.init(key, value)) }
                    _ = dbus_message_iter_next(&sub)
                }
                return .dictionary(keySignature: keySignature, valueSignature: valueSignature, entries)
            }
            var elements: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                if let v = read(&sub) { elements.append(v) }
                _ = dbus_message_iter_next(&sub)
            }
            return .array(elementSignature: element, elements)
        default:
            return nil
        }
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ type: Character, _ value: T) -> Bool {
        var v = value
        return withUnsafePointer(to: &v) { dbus_message_iter_append_basic(&iter, code(type), UnsafeRawPointer($0)) }
            != 0
    }

    /// Appends one value; false when libdbus refuses (out of memory, invalid string).
    @discardableResult
    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(&iter, "y", v)
        case .bool(let v): return appendBasic(&iter, "b", dbus_bool_t(v ? 1 : 0))
        case .int16(let v): return appendBasic(&iter, "n", v)
        case .uint16(let v): return appendBasic(&iter, "q", v)
        case .int32(let v): return appendBasic(&iter, "i", v)
        case .uint32(let v): return appendBasic(&iter, "u", v)
        case .int64(let v): return appendBasic(&iter, "x", v)
        case .uint64(let v): return appendBasic(&iter, "t", v)
        case .double(let v): return appendBasic(&iter, "d", v)
        case .string(let s), .objectPath(let s), .signature(let s):
            let type: Character = if case .string = value { "s" } else if case .objectPath = value { "o" } else { "g" }
            return s.withCString { pointer in appendBasic(&iter, type, Optional(pointer)) }
        case .variant(let inner):
            return container(&iter, "v", inner.signature) { sub in append(inner, to: &sub) }
        case .structure(let fields):
            return container(&iter, "r", nil) { sub in fields.allSatisfy { append($0, to: &sub) } }
        case .array(let element, let elements):
            return container(&iter, "a", element) { sub in elements.allSatisfy { append($0, to: &sub) } }
        case .dictionary(let key, let valueSignature, let entries):
            return container(&iter, "a", "{" + key + valueSignature + "}") { sub in
                entries.allSatisfy { entry in
                    container(&sub, "e", nil) { e in append(entry.key, to: &e) && append(entry.value, to: &e) }
                }
            }
        }
    }

    private static func container(
        _ iter: inout DBusMessageIter, _ type: Character, _ signature: String?, _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, code(type), $0, &sub) } != 0
        } else {
            opened = dbus_message_iter_open_container(&iter, code(type), nil, &sub) != 0
        }
        guard opened else { return false }
        let ok = body(&sub)
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { return false }
        return ok
    }
}
