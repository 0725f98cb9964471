import Crypto
import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The simulator's PKI (spec §10.3): a P-256 CA kept in the state directory, the HTTPS server certificate and the
/// per-terminal client certificates (CN = serial). Plain values; file access happens in `loadOrCreate` only. The host
/// simulator (`UCubeHostSimulator`) keeps a CA of its own with the same code, under other names (`Names`).
package struct TMSCertificateAuthority: Sendable {
    let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey

    /// A certificate with its key, as PEM.
    package struct Identity: Sendable {
        let certificate: Certificate
        let certificatePEM: String
        let privateKeyPEM: String
    }

    /// What a CA is called: its two files in the state directory and its certificate's common name.
    package struct Names: Sendable {
        package let certificateFile: String
        package let keyFile: String
        package let commonName: String

        package init(certificateFile: String, keyFile: String, commonName: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.commonName = commonName
        }

        /// The TMS simulator's: `tms-ca.pem`, `tms-ca-key.pem`.
        package static let tms = Names(
            certificateFile: TMSSimulatorChoices.caCertificateFileName, keyFile: TMSSimulatorChoices.caKeyFileName,
            commonName: TMSSimulatorChoices.caCommonName)
    }

    package var certificatePEM: String {
        get throws(TMSSimulatorError) { try Self.pem(certificate) }
    }

    /// Reads the CA's certificate and key (`names`; by default `tms-ca.pem` + `tms-ca-key.pem`) from `directory`, or
    /// creates them (key 0600) when neither exists. Blocking: call from a thread pool.
    package static func loadOrCreate(
        in directory: URL, names: Names = .tms, now: Date = Date()
    ) throws(TMSSimulatorError) -> Self {
        let files = FileManager.default
        let certURL = directory.appendingPathComponent(names.certificateFile)
        let keyURL = directory.appendingPathComponent(names.keyFile)
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw TMSSimulatorError(.stateDirectory, "cannot create the state directory \(directory.path): \(error)")
        }
        let hasCert = files.fileExists(atPath: certURL.path)
        let hasKey = files.fileExists(atPath: keyURL.path)
        if hasCert || hasKey {
            guard hasCert, hasKey else {
                throw TMSSimulatorError(
                    .stateDirectory,
                    "\(directory.path) holds only one of \(certURL.lastPathComponent) and \(keyURL.lastPathComponent)")
            }
            return try load(certificate: certURL, key: keyURL)
        }
        let authority = try create(names: names, now: now)
        do {
            try writeExclusively(Array(authority.privateKey.pemRepresentation.utf8), to: keyURL.path)
            try Data(try authority.certificatePEM.utf8).write(to: certURL, options: .atomic)
        } catch let error as TMSSimulatorError {
            throw error
        } catch {
            throw TMSSimulatorError(.stateDirectory, "cannot write the CA into \(directory.path): \(error)")
        }
        return authority
    }

    private static func load(certificate certURL: URL, key keyURL: URL) throws(TMSSimulatorError) -> Self {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: String(contentsOf: certURL, encoding: .utf8))
        } catch {
            throw TMSSimulatorError(.stateDirectory, "\(certURL.path) is not a PEM certificate: \(error)")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOf: keyURL, encoding: .utf8))
        } catch {
            throw TMSSimulatorError(.stateDirectory, "\(keyURL.path) is not a P-256 private key PEM: \(error)")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw TMSSimulatorError(.stateDirectory, "\(keyURL.path) does not match \(certURL.path)")
        }
        return Self(certificate: certificate, privateKey: key)
    }

    package static func create(names: Names = .tms, now: Date = Date()) throws(TMSSimulatorError) -> Self {
        let key = P256.Signing.PrivateKey()
        let name = Self.name(names.commonName)
        do {
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now.addingTimeInterval(-TMSSimulatorChoices.backdate),
                notValidAfter: now.addingTimeInterval(TMSSimulatorChoices.caValidity),
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
                },
                issuerPrivateKey: Certificate.PrivateKey(key))
            return Self(certificate: certificate, privateKey: key)
        } catch {
            throw TMSSimulatorError(.pki, "cannot create the CA certificate: \(error)")
        }
    }

    /// The HTTPS server certificate: IP SANs 127.0.0.1 and ::1, DNS SANs localhost and api.localhost and
    /// `extraNames` (already checked: `TMSSimulatorChoices.serverNames(for:)`), serverAuth.
    package func issueServerIdentity(
        commonName: String = TMSSimulatorChoices.serverCommonName, extraNames: [String] = [], now: Date = Date()
    ) throws(TMSSimulatorError) -> Identity {
        var dnsNames = TMSSimulatorChoices.serverDNSNames
        for name in extraNames where !dnsNames.contains(name) { dnsNames.append(name) }
        var names: [GeneralName] = dnsNames.map { .dnsName($0) }
        names += TMSSimulatorChoices.serverIPAddresses.map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        return try issue(
            commonName: commonName, usage: .serverAuth, names: names,
            validity: TMSSimulatorChoices.serverValidity, now: now)
    }

    /// A terminal's client certificate: CN = serial, clientAuth (spec §10.3).
    func issueClientIdentity(serial: String, now: Date = Date()) throws(TMSSimulatorError) -> Identity {
        try issue(
            commonName: serial, usage: .clientAuth, names: [], validity: TMSSimulatorChoices.clientValidity, now: now)
    }

    private func issue(
        commonName: String, usage: ExtendedKeyUsage.Usage, names: [GeneralName], validity: Double, now: Date
    ) throws(TMSSimulatorError) -> Identity {
        let key = P256.Signing.PrivateKey()
        do {
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now.addingTimeInterval(-TMSSimulatorChoices.backdate),
                notValidAfter: now.addingTimeInterval(validity),
                issuer: self.certificate.subject,
                subject: Self.name(commonName),
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([usage])
                    if !names.isEmpty { SubjectAlternativeNames(names) }
                    AuthorityKeyIdentifier(
                        keyIdentifier: try? self.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
                },
                issuerPrivateKey: Certificate.PrivateKey(privateKey))
            return Identity(
                certificate: certificate, certificatePEM: try Self.pem(certificate),
                privateKeyPEM: key.pemRepresentation)
        } catch let error as TMSSimulatorError {
            throw error
        } catch {
            throw TMSSimulatorError(.pki, "cannot issue a certificate for \(commonName): \(error)")
        }
    }

    /// The last subject CN of `certificate`, if any.
    static func commonName(of certificate: Certificate) -> String? {
        var found: String?
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                found = String(attribute.value)
            }
        }
        return found
    }

    private static func name(_ commonName: String) -> DistinguishedName {
        (try? DistinguishedName {
            OrganizationName(TMSSimulatorChoices.organisation)
            CommonName(commonName)
        }) ?? DistinguishedName()
    }

    private static func pem(_ certificate: Certificate) throws(TMSSimulatorError) -> String {
        do {
            return try certificate.serializeAsPEM().pemString
        } catch {
            throw TMSSimulatorError(.pki, "cannot serialise a certificate: \(error)")
        }
    }
}

/// Creates `path` with mode 0600 from the start (O_EXCL: never over an existing file) and writes `bytes`.
private func writeExclusively(_ bytes: [UInt8], to path: String) throws(TMSSimulatorError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(TMSSimulatorChoices.caKeyPermissions))
    guard fd >= 0 else { throw TMSSimulatorError(.stateDirectory, "cannot create \(path): errno \(errno)") }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { throw TMSSimulatorError(.stateDirectory, "cannot write \(path): errno \(errno)") }
        written += n
    }
}
