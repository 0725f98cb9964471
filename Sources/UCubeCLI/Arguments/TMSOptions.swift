import ArgumentParser
import Foundation
import Synchronization
import UCubeRuntime
import UCubeTMS

/// Where the TMS is and whom to trust, for `mdm-register`, `mdm-update` and `send-logs`.
struct TMSOptions: ParsableArguments {
    @Option(
        name: .customLong("tms"),
        help: ArgumentHelp(
            "TMS base URL (https://HOST[:PORT]; plain http only to a loopback host). Default: $UCUBE_TMS_URL, else tms_url in $XDG_CONFIG_HOME/ucube/config.json.",
            valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("tms-ca"),
        help: ArgumentHelp(
            "A PEM file of CA certificates to trust for the TMS besides the system's. Default: $UCUBE_TMS_CA, else tms_ca in config.json.",
            valueName: "file"),
        completion: .file())
    var ca: String?

    @Option(
        name: .customLong("tms-timeout"),
        help: ArgumentHelp(
            "Seconds a TMS request may go without a byte (read), and at most to connect. With 3 attempts and 1 s + 2 s of backoff, a silent TMS is given up after 3 × SECONDS + 3 s. Default: 30 (spec §10.1), connect 20. `diagnose` makes one attempt, 10 s by default.",
            valueName: "seconds"))
    var timeout: Int?

    func validate() throws {
        if let timeout, !(1...600).contains(timeout) { throw ValidationError("--tms-timeout must be 1 to 600 seconds") }
    }

    /// The resolved settings; a missing or unusable URL is a usage error.
    func settings() throws -> TMSSettings {
        var settings: TMSSettings
        do {
            settings = try TMSSettings.resolve(
                url: url, ca: ca, environment: ProcessInfo.processInfo.environment,
                configDirectory: Environment.configDirectory, unknownKeys: Self.warnOnce(unknownKeys:))
        } catch {
            throw CLIFailure(error)
        }
        if let timeout {
            settings.readTimeout = .seconds(timeout)
            settings.connectTimeout = min(settings.connectTimeout, .seconds(timeout))
        }
        return settings
    }
}

extension TMSOptions {
    private static let warned = Mutex(false)

    /// A key of config.json that ucube does not read is a typo until shown otherwise: said once a process (a fleet
    /// run reads the settings for each terminal), with the nearest known key.
    static func warnOnce(unknownKeys: [String]) {
        guard !unknownKeys.isEmpty,
            !warned.withLock({
                let was = $0; $0 = true; return was
            })
        else { return }
        for line in unknownKeyWarnings(unknownKeys, path: Environment.configDirectory + "/config.json") {
            StandardError.write(line)
        }
    }

    /// One warning line per unknown key: pure.
    static func unknownKeyWarnings(_ keys: [String], path: String) -> [String] {
        let known = TMSSettings.configKeys
        return keys.map { key in
            let nearest = Suggestion.nearest(to: key, in: known)
            let guess =
                nearest.isEmpty ? "" : " (did you mean \(nearest.map { "\"\($0)\"" }.joined(separator: " or "))?)"
            return
                "ucube: warning: \(path): unknown key \"\(VisibleText.escaped(key))\"\(guess), ignored; the keys are \(known.joined(separator: ", "))"
        }
    }
}
