import ArgumentParser
import Foundation
import UCubeBluetooth
import UCubeLink
import UCubeRuntime

extension UCube {
    /// `ucube scan`: lists the uCube terminals BlueZ sees (spec §3.3).
    struct Scan: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan",
            abstract: "List the uCube terminals in Bluetooth range (name, address, RSSI, model).",
            discussion: """
                Runs a BlueZ discovery (bluetoothd over the D-Bus system bus) for --timeout seconds and lists the \
                devices that advertise the uCube Touch service or whose name contains "uCube" or "Touch" or starts \
                with "YT-" (spec §3.3), strongest signal first. An RSSI the controller does not know (none, or 127: \
                "not available") shows as unknown, null in --json. The adapter is the first one BlueZ lists, or \
                $UCUBE_BT_ADAPTER (e.g. hci1).
                """ + HelpExamples.section("scan"))

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("Seconds to scan.", valueName: "seconds"))
        var timeout: Double = Double(BluetoothChoices.scanDuration.components.seconds)

        @Option(
            help: ArgumentHelp("Only names matching this regular expression (case-insensitive).", valueName: "regex"))
        var name: String?

        @Flag(help: "List every Bluetooth device seen, not only uCube terminals.")
        var all = false

        func validate() throws {
            guard timeout >= 0 && timeout <= 600 else {
                throw ValidationError("--timeout must be between 0 and 600 seconds")
            }
        }

        /// One device. An unknown RSSI (none reported, or the controller's 127 "not available") is `null` in JSON
        /// and "unknown" in the text, so that it is never read as a signal of 127 dBm.
        struct Row: Encodable {
            let name: String?
            let address: String
            let rssi: Int?
            let model: String
            let paired: Bool
            let connected: Bool

            enum CodingKeys: String, CodingKey { case name, address, rssi, model, paired, connected }

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encodeIfPresent(name, forKey: .name)
                try c.encode(address, forKey: .address)
                // Present even when unknown: a reader finds the key and learns it is not known.
                if let rssi { try c.encode(rssi, forKey: .rssi) } else { try c.encodeNil(forKey: .rssi) }
                try c.encode(model, forKey: .model)
                try c.encode(paired, forKey: .paired)
                try c.encode(connected, forKey: .connected)
            }

            /// The text line: name, address, RSSI, model.
            var line: String {
                let rssi = rssi.map { "\($0) dBm" } ?? "unknown"
                return
                    "\(VisibleText.escaped(name ?? "(no name)").padding(toLength: 20, withPad: " ", startingAt: 0)) \(address)  \(rssi.padding(toLength: 8, withPad: " ", startingAt: 0)) \(model)\(paired ? ", paired" : "")"
            }
        }

        func run(in context: CommandContext) async throws {
            let rows: [Row]
            do {
                let filter = try name.map { (pattern: String) throws(LinkError) in try BLEScanner.NameFilter(pattern) }
                rows = try await BLEScanner.scan(
                    duration: .milliseconds(Int64(timeout * 1000)), name: filter, allDevices: all
                ).map {
                    Row(
                        name: $0.name, address: $0.address, rssi: $0.rssi, model: $0.model, paired: $0.paired,
                        connected: $0.connected)
                }
            } catch {
                throw CLIFailure(error)
            }
            try Found(rows: rows, seconds: timeout).print(json: context.json)
        }

        /// What a scan found: a JSON array of rows, or a line per row (a hint when there is none).
        struct Found: Report {
            let rows: [Row]
            let seconds: Double

            var lines: [String] {
                guard !rows.isEmpty else {
                    return [
                        "no uCube terminal found (scanned \(seconds) s); is it on and in range? --all lists every device"
                    ]
                }
                return rows.map(\.line)
            }

            func encode(to encoder: any Encoder) throws {
                var c = encoder.singleValueContainer()
                try c.encode(rows)
            }
        }
    }
}
