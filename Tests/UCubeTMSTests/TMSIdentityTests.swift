import CLibCrypto
import Foundation
import NIOSSL
import Testing

@testable import UCubeTMS

#if canImport(Glibc)
import Glibc
#endif

@Suite("TMS client identity, store and mutual TLS (spec §10.3)")
struct TMSIdentityTests {
    let terminal = try! TerminalIdentity(serial: "123456789", partNumber: "UCUBETOUCH")

    @Test func aPKCS12WithKeyAndCertificateIsAccepted() throws {
        let pki = try TestPKI()
        let identity = try TMSIdentity(pkcs12: pki.clientPKCS12, source: "test")
        #expect(identity.pkcs12 == pki.clientPKCS12)
    }

    /// The keystore check loads OpenSSL's legacy provider with the default one kept: the TDES that UCubeCrypto uses
    /// through the same libcrypto must still be there afterwards.
    @Test func checkingAKeystoreKeepsOpenSSLDefaultProvider() throws {
        let pki = try TestPKI()
        _ = try TMSIdentity(pkcs12: pki.clientPKCS12, source: "test")
        let cipher = EVP_CIPHER_fetch(nil, "DES-EDE3-CBC", nil)
        #expect(cipher != nil)
        if let cipher { EVP_CIPHER_free(cipher) }
        #expect(OSSL_PROVIDER_available(nil, "default") == 1)
    }

    @Test func aKeylessPKCS12IsMalformedNotACrash() throws {
        let pki = try TestPKI()
        let keyless = pki.keylessPKCS12()
        #expect(!keyless.isEmpty)
        #expect(throws: TMSError(.malformedReply, "")) { try TMSIdentity(pkcs12: keyless, source: "test") }
        do {
            _ = try TMSIdentity(pkcs12: keyless, source: "https://tms/x")
        } catch {
            #expect(error.reason.contains("no private key"))
            #expect(error.reason.contains("https://tms/x"))
        }
    }

    @Test func aWrongPasswordIsMalformed() throws {
        let pki = try TestPKI()
        #expect(throws: TMSError(.malformedReply, "")) {
            try TMSIdentity(pkcs12: pki.keylessPKCS12(password: "other"), source: "test")
        }
    }

    @Test func everyTruncationIsRejectedWithoutCrashing() throws {
        let pki = try TestPKI()
        let bytes = pki.clientPKCS12
        for n in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 64)) {
            #expect(throws: TMSError(.malformedReply, "")) {
                try TMSIdentity(pkcs12: Array(bytes.prefix(n)), source: "test")
            }
        }
    }

    @Test func storeSavesLoadsAndRemovesWithPrivatePermissions() throws {
        let pki = try TestPKI()
        let dir = NSTemporaryDirectory() + "tms-store-\(UUID().uuidString)/ucube/tms"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = TMSIdentityStore(directory: dir)
        #expect(!store.isRegistered(serial: "123456789"))
        #expect(try store.load(serial: "123456789") == nil)
        #expect(throws: TMSError(.notRegistered, "")) { try store.identity(serial: "123456789") }

        let identity = try TMSIdentity(pkcs12: pki.clientPKCS12, source: "test")
        try store.save(identity, serial: "123456789")
        #expect(store.isRegistered(serial: "123456789"))
        #expect(try store.load(serial: "123456789") == identity)
        #expect(try store.identity(serial: "123456789") == identity)

        var st = stat()
        #expect(stat(dir, &st) == 0 && st.st_mode & 0o777 == 0o700)
        #expect(stat(dir + "/123456789.p12", &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["123456789.p12"])

        try store.save(identity, serial: "123456789")  // replacing is fine
        #expect(try store.remove(serial: "123456789") == true)
        #expect(try store.remove(serial: "123456789") == false)
        #expect(!store.isRegistered(serial: "123456789"))
    }

    @Test func storeRejectsBadSerialsAndCorruptFiles() throws {
        let dir = NSTemporaryDirectory() + "tms-store-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = TMSIdentityStore(directory: dir)
        #expect(throws: TMSError(.configuration, "")) { try store.load(serial: "../etc/passwd") }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: dir + "/42.p12"))
        #expect(throws: TMSError(.malformedReply, "")) { try store.load(serial: "42") }
    }

    @Test func registerOverPlainHTTPReturnsTheValidatedIdentity() async throws {
        let pki = try TestPKI()
        let p12 = pki.clientPKCS12
        let server = try await TestHTTPServer.start { _, _ in .status(200, p12) }
        defer { Task { await server.stop() } }
        let c = try TMSClient(settings: TMSSettings(baseURL: server.baseURL))
        let terminal = self.terminal
        let registration = try await using(c) { c async throws(TMSError) in
            try await c.register(terminal: terminal, certificate: [0, 1, 7, 0, 1, 8])
        }.get()
        #expect(registration.identity.pkcs12 == p12 && registration.dialect == .current)
        #expect(server.requests.first?.uri == "/MDM/jaxrs/public/v1/dongle/register/123456789/RFU")
        #expect(server.requests.first?.deviceID == nil)
        #expect(server.requests.first?.body == [0, 1, 7, 0, 1, 8])
    }

    @Test func mutualTLSWithAndWithoutTheClientIdentity() async throws {
        let pki = try TestPKI()
        let caFile = try pki.writeCA()
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let server = try await TestHTTPServer.start(tls: try pki.serverContext()) { _, _ in .ok(okConfig) }
        defer { Task { await server.stop() } }
        let url = "https://127.0.0.1:\(server.port)"
        let settings = try TMSSettings(
            baseURL: url, trustedCAFile: caFile, retry: RetryPolicy(attempts: 2, initialBackoff: .milliseconds(10)))
        let terminal = self.terminal

        // Without an identity the server's handshake refuses us.
        let anonymous = try TMSClient(settings: settings)
        let refused = try #require(
            await withHangGuard {
                await using(anonymous) { c async throws(TMSError) in try await c.config(terminal: terminal) }
            }, "hung"
        ).error
        print("mTLS without a client identity → \(refused.map { "\($0.code): \($0.reason)" } ?? "success")")
        #expect(refused?.code == .tlsCertificateRejected || refused?.code == .refused, "\(String(describing: refused))")
        #expect(refused?.hint?.contains("mdm-register") == true)
        #expect(refused?.reason.contains(url) == true)

        // With the identity from register, the same request succeeds.
        let identity = try TMSIdentity(pkcs12: pki.clientPKCS12, source: "test")
        let registered = try TMSClient(settings: settings, identity: identity)
        #expect(registered.hasIdentity)
        let items = try #require(
            await withHangGuard {
                await using(registered) { c async throws(TMSError) in try await c.config(terminal: terminal) }
            }, "hung"
        ).get()
        #expect(items.map(\.type) == [0])
    }

    @Test func anUntrustedServerIsATLSError() async throws {
        let pki = try TestPKI()
        let server = try await TestHTTPServer.start(tls: try pki.serverContext()) { _, _ in .ok(okConfig) }
        defer { Task { await server.stop() } }
        let identity = try TMSIdentity(pkcs12: pki.clientPKCS12, source: "test")
        // No extra CA: the test CA is not in the system store.
        let c = try TMSClient(
            settings: TMSSettings(baseURL: "https://127.0.0.1:\(server.port)", retry: .once), identity: identity)
        let terminal = self.terminal
        let error = try #require(
            await withHangGuard {
                await using(c) { c async throws(TMSError) in try await c.config(terminal: terminal) }
            }, "hung"
        ).error
        #expect(error?.code == .tlsUntrustedCertificate, "\(String(describing: error))")
        #expect(error?.hint?.contains("--tms-ca") == true)
        // The sentence never carries BoringSSL's text or the build directory's path; the detail keeps them.
        #expect(error?.reason.contains("OPENSSL") == false && error?.reason.contains(".build") == false)
        #expect(error?.detail?.contains("CERTIFICATE_VERIFY_FAILED") == true)
        #expect(server.requests.isEmpty)
    }

    @Test func tlsReasonsAreReadFromBoringSSLsReasonNames() {
        let text =
            "handshakeFailed(sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /b/.build/checkouts/swift-nio-ssl/handshake.cc:320]))"
        #expect(TLSFailure.reasonNames(in: text) == ["CERTIFICATE_VERIFY_FAILED"])
        let alert =
            "sslError([Error: 268436504 error:10000418:SSL routines:OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA at x.cc:1])"
        #expect(TLSFailure.reasonNames(in: alert) == ["TLSV1_ALERT_UNKNOWN_CA"])
        #expect(TLSFailure.reasonNames(in: "no reason here").isEmpty)
    }

    @Test func aMissingCAFileIsAConfigurationError() throws {
        #expect(throws: TMSError(.configuration, "")) {
            try TMSClient(settings: TMSSettings(baseURL: "https://tms.example", trustedCAFile: "/nonexistent/ca.pem"))
        }
    }
}
