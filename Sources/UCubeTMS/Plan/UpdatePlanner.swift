import UCubeProtocol

/// The versions on the terminal that config items are compared with (spec §10.4): type 0 ↔ D1, 3 ↔ E8/D1, 4 ↔ EA,
/// 5 ↔ EB; other types have no device version.
package struct DeviceVersions: Hashable, Sendable {
    package var svppFirmware: FirmwareVersion?
    package var nfcFirmware: FirmwareVersion?
    package var iccEMVConfig: FirmwareVersion?
    package var nfcEMVConfig: FirmwareVersion?

    package init(
        svppFirmware: FirmwareVersion? = nil, nfcFirmware: FirmwareVersion? = nil,
        iccEMVConfig: FirmwareVersion? = nil, nfcEMVConfig: FirmwareVersion? = nil
    ) {
        self.svppFirmware = svppFirmware
        self.nfcFirmware = nfcFirmware
        self.iccEMVConfig = iccEMVConfig
        self.nfcEMVConfig = nfcEMVConfig
    }

    package init(_ info: DeviceInfo) {
        self.init(
            svppFirmware: info.firmwareVersion, nfcFirmware: info.nfcFirmwareVersion,
            iccEMVConfig: info.emvICCConfigVersion, nfcEMVConfig: info.emvNFCConfigVersion)
    }

    /// Whether GetInfo reports a version for items of `type` (derived from `version(forType:)`).
    package static func reportsVersion(forType type: Int) -> Bool {
        let zero = FirmwareVersion([0, 0, 0, 0])
        return DeviceVersions(svppFirmware: zero, nfcFirmware: zero, iccEMVConfig: zero, nfcEMVConfig: zero)
            .version(forType: type) != nil
    }

    /// The device version an item of `type` is compared with, nil when there is none.
    package func version(forType type: Int) -> FirmwareVersion? {
        switch type {
        case TMSItemType.svppFirmware: svppFirmware
        case TMSItemType.nfcFirmware: nfcFirmware
        case TMSItemType.iccEMVConfig: iccEMVConfig
        case TMSItemType.nfcEMVConfig: nfcEMVConfig
        default: nil
        }
    }
}

/// One update to apply: the config item, what the terminal has now, and whether it is mandatory.
package struct PlannedUpdate: Hashable, Sendable {
    package var item: TMSConfigItem
    package var deviceVersion: FirmwareVersion?
    package var mandatory: Bool

    package init(item: TMSConfigItem, deviceVersion: FirmwareVersion?, mandatory: Bool) {
        self.item = item
        self.deviceVersion = deviceVersion
        self.mandatory = mandatory
    }
}

/// Which config items to update, exactly per spec §10.4 (A-MDM:CheckUpdateService, CompareVersionsTask). Pure.
package enum UpdatePlanner {
    /// - Items keep the server's order.
    /// - `firmwareOnly` (checkOnlyFirmwareVersion) keeps types 0 and 3 only.
    /// - With a device version: skip when device > `current_version`, or equal and not `force`; else propose,
    ///   mandatory when device < `min_version`. Versions compare element-wise as 4 integers.
    /// - Without one (types 6, 8, unknown, or a version the terminal did not report): propose, mandatory, except
    ///   type 6 (misc parameters) which is never mandatory.
    /// - When the NFC firmware (3) is proposed, the NFC EMV config (5) of the list is proposed too (even when it alone
    ///   would be skipped or filtered out) and placed right after the NFC firmware.
    package static func plan(
        items: [TMSConfigItem], device: DeviceVersions, force: Bool = false, firmwareOnly: Bool = false
    ) -> [PlannedUpdate] {
        var planned: [PlannedUpdate] = []
        for item in items {
            if firmwareOnly && item.type != TMSItemType.svppFirmware && item.type != TMSItemType.nfcFirmware {
                continue
            }
            if let update = consider(item, device: device, force: force) { planned.append(update) }
        }
        guard let firmwareIndex = planned.firstIndex(where: { $0.item.type == TMSItemType.nfcFirmware }) else {
            return planned
        }
        guard let configItem = items.first(where: { $0.type == TMSItemType.nfcEMVConfig }) else { return planned }
        let firmware = planned[firmwareIndex]
        var config: PlannedUpdate
        if let i = planned.firstIndex(where: { $0.item == configItem }) {
            config = planned.remove(at: i)
        } else {
            let dv = device.version(forType: TMSItemType.nfcEMVConfig)
            config = PlannedUpdate(
                item: configItem, deviceVersion: dv, mandatory: dv.map { $0 < configItem.minVersion } ?? true)
        }
        if TMSChoices.nfcConfigInheritsFirmwareMandatory && firmware.mandatory { config.mandatory = true }
        let at = planned.firstIndex(where: { $0.item == firmware.item })! + 1
        planned.insert(config, at: at)
        return planned
    }

    /// One item alone (spec §10.4 CompareVersionsTask).
    static func consider(_ item: TMSConfigItem, device: DeviceVersions, force: Bool) -> PlannedUpdate? {
        guard let dv = device.version(forType: item.type) else {
            return PlannedUpdate(item: item, deviceVersion: nil, mandatory: item.type != TMSItemType.miscParameters)
        }
        if dv > item.currentVersion { return nil }
        if dv == item.currentVersion && !force { return nil }
        return PlannedUpdate(item: item, deviceVersion: dv, mandatory: dv < item.minVersion)
    }
}
