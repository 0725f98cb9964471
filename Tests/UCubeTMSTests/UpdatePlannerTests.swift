import Testing
import UCubeProtocol

@testable import UCubeTMS

private func v(_ s: String) -> FirmwareVersion { FirmwareVersion(s)! }

private func item(_ type: Int, min: String = "1.0.0.0", current: String = "2.0.0.0") -> TMSConfigItem {
    TMSConfigItem(type: type, ciphered: false, label: "t\(type)", minVersion: v(min), currentVersion: v(current))
}

@Suite("Update planner (spec §10.4)")
struct UpdatePlannerTests {
    @Test func deviceNewerThanCurrentIsSkippedEvenWithForce() {
        let device = DeviceVersions(svppFirmware: v("2.0.0.1"))
        #expect(UpdatePlanner.plan(items: [item(0)], device: device).isEmpty)
        #expect(UpdatePlanner.plan(items: [item(0)], device: device, force: true).isEmpty)
    }

    @Test func equalIsSkippedUnlessForced() {
        let device = DeviceVersions(svppFirmware: v("2.0.0.0"))
        #expect(UpdatePlanner.plan(items: [item(0)], device: device).isEmpty)
        let forced = UpdatePlanner.plan(items: [item(0)], device: device, force: true)
        #expect(forced.map(\.item.type) == [0])
        #expect(forced.first?.mandatory == false)
        #expect(forced.first?.deviceVersion == v("2.0.0.0"))
    }

    @Test func olderIsProposedMandatoryOnlyBelowMinVersion() {
        let between = UpdatePlanner.plan(items: [item(4)], device: DeviceVersions(iccEMVConfig: v("1.5.0.0")))
        #expect(between.count == 1 && between[0].mandatory == false)
        let atMin = UpdatePlanner.plan(items: [item(4)], device: DeviceVersions(iccEMVConfig: v("1.0.0.0")))
        #expect(atMin.count == 1 && atMin[0].mandatory == false)
        let below = UpdatePlanner.plan(items: [item(4)], device: DeviceVersions(iccEMVConfig: v("0.9.255.255")))
        #expect(below.count == 1 && below[0].mandatory == true)
    }

    @Test func comparesFourIntegersNotText() {
        // "10" > "9" numerically, while text comparison would say otherwise.
        let plan = UpdatePlanner.plan(
            items: [item(0, min: "1.0.0.9", current: "1.0.0.10")], device: DeviceVersions(svppFirmware: v("1.0.0.9")))
        #expect(plan.count == 1 && plan[0].mandatory == false)
        let newer = UpdatePlanner.plan(
            items: [item(0, current: "1.0.0.9")], device: DeviceVersions(svppFirmware: v("1.0.0.10")))
        #expect(newer.isEmpty)
    }

    @Test func eachTypeUsesItsDeviceVersion() {
        let device = DeviceVersions(
            svppFirmware: v("2.0.0.0"), nfcFirmware: v("1.0.0.0"), iccEMVConfig: v("2.0.0.0"),
            nfcEMVConfig: v("3.0.0.0"))
        #expect(device.version(forType: 0) == v("2.0.0.0"))
        #expect(device.version(forType: 3) == v("1.0.0.0"))
        #expect(device.version(forType: 4) == v("2.0.0.0"))
        #expect(device.version(forType: 5) == v("3.0.0.0"))
        #expect(device.version(forType: 6) == nil)
        #expect(device.version(forType: 8) == nil)
        let plan = UpdatePlanner.plan(items: [item(0), item(4), item(5)], device: device)
        #expect(plan.isEmpty)
    }

    @Test func noDeviceVersionIsProposedAndMandatoryExceptMiscParameters() {
        let plan = UpdatePlanner.plan(items: [item(6), item(8), item(42), item(0)], device: DeviceVersions())
        #expect(plan.map(\.item.type) == [6, 8, 42, 0])
        #expect(plan.map(\.mandatory) == [false, true, true, true])
        #expect(plan.allSatisfy { $0.deviceVersion == nil })
    }

    @Test func firmwareOnlyKeepsTypes0And3() {
        let items = [item(0), item(3), item(4), item(6), item(8)]
        let plan = UpdatePlanner.plan(items: items, device: DeviceVersions(), firmwareOnly: true)
        #expect(plan.map(\.item.type) == [0, 3])
    }

    @Test func nfcFirmwareBringsNFCConfigRightAfterIt() {
        // Server lists the config first and the config alone would be skipped (device is current).
        let items = [item(5), item(0), item(3)]
        let device = DeviceVersions(svppFirmware: v("1.5.0.0"), nfcFirmware: v("1.5.0.0"), nfcEMVConfig: v("2.0.0.0"))
        let plan = UpdatePlanner.plan(items: items, device: device)
        #expect(plan.map(\.item.type) == [0, 3, 5])
        #expect(plan[2].deviceVersion == v("2.0.0.0"))
    }

    @Test func nfcConfigIsMovedAfterFirmwareWhenBothProposed() {
        let items = [item(5), item(3), item(4)]
        let plan = UpdatePlanner.plan(
            items: items,
            device: DeviceVersions(nfcFirmware: v("1.5.0.0"), iccEMVConfig: v("1.5.0.0"), nfcEMVConfig: v("1.5.0.0")))
        #expect(plan.map(\.item.type) == [3, 5, 4])
        #expect(plan.filter { $0.item.type == 5 }.count == 1)
    }

    @Test func nfcConfigIsAddedEvenWithFirmwareOnly() {
        let items = [item(3), item(4), item(5)]
        let plan = UpdatePlanner.plan(
            items: items, device: DeviceVersions(nfcFirmware: v("0.1.0.0"), nfcEMVConfig: v("2.0.0.0")),
            firmwareOnly: true)
        #expect(plan.map(\.item.type) == [3, 5])
        // PROJECT CHOICE: follows the mandatory NFC firmware.
        #expect(plan.map(\.mandatory) == [true, TMSChoices.nfcConfigInheritsFirmwareMandatory])
    }

    @Test func nfcConfigNotAddedWithoutNFCFirmwareUpdate() {
        let items = [item(3), item(5)]
        let plan = UpdatePlanner.plan(
            items: items, device: DeviceVersions(nfcFirmware: v("2.0.0.0"), nfcEMVConfig: v("2.0.0.0")))
        #expect(plan.isEmpty)
    }

    @Test func deviceVersionsFromGetInfo() throws {
        let info = DeviceInfo(tlvs: [
            TLV(Tag(0xD1), [1, 2, 3, 4]),
            TLV(Tag(0xE8), children: [TLV(Tag(0xD1), [5, 6, 7, 8])]),
            TLV(Tag(0xEA), [9, 10, 11, 12]),
            TLV(Tag(0xEB), [13, 14, 15, 200]),
        ])
        let d = DeviceVersions(info)
        #expect(d.svppFirmware == v("1.2.3.4"))
        #expect(d.nfcFirmware == v("5.6.7.8"))
        #expect(d.iccEMVConfig == v("9.10.11.12"))
        #expect(d.nfcEMVConfig == v("13.14.15.200"))
    }

    @Test func itemTypeNames() {
        #expect(TMSItemType.name(0) == "SVPP firmware")
        #expect(TMSItemType.name(3) == "NFC firmware")
        #expect(TMSItemType.name(4) == "ICC EMV configuration")
        #expect(TMSItemType.name(5) == "NFC EMV configuration")
        #expect(TMSItemType.name(6) == "miscellaneous parameters")
        #expect(TMSItemType.name(8) == "additional files")
        #expect(TMSItemType.name(7) == "type 7")
    }
}

@Suite("Config reply parsing (spec §10.4)")
struct TMSConfigReplyTests {
    let url = "https://tms.example/MDM/jaxrs/v2/dongle/config/1/P"

    @Test func parsesTheDocumentedShape() throws {
        let json =
            #"{"status":"ok","data":{"config":[{"type":0,"ciphered":false,"label":"fw","min_version":"1.0.0.0","current_version":"6.0.0.54"},{"type":5,"ciphered":true,"min_version":"0.0.0.1","current_version":"0.0.0.2"}]}}"#
        let items = try TMSConfigReply.parse(Array(json.utf8), url: url)
        #expect(items.count == 2)
        #expect(
            items[0]
                == TMSConfigItem(
                    type: 0, ciphered: false, label: "fw", minVersion: v("1.0.0.0"), currentVersion: v("6.0.0.54")))
        #expect(items[1].label == nil && items[1].ciphered)
    }

    @Test(arguments: [
        "not json",
        #"{"status":"error","data":{"config":[]}}"#,
        #"{"status":"ok"}"#,
        #"{"status":"ok","data":{"config":[{"type":0,"ciphered":false,"min_version":"1.0.0","current_version":"1.0.0.0"}]}}"#,
        #"{"status":"ok","data":{"config":[{"type":0,"ciphered":false,"min_version":"1.0.0.256","current_version":"1.0.0.0"}]}}"#,
        #"{"status":"ok","data":{"config":[{"type":"0","ciphered":false,"min_version":"1.0.0.0","current_version":"1.0.0.0"}]}}"#,
        #"{"status":"ok","data":{"config":[{"ciphered":false,"min_version":"1.0.0.0","current_version":"1.0.0.0"}]}}"#,
        #"[1,2,3]"#,
        "",
    ])
    func rejectsAnythingElse(_ body: String) {
        #expect(throws: TMSError(.malformedReply, "")) { try TMSConfigReply.parse(Array(body.utf8), url: url) }
        do {
            _ = try TMSConfigReply.parse(Array(body.utf8), url: url)
        } catch {
            #expect(error.reason.contains(url))
        }
    }

    @Test func rejectsOversize() {
        let body = [UInt8](repeating: 0x20, count: TMSChoices.maximumConfigReply + 1)
        #expect(throws: TMSError(.malformedReply, "")) { try TMSConfigReply.parse(body, url: url) }
    }
}

/// A config list is checked whole before anything is planned (issue: the SVPP firmware listed three times gave three
/// downloads and "2 of 3 items not installed" on an up-to-date terminal; nine thousand items, nine thousand requests).
@Suite struct ConfigListCheckTests {
    @Test func aTerminalsConfigurationPasses() throws {
        try ConfigListProblem.check([item(0), item(3), item(4), item(5), item(6), item(8)])
        try ConfigListProblem.check([])
    }

    @Test func aRepeatedTypeIsRefusedNamingBothItems() {
        #expect(throws: ConfigListProblem.repeatedType(type: 0, positions: [0, 2])) {
            try ConfigListProblem.check([item(0), item(4), item(0), item(0)])
        }
        // The description names the item type.
        let problem = ConfigListProblem.repeatedType(type: 0, positions: [0, 2])
        #expect(problem.description.contains(TMSItemType.name(0)))
    }

    @Test func tooManyItemsAreRefusedBeforeAnyIsLookedAt() {
        let many = (0..<9000).map { item($0 % 200) }
        #expect(throws: ConfigListProblem.tooManyItems(count: 9000)) { try ConfigListProblem.check(many) }
        let atLimit = (0..<TMSChoices.maximumConfigItems).map { item($0) }
        #expect(throws: Never.self) { try ConfigListProblem.check(atLimit) }
    }

    @Test func implausibleItemsAreRefused() {
        #expect(throws: ConfigListProblem.typeOutOfRange(type: 300, position: 1)) {
            try ConfigListProblem.check([item(0), item(300)])
        }
        #expect(throws: ConfigListProblem.minimumAboveCurrent(type: 4, position: 0)) {
            try ConfigListProblem.check([item(4, min: "3.0.0.0", current: "2.0.0.0")])
        }
    }

    /// Through the reply parser: a TMS that sends a repeated item gets `.malformedReply`, and nothing is planned.
    @Test func theReplyParserRefusesARepeatedItem() {
        let entry = #"{"type":0,"ciphered":true,"label":"SVPP","min_version":"1.0.0.0","current_version":"6.0.0.54"}"#
        let body = #"{"status":"ok","data":{"config":["# + [entry, entry, entry].joined(separator: ",") + "]}}"
        #expect {
            _ = try TMSConfigReply.parse(Array(body.utf8), url: "https://tms/config")
        } throws: { error in
            guard let error = error as? TMSError else { return false }
            return error.code == .malformedReply && error.reason.contains("more than once")
        }
    }
}
