import ArgumentParser
import UCubeRuntime

/// The most common command lines, read without ArgumentParser: its parse of `ucube --device sim info` reflects every
/// option of the root, GlobalOptions and the command (`Mirror`), and each first check of an option's type against a
/// protocol walks the binary's 11,000 conformance records. That was 19 M of the command's 27 M instructions, seven
/// times all of `--version`. A line read here gives the values ArgumentParser would (a test compares the two, and the
/// contexts resolved from them); any other line, and any line that fails validation, goes to the parser, which
/// reports it as always. Nothing here builds an option group: the command gets plain values.
enum CommonLines {
    /// `info`'s options, as `UCube.Info.run(in:fleet:)` takes them.
    struct InfoLine: Equatable {
        var globals: GlobalOptionValues
        var fleet: FleetOptionValues
    }

    /// `[--device DEVICE]… [--json] info`, the options before or after `info`.
    static func info(_ arguments: [String]) -> InfoLine? {
        var globals = GlobalOptionValues()
        var command: String?
        var words = arguments[...]
        while let word = words.popFirst() {
            switch word {
            case "--device":
                // A value that looks like an option is the parser's to judge.
                guard let value = words.popFirst(), !value.hasPrefix("-") else { return nil }
                globals.devices.append(value)
            case "--json":
                globals.json = true
            case UCube.Info.configuration.commandName where command == nil:
                command = word
            default:
                return nil
            }
        }
        guard command != nil else { return nil }
        let line = InfoLine(globals: globals, fleet: FleetOptionValues())
        do {
            try line.globals.validate()
            try line.fleet.validate()
        } catch {
            return nil
        }
        return line
    }
}
