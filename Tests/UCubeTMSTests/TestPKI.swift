import CLibCrypto
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway PKI made in-process: a CA, a server certificate for 127.0.0.1/localhost and a terminal client
/// certificate, with the client identity as the TMS would return it (PKCS#12, password "gmxsas").
struct TestPKI {
    let caCertificate: Certificate
    let caPEM: String
    let serverCertificate: NIOSSLCertificate
    let serverKey: NIOSSLPrivateKey
    let clientCertificateDER: [UInt8]
    let clientPKCS12: [UInt8]
    let nioCA: NIOSSLCertificate

    init() throws {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("ucube test TMS CA") }
        caCertificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        caPEM = try caCertificate.serializeAsPEM().pemString
        nioCA = try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)

        func leaf(_ cn: String, usage: ExtendedKeyUsage.Usage, key: P256.Signing.PrivateKey) throws -> Certificate {
            try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400),
                issuer: caName, subject: try DistinguishedName { CommonName(cn) }, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([usage])
                    SubjectAlternativeNames([
                        .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    ])
                },
                issuerPrivateKey: .init(caKey))
        }
        let serverPrivate = P256.Signing.PrivateKey()
        let server = try leaf("localhost", usage: .serverAuth, key: serverPrivate)
        serverCertificate = try NIOSSLCertificate(bytes: Array(server.serializeAsPEM().pemString.utf8), format: .pem)
        serverKey = try NIOSSLPrivateKey(bytes: Array(serverPrivate.pemRepresentation.utf8), format: .pem)

        let clientPrivate = P256.Signing.PrivateKey()
        let client = try leaf("123456789", usage: .clientAuth, key: clientPrivate)
        var serializer = DER.Serializer()
        try serializer.serialize(client)
        clientCertificateDER = serializer.serializedBytes
        let clientCert = try NIOSSLCertificate(bytes: clientCertificateDER, format: .der)
        let clientKey = try NIOSSLPrivateKey(bytes: Array(clientPrivate.pemRepresentation.utf8), format: .pem)
        clientPKCS12 = try NIOSSLPKCS12Bundle(certificateChain: [clientCert], privateKey: clientKey).serialize(
            passphrase: Array("gmxsas".utf8))
    }

    /// A TLS server context that demands a client certificate issued by the CA.
    func serverContext() throws -> NIOSSLContext {
        var c = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(serverCertificate)], privateKey: .privateKey(serverKey))
        c.certificateVerification = .noHostnameVerification
        c.trustRoots = .certificates([nioCA])
        return try NIOSSLContext(configuration: c)
    }

    /// The CA as a PEM file for `TMSSettings.trustedCAFile`.
    func writeCA() throws -> String {
        let path = NSTemporaryDirectory() + "tms-ca-\(UUID().uuidString).pem"
        try Data(caPEM.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A PKCS#12 holding only the client certificate, no key (a hostile register reply), made with OpenSSL.
    func keylessPKCS12(password: String = "gmxsas") -> [UInt8] {
        let x509: OpaquePointer? = clientCertificateDER.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            return d2i_X509(nil, &p, buf.count)
        }
        guard let x509 else { return [] }
        defer { X509_free(x509) }
        guard let p12 = PKCS12_create(password, nil, nil, x509, nil, 0, 0, 0, 0, 0) else { return [] }
        defer { PKCS12_free(p12) }
        let n = i2d_PKCS12(p12, nil)
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(n))
        out.withUnsafeMutableBufferPointer { buf in
            var q: UnsafeMutablePointer<UInt8>? = buf.baseAddress
            _ = i2d_PKCS12(p12, &q)
        }
        return out
    }
}
