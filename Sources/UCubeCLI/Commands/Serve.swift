import ArgumentParser
import Foundation
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

extension UCube {
    /// `ucube serve`: a local payment API for web and kiosk POS (docs/serve.md, docs/openapi.yaml).
    struct Serve: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve a local payment API (HTTP, JSON, server-sent events) and a demo POS page.",
            discussion: """
                Listens on 127.0.0.1:8686 (--listen HOST:PORT) for the terminals given with --device (repeat it), \
                else those remembered by `ucube connect`, else $UCUBE_DEVICE or the simulator. POST /v1/payments \
                starts a payment (202 and its URL; the same requestId never starts a second one, also across \
                processes: the journal claims it), GET /v1/payments/ID gives its state and, once final, what \
                `pay --json` prints and the receipt, POST /v1/payments/ID/cancel answers as `ucube cancel`, \
                GET /v1/events streams every payment's states, prompts and outcome (server-sent events with ids: \
                Last-Event-ID replays), POST /v1/payments/ID/choice answers an application choice, GET \
                /v1/terminals and /v1/history (with /totals) answer as `info` and `history`. The demo page is at /. \
                One payment per terminal at a time (409 when busy). Only the loopback may use it unless --listen \
                names another address; then every other peer needs a token, got once with the code `--pair` shows \
                on the terminal's screen. A page of another origin is refused. Every answer and the access log \
                (stderr) are masked as the command line's output. SIGTERM, SIGINT or SIGHUP stop it as Ctrl-C stops \
                `pay`: running payments are cancelled if their cancel rule allows, and waited for otherwise. See \
                docs/serve.md and docs/openapi.yaml.
                """ + HelpExamples.section("serve"))

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "The address to listen on (default 127.0.0.1:8686; port 0: any free port). Not a loopback address: a token is required.",
                valueName: "host:port"))
        var listen: String?

        @Flag(help: "Show a pairing code on the terminal's screen; a POS that sends it to POST /v1/pair gets a token.")
        var pair = false

        @Option(
            help: ArgumentHelp(
                "An origin whose pages may use the API too (https://pos.example.com); repeat it for several.",
                valueName: "origin"))
        var allowOrigin: [String] = []

        @Option(
            help: ArgumentHelp(
                "The issuer's answer for every payment, as `pay --authorize` takes it but prompt (default: each terminal's own hook, else $UCUBE_AUTHORIZE, else approve).",
                valueName: "answer"))
        var authorize: String?

        @OptionGroup(title: "Authorisation host") var host: HostOptions

        func validate() throws {
            if let listen { _ = try Simulate.parse(listen, option: "--listen") }
            if authorize == "prompt" {
                throw ValidationError("--authorize prompt needs a person at a terminal: ucube serve has none")
            }
            for origin in allowOrigin where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
                throw ValidationError("--allow-origin takes an origin such as https://pos.example.com, not '\(origin)'")
            }
            _ = try host.timeout()
        }

        /// The terminals: --device as given, else the remembered ones, else the context's (or the simulator).
        private func devices(_ context: CommandContext) throws -> [String] {
            if !context.givenDevices.isEmpty {
                return Array(NSOrderedSet(array: context.givenDevices)) as? [String] ?? []
            }
            // No --device and no $UCUBE_DEVICE (the named device, if any, is devices.json's default): every terminal
            // `ucube connect` remembered.
            let remembered = (try? RememberedDevices.load()) ?? []
            if !remembered.isEmpty,
                context.namedDevice == nil || context.namedDevice == RememberedDevices.defaultAddress
            {
                return remembered.map(\.name)
            }
            return [context.deviceAddress]
        }

        func run(in context: CommandContext) async throws {
            if context.shell != nil {
                throw CLIFailure(
                    ExitCodes.usage,
                    "ucube serve runs on its own, not inside `ucube shell`: the server owns its terminals",
                    hint: "run `ucube serve` from a terminal, or as the ucube.service systemd unit")
            }
            let (hostName, port) =
                try listen.map { try Simulate.parse($0, option: "--listen") }
                ?? (ServeChoices.defaultHost, ServeChoices.defaultPort)
            let devices = try devices(context)
            try Environment.requireStateDirectory()
            // The server owns its terminals from now until it exits, as any ucube process that opened one does
            // (`DeviceLock`): another process is refused them at once, not in the middle of a payment.
            for device in devices {
                let address = try Connection.resolve(
                    try? DeviceAddress(parsing: device), context.single(device, json: false))
                try DeviceLock.acquire(key: Environment.fileKey(address), device: device)
            }
            // Reversals a host is owed (an earlier payment's process died) go first, as `pay` sends them.
            await Reversals.sendOwed(journalPath: Environment.journalPath)
            var generator = SystemRandomNumberGenerator()
            let epoch = String(generator.next(), radix: 36)
            let desk = PaymentDesk(devices: devices, epoch: epoch)
            let tokens = ServeTokens()
            let loopback = ServeAccess.isLoopbackAddress(hostName)
            let payments = ServePayments(
                desk: desk, context: context, authorizeWord: authorize, hostFiles: host.files,
                hostTimeout: try host.timeout(), parsePayment: ServeCommandLine.parsePayment)
            let access = ServeAccess(loopbackListener: loopback, allowedOrigins: Set(allowOrigin))
            // Stop as Ctrl-C stops `pay`: no new payment, each running one asked to cancel (its own handler, which
            // `PaymentRunner` registered, does it by its cancel rule), then the server ends once they have.
            let stop = StopRequest()
            let interrupts = Interrupts.onInterrupt {
                stop.request()
                let running = desk.stop()
                // A payment still opening its link (no handler of its own yet) is cancelled through its unit, as
                // `ucube cancel` would; a waiting application choice is cancelled as Ctrl-C at a prompt cancels it.
                Task {
                    for id in running {
                        guard let payment = desk.payment(id) else { continue }
                        if payment.prompt != nil, desk.answer(id, nil) { continue }
                        _ = await ControlSocket.cancelInProcess(unit: payment.device)
                    }
                }
            }
            defer { interrupts.cancel() }
            let api = ServeAPI(
                desk: desk, payments: payments, access: access, tokens: tokens,
                historyAnswer: ServeCommandLine.history)
            let server = try await ServeHTTP.start(host: hostName, port: port, api: api)
            let shown = hostName.contains(":") ? "[\(hostName)]:\(server.port)" : "\(hostName):\(server.port)"
            StandardError.write(
                "serve: listening on http://\(shown) for \(devices.joined(separator: ", "))\(loopback ? "" : " (token required outside the loopback)")"
            )
            if pair { await showPairingCode(tokens.openPairing(), on: devices[0], context: context) }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: ServeChoices.heartbeat)
                    desk.heartbeat()
                }
            }
            while !stop.isRequested { try? await Task.sleep(for: .milliseconds(100)) }
            StandardError.write("serve: stopping: no new payment; waiting for the running ones to end")
            let deadline = ContinuousClock.now + ServeChoices.stopBudget
            while !desk.isIdle && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
            // A last moment for the `finished` events to reach the streams.
            try? await Task.sleep(for: .milliseconds(200))
            heartbeat.cancel()
            desk.endStreams()
            await server.stop()
            if !desk.isIdle {
                throw CLIFailure(
                    ExitCodes.timeout,
                    "stopped with a payment still running after \(ServeChoices.stopBudget.components.seconds) s: see `ucube history --unresolved`"
                )
            }
            StandardError.write("serve: stopped")
        }

        /// `--pair`: the code on the terminal's screen (DisplayMessage), for the POS to send back once. The built-in
        /// simulator has no screen: its code is written on stderr, saying so.
        private func showPairingCode(_ code: String, on device: String, context: CommandContext) async {
            let display = DisplayMessage(
                timeoutSeconds: UInt8(ServeChoices.pairingDisplaySeconds), abortKeys: 0,
                lines: [DisplayLine(text: "Pairing code"), DisplayLine(text: code)])
            let deviceContext = context.single(device, json: false)
            if (try? DeviceAddress(parsing: device))?.isSimulated == true {
                StandardError.write(
                    "serve: pairing code \(code) (the simulated terminal has no screen: shown here instead); valid for \(ServeChoices.pairingLifetime.components.seconds) s"
                )
                return
            }
            do {
                try await ControlSocket.inUnit(device, stop: { CancelAnswer(.none, "showing the pairing code") }) {
                    try await withConnection(deviceContext) { connection in
                        _ = try await connection.client.send(display)
                    }
                }
                StandardError.write(
                    "serve: the pairing code is on \(device)'s screen for \(ServeChoices.pairingDisplaySeconds) s; valid for \(ServeChoices.pairingLifetime.components.seconds) s"
                )
            } catch {
                StandardError.write("serve: the pairing code could not be shown on \(device): \(error)")
            }
        }
    }
}
