import ArgumentParser
import Foundation
import UCubeBluetooth
import UCubeLink

extension UCube {
    /// `ucube scan`: lists the uCube terminals BlueZ sees (spec §3.3).
    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan",
            abstract: "List the uCube terminals in Bluetooth range (name, address, RSSI, model).",
            discussion: """
                Runs a BlueZ discovery (bluetoothd over the D-Bus system bus) for --timeout seconds and lists the \
                devices that advertise the uCube Touch service or whose name contains "uCube" or "Touch" or starts \
                with "YT-" (spec §3.3), strongest signal first. The adapter is the first one BlueZ lists, or \
                $UCUBE_BT_ADAPTER (e.g. hci1).
                """)

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("Seconds to scan.", valueName: "seconds"))
        var timeout: Double = Double(BluetoothChoices.scanDuration.components.seconds)

        @Option(help: ArgumentHelp("Only names matching this regular expression (case-insensitive).", valueName: "regex"))
        var name: String?

        @Flag(help: "List every Bluetooth device seen, not only uCube terminals.")
        var all = false

        func validate() throws {
            guard timeout >= 0 && timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
        }

        struct Row: Encodable {
            let name: String?
            let address: String
            let rssi: Int?
            let model: String
            let paired: Bool
            let connected: Bool
        }

        func run() async throws {
            let rows: [Row]
            do {
                let filter = try name.map { (pattern: String) throws(LinkError) in try BLEScanner.NameFilter(pattern) }
                rows = try await BLEScanner.scan(
                    duration: .milliseconds(Int64(timeout * 1000)), name: filter, allDevices: all
                ).map { Row(name: $0.name, address: $0.address, rssi: $0.rssi, model: $0.model, paired: $0.paired, connected: $0.connected) }
            } catch {
                throw CLIFailure(error)
            }
            if globals.json {
                try JSONOutput.print(rows)
                return
            }
            if rows.isEmpty {
                print("no uCube terminal found (scanned \(timeout) s); is it on and in range? --all lists every device")
                return
            }
            for r in rows {
                let rssi = r.rssi.map { "\($0) dBm" } ?? "—"
                print("\((r.name ?? "(no name)").padding(toLength: 20, withPad: " ", startingAt: 0)) \(r.address)  \(rssi.padding(toLength: 8, withPad: " ", startingAt: 0)) \(r.model)\(r.paired ? ", paired" : "")")
            }
        }
    }
}
