import Foundation
import UCubeLink

/// Terminals remembered by `ucube connect`: `$XDG_CONFIG_HOME/ucube/devices.json` (not config.json, which holds the
/// TMS settings). One of them may be the default device, used when neither --device nor $UCUBE_DEVICE is given.
package struct RememberedDevice: Codable, Equatable {
    /// The name `--device NAME` takes: the advertised name for Bluetooth, else the address as typed.
    package var name: String
    /// A `--device` address: ble://AA:BB:…, rfcomm://…, tcp://…, serial://….
    package var address: String
    /// ble, rfcomm, tcp, serial or sim.
    package var transport: String
    /// The serial number GetInfo reported when it was remembered.
    package var serial: String?
    /// The default device.
    package var isDefault: Bool
    /// The authorisation hook of this terminal's payments (`connect --authorize`; docs/authorization.md): exec:… or
    /// https://…, used when a payment's line gives no --authorize.
    package var authorize: String? = nil
    /// The CA file of an https hook (`connect --authorize-ca`).
    package var authorizeCA: String? = nil

    package init(
        name: String,
        address: String,
        transport: String,
        serial: String? = nil,
        isDefault: Bool,
        authorize: String? = nil,
        authorizeCA: String? = nil
    ) {
        self.name = name
        self.address = address
        self.transport = transport
        self.serial = serial
        self.isDefault = isDefault
        self.authorize = authorize
        self.authorizeCA = authorizeCA
    }

    package enum CodingKeys: String, CodingKey {
        case name, address, transport, serial, authorize, authorizeCA
        case isDefault = "default"
    }
}

/// A terminal's own authorisation: the --authorize word and the CA file of an https hook.
package struct RememberedHook: Sendable, Equatable {
    package var word: String
    package var ca: String?

    package init(word: String, ca: String? = nil) {
        self.word = word
        self.ca = ca
    }
}

package enum RememberedDevices {
    package static var path: String { Environment.configDirectory + "/devices.json" }

    /// The most `devices.json` is read: a few hundred bytes a terminal.
    package static let maximumSize = 1 << 20

    /// The remembered terminals; a missing or unreadable file is an empty list, a damaged or oversized one a clear
    /// error.
    package static func load() throws -> [RememberedDevice] {
        let data: Data
        do {
            data = try BoundedFile.read(path, limit: maximumSize)
        } catch {
            switch error {
            case .unreadable: return []
            case .tooLarge:
                throw CLIFailure(
                    ExitCodes.dataError,
                    "\(path) is larger than \(BoundedFile.limitText(maximumSize)): fix or delete it")
            }
        }
        return try decode(data)
    }

    package static func decode(_ data: Data) throws -> [RememberedDevice] {
        do {
            return try JSONDecoder().decode([RememberedDevice].self, from: data)
        } catch {
            throw CLIFailure(
                ExitCodes.dataError, "\(path) is not a valid list of remembered devices: \(error); fix or delete it")
        }
    }

    package static func save(_ devices: [RememberedDevice]) throws {
        do {
            try Environment.ensureDirectory(Environment.configDirectory)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(devices).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIFailure(
                ExitCodes.cannotCreate, "cannot write \(path): \(Environment.posixCause(error))",
                hint: "set XDG_CONFIG_HOME to a writable directory", detail: "\(error)")
        }
    }

    /// The remembered device called `name` (case-insensitive).
    package static func find(_ name: String) throws -> RememberedDevice? {
        try load().first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The default device's address, if any (a damaged file is ignored here; `ucube connect --list` reports it).
    package static var defaultAddress: String? {
        (try? load())?.first(where: \.isDefault)?.address
    }

    /// The hook of the remembered terminal a command names `device` (its name, case-insensitive, or its address); nil
    /// when it has none, or devices.json cannot be read (`ucube connect --list` reports that).
    package static func hook(for device: String) -> RememberedHook? {
        let entry = (try? load())?.first {
            $0.name.caseInsensitiveCompare(device) == .orderedSame || $0.address == device
        }
        return entry?.authorize.map { RememberedHook(word: $0, ca: entry?.authorizeCA) }
    }

    /// Adds or replaces `device` (same name or same address) and makes it the default. A replaced entry's hook is kept
    /// unless `device` names one.
    package static func remember(_ device: RememberedDevice) throws {
        let all = try load()
        let replaced = all.first {
            $0.name.caseInsensitiveCompare(device.name) == .orderedSame || $0.address == device.address
        }
        var devices = all.filter {
            $0.name.caseInsensitiveCompare(device.name) != .orderedSame && $0.address != device.address
        }
        for i in devices.indices { devices[i].isDefault = false }
        var entry = device
        if entry.authorize == nil {
            entry.authorize = replaced?.authorize
            entry.authorizeCA = entry.authorizeCA ?? replaced?.authorizeCA
        }
        entry.isDefault = true
        devices.append(entry)
        try save(devices)
    }

    /// Removes the device called `name`; false when there is none.
    package static func forget(_ name: String) throws -> Bool {
        let devices = try load()
        let kept = devices.filter { $0.name.caseInsensitiveCompare(name) != .orderedSame }
        guard kept.count != devices.count else { return false }
        try save(kept)
        return true
    }

    package static func transportName(_ address: DeviceAddress) -> String {
        switch address {
        case .simulator: "sim"
        case .tcp: "tcp"
        case .serial: "serial"
        case .ble: "ble"
        case .rfcomm: "rfcomm"
        case .remembered: "remembered"
        case .replay: "replay"
        }
    }
}
