import Foundation
import Synchronization
import UCubePayment
import UCubeProtocol
import UCubeSimulator

/// Steering a running `ucube simulate` (docs/vendor-apps.md "Steering a running simulator"): the words of `ucube sim`
/// (`card visa-contactless`, `keys 01,02`, `fault drop@1`, `status`), read by one parser for the command line, the
/// simulator's steering socket and `simulate --json`'s stdin, and what the simulator answers.
package enum Steering {
    /// The verbs, with what each takes, for help and completion.
    package enum Verb: String, CaseIterable, Sendable {
        case status, card, keys, choices, pin, fault, battery, suite, reset

        package var usage: String {
            switch self {
            case .status: "status"
            case .card: "card NAME|none"
            case .keys: "keys HEX,…|none"
            case .choices: "choices N|abort|none,…"
            case .pin: "pin DIGITS"
            case .fault: "fault FAULTS|none"
            case .battery: "battery PERCENT"
            case .suite: "suite FILE CARD-OR-CASE"
            case .reset: "reset"
            }
        }
    }

    /// What a steering request asks: nothing but the state, a change, or the script the simulator started with.
    package enum Request: Sendable, Equatable {
        case status
        case change(ScriptChange)
        case reset
    }

    /// Queued keys or choices: at most this many (a script of one payment needs a handful).
    package static let maximumQueue = 64
    /// A steering line on the socket or stdin: a suite's path and a case's name fit.
    package static let maximumLine = 4096
    /// The PIN a cardholder types: 4 to 12 digits (ISO 9564-1).
    package static let pinLengths = 4...12

    /// Parses one request's words. A bad one throws a usage failure (exit 64) that says what to write instead.
    package static func parse(_ words: [String]) throws(CLIFailure) -> Request {
        guard let first = words.first else {
            throw usage("no steering command", hint: "one of: \(Verb.allCases.map(\.usage).joined(separator: "; "))")
        }
        guard let verb = Verb(rawValue: first) else {
            let nearest = Suggestion.nearest(to: first, in: Verb.allCases.map(\.rawValue))
            throw usage(
                "unknown steering command '\(first)'",
                hint: nearest.isEmpty
                    ? "one of: \(Verb.allCases.map(\.rawValue).joined(separator: ", "))"
                    : "did you mean \(nearest.map { "'\($0)'" }.joined(separator: " or "))?")
        }
        let values = Array(words.dropFirst())
        let expected = verb == .suite ? 2 : verb == .status || verb == .reset ? 0 : 1
        guard values.count == expected else {
            throw usage("`\(verb.rawValue)` takes \(expected == 0 ? "no value" : "\(expected)"): \(verb.usage)")
        }
        var change = ScriptChange()
        switch verb {
        case .status: return .status
        case .reset: return .reset
        case .card:
            change.scenario = try card(values[0])
        case .keys:
            change.keys = try values[0] == "none" ? [] : bounded(values[0]) { try BuiltInSimulator.keys($0) }
        case .choices:
            change.choices = try values[0] == "none" ? [] : bounded(values[0]) { try BuiltInSimulator.choices($0) }
        case .pin:
            let pin = values[0]
            guard pinLengths.contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw usage("a PIN is \(pinLengths.lowerBound) to \(pinLengths.upperBound) digits")
            }
            change.pin = pin
        case .fault:
            do {
                change.terminalFaults =
                    try values[0] == "none" ? SimulatorFaults() : SimulatorFaults(parsing: values[0])
            } catch {
                throw usage(CLIFailure(reporting: error).message)
            }
        case .battery:
            guard let percent = UInt8(values[0]), percent <= 100 else {
                throw usage("battery is a percentage, 0 to 100, got '\(values[0])'")
            }
            change.batteryPercent = percent
        case .suite:
            change.scenario = try suiteScript(file: values[0], name: values[1])
            change.wholeScript = true
        }
        return .change(change)
    }

    /// A catalogue scenario by name (`none`: no card comes), with "did you mean" for a near miss.
    package static func card(_ name: String) throws(CLIFailure) -> NamedScript {
        if name == "none" { return NamedScript(name: "none", script: SimulatorScript(card: nil)) }
        guard let scenario = CardCatalogue.named(name) else {
            let nearest = nearestCards(to: name)
            throw usage(
                "unknown card '\(name)'",
                hint: nearest.isEmpty
                    ? "the simulator's cards are: \(CardCatalogue.names.joined(separator: ", ")) (or none)"
                    : "did you mean \(nearest.map { "'\($0)'" }.joined(separator: " or "))? (`ucube simulate --list-cards` lists them)"
            )
        }
        return NamedScript(name: scenario.name, script: scenario.script)
    }

    /// The catalogue's names nearest to `word`: a typo (`Suggestion`), else the names sharing the most of its
    /// dash-separated words, read with the usual synonyms (`mastercard` is `mc`, `chip` is `contact`).
    package static func nearestCards(to word: String) -> [String] {
        let typo = Suggestion.nearest(to: word, in: CardCatalogue.names)
        if !typo.isEmpty { return typo }
        let synonyms = [
            "mastercard": "mc", "master": "mc", "chip": "contact", "nfc": "contactless", "tap": "contactless",
        ]
        let asked = Set(word.lowercased().split(separator: "-").map { synonyms[String($0)] ?? String($0) })
        let scored = CardCatalogue.names.map { name in
            (name, asked.intersection(name.split(separator: "-").map(String.init)).count)
        }
        guard let best = scored.map(\.1).max(), best > 0 else { return [] }
        return scored.filter { $0.1 == best }.prefix(3).map(\.0)
    }

    /// A suite's card image or case (its card, with the case's PIN and list-box choices), as `simulate --suite-card`.
    package static func suiteScript(file: String, name: String) throws(CLIFailure) -> NamedScript {
        let loaded: PaymentSuite
        do {
            loaded = try PaymentSuite.load(path: file)
        } catch {
            throw CLIFailure(reporting: error)
        }
        if let image = loaded.cards[name] { return NamedScript(name: name, script: image.scenario().script) }
        if let suiteCase = loaded.cases.first(where: { $0.name == name }) {
            return NamedScript(name: suiteCase.card, script: loaded.scenario(for: suiteCase).script)
        }
        throw usage(
            "'\(name)' is neither a card image nor a case of \(file)",
            hint: "the card images are: \(loaded.cards.keys.sorted().joined(separator: ", "))")
    }

    private static func bounded<T>(_ spec: String, _ parse: (String) throws -> [T]) throws(CLIFailure) -> [T] {
        let values: [T]
        do {
            values = try parse(spec)
        } catch {
            throw usage("\(error)")
        }
        guard values.count <= maximumQueue else { throw usage("at most \(maximumQueue) values at a time") }
        return values
    }

    private static func usage(_ message: String, hint: String? = nil) -> CLIFailure {
        CLIFailure(ExitCodes.usage, message, code: .badSteering, hint: hint)
    }

    // MARK: Answers

    /// What changed, a line each, from the state before and after.
    package static func changes(_ before: SteeringSnapshot, _ after: SteeringSnapshot) -> [String] {
        var lines: [String] = []
        func note(_ what: String, _ old: String, _ new: String, _ when: String) {
            if old != new { lines.append("\(what): \(old) → \(new) (\(when))") }
        }
        note("card", before.cardAndInterfaces, after.cardAndInterfaces, "from the next card wait")
        note("keys", list(before.keys), list(after.keys), "one per display from now")
        note("choices", list(before.choices), list(after.choices), "one per list box from now")
        note("pin", "\(before.pinDigits) digits", "\(after.pinDigits) digits", "from the next PIN entry")
        note("faults", before.faults, after.faults, "frames counted from now")
        note("card faults", before.cardFaults ?? "none", after.cardFaults ?? "none", "commands counted from now")
        note("battery", "\(before.batteryPercent) %", "\(after.batteryPercent) %", "from the next GetInfo")
        return lines
    }

    fileprivate static func list(_ values: [String]) -> String {
        values.isEmpty ? "none" : values.joined(separator: ",")
    }
}

/// What the simulator holds, as `ucube sim` shows it: a line each.
extension SteeringSnapshot {
    /// The card's name, then its interfaces in brackets when it has any: `visa-contact [icc]`.
    var cardAndInterfaces: String { interfaces.isEmpty ? card : "\(card) [\(interfaces.joined(separator: ","))]" }

    package var lines: [String] {
        let list = Steering.list
        return [
            "card: \(cardAndInterfaces)",
            "keys: \(list(keys))", "choices: \(list(choices))", "pin: \(pinDigits) digits",
            "faults: \(faults)", "card faults: \(cardFaults ?? "none")", "battery: \(batteryPercent) %",
            "link: \(rebooting ? "rebooting" : connected ? "connected" : "no connection") (\(connections) connection\(connections == 1 ? "" : "s") so far)",
        ]
    }
}

/// A steering answer, one JSON line: `{"ok":true,"device":…,"changed":[…],"status":{…}}`, or
/// `{"ok":false,"error":…,"hint":…,"exit":64}`.
package struct SteeringAnswer: Codable, Sendable, Report {
    /// `sim` on `simulate --json`'s stdout.
    package var event: String? = nil
    /// The fleet terminal (1…N) that answers, on `simulate --json`'s stdout.
    package var terminal: Int? = nil
    package let ok: Bool
    package var device: String? = nil
    package var changed: [String]? = nil
    package var status: SteeringSnapshot? = nil
    package var error: String? = nil
    package var hint: String? = nil
    package var exit: Int32? = nil
    /// When it was answered (ISO 8601, UTC), on `simulate --json`'s stdout, as its other lines say.
    package var time: String? = nil

    /// What changed, then the state.
    package var lines: [String] { (changed ?? []) + (status?.lines ?? []) }

    /// The answer as one JSON line.
    package var line: String {
        (try? JSONOutput.encode(self, pretty: false, versioned: true)) ?? #"{"ok":false,"error":"unencodable"}"#
    }

    /// The answer read back from a line, or nil.
    package init?(line: String) {
        guard let answer = try? JSONDecoder().decode(Self.self, from: Data(line.utf8)) else { return nil }
        self = answer
    }

    package init(ok: Bool) { self.ok = ok }

    package init(failure: CLIFailure, device: String) {
        ok = false
        self.device = device
        error = failure.message
        hint = failure.hint
        exit = failure.exit.code
    }
}

/// One running simulator's steering: its terminal, the script it started with (for `reset`), and how it answers a
/// request (`ucube sim` over its socket, or a line of `simulate --json`'s stdin).
package struct SteeredTerminal: Sendable {
    package let simulator: TerminalSimulator
    /// The address it serves, as `simulate` printed it.
    package let device: String
    /// `simulate`'s own card, cardholder and faults: what `reset` goes back to.
    package let initial: NamedScript

    package init(simulator: TerminalSimulator, device: String, initial: NamedScript) {
        self.simulator = simulator
        self.device = device
        self.initial = initial
    }

    /// Applies `request` and answers what changed and what the simulator holds now.
    package func answer(_ request: Steering.Request) async -> SteeringAnswer {
        let before = await simulator.steeringSnapshot
        let after: SteeringSnapshot
        switch request {
        case .status:
            after = before
        case .change(let change):
            after = await simulator.steer(change)
        case .reset:
            var change = ScriptChange()
            change.scenario = initial
            change.wholeScript = true
            change.terminalFaults = initial.script.faults
            change.batteryPercent = SimulatorChoices.DefaultDevice.batteryPercent
            after = await simulator.steer(change)
        }
        var answer = SteeringAnswer(ok: true)
        answer.device = device
        answer.changed = Steering.changes(before, after)
        answer.status = after
        return answer
    }

    /// The answer to one request's words, a refusal included.
    package func answer(words: [String]) async -> SteeringAnswer {
        let request: Steering.Request
        do {
            request = try Steering.parse(words)
        } catch {
            return SteeringAnswer(failure: CLIFailure(reporting: error), device: device)
        }
        return await answer(request)
    }

    /// The answer to one line of shell-quoted words (the steering socket's request).
    package func answer(line: String) async -> SteeringAnswer {
        guard let words = try? ShellWords.split(line) else {
            return SteeringAnswer(
                failure: CLIFailure(ExitCodes.usage, "unterminated quote in '\(line)'", code: .badSteering),
                device: device)
        }
        return await answer(words: words)
    }
}

/// The private socket through which `ucube sim` steers a running `ucube simulate`: one per terminal, named after the
/// address the terminal serves (`$XDG_RUNTIME_DIR/ucube/sim-<address>.sock`), owner-only as the control socket is.
package enum SteeringSocket {
    package static func path(forDevice device: String) -> String {
        Environment.runtimeDirectory + "/sim-" + Environment.fileKey(device) + ".sock"
    }

    /// Serves `terminal`'s steering at `device`'s socket until the returned server is closed; nil (with a warning)
    /// when it cannot listen: the simulator runs on, unsteerable.
    package static func serve(_ terminal: SteeredTerminal) -> ControlServer? {
        let device = terminal.device
        let path = path(forDevice: device)
        do {
            return try ControlSocket.serve(at: path, maxRequest: Steering.maximumLine) { line in
                await terminal.answer(line: line).line
            }
        } catch {
            StandardError.write("ucube: warning: `ucube sim` cannot steer \(device): \(error)")
            return nil
        }
    }
}

/// The steering of the terminals one `ucube simulate` serves: a socket each (`SteeringSocket`), and with `--json` the
/// JSON lines of its stdin for all of them: `{"sim": ["card", "visa-contactless"]}` (or the words as one string,
/// `{"sim": "card visa-contactless"}`), with `"terminal": I` for one terminal of a fleet; each terminal answers a
/// line, `{"event":"sim","terminal":I,"ok":true,…}`.
package final class SteeringServers: Sendable {
    private struct State {
        var terminals: [Int: SteeredTerminal] = [:]
        var servers: [ControlServer] = []
        var reading = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Steers `terminal` (number `index` of a fleet) from now on.
    package func add(_ terminal: SteeredTerminal, index: Int = 1) {
        let server = SteeringSocket.serve(terminal)
        state.withLock { state in
            state.terminals[index] = terminal
            if let server { state.servers.append(server) }
        }
    }

    /// Closes every steering socket (their files go).
    package func closeAll() async {
        let servers = state.withLock { state in
            defer { state.servers = [] }
            return state.servers
        }
        for server in servers { await server.close() }
    }

    /// Starts reading stdin's steering lines (once), on a thread of its own: each line is answered before the next is
    /// read. The end of stdin ends the reading, not the simulator.
    package func readStandardInput() {
        let start = state.withLock { state in
            defer { state.reading = true }
            return !state.reading
        }
        guard start else { return }
        Thread { [self] in
            while let line = Self.nextLine() {
                let done = DispatchSemaphore(value: 0)
                Task {
                    for var answer in await self.answer(line) {
                        answer.time = PaymentEngine.timestamp()
                        RawOutput.stdout(answer.line + "\n")
                    }
                    done.signal()
                }
                done.wait()
            }
        }.start()
    }

    /// One line of stdin, at most `Steering.maximumLine` bytes (a longer one is read to its end and answered as
    /// too long); nil at the end.
    private static func nextLine() -> Result<String, CLIFailure>? {
        var bytes: [UInt8] = []
        var tooLong = false
        while true {
            let c = getchar()
            if c == EOF {
                if bytes.isEmpty && !tooLong { return nil }
                break
            }
            if c == 0x0A { break }
            if bytes.count < Steering.maximumLine { bytes.append(UInt8(c)) } else { tooLong = true }
        }
        guard !tooLong else {
            return .failure(
                CLIFailure(
                    ExitCodes.usage, "a steering line is at most \(Steering.maximumLine) bytes", code: .badSteering))
        }
        return .success(String(decoding: bytes, as: UTF8.self))
    }

    /// The answers to one stdin line: one per terminal it steers.
    private func answer(_ read: Result<String, CLIFailure>) async -> [SteeringAnswer] {
        let line: String
        switch read {
        case .failure(let failure): return [Self.event(SteeringAnswer(failure: failure, device: ""), terminal: nil)]
        case .success(let text): line = text
        }
        if line.allSatisfy(\.isWhitespace) { return [] }
        let request = JSONOutput.Value.parse(Substring(line))
        let words: [String]?
        switch request?["sim"] {
        case .array(let items)?: words = items.allSatisfy { $0.text != nil } ? items.compactMap(\.text) : nil
        case .string(let text)?: words = try? ShellWords.split(text)
        default: words = nil
        }
        guard let words else {
            let failure = CLIFailure(
                ExitCodes.usage, "a steering line is a JSON object with \"sim\": the words of `ucube sim`",
                code: .badSteering, hint: #"e.g. {"sim": ["card", "visa-contactless"]}"#)
            return [Self.event(SteeringAnswer(failure: failure, device: ""), terminal: nil)]
        }
        let terminals = state.withLock { $0.terminals }
        let chosen: [(Int, SteeredTerminal)]
        if let index = request?["terminal"]?.text {
            guard let number = Int(index), let terminal = terminals[number] else {
                let failure = CLIFailure(
                    ExitCodes.usage,
                    "\"terminal\": \(index) is not a terminal of this simulator (1…\(terminals.count))",
                    code: .badSteering)
                return [Self.event(SteeringAnswer(failure: failure, device: ""), terminal: nil)]
            }
            chosen = [(number, terminal)]
        } else {
            chosen = terminals.sorted { $0.key < $1.key }
        }
        var answers: [SteeringAnswer] = []
        for (index, terminal) in chosen {
            answers.append(Self.event(await terminal.answer(words: words), terminal: terminals.count > 1 ? index : nil))
        }
        return answers
    }

    private static func event(_ answer: SteeringAnswer, terminal: Int?) -> SteeringAnswer {
        var event = answer
        event.event = "sim"
        event.terminal = terminal
        if event.device == "" { event.device = nil }
        return event
    }
}
