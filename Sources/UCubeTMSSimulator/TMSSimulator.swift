import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
import UCubeProtocol
import UCubeSimulator
import UCubeSupport
import X509

/// A TMS (MDM) server for tests and `ucube simulate --tms` (spec §10): HTTPS with a CA it generates and keeps in the
/// state directory, register → PKCS#12 client identity, mutual-TLS private endpoints, config and signed binaries from
/// a catalogue directory, received logs stored on disk, and injectable faults. It serves the 2020 SDK's and the
/// current SDK's forms of the API at once (`TMSRoute`), or one dialect only (`start(dialects:)`).
///
/// ```swift
/// let tms = TMSSimulator()
/// let port = try await tms.start(port: 0, stateDirectory: state, catalogue: catalogueDirectory)
/// // clients trust TMSSimulator.caCertificateURL(stateDirectory: state)  (= <state>/tms-ca.pem)
/// await tms.setFault(.status(500), for: .config, times: 2)
/// await tms.stop()
/// ```
package actor TMSSimulator {
    private struct Running {
        let listener: HTTPSListener
        let stateDirectory: URL
        let catalogue: TMSCatalogue
        let authority: TMSCertificateAuthority
        let dialects: Set<TMSRouteDialect>
    }

    private var running: Running?
    /// Every routed request, in order: which endpoint, in which form, and whether it was served (a dialect this
    /// server does not speak answers 404).
    private var served: [TMSServedRequest] = []
    /// Faults by endpoint and, for a fleet, by terminal serial (nil: any terminal).
    private var faults: [FaultKey: (fault: TMSFault, remaining: Int)] = [:]

    private struct FaultKey: Hashable {
        let endpoint: TMSEndpoint
        let serial: String?
    }
    private var registered: Set<String> = []
    private var infos: [String: [UInt8]] = [:]
    private var nextLogIndex = 1
    /// Bytes of the received log archives kept (`TMSSimulatorChoices.maximumReceivedLogs`).
    private var storedLogBytes = 0

    package init() {}

    /// Where the CA certificate clients must trust is written: `<stateDirectory>/tms-ca.pem`.
    package nonisolated static func caCertificateURL(stateDirectory: URL) -> URL {
        stateDirectory.appendingPathComponent(TMSSimulatorChoices.caCertificateFileName)
    }

    /// Loads the catalogue, loads or creates the CA in `stateDirectory`, issues a server certificate and listens.
    /// - Returns: the bound port (pass `port: 0` for an ephemeral one).
    package func start(
        host: String = "127.0.0.1", port: Int = 0, stateDirectory: URL, catalogue catalogueDirectory: URL,
        serverCertificate: TMSServerCertificate = .valid,
        dialects: Set<TMSRouteDialect> = Set(TMSRouteDialect.allCases),
        serverNames: [String] = []
    ) async throws(TMSSimulatorError) -> Int {
        guard serverNames.count <= TMSSimulatorChoices.maximumExtraNames else {
            throw TMSSimulatorError(
                .invalidArgument, "at most \(TMSSimulatorChoices.maximumExtraNames) names for the TMS certificate")
        }
        var names: [String] = []
        for name in serverNames { names += try TMSSimulatorChoices.serverNames(for: name) }
        let extraNames = names
        guard running == nil else { throw TMSSimulatorError(.invalidArgument, "the TMS simulator is already running") }
        guard !dialects.isEmpty else {
            throw TMSSimulatorError(.invalidArgument, "the TMS simulator needs a dialect to serve")
        }
        let prepared: Prepared
        do {
            prepared = try await NIOThreadPool.singleton.runIfActive {
                try Self.prepare(
                    stateDirectory: stateDirectory, catalogue: catalogueDirectory, serverCertificate: serverCertificate,
                    extraNames: extraNames)
            }
        } catch let error as TMSSimulatorError {
            throw error
        } catch {
            throw TMSSimulatorError(.stateDirectory, "cannot prepare the TMS simulator: \(error)")
        }
        let (catalogue, authority, serverIdentity, logIndex) = (
            prepared.catalogue, prepared.authority, prepared.serverIdentity, prepared.logIndex
        )
        let listener = try await HTTPSListener.start(
            host: host, port: port, identity: serverIdentity, clientTrust: authority,
            idleTimeout: TMSSimulatorChoices.idleTimeout
        ) { [self] connection in await TMSConnection(simulator: self).serve(connection) }
        running = Running(
            listener: listener, stateDirectory: stateDirectory, catalogue: catalogue, authority: authority,
            dialects: dialects)
        nextLogIndex = logIndex
        storedLogBytes = prepared.logBytes
        return listener.port
    }

    private struct Prepared: Sendable {
        let catalogue: TMSCatalogue
        let authority: TMSCertificateAuthority
        let serverIdentity: TMSCertificateAuthority.Identity
        let logIndex: Int
        let logBytes: Int
    }

    /// Blocking file work of `start`: catalogue, CA, server certificate, received-logs numbering.
    private static func prepare(
        stateDirectory: URL, catalogue: URL, serverCertificate: TMSServerCertificate, extraNames: [String]
    ) throws -> Prepared {
        let catalogue = try TMSCatalogue.load(directory: catalogue)
        let authority = try TMSCertificateAuthority.loadOrCreate(in: stateDirectory)
        let serverIdentity: TMSCertificateAuthority.Identity
        switch serverCertificate {
        case .valid: serverIdentity = try authority.issueServerIdentity(extraNames: extraNames)
        case .expired:
            // Issued as if a validity period plus a day ago: it ended yesterday.
            serverIdentity = try authority.issueServerIdentity(
                extraNames: extraNames, now: Date().addingTimeInterval(-(TMSSimulatorChoices.serverValidity + 86_400)))
        case .foreign:
            // Signed by a CA made for this run and written nowhere: no client trusts it.
            serverIdentity = try TMSCertificateAuthority.create().issueServerIdentity(extraNames: extraNames)
        }
        return Prepared(
            catalogue: catalogue, authority: authority, serverIdentity: serverIdentity,
            logIndex: nextLogIndex(in: stateDirectory), logBytes: receivedLogBytes(in: stateDirectory))
    }

    /// Closes the listening socket and every connection, and waits for them to end.
    package func stop() async {
        guard let running else { return }
        self.running = nil
        await running.listener.stop()
    }

    // MARK: Faults and inspection

    /// Plays `fault` on the next `times` requests to `endpoint` (routed requests only; 404/405/400 do not count), from
    /// the terminal `serial` only when one is given.
    package func setFault(_ fault: TMSFault, for endpoint: TMSEndpoint, serial: String? = nil, times: Int = 1) {
        precondition(
            fault.acts(on: endpoint), "\(fault) does nothing on \(endpoint.rawValue): TMSFault.parse refuses it")
        faults[FaultKey(endpoint: endpoint, serial: serial)] = times > 0 ? (fault, times) : nil
    }

    package func clearFaults() { faults = [:] }

    /// How many more requests to `endpoint` the current fault will affect (0 = none set).
    package func faultsRemaining(for endpoint: TMSEndpoint, serial: String? = nil) -> Int {
        faults[FaultKey(endpoint: endpoint, serial: serial)]?.remaining ?? 0
    }

    /// Serials that registered since start.
    package func registeredSerials() -> Set<String> { registered }

    /// The last body a terminal posted to `infos`: GetInfo TLVs (2020) or the JSON state (current).
    package func deviceInfos(serial: String) -> [UInt8]? { infos[serial] }

    /// Every routed request since start, in order.
    package func servedRequests() -> [TMSServedRequest] { served }

    // MARK: Serving (called by TMSConnection)

    /// The fault for this terminal's request, else for any terminal's, counted down.
    private func takeFault(for route: TMSRoute) -> TMSFault? {
        let specific = FaultKey(endpoint: route.endpoint, serial: route.serial)
        let key = faults[specific] != nil ? specific : FaultKey(endpoint: route.endpoint, serial: nil)
        guard let entry = faults[key] else { return nil }
        faults[key] = entry.remaining > 1 ? (entry.fault, entry.remaining - 1) : nil
        return entry.fault
    }

    func answer(
        _ parsed: Result<TMSRoute, TMSRoute.Failure>, body: [UInt8], peerCertificate: [UInt8]?
    ) async -> TMSAnswer {
        let route: TMSRoute
        switch parsed {
        case .success(let value): route = value
        case .failure(.notFound): return TMSAnswer(.error(.notFound, "no such TMS endpoint"))
        case .failure(.methodNotAllowed(let allowed)):
            return TMSAnswer(.error(.methodNotAllowed, "use \(allowed.rawValue)"))
        case .failure(.badRequest(let reason)): return TMSAnswer(.error(.badRequest, reason))
        }
        let speaks = route.dialect.map { running?.dialects.contains($0) ?? false } ?? true
        served.append(TMSServedRequest(endpoint: route.endpoint, dialect: route.dialect, served: speaks))
        guard speaks else {
            return TMSAnswer(
                .error(
                    .notFound,
                    "this TMS does not serve the \(route.dialect?.rawValue ?? "") form of \(route.endpoint.rawValue)"))
        }
        let fault = takeFault(for: route)
        if case .status(let code) = fault {
            return TMSAnswer(.error(HTTPResponseStatus(statusCode: code), "simulated fault"))
        }
        var response = await respond(route, body: body, peerCertificate: peerCertificate)
        var delay: Duration?
        switch fault {
        case nil, .status: break
        case .delay(let duration): delay = duration
        case .corruptedBinary:
            if case .binary(let signature, let path, _, _, let zip) = response {
                response = .binary(
                    signature: signature, imagePath: path, dropAfterBlocks: nil,
                    corruptOffset: TMSSimulatorChoices.binaryBlockSize + 7, zipName: zip)
            }
        case .wrongSignature:
            if case .binary(let signature, let path, _, _, let zip) = response {
                // A signature of the right length that signs nothing: every byte inverted.
                response = .binary(
                    signature: signature.map { ~$0 }, imagePath: path, dropAfterBlocks: nil, zipName: zip)
            }
        case .malformedJSON: response = .full(.ok, "application/json", TMSSimulatorChoices.malformedJSONBody)
        case .truncatedBody:
            switch response {
            case .full(let status, let type, let bytes): response = .truncated(status, type, bytes)
            case .binary(let signature, let path, _, _, let zip):
                // The full length announced, the stream cut after a few blocks (a zip: after half its bytes).
                response = .binary(
                    signature: signature, imagePath: path, dropAfterBlocks: TMSSimulatorChoices.blocksBeforeDrop,
                    zipName: zip)
            case .truncated, .drop: break
            }
        case .dropConnection:
            switch response {
            case .binary(let signature, let path, _, _, let zip):
                response = .binary(
                    signature: signature, imagePath: path, dropAfterBlocks: TMSSimulatorChoices.blocksBeforeDrop,
                    zipName: zip)
            case .full, .truncated, .drop: response = .drop
            }
        }
        return TMSAnswer(response, delay: delay)
    }

    private func respond(_ route: TMSRoute, body: [UInt8], peerCertificate: [UInt8]?) async -> TMSResponse {
        guard let running else { return .error(.serviceUnavailable, "stopping") }
        if route.needsClientCertificate {
            guard let der = peerCertificate else {
                return .error(.forbidden, "this endpoint needs the terminal's client certificate (register first)")
            }
            guard let certificate = try? Certificate(derEncoded: der),
                let commonName = TMSCertificateAuthority.commonName(of: certificate)
            else { return .error(.forbidden, "the client certificate has no common name") }
            guard commonName == route.serial else {
                return .error(.forbidden, "the client certificate is for terminal \(commonName), not \(route.serial)")
            }
        }
        switch route.endpoint {
        case .register:
            if let refusal = Self.checkDongleCertificate(body, serial: route.serial) { return refusal }
            do {
                let identity = try running.authority.issueClientIdentity(serial: route.serial)
                let p12 = try PKCS12Builder.build(
                    certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
                registered.insert(route.serial)
                return .full(.ok, "application/octet-stream", p12)
            } catch {
                return .error(.internalServerError, error.reason)
            }
        case .infos:
            if route.dialect == .current {
                // The current SDK's JSON state (L:mdm.CheckStateJsonTask): {"C3":"<serial>"}.
                guard (try? JSONSerialization.jsonObject(with: Data(body))) is [String: Any] else {
                    return .error(.badRequest, "the state must be a JSON object")
                }
            }
            infos[route.serial] = body
            return .full(.ok, "application/json", Array(#"{"status":"ok"}"#.utf8))
        case .config:
            return .full(.ok, "application/json", running.catalogue.configJSON())
        case .binary:
            if let refusal = Self.checkDongleCertificate(body, serial: route.serial) { return refusal }
            guard let type = route.binaryType, let item = running.catalogue.item(type: type) else {
                return .error(.notFound, "no binary of type \(route.binaryType ?? -1) in the catalogue")
            }
            return .binary(
                signature: item.signature, imagePath: item.imagePath, dropAfterBlocks: nil,
                zipName: route.dialect == .current && item.answersZip ? item.zipName : nil)
        case .logs:
            guard storedLogBytes + body.count <= TMSSimulatorChoices.maximumReceivedLogs else {
                return .error(
                    .insufficientStorage,
                    "the simulator keeps at most \(TMSSimulatorChoices.maximumReceivedLogs >> 20) MiB of received logs, and holds \(storedLogBytes >> 20) MiB: delete its received-logs directory to take more"
                )
            }
            let index = nextLogIndex
            nextLogIndex += 1
            let directory = running.stateDirectory.appendingPathComponent(
                TMSSimulatorChoices.receivedLogsDirectoryName)
            let file = directory.appendingPathComponent("\(route.serial)-\(index).zip")
            do {
                try await NIOThreadPool.singleton.runIfActive {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    try Data(body).write(to: file, options: .atomic)
                }
            } catch {
                return .error(.internalServerError, "cannot store the logs: \(error)")
            }
            storedLogBytes += body.count
            return .full(.ok, "application/json", Array(#"{"status":"ok"}"#.utf8))
        }
    }

    /// Spec §10.3: the body is the InstallForLoadKey data; it must carry the demonstration CA-prod certificate and
    /// the demonstration KEK certificate of `serial` (TMSSimulatorChoices). `nil` = accepted.
    static func checkDongleCertificate(_ body: [UInt8], serial: String) -> TMSResponse? {
        let chain: InstallForLoadKey.Response
        do {
            chain = try InstallForLoadKey.Response(status: .success, data: body)
        } catch {
            return .error(.badRequest, "the dongle certificate does not parse: \(error.reason)")
        }
        guard chain.caCertificate == SimulatorChoices.demoCAProdCertificate else {
            return .error(.forbidden, "the dongle certificate is not signed by the known CA-prod certificate")
        }
        guard let number = UInt64(serial), chain.kekCertificate == SimulatorChoices.demoKEKCertificate(serial: number)
        else { return .error(.forbidden, "the KEK certificate does not belong to terminal \(serial)") }
        return nil
    }

    /// The bytes of the log archives already received. Blocking.
    private static func receivedLogBytes(in stateDirectory: URL) -> Int {
        let directory = stateDirectory.appendingPathComponent(TMSSimulatorChoices.receivedLogsDirectoryName)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            let size =
                (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path))?[
                    .size] as? Int
            return total + (size ?? 0)
        }
    }

    /// 1 + the highest n of the `<serial>-<n>.zip` files already received. Blocking.
    private static func nextLogIndex(in stateDirectory: URL) -> Int {
        let directory = stateDirectory.appendingPathComponent(TMSSimulatorChoices.receivedLogsDirectoryName)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let indices = names.compactMap { name -> Int? in
            guard name.hasSuffix(".zip"), let dash = name.lastIndex(of: "-") else { return nil }
            return Int(name[name.index(after: dash)...].dropLast(4))
        }
        return (indices.max() ?? 0) + 1
    }
}

/// What to send back, decided by the actor; `TMSConnection` writes it.
enum TMSResponse: Sendable {
    case full(HTTPResponseStatus, String, [UInt8])
    /// Announce `bytes.count`, send half, close.
    case truncated(HTTPResponseStatus, String, [UInt8])
    /// §10.5 framing streamed from the image file; `corruptOffset`: that byte of the image is sent inverted. With a
    /// `zipName`, the same signature and blocks as an `application/zip` answer (`TMSZipAnswer`); `dropAfterBlocks`
    /// then cuts it after half its bytes.
    case binary(
        signature: [UInt8], imagePath: String, dropAfterBlocks: Int?, corruptOffset: Int? = nil, zipName: String? = nil)
    /// Close without answering.
    case drop

    static func error(_ status: HTTPResponseStatus, _ message: String) -> TMSResponse {
        struct Body: Encodable {
            let status: String
            let message: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = (try? Array(encoder.encode(Body(status: "error", message: message)))) ?? []
        return .full(status, "application/json", bytes)
    }
}

struct TMSAnswer: Sendable {
    let response: TMSResponse
    let delay: Duration?

    init(_ response: TMSResponse, delay: Duration? = nil) {
        self.response = response
        self.delay = delay
    }
}

/// One request the simulator routed (`TMSSimulator.servedRequests()`).
package struct TMSServedRequest: Sendable, Hashable {
    package let endpoint: TMSEndpoint
    /// The form the request used; nil for config (one form for both dialects).
    package let dialect: TMSRouteDialect?
    /// false when the server does not speak that dialect (it answered 404).
    package let served: Bool
}
