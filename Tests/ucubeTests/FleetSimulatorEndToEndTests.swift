import Foundation
import Testing

/// `ucube simulate --fleet N`: N terminals on their own ports with their own serials, their addresses printed as a
/// devices file, and faults per terminal — one that never answers, a link dropped at a Load block, an image refused.
@Suite(.serialized) struct FleetSimulatorEndToEndTests {
    /// The firmware version GetInfo reports, from `info --json`.
    static func firmware(_ sandbox: UCubeSandbox, _ device: String) async throws -> (serial: String, firmware: String)?
    {
        let run = try await sandbox.run(
            ["--device", device, "--json", "--rpc-timeout", "15", "info"])
        guard run.status == 0,
            let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
            let info = json["response"] as? [String: Any]
        else { return nil }
        return ("\(info["serialNumber"] ?? "?")", "\(info["firmwareVersion"] ?? "?")")
    }

    @Test func aFleetWithAFaultPerTerminal() async throws {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let images = try RecoveryEndToEndTests.Images()
        let devicesFile = sandbox.directory.appendingPathComponent("devices")
        let (process, out, _) = try sandbox.startCapturing([
            "simulate", "--fleet", "4", "--listen", "127.0.0.1:0", "--state-dir",
            sandbox.directory.appendingPathComponent("fleet").path,
            "--devices-file", devicesFile.path, "--fleet-fault", "2:silent@1", "--fleet-fault", "3:load-drop@2",
            "--fleet-fault", "4:refuse-image",
        ])
        defer { process.terminate() }
        var printed = ""
        while printed.split(separator: "\n").count < 4 {
            let more = await UCubeSandbox.readUntil(out, contains: "\n")
            guard !more.isEmpty else { break }
            printed += more
        }
        let devices = printed.split(separator: "\n").map(String.init)
        #expect(devices.count == 4 && devices.allSatisfy { $0.hasPrefix("tcp://127.0.0.1:") }, "\(printed)")
        #expect(Set(devices).count == 4)
        #expect(try String(contentsOf: devicesFile, encoding: .utf8) == devices.joined(separator: "\n") + "\n")

        // Distinct serials; terminal 2 never answers.
        let first = try #require(try await Self.firmware(sandbox, devices[0]))
        #expect(try await Self.firmware(sandbox, devices[1]) == nil)
        let third = try #require(try await Self.firmware(sandbox, devices[2]))
        let fourth = try #require(try await Self.firmware(sandbox, devices[3]))
        #expect(Set([first.serial, third.serial, fourth.serial]).count == 3, "\(first) \(third) \(fourth)")

        let update = ["mdm-update", "--file", images.svpp.image, "--signature", images.svpp.signature]
        let dropped = try await sandbox.run(["--device", devices[2]] + update)
        #expect(dropped.status != 0, "the link dropped at Load block 2: \(dropped.stdout) \(dropped.stderr)")
        #expect(try await Self.firmware(sandbox, devices[2])?.firmware == third.firmware, "the old firmware stays")
        let refused = try await sandbox.run(["--device", devices[3]] + update)
        #expect(refused.status == 9, "\(refused.stdout) \(refused.stderr)")
        #expect(try await Self.firmware(sandbox, devices[3])?.firmware == fourth.firmware, "the old firmware stays")
        let installed = try await sandbox.run(["--device", devices[0]] + update, timeout: .seconds(90))
        #expect(installed.status == 0, "\(installed.stdout) \(installed.stderr)")
        #expect(try await Self.firmware(sandbox, devices[0])?.firmware == "6.0.2.0")
    }

    @Test(arguments: [
        ["--fleet", "0"], ["--fleet", "2", "--fleet-fault", "3:silent@1"], ["--fleet-fault", "1:silent@1"],
        ["--fleet", "2", "--fleet-fault", "1:wobble@1"],
    ])
    func badFleetOptionsAreUsageErrors(arguments: [String]) async throws {
        let run = try await UCubeSandbox().run(["simulate", "--listen", "127.0.0.1:0"] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
    }
}
