import Foundation
import UCubeLink

/// The terminals of a run: every `--device`, then every line of `--devices`, each checked before anything starts.
package enum FleetDevices {
    /// The list, or a usage error naming the file and line of a bad entry or a terminal named twice.
    package static func list(given: [String], file: String?) throws(CLIFailure) -> [FleetDevice] {
        var text: String? = nil
        if let file { text = try read(file) }
        return try list(given: given, file: file, text: text)
    }

    /// The list from `--device` values and a devices file's `text` (named `file` in messages): pure. A line may end
    /// with ` @NAME`, the runner it is pinned to (`--shard-host`).
    package static func list(given: [String], file: String?, text: String?) throws(CLIFailure) -> [FleetDevice] {
        var entries = given.map { ($0, "--device", String?.none) }
        if let text {
            // `\.isNewline`: in Swift "\r\n" is one Character, which `split(separator: "\n")` never matches, so a CRLF
            // file was one line.
            for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces.union(["\r"]))
                if line.isEmpty || line.hasPrefix("#") { continue }
                let origin = "\(file ?? "devices"):\(index + 1)"
                var device = line
                var host: String? = nil
                if let space = line.lastIndex(where: \.isWhitespace), line[line.index(after: space)...].hasPrefix("@") {
                    let name = String(line[line.index(space, offsetBy: 2)...])
                    guard FleetShard.isValidHost(name) else {
                        throw CLIFailure(
                            ExitCodes.usage,
                            "\(origin): '@\(name)': a runner's name is letters, digits, '.', '_' and '-' (at most 64)")
                    }
                    device = line[..<space].trimmingCharacters(in: .whitespaces)
                    host = name
                }
                entries.append((device, origin, host))
            }
        }
        guard !entries.isEmpty else {
            throw CLIFailure(
                ExitCodes.usage, "the devices file \(file ?? "") names no terminal",
                hint: "one device name or URL a line")
        }
        guard entries.count <= FleetChoices.maximumDevices else {
            throw CLIFailure(
                ExitCodes.usage, "\(entries.count) terminals in one run: at most \(FleetChoices.maximumDevices)")
        }
        var seen: [String: String] = [:]
        var devices: [FleetDevice] = []
        for (device, origin, host) in entries {
            let address: DeviceAddress
            do {
                address = try DeviceAddress(parsing: device)
            } catch {
                throw CLIFailure(ExitCodes.usage, "\(origin): \(error.reason)")
            }
            if case .replay = address {
                throw CLIFailure(
                    ExitCodes.usage, "\(origin): a recording replays one command's session; a fleet run needs terminals"
                )
            }
            let key = address.description
            if let first = seen[key] {
                throw CLIFailure(ExitCodes.usage, "\(origin): \(device) is already in the run (\(first))")
            }
            seen[key] = origin
            devices.append(FleetDevice(name: device, key: key, host: host))
        }
        return devices
    }

    private static func read(_ path: String) throws(CLIFailure) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let data: Data
        do {
            data = try BoundedFile.read(expanded, limit: FleetChoices.maximumFileSize)
        } catch {
            switch error {
            case .unreadable(let why):
                throw CLIFailure(ExitCodes.usage, "cannot read the devices file \(expanded): \(why)")
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.usage,
                    "the devices file \(expanded) is over \(BoundedFile.limitText(FleetChoices.maximumFileSize))")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIFailure(ExitCodes.usage, "the devices file \(expanded) is not UTF-8 text")
        }
        return text
    }
}
