import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// `ucube connect --list`: every column as wide as its longest value, so a name copied from it works with
/// `--device` (issue 12: names were cut at 20 characters, addresses at 28).
@Suite struct ConnectListTests {
    static let longName = "Shop counter terminal 0001 (back office)"

    @Test func aLongNameIsShownWholeAndWorksWithDevice() async throws {
        let sandbox = try UCubeSandbox()
        let devices = [
            RememberedDevice(
                name: Self.longName, address: "sim", transport: "sim", serial: "202401001", isDefault: false),
            RememberedDevice(
                name: "YT-Touch-0002", address: "tcp://a-rather-long-host-name.example.internal:5000", transport: "tcp",
                serial: nil, isDefault: true),
        ]
        let config = sandbox.directory.appendingPathComponent("config/ucube")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try JSONEncoder().encode(devices).write(to: config.appendingPathComponent("devices.json"))

        let list = try await sandbox.run(["connect", "--list"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(list.stdout)")
        #expect(list.stdout.contains("tcp://a-rather-long-host-name.example.internal:5000"))
        // The name, copied as the shell reads it, is the remembered name and selects that terminal.
        let row = try #require(lines.first { $0.contains("Shop counter") })
        let words = try ShellWords.split(row)
        #expect(words.first == Self.longName, "\(row)")
        let info = try await sandbox.run(["--device", try #require(words.first), "info"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("serial number: 202401001"))
        // The columns line up: the address starts at the same place on every line.
        let default_ = try #require(lines.first { $0.hasPrefix("* ") })
        #expect(
            row.range(of: "sim")?.lowerBound.utf16Offset(in: row)
                == default_.range(of: "tcp://")?.lowerBound.utf16Offset(in: default_))
    }

    @Test func columnsAreSizedToTheirContent() {
        let lines = UCube.Connect.listLines([
            RememberedDevice(name: "a", address: "sim", transport: "sim", serial: nil, isDefault: true),
            RememberedDevice(name: "bb", address: "tcp://h:1", transport: "tcp", serial: "42", isDefault: false),
        ])
        #expect(lines == ["* a   sim        sim", "  bb  tcp://h:1  tcp  42"])
    }
}
