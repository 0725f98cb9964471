import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UCubeLink
import UCubePayment
import UCubeTMS

/// A hook word that names a hook badly (`--authorize https://…` without a host, an unreadable CA file …): a usage
/// error, said before any terminal is touched.
package struct HostHookError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// `--authorize https://HOST[:PORT]/PATH` (docs/authorization.md, "The https form"): the document is POSTed as
/// `application/json`, TLS 1.2 or later, the host's certificate verified against the system's CAs or, with
/// `--authorize-ca`, against that file's CAs only; with an optional client certificate and a bearer token read from
/// `$UCUBE_AUTHORIZE_TOKEN` or a file (never from the command line). A 2xx answer's body is the answer; any other
/// status, a timeout, a TLS or network failure is a `HostFailure`. No redirect is followed.
package struct HTTPSHook: Sendable, Hashable {
    /// The URL as given (checked: https, a host, no credentials, no fragment).
    package let url: String
    /// The files it is reached with, absolute.
    package let files: HostTLSFiles

    /// The most a CA, certificate, key or token file is read.
    package static let maximumFileSize = 1 << 20
    /// The most a token is (an OAuth access token or a JWT is a few kilobytes at most).
    package static let maximumTokenLength = 8192

    package init(url: String, files: HostTLSFiles) throws(HostHookError) {
        guard url.utf8.count <= 2048, url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw HostHookError("--authorize: a URL is at most 2048 printable ASCII characters, without spaces")
        }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased() else {
            throw HostHookError("--authorize: '\(url.prefix(80))' is not a URL")
        }
        guard scheme == "https" else {
            throw HostHookError(
                "--authorize: an authorisation host is reached over https only (card data and the host's decision never travel in clear), not \(scheme)"
            )
        }
        guard let host = parts.host, !host.isEmpty else {
            throw HostHookError("--authorize: '\(url.prefix(80))' has no host (https://HOST[:PORT]/PATH)")
        }
        guard parts.user == nil, parts.password == nil else {
            throw HostHookError(
                "--authorize: no credentials in the URL (the command line is visible to every user): put a bearer token in $\(HostChoices.tokenVariable) or a file (--authorize-token-file)"
            )
        }
        guard parts.fragment == nil else { throw HostHookError("--authorize: a URL for a host has no #fragment") }
        if let port = parts.port, !(1...65535).contains(port) {
            throw HostHookError("--authorize: port \(port) is not 1 to 65535")
        }
        self.url = url
        self.files = HostTLSFiles(
            ca: files.ca.map(Self.absolute), certificate: files.certificate.map(Self.absolute),
            key: files.key.map(Self.absolute), tokenFile: files.tokenFile.map(Self.absolute))
        // Read them now: a file that cannot be used is said before the card is read, not as "unable to go online".
        _ = try tlsConfiguration()
        _ = try token()
    }

    package static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    // MARK: The exchange

    package func exchange(_ document: [UInt8], timeout: Duration) async throws(HostFailure) -> [UInt8] {
        let tls: TLSConfiguration
        let bearer: String?
        do {
            tls = try tlsConfiguration()
            bearer = try token()
        } catch {
            throw .unreachable(error.description)
        }
        let amount = TimeAmount.nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: amount, read: amount), decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let result: Result<[UInt8], HostFailure>
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Accept", value: "application/json")
            request.headers.add(name: "User-Agent", value: "ucube/\(BuildInfo.version)")
            if let bearer { request.headers.add(name: "Authorization", value: "Bearer " + bearer) }
            request.body = .bytes(ByteBuffer(bytes: document))
            let response = try await client.execute(request, deadline: .now() + amount)
            guard (200..<300).contains(Int(response.status.code)) else {
                throw HostFailure.httpStatus(Int(response.status.code))
            }
            var body: [UInt8] = []
            for try await chunk in response.body {
                body.append(
                    contentsOf: chunk.readableBytesView.prefix(HostDocuments.maximumAnswerSize + 1 - body.count))
                if body.count > HostDocuments.maximumAnswerSize { break }
            }
            result = .success(body)
        } catch {
            result = .failure(Self.failure(error, timeout: timeout))
        }
        try? await client.shutdown()
        return try result.get()
    }

    /// What a failed request means for the payment: a timeout, a status, or a host that could not be reached (and
    /// why, with what to check).
    package static func failure(_ error: any Error, timeout: Duration) -> HostFailure {
        if let failure = error as? HostFailure { return failure }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
                .tlsHandshakeTimeout:
                return .timeout(seconds: seconds)
            case .remoteConnectionClosed:
                return .unreachable("the host closed the connection before it answered")
            default:
                break
            }
        }
        switch TLSFailure.of(error) {
        case .untrusted?:
            return .unreachable(
                "the host's certificate is not trusted: pass the CA that issued it with --authorize-ca FILE or $\(HostChoices.caVariable) (`ucube simulate --host` prints its own)"
            )
        case .hostnameMismatch?: return .unreachable("the host's certificate is not for this host name")
        case .clientCertificateRejected?, .clientCertificateExpired?:
            return .unreachable(
                "the host refused the client certificate (--authorize-cert, $\(HostChoices.certificateVariable))")
        case .other?: return .unreachable("the TLS handshake failed")
        case nil: break
        }
        switch SocketFailure(error) {
        case .refused?: return .unreachable("connection refused")
        case .unreachable?: return .unreachable("no route to the host")
        case .hostNotFound?: return .unreachable("the host name does not resolve")
        case .timedOut?: return .timeout(seconds: seconds)
        case let failure?: return .unreachable(failure.summary)
        case nil: return .unreachable("the request failed")
        }
    }

    // MARK: TLS and the token

    /// TLS 1.2 or later; the CA file's certificates as the only trust roots when one is named; the client identity.
    package func tlsConfiguration() throws(HostHookError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let ca = files.ca {
            let certificates = try Self.certificates(ca, what: "--authorize-ca")
            tls.trustRoots = .certificates(certificates)
        }
        if let certificate = files.certificate {
            tls.certificateChain = try Self.certificates(certificate, what: "--authorize-cert").map { .certificate($0) }
            let keyFile = files.key ?? certificate
            do {
                tls.privateKey = .privateKey(
                    try NIOSSLPrivateKey(bytes: try Self.read(keyFile, what: "--authorize-key"), format: .pem))
            } catch let error as HostHookError {
                throw error
            } catch {
                throw HostHookError("--authorize-key: \(keyFile) holds no PEM private key")
            }
        } else if files.key != nil {
            throw HostHookError("--authorize-key needs --authorize-cert (the certificate it goes with)")
        }
        return tls
    }

    private static func certificates(_ path: String, what: String) throws(HostHookError) -> [NIOSSLCertificate] {
        let bytes = try read(path, what: what)
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(bytes), !certificates.isEmpty else {
            throw HostHookError("\(what): \(path) holds no PEM certificate")
        }
        return certificates
    }

    /// `path`, bounded; a failure names `what` (the option or variable that named the file).
    private static func read(_ path: String, what: String) throws(HostHookError) -> [UInt8] {
        do {
            return try BoundedFile.readBytes(path, limit: maximumFileSize)
        } catch {
            switch error {
            case .unreadable(let why): throw HostHookError("\(what): cannot read \(path): \(why)")
            case .tooLarge: throw HostHookError("\(what): \(path) is over \(BoundedFile.limitText(maximumFileSize))")
            }
        }
    }

    /// The bearer token: the token file's first line, else `$UCUBE_AUTHORIZE_TOKEN`; nil without either. A token is
    /// visible ASCII (what an Authorization header carries), at most `maximumTokenLength` characters.
    package func token() throws(HostHookError) -> String? {
        let text: String
        if let file = files.tokenFile {
            text =
                String(decoding: try Self.read(file, what: "--authorize-token-file"), as: UTF8.self).split(
                    whereSeparator: \.isNewline
                ).first
                .map(String.init) ?? ""
        } else if let given = Environment.value(HostChoices.tokenVariable) {
            text = given
        } else {
            return nil
        }
        let token = text.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= Self.maximumTokenLength,
            token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw HostHookError(
                "the bearer token (\(files.tokenFile ?? "$" + HostChoices.tokenVariable)) must be 1 to \(Self.maximumTokenLength) visible ASCII characters"
            )
        }
        return token
    }
}
