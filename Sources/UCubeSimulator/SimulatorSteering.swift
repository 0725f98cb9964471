import UCubeProtocol

/// A change to a running simulator's cardholder script, terminal faults or battery (`ucube sim`, `simulate --json`'s
/// stdin; docs/vendor-apps.md "Steering a running simulator"). Each field left `nil` stays as it is. The connection
/// being served is untouched: the change is read by the next command that needs it (the next card wait presents the
/// new card, the next display answers the new keys).
package struct ScriptChange: Sendable, Hashable {
    /// The card the next card wait presents (nil in the script: no card comes, card waits time out), with the name
    /// it is shown by and the scenario's card faults (a card pulled out).
    package var scenario: NamedScript?
    /// The keys pressed on the next displays, in order.
    package var keys: [UInt8]?
    /// The list-box answers, one per list.
    package var choices: [Int]?
    /// The PIN the cardholder types.
    package var pin: String?
    /// The terminal's own faults (link drops, silence, reboot, mute, refused images), counted from the change; a
    /// scenario's card faults (a card pulled out) stay.
    package var terminalFaults: SimulatorFaults?
    /// The battery level GetInfo reports (C5), in percent.
    package var batteryPercent: UInt8?
    /// A whole scenario (card, keys, choices, PIN, delay and card faults) replaces the cardholder's script: a suite's
    /// case set up at once. The terminal's own faults stay.
    package var wholeScript = false

    package init() {}

    /// The script after this change. With `wholeScript`, the scenario's script replaces `script` but for the
    /// terminal's faults; otherwise a scenario brings its card and card faults only (the keys, choices and PIN
    /// already steered stay).
    package func applied(to script: SimulatorScript) -> SimulatorScript {
        var next = script
        if let scenario {
            if wholeScript {
                next = scenario.script
                next.faults = script.faults
            } else {
                next.card = scenario.script.card
            }
            next.faults.apply(scenario: scenario.script.faults)
        }
        if let keys { next.keys = keys }
        if let choices { next.choices = choices }
        if let pin { next.pin = pin }
        if let terminalFaults { next.faults.apply(commandLine: terminalFaults) }
        return next
    }

    /// Whether fault positions count again from this change: the faults or the card (with its faults) changed.
    var restartsFaultCounts: Bool { scenario != nil || terminalFaults != nil }
}

extension SimulatorFaults {
    /// A scenario's card faults over the current ones: the card pulled out and the link dropped at a command are the
    /// scenario's (none when it has none); the terminal's own faults stay.
    package mutating func apply(scenario: SimulatorFaults) {
        cardRemovedAt = scenario.cardRemovedAt
        cardRemovedOccurrence = scenario.cardRemovedOccurrence
        disconnectAt = scenario.disconnectAt
        disconnectOccurrence = scenario.disconnectOccurrence
    }

    /// The terminal's own faults in `--fault`'s words (`drop@3,mute`), or "none". A link drop at a command other
    /// than Load is a card's fault and is not listed (it shows in `cardFaultText`).
    package var terminalText: String {
        var items: [String] = []
        if let n = disconnectAtFrame { items.append("drop@\(n)") }
        if let n = silentFromFrame { items.append("silent@\(n)") }
        if let n = rebootAtFrame { items.append("reboot@\(n)") }
        if disconnectAt == .load { items.append("load-drop@\(disconnectOccurrence)") }
        if refuseImages { items.append("refuse-image") }
        if mute { items.append("mute") }
        return items.isEmpty ? "none" : items.joined(separator: ",")
    }

    /// The card's faults in words (`card pulled out at 0x5512 (arrival 1)`), or nil.
    package var cardFaultText: String? {
        var items: [String] = []
        if let command = cardRemovedAt {
            items.append("card pulled out at \(command) (arrival \(cardRemovedOccurrence))")
        }
        if let command = disconnectAt, command != .load {
            items.append("link dropped at \(command) (arrival \(disconnectOccurrence))")
        }
        return items.isEmpty ? nil : items.joined(separator: ", ")
    }
}

/// A cardholder script and the name it is shown by (`visa-contact`, a suite's card image or case).
package struct NamedScript: Sendable, Hashable {
    package let name: String
    package let script: SimulatorScript

    package init(name: String, script: SimulatorScript) {
        self.name = name
        self.script = script
    }
}

/// What a running simulator holds now, as `ucube sim status` shows it, and as the steering answers carry it in JSON.
package struct SteeringSnapshot: Codable, Sendable, Hashable {
    /// The name of the card the next card wait presents (a catalogue scenario, a suite's card image or case).
    package let card: String
    /// The card's interfaces, or empty when no card comes.
    package let interfaces: [String]
    /// Keys still to be pressed, in hex.
    package let keys: [String]
    /// List-box answers still to come (`2`, `abort`, `none`).
    package let choices: [String]
    /// How many digits the scripted PIN has (the PIN itself is not shown).
    package let pinDigits: Int
    /// The terminal's faults in `--fault`'s words.
    package let faults: String
    /// The card's faults, or nil.
    package let cardFaults: String?
    /// C5, percent.
    package let batteryPercent: Int
    /// A connection is being served now.
    package let connected: Bool
    /// Connections served since the simulator started.
    package let connections: Int
    /// The terminal is rebooting.
    package let rebooting: Bool
}

extension TerminalSimulator {
    /// Applies `change` from now on, without touching the connection being served, and answers what the simulator
    /// then holds. A change of faults or card makes fault positions count from here (`drop@1`: the next frame).
    package func steer(_ change: ScriptChange) -> SteeringSnapshot {
        let next = change.applied(to: script)
        if change.restartsFaultCounts {
            setScript(next)
        } else {
            script = next
        }
        if let scenario = change.scenario { cardLabel = scenario.name }
        if let battery = change.batteryPercent, battery != device.batteryPercent {
            device.batteryPercent = battery
            persist()
        }
        return steeringSnapshot
    }

    /// What the simulator holds now.
    package var steeringSnapshot: SteeringSnapshot {
        SteeringSnapshot(
            card: cardLabel,
            interfaces: CardProfile.Interface.allCases.filter { script.card?.interfaces.contains($0) == true }
                .map(\.rawValue),
            keys: script.keys.map { Hex.encode([$0]) },
            choices: script.choices.map { $0 == 0 ? "abort" : $0 < 0 ? "none" : String($0) },
            pinDigits: script.pin.count,
            faults: script.faults.terminalText,
            cardFaults: script.faults.cardFaultText,
            batteryPercent: Int(device.batteryPercent),
            connected: isServing,
            connections: connectionsServed,
            rebooting: isRebooting)
    }
}
