import Foundation

/// The endpoints of spec §10.2 the simulator serves (old Android paths), by name for `setFault(_:for:times:)`.
public enum TMSEndpoint: String, Sendable, Hashable, CaseIterable {
    case register, infos, config, binary, logs
}

/// A request line mapped to an endpoint (pure).
struct TMSRoute: Sendable, Hashable {
    enum Method: String, Sendable { case get = "GET", post = "POST" }

    let endpoint: TMSEndpoint
    let serial: String
    let partNumber: String
    /// The `{type}` of a binary download.
    let binaryType: Int?

    enum Failure: Error, Hashable {
        case notFound
        case methodNotAllowed(allowed: Method)
        case badRequest(String)
    }

    var method: Method { endpoint == .config ? .get : .post }

    /// Register and logs are public; the others need the terminal's client certificate (spec §10.1 private host).
    var needsClientCertificate: Bool {
        switch endpoint {
        case .register, .logs: false
        case .infos, .config, .binary: true
        }
    }

    var bodyLimit: Int {
        switch endpoint {
        case .logs: TMSSimulatorChoices.maximumLogsBody
        case .register, .infos, .config, .binary: TMSSimulatorChoices.maximumSmallBody
        }
    }

    /// Maps `method` + `uri` (path and query) to a route.
    static func parse(method: String, uri: String) -> Result<TMSRoute, Failure> {
        let pathPart = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(pathPart[0])
        let query = pathPart.count > 1 ? String(pathPart[1]) : nil
        guard path.hasPrefix(TMSSimulatorChoices.pathPrefix + "/") else { return .failure(.notFound) }
        let segments = path.dropFirst(TMSSimulatorChoices.pathPrefix.count + 1)
            .split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let endpoint: TMSEndpoint
        var binaryType: Int?
        let rest: ArraySlice<String>
        switch segments.count {
        case 6 where Array(segments[0..<4]) == ["public", "v1", "dongle", "register"]:
            endpoint = .register
            rest = segments[4...]
        case 5 where Array(segments[0..<3]) == ["v2", "dongle", "infos"]:
            endpoint = .infos
            rest = segments[3...]
        case 5 where Array(segments[0..<3]) == ["v2", "dongle", "config"]:
            endpoint = .config
            rest = segments[3...]
        case 6 where Array(segments[0..<3]) == ["v2", "dongle", "binary"]:
            endpoint = .binary
            guard let type = Int(segments[3]), (0...0xFF).contains(type), segments[3].allSatisfy(\.isNumber) else {
                return .failure(.badRequest("binary type \"\(segments[3])\" is not a number"))
            }
            binaryType = type
            rest = segments[4...]
        case 5 where Array(segments[0..<3]) == ["v1", "dongle", "logs"]:
            endpoint = .logs
            rest = segments[3...]
        default:
            return .failure(.notFound)
        }
        let serial = rest[rest.startIndex]
        guard let partNumber = rest[rest.startIndex + 1].removingPercentEncoding else {
            return .failure(.badRequest("part number is not percent-encoded UTF-8"))
        }
        let route = TMSRoute(endpoint: endpoint, serial: serial, partNumber: partNumber, binaryType: binaryType)
        guard route.method.rawValue == method else { return .failure(.methodNotAllowed(allowed: route.method)) }
        guard !serial.isEmpty, serial.count <= TMSSimulatorChoices.maximumSerialLength,
            serial.utf8.allSatisfy({ (0x30...0x39).contains($0) }), UInt64(serial) != nil
        else { return .failure(.badRequest("serial \"\(serial.prefix(32))\" is not a decimal serial number")) }
        guard !partNumber.isEmpty, partNumber.count <= TMSSimulatorChoices.maximumPartNumberLength else {
            return .failure(.badRequest("part number must be 1…\(TMSSimulatorChoices.maximumPartNumberLength) characters"))
        }
        if endpoint == .logs, query != "type=zip" {
            return .failure(.badRequest("logs need ?type=zip"))
        }
        return .success(route)
    }
}
