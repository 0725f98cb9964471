import Foundation

/// Every PROJECT CHOICE the TMS (MDM) server simulator makes, in one place, each naming the spec section that leaves it
/// open (spec = docs/protocol.md §10). The real TMS is YouTransactor's; what is here is how *this* server
/// behaves where the sources are silent.
///
/// Behaviour choices (code paths rather than values):
/// - §10.1/§10.2: one host serves both the public and the private (mutual-TLS) endpoints under `pathPrefix`, in both
///   dialects at once by default (`TMSRoute`): the 2020 SDK's paths and the current SDK's (register `…/RFU`, binary
///   v3 with `x-device-id`, logs `/public/v3/…`, infos JSON). `start(dialects:)` (`ucube simulate --tms-dialect`)
///   serves one dialect only: the other's forms answer 404, as a server that does not know them would. Config has
///   one form and is always served. The listener names no host: a client that asks for `api.<server>` (the current
///   SDK, spec §10.1) reaches it when that name resolves to the listening address; the certificate carries
///   `serverDNSNames`. TLS 1.2 and 1.3 are accepted (the current SDK offers TLS 1.2 only). TLS asks for a client certificate but does not require one
///   (`.optionalVerification`, the simulator's CA is the only trust root): a certificate from another CA fails the
///   handshake; no certificate → the private endpoints answer 403.
/// - §10.3: a private endpoint answers 403 unless the client certificate's CN equals the `{serial}` of the URL
///   (`clientCommonNameIsSerial`). The certificate alone proves registration, so it survives a simulator restart (the
///   in-memory "registered" list is informative).
/// - §10.3/§5.2 0x5130: the dongle certificate (register and binary bodies) must parse as `LL LL` CA-prod `LL LL` KEK;
///   unparsable → 400; the CA-prod certificate must equal the terminal simulator's demonstration CA and the KEK
///   certificate the demonstration KEK of `{serial}` (`SimulatorChoices.demoCAProdCertificate` /
///   `demoKEKCertificate(serial:)`), else 403. Trailing bytes (newer firmware's KSNs) are ignored.
/// - §10.5: a catalogue item marked `ciphered` is refused at startup (the catalogue carries no session key).
/// - §10.5: a v3 binary request is answered `application/octet-stream` (the v2 block stream), unless the catalogue
///   item says `"answer": "zip"`: then `application/zip` with the entries `key` (empty: plain binaries), `manifest.json`
///   `{"binary_list":["<image name>"]}`, `<image name>.sig` (the signature file's bytes) and `<image name>.bin`
///   (`LL LL` + block …, `00 00`), `<image name>` being the image file's name without its extension. A v2 request is
///   always answered with the block stream (the 2020 SDK reads nothing else).
/// - §10.1: in the current forms the terminal is named by `x-device-id`. Binary and infos take it as the serial
///   whatever `x-id-type` says (the SDK always sends the serial there); logs accept it only when `x-id-type` is absent
///   or one of `serialIDTypes` (else 400). Register and logs answer 200 in both dialects (the current SDK also
///   accepts 201).
/// - §10.7: `?type=zip` is required on logs (other or missing → 400); the body is stored as
///   `<state>/received-logs/<serial>-<n>.zip`, n counting from 1 over the files already there.
/// - Requests on one connection are answered in order, one at a time; NIO's pipelining assistance is off so that
///   the connection keeps reading while an answer is pending (a client's TLS close during a `TMSFault.delay` is
///   seen at once, and the delayed answer is dropped).
/// - Any other path → 404, a known path with the wrong method → 405, a body over the endpoint's cap → 413 (and the
///   connection is closed), malformed HTTP → 400 from NIO's error handler and the connection is closed.
package enum TMSSimulatorChoices {
    /// §10.1: the service prefix of every path.
    package static let pathPrefix = "/MDM/jaxrs"

    /// §10.3: PKCS#12 password and the friendly name (alias) of the key entry.
    package static let pkcs12Password = "gmxsas"
    package static let pkcs12Alias = "MDM-client"
    /// PKCS#12 algorithms (libcrypto `PKCS12_create`): PBE-SHA1-3DES for key and certificate, SHA-1 MAC, 2048
    /// iterations — the legacy profile every reader (BoringSSL in NIOSSL, Java keystores) accepts.
    static let pkcs12Iterations: Int32 = 2048

    /// §10.3: the client certificate's subject CN is the terminal serial (decimal, §4), checked against `{serial}`.
    package static let clientCommonNameIsSerial = true

    // MARK: State directory

    /// The CA certificate (PEM), written for clients to trust: `<state>/tms-ca.pem`.
    package static let caCertificateFileName = "tms-ca.pem"
    /// The CA private key (PKCS#8 PEM), mode 0600: `<state>/tms-ca-key.pem`.
    package static let caKeyFileName = "tms-ca-key.pem"
    static let caKeyPermissions: Int = 0o600
    /// Received log archives: `<state>/received-logs/`.
    package static let receivedLogsDirectoryName = "received-logs"
    /// The catalogue index inside the catalogue directory.
    package static let catalogueFileName = "catalogue.json"

    // MARK: PKI (P-256, ECDSA with SHA-256)

    static let caCommonName = "ucube TMS simulator CA"
    static let serverCommonName = "ucube TMS simulator"
    static let organisation = "ucube simulator"
    /// Certificates are valid from one hour before issue (clock skew) for these periods.
    static let backdate: Double = 3600
    static let caValidity: Double = 10 * 365 * 86400
    static let serverValidity: Double = 365 * 86400
    static let clientValidity: Double = 2 * 365 * 86400
    /// Server certificate names: IP SAN 127.0.0.1 and ::1, DNS SAN localhost and api.localhost (the host the current
    /// SDK asks for when told the server `localhost:PORT`, spec §10.1).
    static let serverDNSNames = ["localhost", "api.localhost"]
    /// `simulate --tms-name`: at most this many names of the user's own.
    package static let maximumExtraNames = 16

    /// The DNS names the server certificate gets for a name the user gives (`simulate --tms-name NAME`): NAME and
    /// `api.NAME`, the host the current SDK asks for when told the server NAME (spec §10.1); `api.NAME` alone when
    /// NAME already starts with `api.`. Throws a sentence when NAME is not a DNS host name (RFC 1123 §2.1: labels
    /// of 1 to 63 letters, digits and hyphens, neither first nor last a hyphen, 253 characters in all, the last
    /// label not all digits, so that no IPv4 address passes for one), or `api.NAME` would be too long.
    package static func serverNames(for name: String) throws(TMSSimulatorError) -> [String] {
        let lower = name.lowercased()
        let wanted = lower.hasPrefix("api.") ? [lower] : [lower, "api." + lower]
        for candidate in wanted {
            let labels = candidate.split(separator: ".", omittingEmptySubsequences: false)
            let valid =
                candidate.utf8.count <= 253
                && labels.allSatisfy { label in
                    (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                } && labels.last.map { !$0.allSatisfy(\.isNumber) } == true
            guard valid else {
                throw TMSSimulatorError(
                    .invalidArgument,
                    "--tms-name '\(name)' is not a DNS host name (letters, digits and hyphens in dot-separated labels of 1 to 63, \(candidate == lower ? "" : "api.NAME ")at most 253 characters, not an IP address)"
                )
            }
        }
        return wanted
    }
    static let serverIPAddresses: [[UInt8]] = [[127, 0, 0, 1], Array(repeating: 0, count: 15) + [1]]

    // MARK: Binary download (§10.5)

    /// §5.2 0x5161 PROJECT CHOICE: 2040-byte blocks, each `LL LL` + block, then `00 00`.
    package static let binaryBlockSize = 2040
    /// §10.5 signatures are `LL LL`-prefixed.
    static let maximumSignatureSize = 0xFFFF
    /// `fault .dropConnection` on a binary closes the connection after the signature and this many blocks.
    package static let blocksBeforeDrop = 1

    // MARK: Caps

    /// Register / binary (dongle certificate) and infos (GetInfo TLV) bodies.
    package static let maximumSmallBody = 64 * 1024
    /// Log archives.
    package static let maximumLogsBody = 64 * 1024 * 1024
    /// The received log archives kept in all (the files of `received-logs`, counted at start and as they come). The
    /// logs route is public, as in the spec (§10.1: no client certificate), so anyone who reaches the listener can
    /// upload: past this bound an upload is answered 507 and nothing is written (issue 39).
    package static let maximumReceivedLogs = 256 * 1024 * 1024
    /// The `x-id-type` values under which a current logs request's `x-device-id` is the terminal serial.
    static let serialIDTypes: Set<String> = ["C3", "TERM_SN"]
    /// The largest image answered as a zip (built in memory); a larger one is answered 500.
    static let maximumZipImage = 64 << 20
    /// `serial` is at most 20 decimal digits (UInt64), a part number at most 64 characters.
    static let maximumSerialLength = 20
    static let maximumPartNumberLength = 64

    /// A connection with neither a read nor a write for this long is closed (a stalled TLS handshake, an idle
    /// keep-alive, a client that stopped reading). Longer than the spec's 30 s client read timeout (§10.1), so a
    /// `TMSFault.delay` of up to this long is seen by the client as its own timeout.
    package static let idleTimeout: TimeInterval = 120

    // MARK: Faults

    /// The body of `TMSFault.malformedJSON`: starts like a config and stops mid-array.
    static let malformedJSONBody = Array(#"{"status":"ok","data":{"config":[{"type":0,"ciph"#.utf8)
}
