import ArgumentParser
import Foundation
import Logging
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol
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

/// What the MDM commands need from the terminal: who it is (for the URLs) and what it runs (for the plan).
struct TerminalFacts {
    let identity: TerminalIdentity
    let versions: DeviceVersions
    let info: DeviceInfo

    /// Serial, part number and every version the plan compares (spec §10.3 step 1, §10.4).
    static let tags: [UInt8] = [0xC1, 0xC2, 0xC3, 0xC4, 0xD1, 0xE8, 0xEA, 0xEB, 0xED]

    static func read(_ client: RPCClient) async throws -> TerminalFacts {
        let info = try await client.deviceInfo(tags: tags)
        let identity: TerminalIdentity
        do {
            identity = try TerminalIdentity(info)
        } catch {
            throw CLIFailure(ExitCodes.protocolError, error.reason)
        }
        return TerminalFacts(identity: identity, versions: DeviceVersions(info), info: info)
    }

    /// InstallForLoadKey's whole answer: the "dongle certificate" the register and binary requests carry (spec §5.2).
    static func certificate(_ client: RPCClient) async throws -> [UInt8] {
        let reply = try await client.send(InstallForLoadKey())
        guard let response = reply.response else {
            throw CLIFailure(
                ExitCodes.terminalStatus, RPCOutput.statusMessage(reply.status, command: "InstallForLoadKey"))
        }
        return response.encodeData()
    }
}

/// The executable's TMS paths and client lifetime.
enum TMSContext {
    /// One PKCS#12 client identity per terminal serial (spec §10.3): `$XDG_CONFIG_HOME/ucube/tms/SERIAL.p12`, 0600.
    static var identities: TMSIdentityStore { TMSIdentityStore(directory: Environment.configDirectory + "/tms") }

    /// Downloaded binaries, each deleted once loaded: `$XDG_STATE_HOME/ucube/downloads`.
    static var downloads: String { Environment.stateDirectory + "/downloads" }

    /// Runs `body` with a TMS client and always shuts it down (AsyncHTTPClient requires it).
    static func with<T>(
        _ settings: TMSSettings, identity: TMSIdentity?, _ body: (TMSClient) async throws -> T
    ) async throws -> T {
        let client: TMSClient
        do {
            client = try TMSClient(settings: settings, identity: identity, logger: Logger(layer: .mdm))
        } catch {
            throw CLIFailure(error)
        }
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch let error as TMSError {
            await client.shutdown()
            throw CLIFailure(error)
        } catch {
            await client.shutdown()
            throw error
        }
    }
}

extension ExitCodes {
    /// The one place a TMS failure becomes an exit code: configuration mistakes are usage errors, a local file
    /// that cannot be read or written an I/O error, Ctrl-C `cancelled`, everything the server or the network did `tms`.
    static func code(for error: TMSError) -> Entry {
        switch error.code {
        case .notConfigured, .configuration, .insecureURL: usage
        case .file: ioError
        case .cancelled: cancelled
        case .httpStatus, .network, .timeout, .tls, .tlsUntrustedCertificate, .tlsHostnameMismatch,
            .tlsCertificateRejected,
            .tlsCertificateExpired, .malformedReply, .refused, .notRegistered:
            tms
        }
    }
}

extension CLIFailure {
    init(_ error: TMSError) {
        code = CLIErrorCode.name(of: error.code)
        exit = ExitCodes.code(for: error)
        message = error.reason
        hint = error.hint
        detail = error.detail
    }
}

/// A TMS-layer call whose typed error becomes the CLI's (in a closure, `do`/`catch` loses the error's type).
func tmsChecked<T>(_ body: () throws(TMSError) -> T) throws(CLIFailure) -> T {
    do { return try body() } catch { throw CLIFailure(error) }
}

extension UCube {
    /// `ucube mdm-register`: InstallForLoadKey → POST the terminal certificate → keep the returned client identity.
    struct MDMRegister: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "mdm-register",
            abstract: "Register the terminal with the TMS and keep its client certificate (or show / remove it).",
            discussion: """
                Reads the terminal's serial and part number (GetInfo), sends its certificate (InstallForLoadKey) to \
                the TMS register endpoint, stores the PKCS#12 client identity it answers as \
                $XDG_CONFIG_HOME/ucube/tms/SERIAL.p12 (mode 0600) (spec §10.3). The request takes the current SDK's \
                form (…/register/SERIAL/RFU); a TMS that answers it 404 or 405 gets the 2020 form \
                (…/register/SERIAL/PN), and then the terminal's state, sent with the new identity, as the 2020 SDK \
                did. Registering again replaces the identity. With several terminals (--device repeated, \
                --devices FILE), a fleet run: see `ucube help mdm-update`.
                """ + HelpExamples.section("mdm-register"))

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var tms: TMSOptions
        @OptionGroup var fleet: FleetOptions

        @Flag(help: "Say whether the terminal is registered (has a stored client identity); contacts no server.")
        var status = false

        @Flag(help: "Forget the terminal's stored client identity; contacts no server.")
        var unregister = false

        func validate() throws {
            if status && unregister { throw ValidationError("--status and --unregister cannot be used together") }
        }

        struct Output: Encodable {
            let serial: String
            let partNumber: String
            let registered: Bool
            let identity: String?
            var server: String? = nil
            /// The API form the TMS took: "current" or "2020" (spec §10.2).
            var api: TMSDialect? = nil
        }

        func run(in context: CommandContext) async throws {
            if let run = try FleetRun(command: "mdm-register", context: context, options: fleet.values) {
                try await run.run { device in try await register(context.single(device, json: true)) }
                return
            }
            try await register(context)
        }

        private func register(_ context: CommandContext) async throws {
            let store = TMSContext.identities
            try await withConnection(context) { connection in
                let facts = try await TerminalFacts.read(connection.client)
                let serial = facts.identity.serial
                let pn = facts.identity.partNumber
                let path: String = try tmsChecked { () throws(TMSError) in try store.path(serial: serial) }
                if status {
                    let registered = store.isRegistered(serial: serial)
                    try emit(
                        Output(
                            serial: serial, partNumber: pn, registered: registered, identity: registered ? path : nil),
                        text: registered
                            ? "terminal \(serial) (\(pn)) is registered: client identity \(path)"
                            : "terminal \(serial) (\(pn)) is not registered: run `ucube mdm-register`",
                        json: context.json)
                    return
                }
                if unregister {
                    let removed: Bool = try tmsChecked { () throws(TMSError) in try store.remove(serial: serial) }
                    try emit(
                        Output(serial: serial, partNumber: pn, registered: false, identity: nil),
                        text: removed
                            ? "terminal \(serial): client identity \(path) removed"
                            : "terminal \(serial) was not registered", json: context.json)
                    return
                }
                let settings = try tms.settings()
                let certificate = try await TerminalFacts.certificate(connection.client)
                let registration = try await TMSContext.with(settings, identity: nil) { client in
                    try await client.register(terminal: facts.identity, certificate: certificate)
                }
                try tmsChecked { () throws(TMSError) in try store.save(registration.identity, serial: serial) }
                Logger(layer: .mdm).info(
                    "terminal \(serial) registered with \(settings.baseURL) (\(registration.dialect.rawValue) API)")
                if registration.dialect == .v2020 {
                    // Spec §10.3 step 4 (2020 SDK): the state goes to the private (mutual TLS) API with the new
                    // identity. The current SDK sends none.
                    try await TMSContext.with(settings, identity: registration.identity) { client in
                        try await client.sendState(terminal: facts.identity, getInfo: facts.info.encodeData())
                    }
                }
                try emit(
                    Output(
                        serial: serial, partNumber: pn, registered: true, identity: path, server: settings.baseURL,
                        api: registration.dialect),
                    text:
                        "terminal \(serial) (\(pn)) registered with \(settings.baseURL)\nclient identity stored at \(path)",
                    json: context.json)
            }
        }

        private func emit(_ output: Output, text: String, json: Bool) throws {
            try Registered(output: output, text: text).print(json: json)
        }

        /// The registration's result: `Output` as JSON, or its text.
        struct Registered: Report {
            let output: Output
            let text: String

            var lines: [String] { [text] }

            func encode(to encoder: any Encoder) throws { try output.encode(to: encoder) }
        }
    }
}
