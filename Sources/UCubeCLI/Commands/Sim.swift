import ArgumentParser
import Foundation
import UCubeLink
import UCubeRuntime
import UCubeSimulator

extension UCube {
    /// `ucube sim`: steers a running `ucube simulate` (the card, the cardholder's keys, choices and PIN, the faults,
    /// the battery) without restarting it or dropping its app's connection.
    struct Sim: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "sim",
            abstract: "Steer a running `ucube simulate`: the card, the keys and choices pressed, the PIN, the faults.",
            discussion: """
                Talks to the simulator serving --device (tcp://HOST:PORT as `ucube simulate` printed it; without \
                --device, the one simulator this user runs) through its private socket \
                ($XDG_RUNTIME_DIR/ucube/sim-<address>.sock, owner-only). The connection an app holds stays up: \
                each change is read by the next command that needs it, and the simulator answers what it changed. \
                Commands: status; card NAME (a card of `ucube simulate --list-cards`, or none: no card comes; the \
                next card wait presents it); keys HEX,… (one per display; none); choices N|abort|none,… (one per \
                list box; none); pin DIGITS (4…12); fault FAULTS (as `simulate --fault`, counted from now: drop@1 \
                drops the link at the next frame, reboot@1 reboots the terminal; none clears them); battery PERCENT \
                (0…100, what GetInfo reports); suite FILE CARD-OR-CASE (a suite's card image, or a case's card \
                with its PIN and choices); reset (the card, cardholder and faults `simulate` started with). The same \
                words go as JSON lines on `simulate --json`'s stdin: {"sim": ["card", "visa-contactless"]}. \
                --all steers every simulator this user runs (each terminal of a --fleet). Exit 0 when the \
                simulator took it, 64 for a request it refuses (an unknown card gets "did you mean"), 69 when no \
                simulator listens there. docs/vendor-apps.md lists the states an app developer reaches this way.
                """ + HelpExamples.section("sim"))

        @OptionGroup var globals: GlobalOptions

        @Flag(help: "Steer every simulator this user runs (each terminal of a fleet).")
        var all = false

        @Argument(
            help: ArgumentHelp(
                "What to change: status, card, keys, choices, pin, fault, battery, suite or reset.", valueName: "what"),
            completion: .list(Steering.Verb.allCases.map(\.rawValue)))
        var what: String

        @Argument(
            help: ArgumentHelp("Its value(s), e.g. visa-contactless, 01,02, drop@1.", valueName: "value"),
            completion: .custom { words, index, prefix in
                SuiteCompletion.simValues(words, index: index, prefix: prefix)
            })
        var values: [String] = []

        func run(in context: CommandContext) async throws {
            var words = [what] + values
            if what == Steering.Verb.suite.rawValue, let file = values.first {
                // The simulator runs in a directory of its own: the suite's path goes absolute.
                let path = (file as NSString).expandingTildeInPath
                words[1] = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            }
            // Checked here too, so a typo never reaches the simulator (an unknown card says "did you mean").
            _ = try Steering.parse(words)
            let line = words.map(ShellWords.quote).joined(separator: " ")
            let targets = try targets(context)
            var reports: [SteeringAnswer] = []
            var refusal: CLIFailure? = nil
            for (device, path) in targets {
                let answer: SteeringAnswer
                do {
                    answer = try await Self.ask(line, at: path, device: device)
                } catch let failure as CLIFailure where all && failure.code == CLIErrorCode.noSimulator.name {
                    continue  // a socket file a stopped simulator left: nobody to steer there
                }
                if answer.ok {
                    reports.append(answer)
                } else {
                    refusal = CLIFailure(
                        answer.exit == ExitCodes.usage.code ? ExitCodes.usage : ExitCodes.failure,
                        "\(answer.device ?? device): \(answer.error ?? "refused")", code: .badSteering,
                        hint: answer.hint)
                }
            }
            if all && reports.isEmpty && refusal == nil {
                throw Self.nobody("no `ucube simulate` of this user listens")
            }
            if reports.count == 1 && !all {
                try reports[0].print(json: context.json)
            } else if !reports.isEmpty {
                try ValueReport(
                    value: reports,
                    lines: reports.flatMap { ["\($0.device ?? "?"):"] + $0.lines.map { "  " + $0 } }
                ).print(json: context.json)
            }
            if let refusal { throw refusal }
        }

        /// The simulators to steer: --all's, --device's, or the one this user runs.
        private func targets(_ context: CommandContext) throws -> [(device: String, path: String)] {
            let running = Self.runningSockets()
            if all {
                guard !running.isEmpty else { throw Self.nobody("no `ucube simulate` of this user listens") }
                return running.map { ($0.deviceHint, $0.path) }
            }
            if let named = context.namedDevice, named != "sim" {
                let address = try Connection.resolve(nil, context)
                guard case .tcp = address else {
                    throw CLIFailure(
                        ExitCodes.usage, "\(address) is not a simulator `ucube sim` can steer",
                        code: .badSteering, hint: "give the tcp://HOST:PORT `ucube simulate` printed")
                }
                return [(address.description, SteeringSocket.path(forDevice: address.description))]
            }
            switch running.count {
            case 0:
                throw Self.nobody("no `ucube simulate` of this user listens")
            case 1:
                return [(running[0].deviceHint, running[0].path)]
            default:
                throw CLIFailure(
                    ExitCodes.usage,
                    "\(running.count) simulators run: say which with --device tcp://HOST:PORT, or --all",
                    code: .badSteering)
            }
        }

        /// The steering sockets in the runtime directory (`sim-*.sock`); whether anyone listens is found on asking.
        static func runningSockets() -> [(path: String, deviceHint: String)] {
            let directory = Environment.runtimeDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { $0.hasPrefix("sim-") && $0.hasSuffix(".sock") }.sorted().map { name in
                (directory + "/" + name, String(name.dropFirst(4).dropLast(5)))
            }
        }

        static func nobody(_ message: String, device: String? = nil) -> CLIFailure {
            CLIFailure(
                ExitCodes.unavailable, device.map { "no `ucube simulate` listens at \($0) for steering" } ?? message,
                code: .noSimulator, hint: "start one (`ucube simulate`, `--vendor-app`, `--fleet N`) as this user")
        }

        /// Sends one line to the steering socket at `path`; the simulator's answer object.
        static func ask(_ line: String, at path: String, device: String) async throws -> SteeringAnswer {
            let deadline = ContinuousClock.now + ControlSocket.reachBudget
            var lastBusy = ""
            while true {
                switch await ControlSocket.request(line, at: path) {
                case .answered(let text):
                    if let answer = SteeringAnswer(line: text) { return answer }
                    let refusal = CancelAnswer(line: text)
                    guard refusal.kind == .busy else {
                        throw CLIFailure(
                            refusal.kind == .denied ? ExitCodes.notYours : ExitCodes.failure,
                            "\(device): the simulator refused the request: \(refusal.message)")
                    }
                    lastBusy = refusal.message
                case .nobodyListens:
                    throw nobody("", device: device)
                case .notYours(let code):
                    throw CLIFailure(
                        ExitCodes.notYours, "\(device)'s steering socket belongs to another user (errno \(code))")
                case .busy(let reason):
                    lastBusy = reason
                }
                guard ContinuousClock.now < deadline else {
                    throw CLIFailure(ExitCodes.tryAgain, "the simulator at \(device) did not take it: \(lastBusy)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
