import Foundation
import UCubeProtocol
import UCubeSimulator

/// The built-in simulator as the CLI configures it: state under $UCUBE_SIM_HOME (or $XDG_STATE_HOME/ucube/simulator),
/// seed from $UCUBE_SIM_SEED, the card from `--card` (default visa-contact).
package enum BuiltInSimulator {
    package static func configuration(
        linkModel: LinkModel? = nil, scenario: CardScenario? = nil, stateDirectory: String? = nil,
        faults: String? = nil,
        keys: String? = nil, choices: String? = nil
    ) throws -> SimulatorConfiguration {
        // A directory the user named must work; the default one under $XDG_STATE_HOME may not, and then the
        // simulator starts from a fresh device, as `info` needs no state of its own.
        let named = stateDirectory ?? Environment.value("UCUBE_SIM_HOME")
        let directory = named ?? Environment.simulatorDirectory
        var usable = true
        do {
            try Environment.ensureDirectory(directory)
        } catch {
            guard named == nil else {
                throw CLIFailure(
                    ExitCodes.cannotCreate,
                    "cannot create the simulator's state directory \(directory): \(Environment.posixCause(error))",
                    code: .stateDirectoryUnusable, hint: "choose another --state-dir or UCUBE_SIM_HOME",
                    detail: "\(error)")
            }
            Environment.warnStateUnusable("the simulator's device state is not kept: \(directory) cannot be created")
            usable = false
        }
        var configuration = SimulatorConfiguration()
        if let scenario { configuration = scenario.configuration(configuration) }
        if let spec = faults ?? Environment.value("UCUBE_SIM_FAULT") {
            configuration.script.faults.apply(commandLine: try self.faults(spec))
        }
        if let spec = keys ?? Environment.value("UCUBE_SIM_KEYS") { configuration.script.keys = try self.keys(spec) }
        if let spec = choices ?? Environment.value("UCUBE_SIM_CHOICES") {
            configuration.script.choices = try self.choices(spec)
        }
        configuration.stateDirectory = usable ? directory : nil
        if let s = Environment.value("UCUBE_SIM_SEED"), let seed = UInt64(s) { configuration.seed = seed }
        if let s = Environment.value("UCUBE_SIM_TIME_SCALE") {
            configuration.timeScale = try timeScale(s)
        }
        configuration.linkModel = linkModel
        return configuration
    }

    package static func make(linkModel: LinkModel? = nil, scenario: CardScenario? = nil) throws -> TerminalSimulator {
        try TerminalSimulator(configuration: configuration(linkModel: linkModel, scenario: scenario))
    }

    /// `$UCUBE_SIM_TIME_SCALE` read: a number from 0 to `SimulatorConfiguration.maximumTimeScale`, or a usage error
    /// (a scale of 1e300 once overflowed the first wait it multiplied, mid-payment).
    package static func timeScale(_ text: String) throws(CLIFailure) -> Double {
        let maximum = SimulatorConfiguration.maximumTimeScale
        guard let scale = Double(text.trimmingCharacters(in: .whitespaces)), scale >= 0, scale <= maximum else {
            throw CLIFailure(
                ExitCodes.usage,
                "UCUBE_SIM_TIME_SCALE '\(VisibleText.escaped(text))' is not a time scale: expected a number from 0 to \(Int(maximum))",
                hint: "0.01 makes the simulator's waits a hundred times shorter; 0 removes them")
        }
        return scale
    }

    /// `simulate --fault` / `$UCUBE_SIM_FAULT` parsed, or a usage error.
    package static func faults(_ spec: String) throws -> SimulatorFaults {
        do {
            return try SimulatorFaults(parsing: spec)
        } catch {
            throw UsageError(error.reason)
        }
    }

    /// `simulate --keys` / `$UCUBE_SIM_KEYS` parsed, or a usage error.
    package static func keys(_ spec: String) throws -> [UInt8] {
        do {
            return try SimulatorScript.parseKeys(spec)
        } catch {
            throw UsageError(error.reason)
        }
    }

    /// `simulate --choices` / `$UCUBE_SIM_CHOICES` parsed, or a usage error.
    package static func choices(_ spec: String) throws -> [Int] {
        do {
            return try SimulatorScript.parseChoices(spec)
        } catch {
            throw UsageError(error.reason)
        }
    }

    /// The scenario named by `--card`, or a usage error listing the names.
    package static func scenario(named name: String) throws -> CardScenario {
        guard let scenario = CardCatalogue.named(name) else {
            // A usage error: reported with the usage line and exit 64, in validate() and run().
            let nearest = Suggestion.nearest(to: name, in: CardCatalogue.names)
            let guess = nearest.isEmpty ? "" : " (did you mean \(nearest.map { "'\($0)'" }.joined(separator: " or "))?)"
            throw UsageError(
                "unknown card '\(name)'\(guess); the simulator's cards are: \(CardCatalogue.names.joined(separator: ", "))"
            )
        }
        return scenario
    }
}
