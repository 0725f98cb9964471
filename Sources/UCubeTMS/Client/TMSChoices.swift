/// Every PROJECT CHOICE of the TMS client (things spec §10 leaves open), in one place. Values the spec fixes are here
/// too, marked "spec", so that the client has a single table to read.
public enum TMSChoices {
    /// spec §10.1: every service path follows `/MDM/jaxrs` on the server.
    public static let pathPrefix = "/MDM/jaxrs"
    /// spec §10.1 (A-MDM:MDMManager): connect timeout 20 s.
    public static let connectTimeout: Duration = .seconds(20)
    /// spec §10.1 (A-MDM:MDMManager): read timeout 30 s (no byte for that long fails the request).
    public static let readTimeout: Duration = .seconds(30)
    /// PROJECT CHOICE: an overall limit per attempt, so a server trickling bytes cannot hold a request forever. Large
    /// enough for a 64 MB binary over a slow link.
    public static let attemptDeadline: Duration = .seconds(15 * 60)

    /// PROJECT CHOICE: 3 attempts in all, waiting 1 s, then 2 s (doubling, at most 10 s), on 5xx replies, network
    /// errors and timeouts. 4xx, TLS failures and malformed replies are not retried (retrying cannot fix them).
    public static let retryAttempts = 3
    public static let retryInitialBackoff: Duration = .seconds(1)
    public static let retryMultiplier = 2.0
    public static let retryMaximumBackoff: Duration = .seconds(10)

    /// PROJECT CHOICE: redirects are not followed (a 3xx is an `.httpStatus` error): a redirect could lead off https
    /// or to another host than the one configured.
    public static let followsRedirects = false

    /// PROJECT CHOICE: the largest config JSON accepted (spec §10.4 replies are a few hundred bytes).
    public static let maximumConfigReply = 1 << 20
    /// PROJECT CHOICE: the most items a config may list. A terminal has one item per type, and the SDKs know 14 types
    /// (spec §10.4): a list longer than this is not a terminal's configuration, and each item costs a download.
    public static let maximumConfigItems = 32
    /// PROJECT CHOICE: the largest register reply (a PKCS#12 keystore is a few kilobytes).
    public static let maximumIdentityReply = 1 << 20
    /// PROJECT CHOICE: the largest binary downloaded (spec §10.5 images are about 1–8 MB).
    public static let maximumBinary: Int64 = 64 << 20
    /// PROJECT CHOICE: bytes of a reply body read when the body is not used (send state, send logs, error replies).
    public static let maximumIgnoredReply = 64 << 10
    /// PROJECT CHOICE: chunk size when streaming a file up (send logs).
    public static let uploadChunk = 64 << 10

    /// spec §10.3: the password of the PKCS#12 keystore the server returns.
    public static let pkcs12Password = "gmxsas"
    /// PROJECT CHOICE: the spec's keystore alias "MDM-client" (§10.3) is not checked; any PKCS#12 holding one private
    /// key with its certificate is accepted (the alias is an Android KeyStore detail).
    public static let checksAlias = false

    /// PROJECT CHOICE: where the base URL and extra CA come from, first match wins (explicit option, environment,
    /// `config.json` in the ucube config directory). There is no built-in default host: the YouTransactor hosts of
    /// spec §10.1 would refuse a terminal they do not know, so a TMS must be named.
    public static let urlEnvironmentVariable = "UCUBE_TMS_URL"
    public static let caEnvironmentVariable = "UCUBE_TMS_CA"
    public static let configFileName = "config.json"
    public static let urlConfigKey = "tms_url"
    public static let caConfigKey = "tms_ca"
    /// PROJECT CHOICE: a base URL without a scheme ("mdm.example.com") means https (spec §10.1: `https://` + server).
    public static let defaultScheme = "https"

    /// PROJECT CHOICE: the endpoint paths are the old Android ones (spec §10.2), the only ones whose suffixes and
    /// bodies the sources show.
    public enum Path {
        public static func register(_ t: TerminalIdentity) -> String { "/public/v1/dongle/register/\(t.serial)/\(t.pathPartNumber)" }
        public static func state(_ t: TerminalIdentity) -> String { "/v2/dongle/infos/\(t.serial)/\(t.pathPartNumber)" }
        public static func config(_ t: TerminalIdentity) -> String { "/v2/dongle/config/\(t.serial)/\(t.pathPartNumber)" }
        public static func binary(_ type: Int, _ t: TerminalIdentity) -> String { "/v2/dongle/binary/\(type)/\(t.serial)/\(t.pathPartNumber)" }
        public static func logs(_ t: TerminalIdentity) -> String { "/v1/dongle/logs/\(t.serial)/\(t.pathPartNumber)?type=zip" }
    }

    /// PROJECT CHOICE (spec §10.4 is silent): an NFC EMV config added because the NFC firmware is updated is
    /// mandatory when that firmware update is (besides its own min_version rule).
    public static let nfcConfigInheritsFirmwareMandatory = true

    /// PROJECT CHOICE: identity files are `<serial>.p12`, directory mode 0700, file mode 0600.
    public static let identityDirectoryMode: UInt16 = 0o700
    public static let identityFileMode: UInt16 = 0o600
    public static let identityFileExtension = "p12"
}
