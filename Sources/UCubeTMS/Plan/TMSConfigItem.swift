import Foundation
import UCubeProtocol

/// The kinds of item a TMS config lists (spec §10.4; 8 from iOS) as the config's integer `type`. The one table of
/// kinds and their names is `FirmwareItemType` (UCubeProtocol); this only spells its raw values as `Int`.
package enum TMSItemType {
    package static let svppFirmware = Int(FirmwareItemType.svppFirmware.rawValue)
    package static let nfcFirmware = Int(FirmwareItemType.nfcFirmware.rawValue)
    package static let iccEMVConfig = Int(FirmwareItemType.iccConfig.rawValue)
    package static let nfcEMVConfig = Int(FirmwareItemType.nfcConfig.rawValue)
    package static let miscParameters = Int(FirmwareItemType.miscParameters.rawValue)
    package static let additionalFiles = Int(FirmwareItemType.additionalFiles.rawValue)

    /// The name of `type`, or "type N" for one the spec does not name.
    package static func name(_ type: Int) -> String {
        UInt8(exactly: type).flatMap(FirmwareItemType.init(rawValue:))?.description ?? "type \(type)"
    }
}

/// One element of the config reply's `data.config` array (spec §10.4).
package struct TMSConfigItem: Hashable, Sendable, Codable {
    package var type: Int
    package var ciphered: Bool
    package var label: String?
    package var minVersion: FirmwareVersion
    package var currentVersion: FirmwareVersion

    package init(
        type: Int, ciphered: Bool = false, label: String? = nil, minVersion: FirmwareVersion,
        currentVersion: FirmwareVersion
    ) {
        self.type = type
        self.ciphered = ciphered
        self.label = label
        self.minVersion = minVersion
        self.currentVersion = currentVersion
    }

    package var typeName: String { TMSItemType.name(type) }

    enum CodingKeys: String, CodingKey {
        case type, ciphered, label
        case minVersion = "min_version"
        case currentVersion = "current_version"
    }
}

/// The config reply: `{"status":"ok","data":{"config":[…]}}` (spec §10.4). Pure.
package enum TMSConfigReply {
    private struct Reply: Decodable {
        struct Data: Decodable { var config: [TMSConfigItem] }
        var status: String
        var data: Data?
    }

    /// Parses a config reply body received from `url`. Throws `.malformedReply` naming the URL for anything but the
    /// documented shape (status ≠ "ok", bad JSON, missing fields, a version that is not "a.b.c.d", oversize).
    package static func parse(_ body: [UInt8], url: String) throws(TMSError) -> [TMSConfigItem] {
        guard body.count <= TMSChoices.maximumConfigReply else {
            throw TMSError(.malformedReply, "\(url): config reply larger than \(TMSChoices.maximumConfigReply) bytes")
        }
        let reply: Reply
        do {
            reply = try JSONDecoder().decode(Reply.self, from: Data(body))
        } catch {
            throw TMSError(.malformedReply, "\(url): config reply is not the expected JSON (\(describe(error)))")
        }
        guard reply.status == "ok" else {
            throw TMSError(.malformedReply, "\(url): config reply status is \"\(reply.status.prefix(80))\", not \"ok\"")
        }
        guard let data = reply.data else {
            throw TMSError(.malformedReply, "\(url): config reply has no \"data\" object")
        }
        do throws(ConfigListProblem) {
            try ConfigListProblem.check(data.config)
        } catch {
            throw TMSError(.malformedReply, "\(url): config reply refused: \(error.description)")
        }
        return data.config
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): "\(path(c.codingPath)) \(c.debugDescription)"
        case DecodingError.keyNotFound(let k, let c): "missing \"\(k.stringValue)\" at \(path(c.codingPath))"
        case DecodingError.typeMismatch(_, let c): "wrong type at \(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.valueNotFound(_, let c): "null at \(path(c.codingPath))"
        default: "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
    }
}

/// Why a config list is refused before anything is planned or downloaded: a terminal has at most one item of each
/// type (the binary is fetched by type, spec §10.5), so a repeated type would download and load the same binary again,
/// and a list longer than `TMSChoices.maximumConfigItems` is not a terminal's configuration. Pure.
package enum ConfigListProblem: Error, Hashable, Sendable, CustomStringConvertible {
    case tooManyItems(count: Int)
    case repeatedType(type: Int, positions: [Int])
    case typeOutOfRange(type: Int, position: Int)
    case minimumAboveCurrent(type: Int, position: Int)

    /// Throws the first problem of `items`, in this order: the count, then each item in the server's order.
    package static func check(_ items: [TMSConfigItem]) throws(ConfigListProblem) {
        guard items.count <= TMSChoices.maximumConfigItems else { throw .tooManyItems(count: items.count) }
        var seen: [Int: Int] = [:]
        for (position, item) in items.enumerated() {
            guard (0...255).contains(item.type) else { throw .typeOutOfRange(type: item.type, position: position) }
            if let first = seen[item.type] {
                throw .repeatedType(type: item.type, positions: [first, position])
            }
            seen[item.type] = position
            guard item.minVersion <= item.currentVersion else {
                throw .minimumAboveCurrent(type: item.type, position: position)
            }
        }
    }

    package var description: String {
        switch self {
        case .tooManyItems(let count):
            "\(count) items, more than the \(TMSChoices.maximumConfigItems) a terminal's configuration can have"
        case .repeatedType(let type, let positions):
            "\(TMSItemType.name(type)) is listed more than once (items \(positions.map(String.init).joined(separator: " and ")), from 0)"
        case .typeOutOfRange(let type, let position):
            "item \(position) has type \(type), outside 0...255"
        case .minimumAboveCurrent(let type, let position):
            "item \(position) (\(TMSItemType.name(type))) has a min_version above its current_version"
        }
    }
}
