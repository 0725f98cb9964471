import ArgumentParser
import Foundation
import UCubeBluetooth
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeRuntime

extension UCube {
    /// `ucube connect DEVICE`: connects, reads GetInfo, shows the terminal and remembers it as the default device.
    struct Connect: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "connect",
            abstract: "Connect to a terminal, show it, and remember it as the default device.",
            discussion: """
                DEVICE is ble://ADDRESS, ble://NAME, rfcomm://ADDRESS[/CHANNEL], tcp://HOST:PORT, serial:///dev/NAME, \
                a plain advertised name (taken as BLE), or a remembered name. A BLE terminal BlueZ does not know yet \
                is scanned for first; the power state and connection password handshake (spec §3.1) runs on every \
                BLE connection. The terminal is remembered in $XDG_CONFIG_HOME/ucube/devices.json under its \
                advertised name, so `--device NAME` finds it, and becomes the default device.
                """ + HelpExamples.section("connect"))

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("The terminal to connect to.", valueName: "device"))
        var device: String?

        @Option(help: ArgumentHelp("Seconds one connection attempt may take (BLE).", valueName: "seconds"))
        var timeout: Double = Double(BluetoothChoices.connectTimeout.components.seconds)

        @Option(help: ArgumentHelp("Connection attempts (BLE).", valueName: "count"))
        var tries: Int = BluetoothChoices.connectAttempts

        @Flag(help: "List the remembered terminals.")
        var list = false

        @Option(help: ArgumentHelp("Forget a remembered terminal.", valueName: "name"))
        var forget: String?

        @Option(
            help: ArgumentHelp(
                "Remember this terminal's authorisation host: exec:PROGRAM or https://HOST[:PORT]/PATH, which its payments use when their line gives no --authorize (docs/authorization.md).",
                valueName: "hook"))
        var authorize: String?

        @Option(
            help: ArgumentHelp(
                "With --authorize https://…: remember the PEM file of the CAs the host's certificate chains to.",
                valueName: "file"))
        var authorizeCA: String?

        func validate() throws {
            let modes = (device == nil ? 0 : 1) + (list ? 1 : 0) + (forget == nil ? 0 : 1)
            guard modes == 1 else { throw ValidationError("give a DEVICE to connect to, or --list, or --forget NAME") }
            guard timeout > 0 && timeout <= 600 else {
                throw ValidationError("--timeout must be between 0 and 600 seconds")
            }
            guard (1...20).contains(tries) else { throw ValidationError("--tries must be between 1 and 20") }
            if authorize != nil || authorizeCA != nil {
                guard device != nil else { throw ValidationError("--authorize and --authorize-ca go with a DEVICE") }
                guard let authorize else { throw ValidationError("--authorize-ca goes with --authorize https://…") }
                do {
                    guard
                        try HostHook.parse(
                            authorize, files: HostTLSFiles(ca: authorizeCA.map(HTTPSHook.absolute))) != nil
                    else {
                        throw ValidationError(
                            "--authorize: a terminal remembers a host, exec:PROGRAM or https://HOST[:PORT]/PATH, not '\(authorize)'"
                        )
                    }
                } catch let error as HostHookError {
                    throw ValidationError(error.description)
                }
            }
        }

        struct Shown: Encodable {
            let device: RememberedDevice
            let info: DeviceInfo?
        }

        func run(in context: CommandContext) async throws {
            if list { return try printList(json: context.json) }
            if let forget {
                guard try RememberedDevices.forget(forget) else {
                    throw CLIFailure(
                        ExitCodes.usage, "no remembered terminal named '\(forget)' (see `ucube connect --list`)")
                }
                try ValueReport(value: ["forgot": forget], lines: ["forgot \(forget)"]).print(json: context.json)
                return
            }
            guard let device else { return }
            var address: DeviceAddress
            do {
                address = try DeviceAddress(parsing: device)
            } catch {
                throw CLIFailure(ExitCodes.usage, error.reason)
            }
            if case .remembered(let name) = address {
                if let known = try RememberedDevices.find(name) {
                    address = (try? DeviceAddress(parsing: known.address)) ?? .ble(name)
                } else {
                    address = .ble(name)  // a plain name: a uCube Touch's advertised name
                }
            }
            let options = BLEConnectOptions(timeout: .milliseconds(Int64(timeout * 1000)), attempts: tries)
            let connection = try await Connection.open(context, address: address, bluetooth: options)
            let reply: Reply<GetInfo.Response>
            do {
                reply = try await connection.client.send(GetInfo())
            } catch {
                await connection.close()
                throw CLIFailure(error)
            }
            await connection.close()
            guard reply.succeeded, let info = reply.response else {
                throw CLIFailure(
                    ExitCodes.terminalStatus,
                    "the terminal answered GetInfo with \(reply.status) (in a secure session? run `ucube rpc exit-secure-session`)"
                )
            }
            let canonical: DeviceAddress = {
                if case .ble = address, let transportName = connection.transportAddress { return .ble(transportName) }
                return address
            }()
            let record = RememberedDevice(
                name: connection.peerName ?? device, address: canonical.description,
                transport: RememberedDevices.transportName(canonical), serial: info.serialNumber, isDefault: true,
                authorize: authorize, authorizeCA: authorizeCA.map(HTTPSHook.absolute))
            try RememberedDevices.remember(record)
            let lines =
                ["connected to \(record.name) (\(record.address))"] + info.summary
                + ["remembered as '\(record.name)', now the default device (--device \(ShellWords.quote(record.name)))"]
            try ValueReport(value: Shown(device: record, info: info), lines: lines).print(json: context.json)
        }

        /// One line per terminal: `*` for the default, then name, address, transport and serial in columns as wide
        /// as their longest value (nothing is cut). A name that needs quoting is printed quoted, so it can be pasted
        /// after `--device`.
        static func listLines(_ devices: [RememberedDevice]) -> [String] {
            let rows = devices.map {
                [
                    ShellWords.quote($0.name), $0.address, $0.transport,
                    ($0.serial ?? "") + ($0.authorize.map { "  authorize " + $0 } ?? ""),
                ]
            }
            let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return zip(devices, rows).map { device, row in
                let padded =
                    (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) } + [row[3]]
                let line = (device.isDefault ? "* " : "  ") + padded.joined(separator: "  ")
                return String(line.reversed().drop { $0 == " " }.reversed())
            }
        }

        private func printList(json: Bool) throws {
            let devices = try RememberedDevices.load()
            let lines =
                devices.isEmpty
                ? ["no remembered terminals: `ucube connect DEVICE` remembers one"] : Self.listLines(devices)
            try ValueReport(value: devices, lines: lines).print(json: json)
        }
    }
}
