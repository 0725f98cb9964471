import Foundation
import UCubeSimulator

/// The built-in simulator as the CLI configures it: state under $UCUBE_SIM_HOME (or $XDG_STATE_HOME/ucube/simulator),
/// seed from $UCUBE_SIM_SEED.
enum BuiltInSimulator {
    static func make(linkModel: LinkModel? = nil) throws -> TerminalSimulator {
        try Environment.ensureDirectory(Environment.simulatorDirectory)
        var configuration = SimulatorConfiguration()
        configuration.stateDirectory = Environment.simulatorDirectory
        if let s = Environment.value("UCUBE_SIM_SEED"), let seed = UInt64(s) { configuration.seed = seed }
        configuration.linkModel = linkModel
        return try TerminalSimulator(configuration: configuration)
    }
}
