import Foundation
import UCubeSupport

/// How often to try a request and how long to wait in between (exponential backoff).
package struct RetryPolicy: Hashable, Sendable {
    /// Requests in all, at least 1.
    package var attempts: Int
    package var initialBackoff: Duration
    package var multiplier: Double
    package var maximumBackoff: Duration

    package init(
        attempts: Int = TMSChoices.retryAttempts,
        initialBackoff: Duration = TMSChoices.retryInitialBackoff,
        multiplier: Double = TMSChoices.retryMultiplier,
        maximumBackoff: Duration = TMSChoices.retryMaximumBackoff
    ) {
        self.attempts = Swift.max(1, attempts)
        self.initialBackoff = initialBackoff
        self.multiplier = multiplier
        self.maximumBackoff = maximumBackoff
    }

    /// No retry.
    package static let once = RetryPolicy(attempts: 1)

    /// The wait after failed attempt `attempt` (1-based).
    package func backoff(after attempt: Int) -> Duration {
        var d = initialBackoff
        for _ in 1..<Swift.max(1, attempt) { d = d * multiplier }
        return Swift.min(d, maximumBackoff)
    }
}

/// Where the TMS is and how to talk to it. Build it with `resolve` (explicit value, environment, config file) or
/// `init(baseURL:)`; both check the URL (HTTPS, or plain http to loopback only).
package struct TMSSettings: Hashable, Sendable {
    /// How the TMS was named, which decides its host (spec §10.1, PROJECT CHOICE).
    package enum HostForm: String, Sendable, Hashable {
        /// A URL with a scheme (`https://host[:port][/path]`): that host, as is. What `ucube simulate --tms` prints
        /// and what every earlier ucube documented.
        case url
        /// A bare server name (`host[:port]`), as the SDK's `MDMServices.changeServerUrl` takes it: the current SDK's
        /// host `api.` + name is tried first, and the name itself when `api.` + name does not resolve. An IP address,
        /// or a name already starting with `api.`, is used as is.
        case server
    }

    /// The server as given, normalised: scheme, host, optional port and path, no trailing '/'. Without `/MDM/jaxrs`.
    package let baseURL: String
    package let hostForm: HostForm
    /// A PEM file of extra CA certificates trusted besides the system store.
    package var trustedCAFile: String?
    package var connectTimeout: Duration
    package var readTimeout: Duration
    package var attemptDeadline: Duration
    package var retry: RetryPolicy

    package init(
        baseURL: String,
        trustedCAFile: String? = nil,
        connectTimeout: Duration = TMSChoices.connectTimeout,
        readTimeout: Duration = TMSChoices.readTimeout,
        attemptDeadline: Duration = TMSChoices.attemptDeadline,
        retry: RetryPolicy = RetryPolicy()
    ) throws(TMSError) {
        self.baseURL = try TMSSettings.checkedBaseURL(baseURL)
        self.hostForm = baseURL.contains("://") ? .url : .server
        self.trustedCAFile = trustedCAFile
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.attemptDeadline = attemptDeadline
        self.retry = retry
    }

    /// The full URL of a service path under the preferred root (spec §10.1: base + `/MDM/jaxrs` + path).
    package func url(_ path: String) -> String { serviceRoot + path }

    /// The preferred service root.
    package var serviceRoot: String { serviceRoots[0] }

    /// The service roots to try, best first: base + `/MDM/jaxrs` (kept once if the base already ends with it); for a
    /// bare server name, `https://api.` + name + `/MDM/jaxrs` first (spec §10.1, L:mdm.MDMManager.initRequest).
    package var serviceRoots: [String] {
        let plain = baseURL.hasSuffix(TMSChoices.pathPrefix) ? baseURL : baseURL + TMSChoices.pathPrefix
        guard hostForm == .server, let prefixed = Self.apiPrefixed(plain) else { return [plain] }
        return [prefixed, plain]
    }

    /// `https://api.HOST…` for `https://HOST…`, or nil when HOST is an IP address or already starts with `api.`.
    static func apiPrefixed(_ url: String) -> String? {
        guard let start = url.firstRange(of: "://")?.upperBound,
            let host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty
        else { return nil }
        let isIPv4 = host.split(separator: ".").count == 4 && host.allSatisfy { $0 == "." || $0.isNumber }
        guard !host.contains(":"), !host.hasPrefix("["), !isIPv4, !host.hasPrefix(TMSChoices.apiHostPrefix) else {
            return nil
        }
        return String(url[..<start]) + TMSChoices.apiHostPrefix + url[start...]
    }

    /// Whether requests go over TLS.
    package var isHTTPS: Bool { baseURL.lowercased().hasPrefix("https://") }

    /// Resolves the base URL and CA file, first match wins: explicit values (`--tms`, `--tms-ca`), then the environment
    /// (`UCUBE_TMS_URL`, `UCUBE_TMS_CA`), then `<configDirectory>/config.json` keys `tms_url`, `tms_ca` (a relative
    /// `tms_ca` is taken relative to the config directory). Throws `.configuration` when no URL is found or the config
    /// file is not a JSON object (a syntax error as FILE:LINE:COLUMN), `.insecureURL` for plain http to a non-loopback
    /// host. `unknownKeys` is given the config file's keys that are not `configKeys` (a typo such as `tms-url` would
    /// otherwise be ignored in silence), sorted, as soon as the file is read: for a warning.
    package static func resolve(
        url explicitURL: String? = nil,
        ca explicitCA: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configDirectory: String? = nil,
        unknownKeys: ([String]) -> Void = { _ in }
    ) throws(TMSError) -> TMSSettings {
        func nonEmpty(_ s: String?) -> String? {
            guard let s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
            return s
        }
        var fileURL: String?
        var fileCA: String?
        var fileError: TMSError?
        let urlGiven = nonEmpty(explicitURL) ?? nonEmpty(environment[TMSChoices.urlEnvironmentVariable])
        let caGiven = nonEmpty(explicitCA) ?? nonEmpty(environment[TMSChoices.caEnvironmentVariable])
        if urlGiven == nil || caGiven == nil, let dir = configDirectory {
            do {
                let object = try readConfig(dir + "/" + TMSChoices.configFileName)
                (fileURL, fileCA) = configValues(object, directory: dir)
                // Said before anything else can fail: a misspelt key may be why the settings are wrong.
                let unknown = object.keys.filter { !configKeys.contains($0) }.sorted()
                if !unknown.isEmpty { unknownKeys(unknown) }
            } catch {
                fileError = error
            }
        }
        // A broken config file matters only when the URL has to come from it.
        if urlGiven == nil, let fileError { throw fileError }
        guard let url = urlGiven ?? fileURL else {
            throw TMSError(
                .notConfigured, "no TMS is configured",
                hint:
                    "pass --tms URL, set \(TMSChoices.urlEnvironmentVariable), or set \"\(TMSChoices.urlConfigKey)\" in \(configDirectory.map { $0 + "/" } ?? "")\(TMSChoices.configFileName)"
            )
        }
        let ca = caGiven ?? fileCA
        return try TMSSettings(baseURL: url, trustedCAFile: ca)
    }

    /// The keys config.json may hold.
    package static let configKeys = [TMSChoices.urlConfigKey, TMSChoices.caConfigKey]

    /// `$XDG_CONFIG_HOME/ucube` (default `~/.config/ucube`).
    package static func defaultConfigDirectory(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        (XDGDirectories(environment: environment).configHome ?? NSHomeDirectory() + "/.config") + "/ucube"
    }

    /// The TMS URL and CA file a config.json object names (a relative CA is taken relative to `directory`).
    private static func configValues(_ object: [String: Any], directory: String) -> (url: String?, ca: String?) {
        func nonEmpty(_ s: String?) -> String? {
            guard let s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
            return s
        }
        let url = nonEmpty(object[TMSChoices.urlConfigKey] as? String)
        let ca = nonEmpty(object[TMSChoices.caConfigKey] as? String).map {
            $0.hasPrefix("/") ? $0 : directory + "/" + $0
        }
        return (url, ca)
    }

    /// The settings a config.json's bytes give on their own (no --tms, no environment), as `resolve` reads them;
    /// nil when the file names no URL. For the fuzz targets.
    package static func fromConfigFile(_ data: Data, directory: String) throws(TMSError) -> TMSSettings? {
        let values = configValues(
            try parseConfig(data, path: directory + "/" + TMSChoices.configFileName), directory: directory)
        guard let url = values.url else { return nil }
        return try TMSSettings(baseURL: url, trustedCAFile: values.ca)
    }

    private static func readConfig(_ path: String) throws(TMSError) -> [String: Any] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TMSError(.configuration, "cannot read \(path)")
        }
        return try parseConfig(data, path: path)
    }

    private static func parseConfig(_ data: Data, path: String) throws(TMSError) -> [String: Any] {
        let shape =
            "config.json holds one JSON object: {\"\(TMSChoices.urlConfigKey)\": \"https://…\", \"\(TMSChoices.caConfigKey)\": \"FILE\"}"
        guard data.count <= 1 << 20 else { throw TMSError(.configuration, "\(path) is over 1 MiB", hint: shape) }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw TMSError(.configuration, syntaxError(error, in: data, path: path), hint: shape)
        }
        guard let object = parsed as? [String: Any] else {
            throw TMSError(.configuration, "\(path) is not a JSON object", hint: shape)
        }
        return object
    }

    /// `PATH:LINE:COLUMN: not valid JSON: WHAT` for Foundation's parse error, whose description gives a byte offset
    /// ("Invalid value around character 48.") or the end of the data; just `PATH is not valid JSON: …` without one.
    static func syntaxError(_ error: any Error, in data: Data, path: String) -> String {
        let description = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        var what = description
        var offset: Int? = nil
        if let range = description.range(of: " around character ") {
            what = String(description[..<range.lowerBound])
            offset = Int(description[range.upperBound...].prefix { $0.isNumber })
        } else if description.lowercased().contains("end of file") {
            offset = data.count
        }
        if what.hasSuffix(".") { what.removeLast() }
        what = what.prefix(1).lowercased() + what.dropFirst()
        guard let offset, offset >= 0, offset <= data.count else { return "\(path) is not valid JSON: \(what)" }
        let (line, column) = position(of: offset, in: data)
        return "\(path):\(line):\(column): not valid JSON: \(what)"
    }

    /// The 1-based line and column (in characters) of byte `offset` of `data`.
    static func position(of offset: Int, in data: Data) -> (line: Int, column: Int) {
        let before = data.prefix(offset)
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? before.startIndex
        return (line, String(decoding: before[lineStart...], as: UTF8.self).count + 1)
    }

    /// Checks and normalises a base URL: https anywhere; http only to 127.0.0.0/8, ::1 or localhost.
    static func checkedBaseURL(_ raw: String) throws(TMSError) -> String {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if !text.contains("://") { text = TMSChoices.defaultScheme + "://" + text }
        while text.hasSuffix("/") { text.removeLast() }
        guard let comps = URLComponents(string: text), let scheme = comps.scheme?.lowercased(),
            let host = comps.host, !host.isEmpty, comps.query == nil, comps.fragment == nil, comps.user == nil
        else {
            throw TMSError(.configuration, "\"\(raw)\" is not a TMS URL (expected https://host[:port][/path])")
        }
        switch scheme {
        case "https":
            break
        case "http":
            guard isLoopback(host) else {
                throw TMSError(
                    .insecureURL,
                    "refusing plain http to \(host) (\(raw)): the TMS must be reached over https; plain http is allowed only to a loopback host"
                )
            }
        default:
            throw TMSError(.configuration, "\"\(raw)\": unsupported scheme \(scheme) (expected https)")
        }
        return text
    }

    /// 127.0.0.0/8, ::1 (with or without brackets) or localhost.
    static func isLoopback(_ host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h == "localhost" || h == "localhost." || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }) else {
            return false
        }
        return parts[0] == "127"
    }
}
