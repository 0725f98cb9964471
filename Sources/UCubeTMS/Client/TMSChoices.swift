/// Every PROJECT CHOICE of the TMS client (things spec §10 leaves open), in one place. Values the spec fixes are here
/// too, marked "spec", so that the client has a single table to read.
package enum TMSChoices {
    /// spec §10.1: every service path follows `/MDM/jaxrs` on the server.
    package static let pathPrefix = "/MDM/jaxrs"
    /// spec §10.1 (A-MDM:MDMManager): connect timeout 20 s.
    package static let connectTimeout: Duration = .seconds(20)
    /// spec §10.1 (A-MDM:MDMManager): read timeout 30 s (no byte for that long fails the request).
    package static let readTimeout: Duration = .seconds(30)
    /// PROJECT CHOICE: an overall limit per attempt, so a server trickling bytes cannot hold a request forever. Large
    /// enough for a 64 MB binary over a slow link.
    package static let attemptDeadline: Duration = .seconds(15 * 60)

    /// PROJECT CHOICE: 3 attempts in all, waiting 1 s, then 2 s (doubling, at most 10 s), on 5xx replies, network
    /// errors and timeouts. 4xx, TLS failures and malformed replies are not retried (retrying cannot fix them).
    package static let retryAttempts = 3
    package static let retryInitialBackoff: Duration = .seconds(1)
    package static let retryMultiplier = 2.0
    package static let retryMaximumBackoff: Duration = .seconds(10)

    /// PROJECT CHOICE: redirects are not followed (a 3xx is an `.httpStatus` error): a redirect could lead off https
    /// or to another host than the one configured.
    package static let followsRedirects = false

    /// PROJECT CHOICE: the largest config JSON accepted (spec §10.4 replies are a few hundred bytes).
    package static let maximumConfigReply = 1 << 20
    /// PROJECT CHOICE: the most items a config may list. A terminal has one item per type, and the SDKs know 14 types
    /// (spec §10.4): a list longer than this is not a terminal's configuration, and each item costs a download.
    package static let maximumConfigItems = 32
    /// PROJECT CHOICE: the largest register reply (a PKCS#12 keystore is a few kilobytes).
    package static let maximumIdentityReply = 1 << 20
    /// PROJECT CHOICE: the largest binary downloaded (spec §10.5 images are about 1–8 MB).
    package static let maximumBinary: Int64 = 64 << 20
    /// PROJECT CHOICE: bytes of a reply body read when the body is not used (send state, send logs, error replies).
    package static let maximumIgnoredReply = 64 << 10
    /// PROJECT CHOICE: chunk size when streaming a file up (send logs).
    package static let uploadChunk = 64 << 10

    /// spec §10.3: the password of the PKCS#12 keystore the server returns.
    package static let pkcs12Password = "gmxsas"
    /// PROJECT CHOICE: the spec's keystore alias "MDM-client" (§10.3) is not checked; any PKCS#12 holding one private
    /// key with its certificate is accepted (the alias is an Android KeyStore detail).
    package static let checksAlias = false

    /// PROJECT CHOICE: where the base URL and extra CA come from, first match wins (explicit option, environment,
    /// `config.json` in the ucube config directory). There is no built-in default host: the YouTransactor hosts of
    /// spec §10.1 would refuse a terminal they do not know, so a TMS must be named.
    package static let urlEnvironmentVariable = "UCUBE_TMS_URL"
    package static let caEnvironmentVariable = "UCUBE_TMS_CA"
    package static let configFileName = "config.json"
    package static let urlConfigKey = "tms_url"
    package static let caConfigKey = "tms_ca"
    /// PROJECT CHOICE: a base URL without a scheme ("mdm.example.com") means https (spec §10.1: `https://` + server),
    /// and is a server name as the SDK takes it: requests go to `api.` + it first (`apiHostPrefix`).
    package static let defaultScheme = "https"

    /// spec §10.1 (L:mdm.MDMManager.initRequest): the current SDK asks for `https://api.` + server. Applied to a TMS
    /// named as a bare server (`TMSSettings.HostForm.server`), never to a URL with a scheme or to an IP address.
    package static let apiHostPrefix = "api."

    /// spec §10.1 (L:mdm.MDMManager): the identity headers of the current forms. ucube names terminals by serial.
    package static let deviceIDHeader = "x-device-id"
    package static let idTypeHeader = "x-id-type"
    /// spec §10.1: the SDK's default `TerminalIdType`, C3 = the serial.
    package static let idType = "C3"

    /// spec §10.2: the service paths of each request kind, in the current SDK's form (tried first) and the 2020 SDK's
    /// (the fallback for a server that answers 404 or 405 to the current one, `TMSClient`). Config has one form.
    package enum Path {
        /// L:mdm.RegisterTask: the literal `RFU` where 2020 had the part number.
        package static let registerPlaceholder = "RFU"

        package static func register(_ t: TerminalIdentity, _ dialect: TMSDialect) -> String {
            switch dialect {
            case .current: "/public/v1/dongle/register/\(t.serial)/\(registerPlaceholder)"
            case .v2020: "/public/v1/dongle/register/\(t.serial)/\(t.pathPartNumber)"
            }
        }
        /// A-MDM:SendStateTask. The current SDK sends no state (spec §10.2); only the 2020 form exists.
        package static func state(_ t: TerminalIdentity) -> String {
            "/v2/dongle/infos/\(t.serial)/\(t.pathPartNumber)"
        }
        /// The same in both (L:mdm.GetConfigTask, A-MDM:GetConfigTask).
        package static func config(_ t: TerminalIdentity) -> String {
            "/v2/dongle/config/\(t.serial)/\(t.pathPartNumber)"
        }
        package static func binary(_ type: Int, _ t: TerminalIdentity, _ dialect: TMSDialect) -> String {
            switch dialect {
            case .current: "/v3/dongle/binary/\(type)"
            case .v2020: "/v2/dongle/binary/\(type)/\(t.serial)/\(t.pathPartNumber)"
            }
        }
        package static func logs(_ t: TerminalIdentity, _ dialect: TMSDialect) -> String {
            switch dialect {
            case .current: "/public/v3/dongle/logs/?type=zip"
            case .v2020: "/v1/dongle/logs/\(t.serial)/\(t.pathPartNumber)?type=zip"
            }
        }
    }

    /// PROJECT CHOICE: the HTTP statuses that make the current form fall back to the 2020 one, once per request kind
    /// and service root, remembered for the rest of the process (`TMSDialectMemory`).
    package static let fallbackStatuses: Set<Int> = [404, 405]

    /// spec §10.3/§10.7: register and logs succeed on 200 or 201 (L:mdm.RegisterTask, L:mdm.SendLogsTask; the 2020
    /// SDK wanted 200, a 201 from a 2020 server is taken too); the other requests on 200 only.
    package static let createdAccepted: Set<Int> = [200, 201]

    /// spec §10.5 (L:mdm.DownloadBinaryTask): the binary answer's Content-Types. The SDK compares the whole header
    /// as a string; PROJECT CHOICE: ucube compares the media type (before any `;`) without case.
    package static let binaryStreamType = "application/octet-stream"
    package static let binaryZipType = "application/zip"

    /// PROJECT CHOICE: the bounds of a zip binary answer (spec §10.5): entries in the archive, binaries in its
    /// manifest, the manifest's and the key's size. Each entry and their sum are bounded by `maximumBinary`. Entries
    /// are read into memory and never written under their own names; a name that is absolute, holds a `..`
    /// component, a backslash or a control character fails the whole answer, as do symbolic links.
    package static let maximumZipEntries = 64
    package static let maximumZipBinaries = 16
    package static let maximumZipManifest = 64 << 10
    package static let maximumZipKey = 4 << 10

    /// PROJECT CHOICE (spec §10.4 is silent): an NFC EMV config added because the NFC firmware is updated is
    /// mandatory when that firmware update is (besides its own min_version rule).
    package static let nfcConfigInheritsFirmwareMandatory = true

    /// PROJECT CHOICE: identity files are `<serial>.p12`, directory mode 0700, file mode 0600.
    package static let identityDirectoryMode: UInt16 = 0o700
    package static let identityFileMode: UInt16 = 0o600
    package static let identityFileExtension = "p12"
}
