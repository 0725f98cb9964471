import ArgumentParser
import Foundation
import Synchronization
import UCubeHostSimulator
import UCubePayment
import UCubeProtocol
import UCubeRuntime
import UCubeSimulator
import UCubeTMS
import UCubeTMSSimulator

extension UCube {
    /// `ucube simulate --listen`: serves the built-in terminal simulator over TCP.
    struct Simulate: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract:
                "Serve the built-in uCube Touch simulator over TCP, and/or a TMS simulator or an authorisation host simulator over HTTPS.",
            discussion: """
                Raw RPC frames over TCP (spec §3.4). Port 0 picks a free port; the bound address is printed on \
                stdout as `listening on tcp://HOST:PORT`. The device state lives in $UCUBE_SIM_HOME (default \
                $XDG_STATE_HOME/ucube/simulator) unless --state-dir says otherwise.

                --tms HOST:PORT serves the TMS API (spec §10) over HTTPS with a CA it generates in \
                $UCUBE_TMS_SIM_HOME (default $XDG_STATE_HOME/ucube/tms-simulator); it prints \
                `tms listening on https://HOST:PORT`, `tms ca FILE` and `export UCUBE_TMS_URL=… UCUBE_TMS_CA=…`, a \
                line to paste into a shell (or `eval "$(ucube simulate --tms HOST:PORT --print-env)"`, which prints \
                only that line and serves nothing). It \
                checks the terminal certificate on register and issues a client certificate that the private \
                endpoints require, and serves the config and signed binaries of --catalogue DIR (default: a \
                catalogue it writes on first start: SVPP firmware 6.0.1.0, ICC and NFC EMV configurations). Logs \
                the terminal sends land in received-logs/. Without --listen only the TMS is served.

                --host HOST:PORT serves an authorisation host (docs/host-simulator.md): the HTTPS form of \
                `pay --authorize`, with a CA of its own (host-ca.pem in the TMS simulator's state directory). It \
                prints `host: https://HOST:PORT/authorize (CA: FILE)` and `export UCUBE_AUTHORIZE=… \
                UCUBE_AUTHORIZE_CA=…` (`--print-env` prints only that line). It deciphers the SRED data with the test \
                BDK, checks the PAN and the ARQC, answers with a real ARPC, and decides by the amount's last two \
                digits: .05 declines 05, .51 declines 51, .12 never answers, … (the table is in the doc). \
                --host-log FILE appends every request and reversal it gets, masked, as JSON lines; --host-fault makes \
                it fail. It can run beside the terminal (--listen) and the TMS (--tms); without --listen only the \
                servers asked for run.

                --vendor-app serves an app built on the vendor's Android or iOS SDK, through its SOCKET connection \
                type (docs/vendor-apps.md): it listens on 127.0.0.1:21350, the SDK's default port (an Android \
                emulator reaches it as 10.0.2.2:21350), and answers no sooner than --min-answer-delay (default 50 ms \
                in this mode) after a command, since the SDK loses an answer that comes before it has queued the \
                command. The connection stays open until the app closes it; only a simulated reboot (or a drop@N \
                fault) closes it. A --listen address other than a loopback one is reachable by anyone on that \
                network: ucube warns about it.
                """ + HelpExamples.section("simulate"))

        enum LinkModelName: String, ExpressibleByArgument, CaseIterable {
            case none, ble, classic
        }

        @OptionGroup var globals: GlobalOptions

        @Option(
            help: ArgumentHelp(
                "Address to serve the terminal on (default 127.0.0.1:5000, or 127.0.0.1:21350 with --vendor-app; none with --tms alone).",
                valueName: "host:port"))
        var listen: String?

        @Flag(
            help:
                "Serve an app built on the vendor SDK (its SOCKET connection): 127.0.0.1:21350 and a 50 ms minimum answer delay unless --listen or --min-answer-delay say otherwise."
        )
        var vendorApp = false

        @Option(
            help: ArgumentHelp(
                "Answer no sooner than this many milliseconds after a command arrives, 0…10000 (default 0, or 50 with --vendor-app).",
                valueName: "ms"))
        var minAnswerDelay: Int?

        @Option(help: ArgumentHelp("Also serve a TMS simulator over HTTPS on this address.", valueName: "host:port"))
        var tms: String?

        @Option(
            help: ArgumentHelp(
                "Also serve an authorisation host simulator over HTTPS on this address (docs/host-simulator.md), e.g. --host 127.0.0.1:8444.",
                valueName: "host:port"))
        var host: String?

        @Option(
            help: ArgumentHelp(
                "With --host: append every request and reversal the host gets to FILE, masked, one JSON object a line, e.g. --host-log /tmp/host.jsonl.",
                valueName: "file"),
            completion: .file())
        var hostLog: String?

        @Option(
            help: ArgumentHelp(
                "With --host: faults, comma-separated FAULT[:TIMES] (FAULT status:CODE with an HTTP status 400…599, malformed, timeout, wrong-arpc or no-ack; TIMES requests, default 1). Repeatable. E.g. --host-fault status:503:2,wrong-arpc.",
                valueName: "faults"))
        var hostFault: [String] = []

        @Option(
            help: ArgumentHelp(
                "The TMS simulator's catalogue directory (catalogue.json with images and signatures).", valueName: "dir"
            ),
            completion: .directory)
        var catalogue: String?

        @Option(help: "Seed for every simulated random value (deterministic runs).")
        var seed: UInt64?

        @Option(help: ArgumentHelp("Directory for the simulated device's persistent state.", valueName: "dir"))
        var stateDir: String?

        @Option(help: "Link model: none, or ble / classic latency and throughput.")
        var linkModel: LinkModelName = .none

        @Option(
            help: ArgumentHelp(
                "Stream format: raw frames, or ble (byte-stuffed with end-of-message markers, for a BlueZ mock relay).",
                valueName: "codec"))
        var codec: CodecName = .raw

        enum CodecName: String, ExpressibleByArgument, CaseIterable {
            case raw, ble
        }

        @Option(
            help: ArgumentHelp("The card presented to the terminal (default: visa-contact).", valueName: "card"),
            completion: .list(CardCatalogue.names))
        var card: String?

        @Option(
            help: ArgumentHelp(
                "A suite file (docs/suites.md) whose card image --suite-card serves.", valueName: "file"),
            completion: .file(extensions: ["json"]))
        var suite: String?

        @Option(
            help: ArgumentHelp(
                "With --suite: the card presented, a card image of the suite, or a case (its card, with the case's PIN and list-box choices).",
                valueName: "name"),
            completion: .custom { words, _, prefix in SuiteCompletion.suiteCards(words, prefix: prefix) })
        var suiteCard: String?

        @Option(
            help: ArgumentHelp(
                "Faults, comma-separated: drop@N (the link drops when the Nth frame arrives), silent@N (the Nth frame and the rest of that connection go unanswered), reboot@N (the terminal reboots when the Nth frame arrives), load-drop@K (the link drops when the Kth Load block arrives), refuse-image (every image refused after its last block, as a bad signature), mute (no frame ever answered, on any connection: a terminal that never answers). Default: $UCUBE_SIM_FAULT.",
                valueName: "faults"))
        var fault: String?

        @Option(
            help: ArgumentHelp(
                "Keys the cardholder presses, one per display (`display --wait-key`), comma-separated hex codes (01,02); without one a display lasts its timeout. Default: $UCUBE_SIM_KEYS.",
                valueName: "keys"))
        var keys: String?

        @Option(
            help: ArgumentHelp(
                "The cardholder's list-box answers, one per list (`choose`, application selection), comma-separated: an item number from 1, abort (the cardholder aborts) or none (no choice until the list's timeout). Without one a list answers item 1. Default: $UCUBE_SIM_CHOICES.",
                valueName: "choices"))
        var choices: String?

        @Option(
            help: ArgumentHelp(
                "With --tms: faults per request, comma-separated ENDPOINT[@SERIAL]:FAULT[xN] (ENDPOINT register, infos, config, binary or logs; SERIAL: that terminal's requests only; FAULT an HTTP status such as 503, slow=SECONDS, silent, malformed-json, truncated, drop, and for binary only corrupt or bad-signature; N requests, default 1). E.g. binary:corrupt,config@202401003:503x2.",
                valueName: "faults"))
        var tmsFault: String?

        @Option(
            help: ArgumentHelp(
                "With --tms: the size in KiB of the SVPP firmware image in the catalogue written on first use (16…8192, default 256; the terminal loads 2,040 bytes a Load block). A larger image makes a longer update.",
                valueName: "kib"))
        var tmsFirmwareSize: Int?

        @Option(
            help: ArgumentHelp(
                "With --tms: the HTTPS certificate to present: valid (default), expired (ended yesterday) or foreign (from a CA no client trusts).",
                valueName: "kind"),
            completion: .list(TMSServerCertificate.allCases.map(\.rawValue)))
        var tmsCertificate: String?

        @Option(
            help: ArgumentHelp(
                "With --tms: add NAME and api.NAME (the host the current SDK asks for when told the server NAME) to the TMS certificate's names, beside localhost and api.localhost. Repeatable, up to 16; each a DNS host name.",
                valueName: "name"))
        var tmsName: [String] = []

        @Option(
            help: ArgumentHelp(
                "With --tms: the API forms to serve (spec §10.2): both (default: the 2020 SDK's and the current SDK's), 2020 or current; the other forms answer 404.",
                valueName: "dialect"),
            completion: .list(TMSRouteDialect.servedChoices))
        var tmsDialect: String?

        @Option(
            help: ArgumentHelp(
                "Serve N simulated terminals (1…256), each with its own serial number (202401001 and up), state directory (STATE-DIR/fleet/I) and port (--listen's port and up; 0: any free port each), and print their addresses, one a line: a devices file.",
                valueName: "n"))
        var fleet: Int?

        @Option(
            help: ArgumentHelp(
                "With --fleet: faults for terminal I (1…N) only, as --fault takes them, e.g. 3:load-drop@2 or 5:refuse-image. Repeatable; --fault applies to the others.",
                valueName: "i:faults"))
        var fleetFault: [String] = []

        @Option(help: ArgumentHelp("With --fleet: also write the addresses to FILE.", valueName: "file"))
        var devicesFile: String?

        @Flag(help: "List the simulated cards and scenarios, with the final status each should give, and exit.")
        var listCards = false

        @Flag(
            help:
                "With --tms or --host: print the `export UCUBE_TMS_URL=… UCUBE_TMS_CA=…` or `export UCUBE_AUTHORIZE=… UCUBE_AUTHORIZE_CA=…` line for a shell to eval, and exit."
        )
        var printEnv = false

        /// The terminal's address: --listen, else the default (the vendor SDK's with --vendor-app) unless only the
        /// TMS or the host is asked for.
        var terminalListen: String? {
            if let listen { return listen }
            if vendorApp { return "127.0.0.1:\(SimulatorChoices.vendorSDKSocketPort)" }
            return tms == nil && host == nil ? "127.0.0.1:\(SimulatorChoices.defaultTCPPort)" : nil
        }

        /// --min-answer-delay, else the vendor-app default, else none.
        var answerDelay: Duration {
            if let minAnswerDelay { return .milliseconds(minAnswerDelay) }
            return vendorApp ? SimulatorChoices.vendorAppMinimumAnswerDelay : .zero
        }

        /// The largest --min-answer-delay: longer would make the SDK's own timeouts (6 s and more) the bound.
        static let maximumAnswerDelayMilliseconds = 10_000

        /// True for a host only this machine reaches: `localhost`, 127.0.0.0/8 and ::1.
        static func isLoopback(_ host: String) -> Bool {
            let lower = host.lowercased()
            if lower == "localhost" || lower == "::1" || lower == "0:0:0:0:0:0:0:1" { return true }
            let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        }

        static func parse(_ address: String, option: String) throws -> (String, Int) {
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                throw ValidationError("\(option) must be HOST:PORT with PORT 0…65535, got '\(address)'")
            }
            var host = String(address[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw ValidationError("\(option) needs a host, e.g. 127.0.0.1:5000") }
            return (host, port)
        }

        func validate() throws {
            if let listen { _ = try Self.parse(listen, option: "--listen") }
            if let minAnswerDelay, !(0...Self.maximumAnswerDelayMilliseconds).contains(minAnswerDelay) {
                throw ValidationError("--min-answer-delay must be 0 to \(Self.maximumAnswerDelayMilliseconds) ms")
            }
            if vendorApp && codec == .ble {
                throw ValidationError(
                    "--vendor-app serves the SDK's SOCKET connection, which carries raw frames: drop --codec ble")
            }
            if vendorApp && fleet != nil { throw ValidationError("--vendor-app serves one terminal: drop --fleet") }
            if let tms { _ = try Self.parse(tms, option: "--tms") }
            if catalogue != nil && tms == nil {
                throw ValidationError("--catalogue is the TMS simulator's: add --tms HOST:PORT")
            }
            if let card { _ = try ValidationError.checking { try BuiltInSimulator.scenario(named: card) } }
            if (suite == nil) != (suiteCard == nil) { throw ValidationError("--suite and --suite-card go together") }
            if suite != nil && card != nil {
                throw ValidationError("--card and --suite-card both choose the card: give one")
            }
            // The simulator's own words: its usage errors made ArgumentParser's, as every usage error here.
            try ValidationError.checking {
                if let fault { _ = try BuiltInSimulator.faults(fault) }
                if let keys { _ = try BuiltInSimulator.keys(keys) }
                if let choices { _ = try BuiltInSimulator.choices(choices) }
            }
            if let tmsFirmwareSize {
                guard tms != nil, catalogue == nil else {
                    throw ValidationError(
                        "--tms-firmware-size is for the catalogue the TMS simulator writes: add --tms HOST:PORT, without --catalogue"
                    )
                }
                guard SimulatedFirmware.catalogueFirmwareSizes.contains(tmsFirmwareSize) else {
                    throw ValidationError(
                        "--tms-firmware-size must be \(SimulatedFirmware.catalogueFirmwareSizes.lowerBound)…\(SimulatedFirmware.catalogueFirmwareSizes.upperBound) (KiB)"
                    )
                }
            }
            if let tmsCertificate {
                guard tms != nil else {
                    throw ValidationError("--tms-certificate is the TMS simulator's: add --tms HOST:PORT")
                }
                guard TMSServerCertificate(rawValue: tmsCertificate) != nil else {
                    throw ValidationError("--tms-certificate must be valid, expired or foreign")
                }
            }
            if let tmsDialect {
                guard tms != nil else {
                    throw ValidationError("--tms-dialect is the TMS simulator's: add --tms HOST:PORT")
                }
                guard TMSRouteDialect.served(tmsDialect) != nil else {
                    throw ValidationError("--tms-dialect must be both, 2020 or current")
                }
            }
            if !tmsName.isEmpty {
                guard tms != nil else {
                    throw ValidationError("--tms-name is the TMS simulator's: add --tms HOST:PORT")
                }
                guard tmsName.count <= TMSSimulatorChoices.maximumExtraNames else {
                    throw ValidationError("--tms-name: at most \(TMSSimulatorChoices.maximumExtraNames) names")
                }
                for name in tmsName {
                    do {
                        _ = try TMSSimulatorChoices.serverNames(for: name)
                    } catch {
                        throw ValidationError(error.reason)
                    }
                }
            }
            if let tmsFault {
                guard tms != nil else {
                    throw ValidationError("--tms-fault is the TMS simulator's: add --tms HOST:PORT")
                }
                do {
                    _ = try TMSFault.parse(tmsFault)
                } catch {
                    throw ValidationError(error.reason)
                }
            }
            if let host { _ = try Self.parse(host, option: "--host") }
            if host == nil && (hostLog != nil || !hostFault.isEmpty) {
                throw ValidationError("--host-log and --host-fault are the host simulator's: add --host HOST:PORT")
            }
            _ = try hostFaults()
            if let fleet {
                guard (1...256).contains(fleet) else { throw ValidationError("--fleet must be 1 to 256") }
                // Each terminal takes the next port: one past 65535 is refused, not moved.
                if let listen, case let (_, port) = try Self.parse(listen, option: "--listen"), port != 0,
                    port + fleet - 1 > 65535
                {
                    throw ValidationError(
                        "--fleet \(fleet) from port \(port) needs ports up to \(port + fleet - 1), past 65535: start at \(65536 - fleet) or below, or at 0 (any free port each)"
                    )
                }
                _ = try fleetFaults()
            } else if !fleetFault.isEmpty || devicesFile != nil {
                throw ValidationError("--fleet-fault and --devices-file are for a fleet: add --fleet N")
            }
            if printEnv {
                guard tms != nil || host != nil else {
                    throw ValidationError(
                        "--print-env prints the TMS or host simulator's settings: add --tms or --host HOST:PORT")
                }
                for (option, address) in [("--tms", tms), ("--host", host)] {
                    if let address, try Self.parse(address, option: option).1 == 0 {
                        throw ValidationError(
                            "--print-env needs the \(option) port (port 0 is only known once the server runs)")
                    }
                }
            }
        }

        struct CardRow: Encodable {
            let name: String
            let summary: String
            let expectedStatus: String
            let readers: [String]
        }

        func run(in context: CommandContext) async throws {
            if listCards {
                let rows = CardCatalogue.all.map {
                    CardRow(
                        name: $0.name, summary: $0.summary, expectedStatus: $0.expectedStatus,
                        readers: $0.readers.map(\.name))
                }
                if context.json {
                    try JSONOutput.print(rows)
                } else {
                    for r in rows {
                        print(
                            "\(r.name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(r.expectedStatus.padding(toLength: 32, withPad: " ", startingAt: 0)) \(r.summary)"
                        )
                    }
                }
                return
            }
            if printEnv {
                if let tms {
                    let (host, port) = try Self.parse(tms, option: "--tms")
                    print(Self.exportLine(url: Self.tmsURL(host: host, port: port), ca: Self.tmsCAPath))
                }
                if let host {
                    let (name, port) = try Self.parse(host, option: "--host")
                    print(Self.hostExportLine(url: Self.hostURL(host: name, port: port), ca: Self.hostCAPath))
                }
                return
            }
            let tmsServer = try await startTMS(json: context.json)
            let hostServer = try await startHost(json: context.json)
            guard let listen = terminalListen else {
                // Only the TMS and/or the host: serve until the process is stopped.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                await tmsServer?.stop()
                await hostServer?.stop()
                return
            }
            let (host, port) = try Self.parse(listen, option: "--listen")
            if vendorApp && host.contains(":") {
                StandardError.write(
                    "ucube: warning: the vendor SDK's SOCKET connection takes an IPv4 address or a host name: an app cannot reach [\(host)]; listen on 127.0.0.1 or another IPv4 address"
                )
            }
            Self.warnIfExposed(host, what: "the simulator", reach: "drive it")
            let model: LinkModel? =
                switch linkModel {
                case .none: nil
                case .ble: .ble
                case .classic: .classic
                }
            if let fleet {
                try await serveFleet(fleet, host: host, port: port, model: model, json: context.json)
                await tmsServer?.stop()
                await hostServer?.stop()
                return
            }
            var configuration = try BuiltInSimulator.configuration(
                linkModel: model, scenario: try presentedCard(), stateDirectory: stateDir,
                faults: fault, keys: keys, choices: choices)
            if let seed { configuration.seed = seed }
            configuration.minimumAnswerDelay = answerDelay
            let simulator = try TerminalSimulator(configuration: configuration)
            let initial = NamedScript(name: cardName, script: configuration.script)
            await simulator.nameCard(cardName)
            await simulator.observeFaults { StandardError.write("simulator \($0)") }
            let vendorApp = vendorApp
            let json = context.json
            let steering = SteeringServers()
            do {
                try await SimulatorServer.listen(
                    host: host, port: port, simulator: simulator, codec: codec == .ble ? .ble : .raw,
                    dropped: { StandardError.write("simulator: \($0)") }
                ) { bound in
                    // Unbuffered, so a script or test reading a pipe sees the port at once.
                    let device = "tcp://\(host.contains(":") ? "[\(host)]" : host):\(bound)"
                    // Steerable before the address is printed: whoever reads it may steer at once.
                    let terminal = SteeredTerminal(simulator: simulator, device: device, initial: initial)
                    steering.add(terminal)
                    if json { steering.readStandardInput() }
                    if json {
                        Self.announce(["event": "listening", "device": device])
                    } else {
                        RawOutput.stdout("listening on \(device)\n")
                    }
                    if vendorApp {
                        StandardError.write(Self.vendorAppHint(host: host, port: bound))
                    }
                }
            } catch let error as SimulatorError {
                await steering.closeAll()
                throw CLIFailure(simulator: error)
            } catch {
                await steering.closeAll()
                throw error
            }
            await steering.closeAll()
        }

        /// `--json`: what the simulator serves, one JSON object a line on stdout with its `time`, as soon as it listens:
        /// `{"event":"listening","device":"tcp://127.0.0.1:5000"}`, `{"event":"listening","devices":[…]}` for a
        /// fleet, `{"event":"tms-listening","url":"https://…","ca":"/…/ca.pem"}`,
        /// `{"event":"host-listening","url":"https://…/authorize","ca":"/…/host-ca.pem"}`.
        static func announce(_ fields: [String: any Sendable]) {
            // Each line says when, as a fleet run's events do (UTC, ISO 8601 with milliseconds).
            var object: [(String, JSONOutput.Value)] = [("time", .string(PaymentEngine.timestamp()))]
            for (key, value) in fields {
                if let text = value as? String { object.append((key, .string(text))) }
                if let list = value as? [String] { object.append((key, .array(list.map { .string($0) }))) }
            }
            var line = ""
            JSONOutput.write(JSONOutput.versioned(.object(object)), into: &line, pretty: false, indent: 0)
            RawOutput.stdout(line + "\n")
        }

        /// What an app's SOCKET connection should be given (docs/vendor-apps.md).
        static func vendorAppHint(host: String, port: Int) -> String {
            // A wildcard is where the simulator listens, not an address an app can reach.
            if host == "0.0.0.0" || host == "::" {
                return
                    "vendor app: give the SDK's SOCKET connection this machine's address on the app's network, port \(port)"
            }
            let shown = host.contains(":") ? "[\(host)]" : host
            var hint = "vendor app: give the SDK's SOCKET connection the address \(shown):\(port)"
            if isLoopback(host) { hint += " (from an Android emulator: 10.0.2.2:\(port))" }
            return hint
        }

        /// The card the terminal presents: --card, or --suite-card of --suite (a card image, or a case's card and
        /// cardholder), or `nil` for the default.
        func presentedCard() throws -> CardScenario? {
            if let card { return try BuiltInSimulator.scenario(named: card) }
            guard let suite, let suiteCard else { return nil }
            let loaded = try PaymentSuite.load(path: suite)
            if let image = loaded.cards[suiteCard] { return image.scenario() }
            if let suiteCase = loaded.cases.first(where: { $0.name == suiteCard }) {
                return loaded.scenario(for: suiteCase)
            }
            throw CLIFailure(
                ExitCodes.usage, "--suite-card: '\(suiteCard)' is neither a card image nor a case of \(suite)",
                hint: "the card images are: \(loaded.cards.keys.sorted().joined(separator: ", "))")
        }

        /// The name `ucube sim status` shows for the card the simulator starts with.
        var cardName: String { card ?? suiteCard ?? CardCatalogue.defaultName }

        /// `--fleet-fault I:FAULTS` by terminal index, each checked.
        func fleetFaults() throws -> [Int: String] {
            var byTerminal: [Int: String] = [:]
            for item in fleetFault {
                let parts = item.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, let index = Int(parts[0]), (1...(fleet ?? 1)).contains(index) else {
                    throw ValidationError(
                        "--fleet-fault '\(item)': expected I:FAULTS with I from 1 to the fleet's size")
                }
                _ = try ValidationError.checking { try BuiltInSimulator.faults(parts[1]) }
                byTerminal[index] = byTerminal[index].map { $0 + "," + parts[1] } ?? parts[1]
            }
            return byTerminal
        }

        /// `--fleet N`: N terminals, each on its own port with its own serial, state and faults; their addresses
        /// are printed (and written to --devices-file) once all listen, in order.
        private func serveFleet(
            _ count: Int, host: String, port: Int, model: LinkModel?, json: Bool
        ) async throws {
            let faults = try fleetFaults()
            let base = (stateDir ?? Environment.simulatorDirectory) + "/fleet"
            var simulators: [TerminalSimulator] = []
            var initials: [NamedScript] = []
            for index in 1...count {
                var configuration = try BuiltInSimulator.configuration(
                    linkModel: model, scenario: try presentedCard(),
                    stateDirectory: base + "/\(index)", faults: faults[index] ?? fault, keys: keys, choices: choices)
                if let seed { configuration.seed = seed &+ UInt64(index - 1) }
                configuration.minimumAnswerDelay = answerDelay
                configuration.serialNumber = SimulatorChoices.DefaultDevice.serialNumber + UInt64(index - 1)
                let simulator = try TerminalSimulator(configuration: configuration)
                await simulator.nameCard(cardName)
                initials.append(NamedScript(name: cardName, script: configuration.script))
                let serial = configuration.serialNumber!
                await simulator.observeFaults { StandardError.write("simulator \(index) (serial \(serial)) \($0)") }
                simulators.append(simulator)
            }
            let addresses = FleetAddresses(count: count)
            let devicesFile = devicesFile
            let shown = host.contains(":") ? "[\(host)]" : host
            let steering = SteeringServers()
            let initialScripts = initials
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (offset, simulator) in simulators.enumerated() {
                        group.addTask {
                            try await SimulatorServer.listen(
                                host: host, port: port == 0 ? 0 : port + offset, simulator: simulator,
                                codec: codec == .ble ? .ble : .raw,
                                dropped: { StandardError.write("simulator \(offset + 1): \($0)") }
                            ) { bound in
                                let device = "tcp://\(shown):\(bound)"
                                steering.add(
                                    SteeredTerminal(
                                        simulator: simulator, device: device, initial: initialScripts[offset]),
                                    index: offset + 1)
                                guard let all = addresses.bound(offset, device) else { return }
                                if json { steering.readStandardInput() }
                                let text = all.joined(separator: "\n") + "\n"
                                if let devicesFile {
                                    do {
                                        try Data(text.utf8).write(to: URL(fileURLWithPath: devicesFile))
                                    } catch {
                                        StandardError.write(
                                            "ucube: warning: cannot write \(devicesFile): \(Environment.posixCause(error))"
                                        )
                                    }
                                }
                                if json {
                                    Self.announce(["event": "listening", "devices": all])
                                } else {
                                    RawOutput.stdout(text)
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            } catch let error as SimulatorError {
                await steering.closeAll()
                throw CLIFailure(simulator: error)
            } catch {
                await steering.closeAll()
                throw error
            }
            await steering.closeAll()
        }

        /// `--listen`, `--tms` and `--host` on an address other than a loopback one: a warning on stderr, saying who
        /// can reach the server and what they can do with it.
        static func warnIfExposed(_ host: String, what: String, reach: String) {
            guard !isLoopback(host) else { return }
            StandardError.write(
                "ucube: warning: \(what) listens on \(host), not a loopback address: anyone who can reach this machine on that network can \(reach)"
            )
        }

        /// Starts the TMS simulator when --tms asks for it, writing the default catalogue on first use.
        private func startTMS(json: Bool) async throws -> TMSSimulator? {
            guard let tms else { return nil }
            let (host, port) = try Self.parse(tms, option: "--tms")
            // The logs route is public (spec §10.1), as the real TMS's: anyone can upload, within a bound.
            Self.warnIfExposed(
                host, what: "the TMS simulator",
                reach:
                    "register a terminal and upload logs (anonymously, as to a real TMS; at most \(TMSSimulatorChoices.maximumLogsBody >> 20) MiB an upload and \(TMSSimulatorChoices.maximumReceivedLogs >> 20) MiB in all are kept)"
            )
            let state = Environment.tmsSimulatorDirectory
            let catalogueDirectory = catalogue.map { ($0 as NSString).expandingTildeInPath } ?? state + "/catalogue"
            do {
                try Environment.ensureDirectory(state)
                if catalogue == nil && !FileManager.default.fileExists(atPath: catalogueDirectory + "/catalogue.json") {
                    try SimulatedFirmware.writeCatalogue(
                        directory: catalogueDirectory,
                        items: SimulatedFirmware.defaultItems(
                            firmwareKiB: tmsFirmwareSize ?? SimulatedFirmware.defaultFirmwareKiB))
                }
            } catch {
                throw CLIFailure(
                    ExitCodes.cannotCreate,
                    "cannot prepare the TMS simulator in \(state): \(Environment.posixCause(error))",
                    code: .stateDirectoryUnusable,
                    hint: "set UCUBE_TMS_SIM_HOME (or XDG_STATE_HOME) to a writable directory",
                    detail: "\(error)")
            }
            let faults: [TMSFault.Rule]
            do {
                faults = try TMSFault.parse(tmsFault ?? "")
            } catch {
                throw CLIFailure(ExitCodes.usage, error.reason)
            }
            let server = TMSSimulator()
            for rule in faults {
                await server.setFault(rule.fault, for: rule.endpoint, serial: rule.serial, times: rule.times)
            }
            let bound: Int
            do {
                bound = try await server.start(
                    host: host, port: port, stateDirectory: URL(fileURLWithPath: state),
                    catalogue: URL(fileURLWithPath: catalogueDirectory),
                    serverCertificate: tmsCertificate.flatMap(TMSServerCertificate.init(rawValue:)) ?? .valid,
                    dialects: tmsDialect.flatMap(TMSRouteDialect.served) ?? Set(TMSRouteDialect.allCases),
                    serverNames: tmsName)
            } catch {
                throw CLIFailure(tmsSimulator: error)
            }
            let url = Self.tmsURL(host: host, port: bound)
            if json {
                Self.announce(["event": "tms-listening", "url": url, "ca": Self.tmsCAPath])
            } else {
                RawOutput.stdout(
                    "tms listening on \(url)\ntms ca \(Self.tmsCAPath)\n\(Self.exportLine(url: url, ca: Self.tmsCAPath))\n"
                )
            }
            return server
        }

        /// `--host-fault`, every item of every occurrence, checked.
        func hostFaults() throws -> [HostFault.Rule] {
            var rules: [HostFault.Rule] = []
            for item in hostFault {
                do {
                    rules += try HostFault.parse(item)
                } catch {
                    throw ValidationError(error.reason)
                }
            }
            return rules
        }

        /// Starts the host simulator when --host asks for it; its CA lives in the TMS simulator's state directory.
        private func startHost(json: Bool) async throws -> HostSimulator? {
            guard let host else { return nil }
            let (name, port) = try Self.parse(host, option: "--host")
            Self.warnIfExposed(name, what: "the host simulator", reach: "ask it to authorise payments")
            // The CA's code creates the directory; a failure is TMSSimulatorError.stateDirectory, with its hint.
            let state = Environment.tmsSimulatorDirectory
            let server = HostSimulator()
            for rule in try hostFaults() { await server.addFault(rule.fault, times: rule.times) }
            let bound: Int
            do {
                bound = try await server.start(
                    host: name, port: port, stateDirectory: URL(fileURLWithPath: state),
                    logFile: hostLog.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) })
            } catch {
                throw CLIFailure(tmsSimulator: error)
            }
            let url = Self.hostURL(host: name, port: bound)
            if json {
                Self.announce(["event": "host-listening", "url": url, "ca": Self.hostCAPath])
            } else {
                RawOutput.stdout(
                    "host: \(url) (CA: \(Self.hostCAPath))\n\(Self.hostExportLine(url: url, ca: Self.hostCAPath))\n")
            }
            return server
        }

        /// The host simulator's URL: its address and the path it prints (any path is served).
        static func hostURL(host: String, port: Int) -> String {
            tmsURL(host: host, port: port) + HostSimulatorChoices.path
        }

        /// The host simulator's CA certificate: an absolute path in the TMS simulator's state directory.
        static var hostCAPath: String {
            let state = URL(fileURLWithPath: Environment.tmsSimulatorDirectory).standardizedFileURL
            return HostSimulator.caCertificateURL(stateDirectory: state).path
        }

        /// `export UCUBE_AUTHORIZE=… UCUBE_AUTHORIZE_CA=…`, each value quoted for a POSIX shell.
        static func hostExportLine(url: String, ca: String) -> String {
            "export \(HostChoices.environmentVariable)=\(ShellWords.quote(url)) \(HostChoices.caVariable)=\(ShellWords.quote(ca))"
        }

        static func tmsURL(host: String, port: Int) -> String {
            "https://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        }

        /// The CA certificate the TMS simulator writes: an absolute path, whatever $XDG_STATE_HOME or
        /// $UCUBE_TMS_SIM_HOME say.
        static var tmsCAPath: String {
            let state = URL(fileURLWithPath: Environment.tmsSimulatorDirectory).standardizedFileURL
            return TMSSimulator.caCertificateURL(stateDirectory: state).path
        }

        /// `export UCUBE_TMS_URL=… UCUBE_TMS_CA=…`, each value quoted for a POSIX shell.
        static func exportLine(url: String, ca: String) -> String {
            "export \(TMSChoices.urlEnvironmentVariable)=\(ShellWords.quote(url)) \(TMSChoices.caEnvironmentVariable)=\(ShellWords.quote(ca))"
        }
    }
}
