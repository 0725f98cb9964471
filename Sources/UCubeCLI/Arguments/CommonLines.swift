import ArgumentParser

/// The most common command lines, read without ArgumentParser: its parse of `ucube --device sim info` reflects every
/// option of the root, GlobalOptions and the command (`Mirror`), and each first check of an option's type against a
/// protocol walks the binary's 11,000 conformance records. That was 19 M of the command's 27 M instructions, seven
/// times all of `--version`. A line read here gives the value ArgumentParser would (a test compares the two, field by
/// field); any other line, and any line that fails validation, goes to the parser, which reports it as always.
enum CommonLines {
    /// `[--device DEVICE]… [--json] info`, the options before or after `info`.
    static func info(_ arguments: [String]) -> UCube.Info? {
        var devices: [String] = []
        var json = false
        var command: String?
        var words = arguments[...]
        while let word = words.popFirst() {
            switch word {
            case "--device":
                // A value that looks like an option is the parser's to judge.
                guard let value = words.popFirst(), !value.hasPrefix("-") else { return nil }
                devices.append(value)
            case "--json":
                json = true
            case UCube.Info.configuration.commandName where command == nil:
                command = word
            default:
                return nil
            }
        }
        guard command != nil else { return nil }
        var info = UCube.Info()
        info.globals = globals(devices: devices, json: json)
        info.fleet = noFleetOptions()
        do {
            try info.globals.validate()
            try info.fleet.validate()
            try info.validate()
        } catch {
            return nil
        }
        return info
    }

    /// Every field set, as ArgumentParser sets each (a field left unset would stop the process when read).
    private static func globals(devices: [String], json: Bool) -> GlobalOptions {
        var globals = GlobalOptions()
        globals.devices = devices
        globals.jsonFlag = json
        globals.traceFlag = false
        globals.record = nil
        globals.fast = false
        globals.rpcTimeout = nil
        globals.logLevel = nil
        return globals
    }

    private static func noFleetOptions() -> FleetOptions {
        var fleet = FleetOptions()
        fleet.devices = nil
        fleet.parallel = nil
        fleet.junit = nil
        fleet.maxFailures = nil
        fleet.runFile = nil
        fleet.restart = false
        fleet.shard = nil
        fleet.shardHost = nil
        return fleet
    }
}
