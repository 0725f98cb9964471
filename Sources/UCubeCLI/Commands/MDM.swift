import ArgumentParser
import Foundation
import Logging
import Synchronization
import UCubeLink
import UCubeLog
import UCubeProtocol
import UCubeRuntime
import UCubeTMS

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

extension UCube.MDMRegister.Registered: FleetSummarised {
    /// mdm-register in a fleet run: the terminal and whether it is registered now.
    var fleetSummary: FleetSummary {
        FleetSummary(detail: "serial \(output.serial) \(output.registered ? "registered" : "not registered")")
    }
}
