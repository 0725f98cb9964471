import Foundation
import UCubeProtocol

/// The kinds of item a TMS config lists (spec §10.4; 8 from iOS) as the config's integer `type`. The one table of
/// kinds and their names is `FirmwareItemType` (UCubeProtocol); this only spells its raw values as `Int`.
public enum TMSItemType {
    public static let svppFirmware = Int(FirmwareItemType.svppFirmware.rawValue)
    public static let nfcFirmware = Int(FirmwareItemType.nfcFirmware.rawValue)
    public static let iccEMVConfig = Int(FirmwareItemType.iccConfig.rawValue)
    public static let nfcEMVConfig = Int(FirmwareItemType.nfcConfig.rawValue)
    public static let miscParameters = Int(FirmwareItemType.miscParameters.rawValue)
    public static let additionalFiles = Int(FirmwareItemType.additionalFiles.rawValue)

    /// The name of `type`, or "type N" for one the spec does not name.
    public static func name(_ type: Int) -> String {
        UInt8(exactly: type).flatMap(FirmwareItemType.init(rawValue:))?.description ?? "type \(type)"
    }
}

/// One element of the config reply's `data.config` array (spec §10.4).
public struct TMSConfigItem: Hashable, Sendable, Codable {
    public var type: Int
    public var ciphered: Bool
    public var label: String?
    public var minVersion: FirmwareVersion
    public var currentVersion: FirmwareVersion

    public init(type: Int, ciphered: Bool = false, label: String? = nil, minVersion: FirmwareVersion, currentVersion: FirmwareVersion) {
        self.type = type
        self.ciphered = ciphered
        self.label = label
        self.minVersion = minVersion
        self.currentVersion = currentVersion
    }

    public var typeName: String { TMSItemType.name(type) }

    enum CodingKeys: String, CodingKey {
        case type, ciphered, label
        case minVersion = "min_version"
        case currentVersion = "current_version"
    }
}

/// The config reply: `{"status":"ok","data":{"config":[…]}}` (spec §10.4). Pure.
public enum TMSConfigReply {
    private struct Reply: Decodable {
        struct Data: Decodable { var config: [TMSConfigItem] }
        var status: String
        var data: Data?
    }

    /// Parses a config reply body received from `url`. Throws `.malformedReply` naming the URL for anything but the
    /// documented shape (status ≠ "ok", bad JSON, missing fields, a version that is not "a.b.c.d", oversize).
    public static func parse(_ body: [UInt8], url: String) throws(TMSError) -> [TMSConfigItem] {
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
