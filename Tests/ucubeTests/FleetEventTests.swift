import Synchronization
import Testing
import UCubeProtocol
import UCubeRuntime
import UCubeTMS

@testable import UCubeCLI

/// A fleet run's terminal tells the run what happened as values (`FleetEvent`): its result with what the summary says
/// of it, its failure, mdm-update's items and test's cases. The run makes the verdict from them and never reads back
/// the JSON a command printed (issue 42, item 4).
struct FleetEventTests {
    /// What one terminal's command handed to its `DeviceOutput`.
    private final class Collected: Sendable {
        let events = Mutex<[FleetEvent]>([])
        let text = Mutex<[String]>([])

        func output(_ device: String = "tcp://10.0.0.7:8888") -> DeviceOutput {
            DeviceOutput(
                device: device, stdout: { text in self.text.withLock { $0.append(text) } }, stderr: { _ in },
                report: { event in self.events.withLock { $0.append(event) } })
        }
    }

    @Test func aTerminalsResultFailureAndItemsReachTheRunAsValues() throws {
        let collected = Collected()
        var verdict = UpdateVerdict(item: "firmware", type: 0, from: "6.0.0.54", to: "6.0.2.0", result: .installed)
        verdict.seconds = 1.5
        try DeviceOutput.$current.withValue(collected.output()) {
            try UCube.MDMRegister.Registered(
                output: .init(serial: "202401002", partNumber: "UCUBE-TOUCH", registered: true, identity: nil),
                text: "registered"
            ).print(json: true)
            UpdateOutput(json: true).verdict(verdict)
            UpdateOutput(json: true).done(installed: 1, failed: 0)
            Console.report(
                CLIFailure(ExitCodes.link, "the link dropped"), json: true, showDetail: false,
                textAlreadyShown: true)
            Console.out("a line of text\n")
        }
        let events = collected.events.withLock { $0 }
        #expect(events.count == 4)
        guard events.count == 4 else { return }
        guard case .result(let value, let summary) = events[0] else {
            Issue.record("the result came as \(events[0])")
            return
        }
        #expect(summary == FleetSummary(detail: "serial 202401002 registered"))
        #expect(value["serial"]?.text == "202401002")
        #expect(value["version"]?.text == "1", "the result is the document the command alone would print")
        guard case .item(let item) = events[1] else {
            Issue.record("the item came as \(events[1])")
            return
        }
        #expect(item == verdict)
        guard case .updateDone(1, 0, nil) = events[2] else {
            Issue.record("the end came as \(events[2])")
            return
        }
        guard case .failure(let body) = events[3] else {
            Issue.record("the failure came as \(events[3])")
            return
        }
        #expect(body.message == "the link dropped")
        #expect(body.exit == ExitCodes.link.code)
        #expect(collected.text.withLock { $0 } == ["a line of text\n"], "text stays text")
    }

    @Test func theVerdictIsMadeFromTheEvents() {
        var items: [FleetVerdict.Item] = []
        var detail: String?
        var hint: String?
        var failed = UpdateVerdict(item: "emv-config", type: 1, from: nil, to: "2", result: .failed)
        failed.error = "the terminal refused the image"
        let events: [FleetEvent] = [
            .item(UpdateVerdict(item: "firmware", type: 0, from: "1", to: "2", result: .installed)), .item(failed),
            .output("ignored by the verdict"), .updateDone(installed: 1, failed: 1, optional: nil),
        ]
        for event in events { DeviceCapture.record(event, into: &items, detail: &detail, hint: &hint) }
        #expect(items.map(\.item) == ["firmware", "emv-config"])
        #expect(items.map(\.result) == ["installed", "failed"])
        #expect(items[1].error == "the terminal refused the image")
        #expect(detail == "1 installed, 1 failed")
        #expect(hint == nil)

        items = []
        for (name, result) in [("visa", "passed"), ("mc", "failed"), ("amex", "not-run")] {
            DeviceCapture.record(
                .testCase(FleetVerdict.Item(item: name, result: result)), into: &items, detail: &detail, hint: &hint)
        }
        #expect(detail == "1 of 3 cases passed")

        DeviceCapture.record(
            .result(.null, FleetSummary(detail: "1 blocking, 0 warnings", hint: "start it")), into: &items,
            detail: &detail, hint: &hint)
        #expect(detail == "1 blocking, 0 warnings")
        #expect(hint == "start it")
        DeviceCapture.record(
            .updateDone(installed: 0, failed: 0, optional: 2), into: &items, detail: &detail, hint: &hint)
        #expect(detail == "nothing to install")
    }

    @Test func infoTellsTheSummaryWhoTheTerminalIs() throws {
        // C3: the serial number times four, 5 bytes big-endian; D1: the firmware version (spec §7.1).
        let info = DeviceInfo(tlvs: [
            TLV(Tag(0xC3), [0x00, 0x30, 0x41, 0x93, 0xA4]), TLV(Tag(0xD1), [6, 0, 0, 54]),
        ])
        #expect(info.serialNumber == "202401001")
        let reply = RPCOutput.ReplyJSON(
            command: "get-info", commandID: "5001", sequence: 1, secured: false,
            status: RPCOutput.StatusJSON(.success), response: info, ciphered: false, data: "", mac: nil)
        #expect(reply.fleetSummary == FleetSummary(detail: "serial 202401001, firmware 6.0.0.54"))
        let silent = RPCOutput.ReplyJSON<DeviceInfo>(
            command: "get-info", commandID: "5001", sequence: 1, secured: false,
            status: RPCOutput.StatusJSON(.success), response: nil, ciphered: true, data: "", mac: nil)
        #expect(silent.fleetSummary == FleetSummary())
    }

    @Test func diagnoseHintsComeFromTheFindingsThatAreNotOKEachOnce() {
        var report = DiagnoseReport(device: "sim")
        report.ok(.link, "open", "the link opened")
        report.add(.terminal, "battery", .warning, "battery-low", "12 %", hint: "charge it")
        report.add(.link, "service", .blocking, "connection-refused", "refused", hint: "start it")
        report.add(.disk, "space", .warning, "disk-space-low", "1 MB", hint: "charge it")
        let summary = report.fleetSummary
        // The report's order is by area (link first), as its `hint:` lines read.
        #expect(summary.hint == "start it; charge it")
        #expect(summary.detail == "1 blocking, 2 warnings")
        let clean = DiagnoseReport(device: "sim").fleetSummary
        #expect(clean == FleetSummary(detail: "nothing blocks a payment; 0 warnings"))
    }

    @Test func eventLinesReadAsTheCommandAloneWritesThem() {
        var verdict = UpdateVerdict(item: "firmware", type: 0, from: nil, to: "6.0.2.0", result: .failed)
        verdict.error = "refused"
        #expect(
            FleetEvent.item(verdict).json.versionedLine
                == #"{"error":"refused","event":"item","from":null,"item":"firmware","result":"failed","to":"6.0.2.0","type":0,"version":1}"#
        )
        #expect(FleetEvent.item(verdict).text == "firmware — → 6.0.2.0: FAILED: refused")
        #expect(
            FleetEvent.updateDone(installed: 0, failed: 0, optional: 2).json.versionedLine
                == #"{"event":"done","failed":0,"installed":0,"optional":2,"version":1}"#)
        let testCase = FleetEvent.testCase(FleetVerdict.Item(item: "visa", result: "passed", seconds: 0.25))
        #expect(
            testCase.json.line == #"{"case":"visa","error":null,"event":"case","result":"passed","seconds":0.250}"#)
        #expect(testCase.text == "visa: passed")
        #expect(FleetEvent.output("hello").text == "hello")
        #expect(FleetEvent.updateDone(installed: 1, failed: 0, optional: nil).text == nil)
    }
}
