import Foundation

/// The endpoints of spec §10.2 the simulator serves, by name for `setFault(_:for:times:)`. Each name covers both
/// dialects' forms of the endpoint (`TMSRouteDialect`).
package enum TMSEndpoint: String, Sendable, Hashable, CaseIterable {
    case register, infos, config, binary, logs
}

/// Which SDK's form of the TMS API a request used (spec §10.2): the 2020 Android SDK's paths, or the current SDK's
/// (libApp 3.5.13 / 1.3.8.19). Config has one form, shared by both.
package enum TMSRouteDialect: String, Sendable, Hashable, CaseIterable, Comparable {
    case v2020 = "2020"
    case current

    package static func < (a: Self, b: Self) -> Bool { a == .v2020 && b == .current }
}

/// A request line (and its `x-device-id` / `x-id-type` headers) mapped to an endpoint (pure).
///
/// The forms, after `/MDM/jaxrs` (spec §10.2):
///
/// | endpoint | 2020 | current |
/// |---|---|---|
/// | register | POST `/public/v1/dongle/register/{serial}/{pn}` | POST `/public/v1/dongle/register/{serial}/RFU` |
/// | infos | POST `/v2/dongle/infos/{serial}/{pn}` (GetInfo TLVs) | POST `/v2/dongle/infos/{deviceId}` (JSON) |
/// | config | GET `/v2/dongle/config/{serial}/{pn}` | the same, with x- headers |
/// | binary | POST `/v2/dongle/binary/{type}/{serial}/{pn}` | POST `/v3/dongle/binary/{type}`, serial in `x-device-id` |
/// | logs | POST `/v1/dongle/logs/{serial}/{pn}?type=zip` | POST `/public/v3/dongle/logs/?type=zip`, `x-device-id` |
struct TMSRoute: Sendable, Hashable {
    enum Method: String, Sendable { case get = "GET", post = "POST" }

    let endpoint: TMSEndpoint
    /// The form used; nil for config, whose one form both dialects send.
    let dialect: TMSRouteDialect?
    /// The terminal's decimal serial: from the path, or from `x-device-id` in the current forms that have none.
    let serial: String
    /// The part number of the path; nil in the current forms (register's literal `RFU` included).
    let partNumber: String?
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

    /// The current SDK's register sends this literal where the 2020 SDK sent the part number (L:mdm.RegisterTask).
    static let registerPlaceholder = "RFU"

    /// Maps `method` + `uri` (path and query) + the identity headers to a route. `deviceID` and `idType` are the
    /// `x-device-id` and `x-id-type` header values (nil when absent).
    static func parse(method: String, uri: String, deviceID: String? = nil, idType: String? = nil) -> Result<
        TMSRoute, Failure
    > {
        let pathPart = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(pathPart[0])
        let query = pathPart.count > 1 ? String(pathPart[1]) : nil
        guard path.hasPrefix(TMSSimulatorChoices.pathPrefix + "/") else { return .failure(.notFound) }
        var segments = path.dropFirst(TMSSimulatorChoices.pathPrefix.count + 1)
            .split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let endpoint: TMSEndpoint
        let dialect: TMSRouteDialect?
        var binaryType: Int?
        /// {serial}/{pn} of the path, or nil when the serial comes from x-device-id.
        var rest: ArraySlice<String>?
        func type(_ text: String) -> Result<Int, Failure> {
            guard let type = Int(text), (0...0xFF).contains(type), text.allSatisfy(\.isNumber) else {
                return .failure(.badRequest("binary type \"\(text.prefix(16))\" is not a number"))
            }
            return .success(type)
        }
        // The current logs path ends with '/' before the query; accept it without too.
        if segments.count == 5, segments[0..<4] == ["public", "v3", "dongle", "logs"], segments[4].isEmpty {
            segments.removeLast()
        }
        switch segments.count {
        case 6 where segments[0..<4] == ["public", "v1", "dongle", "register"]:
            endpoint = .register
            dialect = segments[5] == registerPlaceholder ? .current : .v2020
            rest = segments[4...]
        case 5 where segments[0..<3] == ["v2", "dongle", "infos"]:
            (endpoint, dialect, rest) = (.infos, .v2020, segments[3...])
        case 4 where segments[0..<3] == ["v2", "dongle", "infos"]:
            (endpoint, dialect, rest) = (.infos, .current, nil)
            guard segments[3] == deviceID || deviceID == nil else {
                return .failure(.badRequest("x-device-id does not name the device of the path"))
            }
        case 5 where segments[0..<3] == ["v2", "dongle", "config"]:
            (endpoint, dialect, rest) = (.config, nil, segments[3...])
        case 6 where segments[0..<3] == ["v2", "dongle", "binary"]:
            (endpoint, dialect, rest) = (.binary, .v2020, segments[4...])
            switch type(segments[3]) {
            case .success(let value): binaryType = value
            case .failure(let failure): return .failure(failure)
            }
        case 4 where segments[0..<3] == ["v3", "dongle", "binary"]:
            (endpoint, dialect, rest) = (.binary, .current, nil)
            switch type(segments[3]) {
            case .success(let value): binaryType = value
            case .failure(let failure): return .failure(failure)
            }
        case 5 where segments[0..<3] == ["v1", "dongle", "logs"]:
            (endpoint, dialect, rest) = (.logs, .v2020, segments[3...])
        case 4 where segments[0..<4] == ["public", "v3", "dongle", "logs"]:
            (endpoint, dialect, rest) = (.logs, .current, nil)
        default:
            return .failure(.notFound)
        }
        let serial: String
        var partNumber: String?
        if let rest {
            serial = rest[rest.startIndex]
            guard let decoded = rest[rest.startIndex + 1].removingPercentEncoding else {
                return .failure(.badRequest("part number is not percent-encoded UTF-8"))
            }
            partNumber = endpoint == .register && dialect == .current ? nil : decoded
        } else {
            // Current forms: the terminal is named by its headers (spec §10.1). The SDK sends the serial in
            // x-device-id for binary and infos whatever x-id-type says; for logs the type says what the id is.
            let path = endpoint == .infos ? segments[3] : deviceID
            guard let id = path, !id.isEmpty else {
                return .failure(.badRequest("the current API names the terminal in the x-device-id header"))
            }
            if endpoint == .logs, let idType, !TMSSimulatorChoices.serialIDTypes.contains(idType) {
                return .failure(
                    .badRequest(
                        "x-id-type \(idType.prefix(16)): this simulator knows terminals by serial (x-id-type C3 or TERM_SN)"
                    ))
            }
            serial = id
        }
        let route = TMSRoute(
            endpoint: endpoint, dialect: dialect, serial: serial, partNumber: partNumber, binaryType: binaryType)
        guard route.method.rawValue == method else { return .failure(.methodNotAllowed(allowed: route.method)) }
        guard !serial.isEmpty, serial.count <= TMSSimulatorChoices.maximumSerialLength,
            serial.utf8.allSatisfy({ (0x30...0x39).contains($0) }), UInt64(serial) != nil
        else { return .failure(.badRequest("serial \"\(serial.prefix(32))\" is not a decimal serial number")) }
        if let partNumber, partNumber.isEmpty || partNumber.count > TMSSimulatorChoices.maximumPartNumberLength {
            return .failure(
                .badRequest("part number must be 1…\(TMSSimulatorChoices.maximumPartNumberLength) characters"))
        }
        if endpoint == .logs, query != "type=zip" {
            return .failure(.badRequest("logs need ?type=zip"))
        }
        if endpoint == .config || endpoint == .binary, let deviceID, deviceID != serial {
            return .failure(.badRequest("x-device-id \(deviceID.prefix(32)) is not the serial of the path"))
        }
        return .success(route)
    }
}

extension TMSRouteDialect {
    /// The words of `ucube simulate --tms-dialect`: `both` (the default), `2020` or `current`.
    package static let servedChoices = ["both", "2020", "current"]

    /// The dialects a `--tms-dialect` word serves; nil for an unknown word.
    package static func served(_ word: String) -> Set<TMSRouteDialect>? {
        switch word {
        case "both": Set(allCases)
        case "2020": [.v2020]
        case "current": [.current]
        default: nil
        }
    }
}
