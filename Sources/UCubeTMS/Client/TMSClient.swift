import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UCubeLink

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The TMS (MDM) client of spec §10: one `HTTPClient`, the server's settings and, once the terminal is registered,
/// its TLS client identity. It speaks the current SDK's dialect first (spec §10.2: register `…/RFU`, binary v3 and
/// logs v3 with `x-device-id` / `x-id-type`, zip binaries) and, for a server that answers 404 or 405 to a current
/// form, the 2020 form of that request kind: once, logged at notice level, remembered for the rest of the process
/// per service root (`TMSDialectMemory`). A bare server name is reached as `api.` + name first (spec §10.1,
/// `TMSSettings.HostForm`). 5xx, network errors and timeouts are retried with exponential backoff; every failure is a
/// `TMSError` whose reason names the URL. Call `shutdown()` when done.
package final class TMSClient: Sendable {
    package let settings: TMSSettings
    /// Whether requests carry a client certificate.
    package let hasIdentity: Bool
    private let http: HTTPClient
    private let logger: Logger?
    private let memory: TMSDialectMemory

    /// Reads the extra CA file and loads the identity (throws `.configuration` / `.tls`); no connection is made.
    /// `logger` receives AsyncHTTPClient's request logs (none by default; it never sees bodies) and the dialect and
    /// host fallbacks (notice). `memory` is the process's by default.
    package init(
        settings: TMSSettings, identity: TMSIdentity? = nil, logger: Logger? = nil, memory: TMSDialectMemory = .shared
    ) throws(TMSError) {
        self.settings = settings
        self.logger = logger
        self.memory = memory
        self.hasIdentity = identity != nil
        var tls = TLSConfiguration.makeClientConfiguration()
        // spec §10.1: the current SDK speaks TLS 1.2 only; ucube takes 1.2 or 1.3, never older.
        tls.minimumTLSVersion = .tlsv12
        if let caFile = settings.trustedCAFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw TMSError(
                    .configuration, "cannot read the TMS CA file \(caFile) as PEM certificates",
                    hint: "check --tms-ca, $UCUBE_TMS_CA or tms_ca: it must name a readable PEM file",
                    detail: "\(error)")
            }
            guard !certificates.isEmpty else {
                throw TMSError(.configuration, "the TMS CA file \(caFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        if let identity {
            let bundle = try identity.bundle()
            tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(bundle.privateKey)
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: TMSChoices.followsRedirects ? .follow(max: 3, allowCycles: false) : .disallow,
            timeout: .init(connect: TimeAmount(settings.connectTimeout), read: TimeAmount(settings.readTimeout)),
            decompression: .disabled)
        // Our retry policy decides; the pool must not retry a failed connection until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Closes connections. The client cannot be used afterwards.
    package func shutdown() async {
        try? await http.shutdown()
    }

    // MARK: Endpoints (spec §10.2)

    /// What a register gave: the client identity, and the form the server took (the 2020 form is followed by a
    /// send-state, spec §10.3; the current SDK sends none).
    package struct Registration: Sendable {
        package let identity: TMSIdentity
        package let dialect: TMSDialect
    }

    /// POST /public/v1/dongle/register/{serial}/RFU (2020: …/{serial}/{pn}) with the InstallForLoadKey response
    /// data; the 200 or 201 body is the terminal's PKCS#12 client identity (spec §10.3), validated.
    package func register(terminal: TerminalIdentity, certificate: [UInt8]) async throws(TMSError) -> Registration {
        try await exchange(
            kind: .register, method: .POST, path: { TMSChoices.Path.register(terminal, $0) },
            identityHeaders: { _ in false },
            accepted: TMSChoices.createdAccepted, body: { .bytes(ByteBuffer(bytes: certificate)) }
        ) { response, url, dialect throws(TMSError) in
            let body = try await Self.collect(
                response, limit: TMSChoices.maximumIdentityReply, url: url, what: "register reply")
            return Registration(identity: try TMSIdentity(pkcs12: body, source: url), dialect: dialect)
        }
    }

    /// POST /v2/dongle/infos/{serial}/{pn} with the raw GetInfo TLV of the terminal: the 2020 SDK's send-state after
    /// register (A-MDM:RegisterService). The current SDK sends no state (spec §10.2).
    package func sendState(terminal: TerminalIdentity, getInfo: [UInt8]) async throws(TMSError) {
        try await exchange(
            kind: nil, method: .POST, path: { _ in TMSChoices.Path.state(terminal) }, identityHeaders: { _ in false },
            accepted: [200], body: { .bytes(ByteBuffer(bytes: getInfo)) }
        ) { response, _, _ throws(TMSError) in
            await Self.drain(response)
        }
    }

    /// GET /v2/dongle/config/{serial}/{pn} with `x-device-id` / `x-id-type`: the items the TMS offers (spec §10.4).
    package func config(terminal: TerminalIdentity) async throws(TMSError) -> [TMSConfigItem] {
        try await exchange(
            kind: nil, method: .GET, path: { _ in TMSChoices.Path.config(terminal) }, identityHeaders: { _ in true },
            accepted: [200], serial: terminal.serial, body: { nil }
        ) { response, url, _ throws(TMSError) in
            let body = try await Self.collect(
                response, limit: TMSChoices.maximumConfigReply, url: url, what: "config reply")
            return try TMSConfigReply.parse(body, url: url)
        }
    }

    /// POST /v3/dongle/binary/{type} with `x-device-id` / `x-id-type` (2020: /v2/dongle/binary/{type}/{serial}/{pn})
    /// and the InstallForLoadKey data. The 200 body is streamed to `path` (through `path.part`, at most
    /// `TMSChoices.maximumBinary` bytes). A current answer must be `application/octet-stream` (the block stream,
    /// kept as is) or `application/zip` (spec §10.5: each binary of the zip written as a package at
    /// `TMSDownload.packagePath(path, index:)`, its key included when `ciphered`). A 2020 answer is the block stream.
    package func downloadBinary(
        type: Int, terminal: TerminalIdentity, certificate: [UInt8], ciphered: Bool = false, to path: String
    ) async throws(TMSError) -> TMSDownload {
        let logger = logger
        return try await exchange(
            kind: .binary, method: .POST, path: { TMSChoices.Path.binary(type, terminal, $0) },
            identityHeaders: { $0 == .current }, accepted: [200], serial: terminal.serial,
            body: { .bytes(ByteBuffer(bytes: certificate)) }
        ) { response, url, dialect throws(TMSError) in
            var format = TMSDownload.Format.octetStream
            if dialect == .current {
                let type = response.headers.first(name: "Content-Type") ?? ""
                guard let given = TMSDownload.Format(contentType: type) else {
                    throw TMSError(
                        .malformedReply,
                        "\(url): the binary answer's Content-Type is \"\(type.prefix(80))\"; expected \(TMSChoices.binaryStreamType) or \(TMSChoices.binaryZipType)"
                    )
                }
                format = given
            }
            let target = format == .zip ? path + ".zip" : path
            let total = try await Self.stream(response, to: target, url: url)
            guard format == .zip else {
                let name = path.split(separator: "/").last.map(String.init) ?? path
                return TMSDownload(
                    format: .octetStream, dialect: dialect, bytes: total,
                    packages: [TMSDownloadedPackage(name: name, path: path)])
            }
            defer { unlink(target) }
            let (binaries, skipped) = try await Self.onPool { () throws(TMSError) in
                try TMSZipPackage.read(zipPath: target, ciphered: ciphered, url: url)
            }
            for name in skipped {
                logger?.warning("\(url): the zip answer lists \(name) without both its .sig and .bin entries; skipped")
            }
            var packages: [TMSDownloadedPackage] = []
            for (index, binary) in binaries.enumerated() {
                let packagePath = TMSDownload.packagePath(path, index: index)
                try await Self.onPool { () throws(TMSError) in
                    try FileIO.writeAtomically(binary.package, to: packagePath, mode: 0o600)
                }
                packages.append(TMSDownloadedPackage(name: binary.name, path: packagePath))
            }
            return TMSDownload(format: .zip, dialect: dialect, bytes: total, packages: packages)
        }
    }

    /// POST /public/v3/dongle/logs/?type=zip with `x-device-id` / `x-id-type` (2020: /v1/dongle/logs/{serial}/{pn}
    /// ?type=zip), the zip file streamed as octet-stream (spec §10.7); 200 or 201 is success.
    @discardableResult
    package func sendLogs(terminal: TerminalIdentity, zipFile: String) async throws(TMSError) -> TMSDialect {
        let size = try FileIO.fileSize(zipFile)
        return try await exchange(
            kind: .logs, method: .POST, path: { TMSChoices.Path.logs(terminal, $0) },
            identityHeaders: { $0 == .current },
            accepted: TMSChoices.createdAccepted, serial: terminal.serial,
            body: { .stream(FileChunks(path: zipFile, chunkSize: TMSChoices.uploadChunk), length: .known(size)) }
        ) { response, _, dialect throws(TMSError) in
            await Self.drain(response)
            return dialect
        }
    }

    // MARK: Dialect and host

    /// One request, in the dialect and on the service root the memory says, with the fallbacks of spec §10.1/§10.2:
    /// a bare server name whose `api.` host does not resolve is retried on the name itself; a current form answered
    /// 404 or 405 (`kind` set) is retried once in its 2020 form. Both are logged at notice level and remembered.
    private func exchange<T: Sendable>(
        kind: TMSRequestKind?, method: HTTPMethod, path: (TMSDialect) -> String, identityHeaders: (TMSDialect) -> Bool,
        accepted: Set<Int>, serial: String? = nil, body: () -> HTTPClientRequest.Body?,
        handle: (HTTPClientResponse, String, TMSDialect) async throws(TMSError) -> T
    ) async throws(TMSError) -> T {
        let roots = settings.serviceRoots
        var root = memory.root(for: settings.baseURL) ?? roots[0]
        var dialect = kind.map { memory.dialect(for: $0, root: root) } ?? .current
        var fellBack = false
        while true {
            let url = root + path(dialect)
            var headers: [(String, String)] = []
            if identityHeaders(dialect), let serial {
                headers = [(TMSChoices.deviceIDHeader, serial), (TMSChoices.idTypeHeader, TMSChoices.idType)]
            }
            let canChangeHost = memory.root(for: settings.baseURL) == nil && root == roots[0] && roots.count > 1
            do {
                let result = try await send(
                    url: url, method: method, headers: headers, accepted: accepted, stopOnUnknownHost: canChangeHost,
                    body: body
                ) { response throws(TMSError) in try await handle(response, url, dialect) }
                if memory.root(for: settings.baseURL) == nil { memory.rememberRoot(root, for: settings.baseURL) }
                if fellBack, let kind { memory.rememberLegacy(kind, root: root) }
                return result
            } catch {
                if error.unresolvedHost, canChangeHost {
                    let next = roots[1]
                    logger?.notice(
                        "TMS host of \(root) does not resolve; using \(next) (the 2020 host) for the rest of this run")
                    memory.rememberRoot(next, for: settings.baseURL)
                    root = next
                    dialect = kind.map { memory.dialect(for: $0, root: root) } ?? .current
                    continue
                }
                if let kind, dialect == .current, let status = error.status,
                    TMSChoices.fallbackStatuses.contains(status)
                {
                    logger?.notice(
                        "TMS \(root) answered HTTP \(status) to the current \(kind.rawValue) form (\(path(.current))); using the 2020 form (\(path(.v2020))) for the rest of this run"
                    )
                    dialect = .v2020
                    fellBack = true
                    continue
                }
                if fellBack, let kind, let status = error.status, !TMSChoices.fallbackStatuses.contains(status) {
                    // The server knows the 2020 form even though this request failed: keep to it.
                    memory.rememberLegacy(kind, root: root)
                }
                throw error
            }
        }
    }

    // MARK: Exchange, retries, errors

    /// Sends one request with retries; `handle` reads an accepted reply.
    private func send<T: Sendable>(
        url: String, method: HTTPMethod, headers: [(String, String)], accepted: Set<Int>, stopOnUnknownHost: Bool,
        body: () -> HTTPClientRequest.Body?, handle: (HTTPClientResponse) async throws(TMSError) -> T
    ) async throws(TMSError) -> T {
        let policy = settings.retry
        var attempt = 0
        while true {
            attempt += 1
            do {
                try Task.checkCancellation()
                var request = HTTPClientRequest(url: url)
                request.method = method
                request.body = body()
                if request.body != nil { request.headers.add(name: "Content-Type", value: "application/octet-stream") }
                for (name, value) in headers { request.headers.add(name: name, value: value) }
                let response = try await http.execute(
                    request, deadline: .now() + TimeAmount(settings.attemptDeadline), logger: logger)
                guard accepted.contains(Int(response.status.code)) else {
                    throw await Self.statusError(response, url: url)
                }
                return try await handle(response)
            } catch {
                var failure = Self.classify(error, url: url)
                if stopOnUnknownHost, SocketFailure(error) == .hostNotFound {
                    failure.unresolvedHost = true
                    throw failure.with(attempts: attempt)
                }
                guard failure.isRetryable, attempt < policy.attempts else { throw failure.with(attempts: attempt) }
                do {
                    try await Task.sleep(for: policy.backoff(after: attempt))
                } catch {
                    throw TMSError(.cancelled, "\(url): cancelled", attempts: attempt)
                }
            }
        }
    }

    /// Streams a 200 body to `path` through `path.part` (at most `TMSChoices.maximumBinary` bytes); its size.
    private static func stream(_ response: HTTPClientResponse, to path: String, url: String) async throws(TMSError)
        -> Int64
    {
        let limit = TMSChoices.maximumBinary
        if let declared = contentLength(response), declared > limit {
            throw TMSError(.malformedReply, "\(url): binary of \(declared) bytes is larger than \(limit) bytes")
        }
        let sink = try await FileSink.create(path + ".part", mode: 0o600)
        do {
            var total: Int64 = 0
            for try await chunk in response.body {
                total += Int64(chunk.readableBytes)
                guard total <= limit else {
                    throw TMSError(.malformedReply, "\(url): binary larger than \(limit) bytes")
                }
                try await sink.write(chunk)
            }
            try await sink.finish(renamingTo: path)
            return total
        } catch {
            sink.discard()
            throw classify(error, url: url)
        }
    }

    /// Runs blocking file work on NIO's thread pool; errors come back typed.
    private static func onPool<T: Sendable>(_ body: @escaping @Sendable () throws(TMSError) -> T) async throws(TMSError)
        -> T
    {
        let result = await FileSink.onPool { () -> Result<T, TMSError> in
            do throws(TMSError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private static func statusError(_ response: HTTPClientResponse, url: String) async -> TMSError {
        let code = Int(response.status.code)
        let text = await snippet(response)
        let detail = text.isEmpty ? "" : ": \(text)"
        switch code {
        case 401, 403:
            return TMSError(
                .refused, "\(url): HTTP \(code): the TMS refused this terminal's client certificate\(detail)",
                status: code,
                hint: "run `ucube mdm-register` again")
        default:
            return TMSError(.httpStatus, "\(url): HTTP \(code) \(response.status.reasonPhrase)\(detail)", status: code)
        }
    }

    /// The start of an error body, printable ASCII only (a server's words, never trusted).
    private static func snippet(_ response: HTTPClientResponse) async -> String {
        var bytes: [UInt8] = []
        do {
            for try await chunk in response.body {
                bytes += chunk.readableBytesView.prefix(200 - bytes.count)
                if bytes.count >= 200 { break }
            }
        } catch {}
        let text = String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : 0x20 }, as: UTF8.self)
        return text.split(separator: " ").joined(separator: " ")
    }

    private static func contentLength(_ response: HTTPClientResponse) -> Int64? {
        response.headers.first(name: "Content-Length").flatMap { Int64($0) }
    }

    /// The whole body, at most `limit` bytes.
    private static func collect(_ response: HTTPClientResponse, limit: Int, url: String, what: String)
        async throws(TMSError) -> [UInt8]
    {
        if let declared = contentLength(response), declared > Int64(limit) {
            throw TMSError(.malformedReply, "\(url): \(what) of \(declared) bytes is larger than \(limit) bytes")
        }
        var out: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard out.count + chunk.readableBytes <= limit else {
                    throw TMSError(.malformedReply, "\(url): \(what) larger than \(limit) bytes")
                }
                out += chunk.readableBytesView
            }
        } catch {
            throw classify(error, url: url)
        }
        return out
    }

    /// Reads and drops an unused body (at most `TMSChoices.maximumIgnoredReply` bytes, the rest is abandoned).
    private static func drain(_ response: HTTPClientResponse) async {
        var seen = 0
        do {
            for try await chunk in response.body {
                seen += chunk.readableBytes
                if seen > TMSChoices.maximumIgnoredReply { break }
            }
        } catch {}
    }

    /// Maps AsyncHTTPClient, NIO and NIOSSL errors to a `TMSError` naming `url`: a sentence and a hint by error
    /// type, errno or TLS reason, the library's text only as the detail.
    static func classify(_ error: any Error, url: String) -> TMSError {
        let detail = "\(error)"
        switch error {
        case let e as TMSError:
            return e
        case is CancellationError:
            return TMSError(.cancelled, "\(url): cancelled")
        case let e as HTTPClientError:
            switch e {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return TMSError(
                    .timeout, "\(url): no connection within the connect timeout", hint: reachHint, detail: detail)
            case .readTimeout:
                return TMSError(.timeout, "\(url): the TMS sent nothing within the read timeout", detail: detail)
            case .deadlineExceeded:
                return TMSError(.timeout, "\(url): the request took longer than its deadline", detail: detail)
            case .tlsHandshakeTimeout:
                return TMSError(.timeout, "\(url): TLS handshake timed out", detail: detail)
            case .cancelled:
                return TMSError(.cancelled, "\(url): cancelled")
            case .remoteConnectionClosed:
                return TMSError(.network, "\(url): the TMS closed the connection", detail: detail)
            default:
                return TMSError(.network, "\(url): the request failed", detail: detail)
            }
        case let error where TLSFailure.of(error) != nil:
            return TLSFailure(error).error(url: url, detail: detail)
        default:
            switch SocketFailure(error) {
            case .refused:
                return TMSError(.network, "\(url): connection refused", hint: reachHint, detail: detail)
            case .unreachable:
                return TMSError(.network, "\(url): no route to the host", hint: reachHint, detail: detail)
            case .hostNotFound:
                return TMSError(.network, "\(url): the host name does not resolve", hint: reachHint, detail: detail)
            case .timedOut:
                return TMSError(
                    .timeout, "\(url): no connection within the connect timeout", hint: reachHint, detail: detail)
            case let failure?:
                return TMSError(.network, "\(url): \(failure.summary)", detail: detail)
            case nil:
                return TMSError(.network, "\(url): the connection failed", detail: detail)
            }
        }
    }

    private static let reachHint =
        "check the TMS URL (--tms, $UCUBE_TMS_URL or tms_url) and that the TMS is running (`ucube simulate --tms HOST:PORT`)"
}

/// What a failed TLS handshake means. NIOSSL exposes BoringSSL's errors only as text ("error:1000007d:SSL
/// routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /path/handshake.cc:320"); the reason name after
/// `OPENSSL_internal:` is BoringSSL's stable `SSL_R_…` identifier, so that token — never the sentence or the path —
/// decides. Hostname mismatches are NIOSSL's own typed error. The authorisation hook's https form reads it too.
package enum TLSFailure: Equatable {
    case untrusted, hostnameMismatch, clientCertificateRejected, clientCertificateExpired, other

    /// What `error` means, or nil when it is not a TLS error.
    package static func of(_ error: any Error) -> TLSFailure? {
        switch error {
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: TLSFailure(error)
        default: nil
        }
    }

    init(_ error: any Error) {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            self = .hostnameMismatch
            return
        }
        let reasons = Self.reasonNames(in: "\(error)")
        if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
            self = .untrusted
        } else if reasons.contains("SSLV3_ALERT_CERTIFICATE_EXPIRED") {
            self = .clientCertificateExpired
        } else if !reasons.isDisjoint(with: Self.clientCertificateAlerts) {
            self = .clientCertificateRejected
        } else {
            self = .other
        }
    }

    /// The alerts a server sends when it does not accept our client certificate (or wanted one).
    static let clientCertificateAlerts: Set<String> = [
        "TLSV1_ALERT_CERTIFICATE_REQUIRED", "SSLV3_ALERT_BAD_CERTIFICATE", "TLSV1_ALERT_UNKNOWN_CA",
        "SSLV3_ALERT_CERTIFICATE_UNKNOWN", "SSLV3_ALERT_CERTIFICATE_REVOKED", "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE",
        "SSLV3_ALERT_HANDSHAKE_FAILURE", "TLSV1_ALERT_ACCESS_DENIED",
    ]

    /// BoringSSL reason names (`SSL_R_…` without the prefix) in an error's text.
    static func reasonNames(in text: String) -> Set<String> {
        var names = Set<String>()
        var rest = text[...]
        while let marker = rest.firstRange(of: "OPENSSL_internal:") {
            let name = rest[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if !name.isEmpty { names.insert(String(name)) }
            rest = rest[marker.upperBound...]
        }
        return names
    }

    func error(url: String, detail: String) -> TMSError {
        let host = URLParts.host(of: url)
        switch self {
        case .untrusted:
            return TMSError(
                .tlsUntrustedCertificate, "\(url): the TMS's certificate is not trusted",
                hint:
                    "pass the CA that issued it with --tms-ca FILE or set UCUBE_TMS_CA (`ucube simulate --tms` prints its `tms ca` file); if it is already trusted, the certificate may have expired",
                detail: detail)
        case .hostnameMismatch:
            return TMSError(
                .tlsHostnameMismatch, "\(url): the TMS's certificate is not valid for \(host)",
                hint: "use the host name its certificate was issued for in --tms or UCUBE_TMS_URL", detail: detail)
        case .clientCertificateRejected:
            return TMSError(
                .tlsCertificateRejected, "\(url): the TMS refused this terminal's client certificate",
                hint: "run `ucube mdm-register` again", detail: detail)
        case .clientCertificateExpired:
            return TMSError(
                .tlsCertificateExpired, "\(url): the TMS says this terminal's client certificate has expired",
                hint: "run `ucube mdm-register` again", detail: detail)
        case .other:
            return TMSError(
                .tls, "\(url): the TLS handshake with the TMS failed",
                hint: "check the TMS CA (--tms-ca) and this terminal's registration (`ucube mdm-register`)",
                detail: detail)
        }
    }
}

/// The host of a URL string, for messages (no Foundation URL parsing needed for `scheme://host[:port]/path`).
private enum URLParts {
    static func host(of url: String) -> String {
        guard let start = url.firstRange(of: "://")?.upperBound else { return url }
        let authority = url[start...].prefix { $0 != "/" }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[...close])
        }
        return String(authority.prefix { $0 != ":" })
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
