import Foundation
import UCubeCrypto
import UCubeProtocol
import UCubeSupport

/// Everything a simulated terminal keeps across power cycles and host processes: identity, versions, settings,
/// terminal state, DUKPT counters and bank parameters. Persisted as `device.json` (see `DeviceStore`).
///
/// Decoding is lenient: a key missing from the file takes its default, so files written by older simulators load.
package struct DeviceState: Sendable, Hashable {
    /// Terminal serial number, printed in decimal (C3 carries it × 4, spec §4).
    package var serialNumber: UInt64
    /// Terminal part number, 15 ASCII bytes (C2).
    package var partNumber: String
    /// C1 Atmel serial.
    package var atmelSerial: [UInt8]
    /// D1 SVPP firmware version.
    package var firmwareVersion: FirmwareVersion
    /// E8 → D1 NFC (ST) firmware version.
    package var nfcFirmwareVersion: FirmwareVersion
    /// E8 → A0 EMV L1 contactless library version.
    package var nfcEMVL1Version: FirmwareVersion
    /// E8 → A2 EMV L2 contactless version.
    package var nfcEMVL2Version: FirmwareVersion
    /// E8 → C4 NFC firmware state.
    package var nfcFirmwareState: UInt8
    /// D3 PCI PED version.
    package var pciPEDVersion: FirmwareVersion
    /// D5 EMV L1 version.
    package var emvL1Version: FirmwareVersion
    /// D7 EMV L2 version.
    package var emvL2Version: FirmwareVersion
    /// D9 boot loader version.
    package var bootLoaderVersion: FirmwareVersion
    /// EC OS version.
    package var osVersion: FirmwareVersion
    /// FD non-secure firmware version.
    package var nonSecureFirmwareVersion: FirmwareVersion
    /// EA EMV ICC configuration version.
    package var iccConfigVersion: FirmwareVersion
    /// EB EMV NFC configuration version.
    package var nfcConfigVersion: FirmwareVersion
    /// C5 battery level in percent (PROJECT CHOICE, spec §7.1).
    package var batteryPercent: UInt8
    /// FB charging status.
    package var charging: UInt8
    /// FC BLE speed mode (0 slow, 1 quick).
    package var speedMode: UInt8
    /// C6 power-off timeout in seconds (0 = never).
    package var powerOffTimeout: UInt8
    /// F7 current merchant locale (PROJECT CHOICE, spec §5.2).
    package var locale: String
    /// F6 supported locales (PROJECT CHOICE, spec §5.2).
    package var supportedLocales: [String]
    /// ED mPOS (NFC) module state: 3 = ready.
    package var nfcModuleState: UInt8
    /// DB key serial list id.
    package var kslID: [UInt8]
    /// C4 terminal state. SECURED persists too: a real terminal outlives the host process.
    package var terminalState: TerminalState
    /// The data (SRED) DUKPT key's transaction counter; the SRED KSN is the initial KSN with this counter.
    package var dataCounter: UInt32
    /// The PIN DUKPT key's transaction counter.
    package var pinCounter: UInt32
    /// Opaque EMV bank parameters stored by 0x5501 and returned by 0x5503 (PROJECT CHOICE, spec §5.2).
    package var bankParameters: [UInt8]
    /// The terminal clock as last set by RTCSet (or when the terminal was made), in seconds since 2000-01-01 00:00:00.
    package var clockSeconds: Int64
    /// The host's clock at that moment, same unit: the terminal's clock runs on with the host's from there, across
    /// processes (nil: a state saved before this was kept; its clock runs only while a simulator runs).
    package var clockSetAtHost: Int64?
    /// Versions of installed items GetInfo has no tag for (spec §10.4 types 6 and 8), keyed by the type in decimal.
    package var itemVersions: [String: FirmwareVersion]

    /// A new terminal: the values of `SimulatorChoices.DefaultDevice` (its serial number unless one is given),
    /// READY, counters at 0.
    package init(serialNumber: UInt64? = nil) {
        typealias D = SimulatorChoices.DefaultDevice
        self.serialNumber = serialNumber ?? D.serialNumber
        partNumber = D.partNumber
        atmelSerial = D.atmelSerial
        firmwareVersion = D.firmwareVersion
        nfcFirmwareVersion = D.nfcFirmwareVersion
        nfcEMVL1Version = D.nfcEMVL1Version
        nfcEMVL2Version = D.nfcEMVL2Version
        nfcFirmwareState = D.nfcFirmwareState
        pciPEDVersion = D.pciPEDVersion
        emvL1Version = D.emvL1Version
        emvL2Version = D.emvL2Version
        bootLoaderVersion = D.bootLoaderVersion
        osVersion = D.osVersion
        nonSecureFirmwareVersion = D.nonSecureFirmwareVersion
        iccConfigVersion = D.iccConfigVersion
        nfcConfigVersion = D.nfcConfigVersion
        batteryPercent = D.batteryPercent
        charging = D.charging
        speedMode = D.speedMode
        powerOffTimeout = D.powerOffTimeout
        locale = D.locale
        supportedLocales = D.supportedLocales
        nfcModuleState = D.nfcModuleState
        kslID = D.kslID
        terminalState = SimulatorChoices.initialState
        dataCounter = 0
        pinCounter = 0
        bankParameters = []
        // A new terminal's clock is the host's (a real one is set at the factory): `diagnose` finds no drift.
        let now = CivilTime.hostSecondsSince2000()
        clockSeconds = now
        clockSetAtHost = now
        itemVersions = [:]
    }

    // MARK: Installed items (spec §10.4)

    /// The installed version of an item type: 0 → D1, 3 → E8/D1, 4 → EA, 5 → EB, 6/8 → `itemVersions` (`nil`
    /// when none was installed yet).
    package func installedVersion(of type: FirmwareItemType) -> FirmwareVersion? {
        switch type {
        case .svppFirmware: firmwareVersion
        case .nfcFirmware: nfcFirmwareVersion
        case .iccConfig: iccConfigVersion
        case .nfcConfig: nfcConfigVersion
        case .miscParameters, .additionalFiles: itemVersions[String(type.rawValue)]
        }
    }

    /// Records `version` as installed for `type`.
    package mutating func install(_ type: FirmwareItemType, version: FirmwareVersion) {
        switch type {
        case .svppFirmware: firmwareVersion = version
        case .nfcFirmware: nfcFirmwareVersion = version
        case .iccConfig: iccConfigVersion = version
        case .nfcConfig: nfcConfigVersion = version
        case .miscParameters, .additionalFiles: itemVersions[String(type.rawValue)] = version
        }
    }

    /// The SRED KSN of the current data key (spec §12.3: initial KSN FFFF9876543210E00000 with the data counter).
    var dataKSN: KSN { Self.ksn(counter: dataCounter) }
    /// The KSN of the current PIN key.
    var pinKSN: KSN { Self.ksn(counter: pinCounter) }

    private static func ksn(counter: UInt32) -> KSN {
        do {
            return try CryptoChoices.initialKSN.withCounter(counter & KSN.counterMask)
        } catch {
            preconditionFailure("a 21-bit counter always fits the KSN: \(error)")
        }
    }

    // MARK: GetInfo

    /// The TLV the terminal answers for a GetInfo tag (spec §7.1), or `nil` for a tag it does not know.
    func getInfoTLV(_ tag: UInt8) -> TLV? {
        let value: [UInt8]
        switch tag {
        case 0xC1: value = atmelSerial
        case 0xC2: value = Self.partNumberBytes(partNumber)
        case 0xC3: value = Self.serialBytes(serialNumber)
        case 0xC4: value = [terminalState.rawValue]
        case 0xC5: value = [batteryPercent]
        case 0xC6: value = [powerOffTimeout]
        case 0xCD: value = CryptoChoices.ksnFormatRecord
        case 0xD1: value = firmwareVersion.parts
        case 0xD3: value = pciPEDVersion.parts
        case 0xD5: value = emvL1Version.parts
        case 0xD7: value = emvL2Version.parts
        case 0xD9: value = bootLoaderVersion.parts
        case 0xDB: value = kslID
        case 0xE8:
            return TLV(
                Tag(0xE8),
                children: [
                    TLV(Tag(0xD1), nfcFirmwareVersion.parts),
                    TLV(Tag(0xA0), nfcEMVL1Version.parts),
                    TLV(Tag(0xA2), nfcEMVL2Version.parts),
                    TLV(Tag(0xC4), [nfcFirmwareState]),
                ]
            )
        case 0xEA: value = iccConfigVersion.parts
        case 0xEB: value = nfcConfigVersion.parts
        case 0xEC: value = osVersion.parts
        case 0xED: value = [nfcModuleState]
        case 0xF6: value = supportedLocales.flatMap { Array($0.utf8) + [0x00] }
        case 0xF7: value = Array(locale.utf8)
        case 0xFB: value = [charging]
        case 0xFC: value = [speedMode]
        case 0xFD: value = nonSecureFirmwareVersion.parts
        default: return nil
        }
        return TLV(Tag(UInt32(tag)), value)
    }

    /// C3: the serial number × 4 as a 5-byte big-endian integer (spec §4).
    static func serialBytes(_ serial: UInt64) -> [UInt8] {
        let value = serial &* 4
        return (0..<5).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// C2: 15 ASCII bytes, space-padded or cut (spec §4).
    static func partNumberBytes(_ partNumber: String) -> [UInt8] {
        let bytes = Array(partNumber.utf8.prefix(SimulatorChoices.partNumberLength))
        return bytes + [UInt8](repeating: 0x20, count: SimulatorChoices.partNumberLength - bytes.count)
    }
}

// MARK: - JSON

extension DeviceState: Codable {
    private enum CodingKeys: String, CodingKey {
        case serialNumber, partNumber, atmelSerial, firmwareVersion, nfcFirmwareVersion, nfcEMVL1Version
        case nfcEMVL2Version, nfcFirmwareState, pciPEDVersion, emvL1Version, emvL2Version, bootLoaderVersion
        case osVersion, nonSecureFirmwareVersion, iccConfigVersion, nfcConfigVersion, batteryPercent, charging
        case speedMode, powerOffTimeout, locale, supportedLocales, nfcModuleState, kslID, terminalState
        case dataCounter, pinCounter, bankParameters, clockSeconds, clockSetAtHost, itemVersions
    }

    package init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func hex(_ key: CodingKeys, _ fallback: [UInt8]) throws -> [UInt8] {
            guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return fallback }
            do {
                return try Hex.decode(text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.description)
            }
        }
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try c.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        serialNumber = try value(.serialNumber, serialNumber)
        partNumber = try value(.partNumber, partNumber)
        if SimulatorChoices.DefaultDevice.legacyPartNumbers.contains(partNumber) {
            partNumber = SimulatorChoices.DefaultDevice.partNumber  // the current SDK would swap the old default
        }
        atmelSerial = try hex(.atmelSerial, atmelSerial)
        firmwareVersion = try value(.firmwareVersion, firmwareVersion)
        nfcFirmwareVersion = try value(.nfcFirmwareVersion, nfcFirmwareVersion)
        nfcEMVL1Version = try value(.nfcEMVL1Version, nfcEMVL1Version)
        nfcEMVL2Version = try value(.nfcEMVL2Version, nfcEMVL2Version)
        nfcFirmwareState = try value(.nfcFirmwareState, nfcFirmwareState)
        pciPEDVersion = try value(.pciPEDVersion, pciPEDVersion)
        emvL1Version = try value(.emvL1Version, emvL1Version)
        emvL2Version = try value(.emvL2Version, emvL2Version)
        bootLoaderVersion = try value(.bootLoaderVersion, bootLoaderVersion)
        osVersion = try value(.osVersion, osVersion)
        nonSecureFirmwareVersion = try value(.nonSecureFirmwareVersion, nonSecureFirmwareVersion)
        iccConfigVersion = try value(.iccConfigVersion, iccConfigVersion)
        nfcConfigVersion = try value(.nfcConfigVersion, nfcConfigVersion)
        batteryPercent = try value(.batteryPercent, batteryPercent)
        charging = try value(.charging, charging)
        speedMode = try value(.speedMode, speedMode)
        powerOffTimeout = try value(.powerOffTimeout, powerOffTimeout)
        locale = try value(.locale, locale)
        supportedLocales = try value(.supportedLocales, supportedLocales)
        nfcModuleState = try value(.nfcModuleState, nfcModuleState)
        kslID = try hex(.kslID, kslID)
        if let name = try c.decodeIfPresent(String.self, forKey: .terminalState) {
            guard let state = TerminalState.allCases.first(where: { $0.description == name }) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .terminalState,
                    in: c,
                    debugDescription: "terminal state must be PRE_PERSO, PERSO, READY or SECURED, got \(name)"
                )
            }
            terminalState = state
        }
        dataCounter = try value(.dataCounter, dataCounter)
        pinCounter = try value(.pinCounter, pinCounter)
        bankParameters = try hex(.bankParameters, bankParameters)
        if let saved = try c.decodeIfPresent(Int64.self, forKey: .clockSeconds) {
            let setAt = try c.decodeIfPresent(Int64.self, forKey: .clockSetAtHost)
            // A state saved before the clock followed the host, at the old fixed default (2025-01-01): it follows the
            // host now; a clock an RTCSet put elsewhere stays where it was put.
            if setAt != nil || saved != SimulatorChoices.DefaultDevice.clockSeconds {
                clockSeconds = saved
                clockSetAtHost = setAt
            }
        }
        itemVersions = try value(.itemVersions, itemVersions)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(serialNumber, forKey: .serialNumber)
        try c.encode(partNumber, forKey: .partNumber)
        try c.encode(Hex.encode(atmelSerial), forKey: .atmelSerial)
        try c.encode(firmwareVersion, forKey: .firmwareVersion)
        try c.encode(nfcFirmwareVersion, forKey: .nfcFirmwareVersion)
        try c.encode(nfcEMVL1Version, forKey: .nfcEMVL1Version)
        try c.encode(nfcEMVL2Version, forKey: .nfcEMVL2Version)
        try c.encode(nfcFirmwareState, forKey: .nfcFirmwareState)
        try c.encode(pciPEDVersion, forKey: .pciPEDVersion)
        try c.encode(emvL1Version, forKey: .emvL1Version)
        try c.encode(emvL2Version, forKey: .emvL2Version)
        try c.encode(bootLoaderVersion, forKey: .bootLoaderVersion)
        try c.encode(osVersion, forKey: .osVersion)
        try c.encode(nonSecureFirmwareVersion, forKey: .nonSecureFirmwareVersion)
        try c.encode(iccConfigVersion, forKey: .iccConfigVersion)
        try c.encode(nfcConfigVersion, forKey: .nfcConfigVersion)
        try c.encode(batteryPercent, forKey: .batteryPercent)
        try c.encode(charging, forKey: .charging)
        try c.encode(speedMode, forKey: .speedMode)
        try c.encode(powerOffTimeout, forKey: .powerOffTimeout)
        try c.encode(locale, forKey: .locale)
        try c.encode(supportedLocales, forKey: .supportedLocales)
        try c.encode(nfcModuleState, forKey: .nfcModuleState)
        try c.encode(Hex.encode(kslID), forKey: .kslID)
        try c.encode(terminalState.description, forKey: .terminalState)
        try c.encode(dataCounter, forKey: .dataCounter)
        try c.encode(pinCounter, forKey: .pinCounter)
        try c.encode(Hex.encode(bankParameters), forKey: .bankParameters)
        try c.encode(clockSeconds, forKey: .clockSeconds)
        try c.encodeIfPresent(clockSetAtHost, forKey: .clockSetAtHost)
        try c.encode(itemVersions, forKey: .itemVersions)
    }
}

// MARK: - Store

/// Reads and writes `device.json` in the state directory. Writes are atomic (write to a temporary file, then rename),
/// so a crash never leaves half a file.
struct DeviceStore: Sendable {
    static let fileName = "device.json"

    let directory: String

    var path: String { directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName }

    /// The stored state; `nil` when there is no file yet. Throws `SimulatorError(.stateUnreadable)` for a file that
    /// exists but is not a device state.
    func load() throws(SimulatorError) -> DeviceState? {
        guard FileStatus.exists(path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(DeviceState.self, from: data)
        } catch {
            throw SimulatorError(
                .stateUnreadable,
                "cannot read the simulator state \(path): \(error); fix or delete the file"
            )
        }
    }

    func save(_ state: DeviceState) throws(SimulatorError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(state).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw SimulatorError(.stateUnwritable, "cannot write the simulator state \(path): \(error)")
        }
    }

    func remove() throws(SimulatorError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw SimulatorError(.stateUnwritable, "cannot remove the simulator state \(path): \(error)")
        }
    }
}

/// A simulator failure a user can act on. `code` is stable; `reason` says what happened and what to do.
package struct SimulatorError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable, Hashable {
        /// `device.json` exists but cannot be read or decoded.
        case stateUnreadable
        /// The state directory or `device.json` cannot be written.
        case stateUnwritable
        /// The TCP server could not bind its address.
        case bindFailed
        /// The TCP server's address is already taken by another socket (EADDRINUSE).
        case addressInUse
        /// A simulated firmware image or catalogue could not be written.
        case imageUnwritable
        /// A fault specification (`--fault`, `$UCUBE_SIM_FAULT`) is not one the simulator knows.
        case badFault
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { reason }
    package static func == (lhs: SimulatorError, rhs: SimulatorError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
