import ArgumentParser
import Foundation
import UCubeProtocol
import UCubeSimulator

extension UCube {
    /// `ucube simulate --listen`: serves the built-in terminal simulator over TCP.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Serve the built-in uCube Touch simulator over TCP for another ucube or any client.",
            discussion: """
                Raw RPC frames over TCP (spec §3.4). Port 0 picks a free port; the bound address is printed on \
                stdout as `listening on tcp://HOST:PORT`. The device state lives in $UCUBE_SIM_HOME (default \
                $XDG_STATE_HOME/ucube/simulator) unless --state-dir says otherwise.
                """)

        enum LinkModelName: String, ExpressibleByArgument, CaseIterable {
            case none, ble, classic
        }

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("Address to listen on.", valueName: "host:port"))
        var listen: String = "127.0.0.1:5000"

        @Option(help: "Seed for every simulated random value (deterministic runs).")
        var seed: UInt64?

        @Option(help: ArgumentHelp("Directory for the simulated device's persistent state.", valueName: "dir"))
        var stateDir: String?

        @Option(help: "Link model: none, or ble / classic latency and throughput.")
        var linkModel: LinkModelName = .none

        @Option(help: ArgumentHelp("Stream format: raw frames, or ble (byte-stuffed with end-of-message markers, for a BlueZ mock relay).", valueName: "codec"))
        var codec: CodecName = .raw

        enum CodecName: String, ExpressibleByArgument, CaseIterable {
            case raw, ble
        }

        @Option(
            help: ArgumentHelp("The card presented to the terminal (default: visa-contact).", valueName: "card"),
            completion: .list(CardCatalogue.names))
        var card: String?

        @Flag(help: "List the simulated cards and scenarios, with the final status each should give, and exit.")
        var listCards = false

        func parsedListen() throws -> (String, Int) {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                throw ValidationError("--listen must be HOST:PORT with PORT 0…65535, got '\(listen)'")
            }
            var host = String(listen[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw ValidationError("--listen needs a host, e.g. 127.0.0.1:5000") }
            return (host, port)
        }

        func validate() throws {
            _ = try parsedListen()
            if let card { _ = try BuiltInSimulator.scenario(named: card) }
        }

        struct CardRow: Encodable {
            let name: String
            let summary: String
            let expectedStatus: String
            let readers: [String]
        }

        func run() async throws {
            if listCards {
                let rows = CardCatalogue.all.map {
                    CardRow(name: $0.name, summary: $0.summary, expectedStatus: $0.expectedStatus, readers: $0.readers.map(\.name))
                }
                if globals.json {
                    try JSONOutput.print(rows)
                } else {
                    for r in rows {
                        print("\(r.name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(r.expectedStatus.padding(toLength: 32, withPad: " ", startingAt: 0)) \(r.summary)")
                    }
                }
                return
            }
            let (host, port) = try parsedListen()
            let model: LinkModel? = switch linkModel {
            case .none: nil
            case .ble: .ble
            case .classic: .classic
            }
            var configuration = try BuiltInSimulator.configuration(
                linkModel: model, scenario: try card.map(BuiltInSimulator.scenario(named:)), stateDirectory: stateDir)
            if let seed { configuration.seed = seed }
            let simulator = try TerminalSimulator(configuration: configuration)
            do {
                try await SimulatorServer.listen(
                    host: host, port: port, simulator: simulator, codec: codec == .ble ? .ble : .raw
                ) { bound in
                    // Unbuffered, so a script or test reading a pipe sees the port at once.
                    let line = "listening on tcp://\(host.contains(":") ? "[\(host)]" : host):\(bound)\n"
                    FileHandle.standardOutput.write(Data(line.utf8))
                }
            } catch {
                throw CLIFailure(ExitCodes.link, "cannot listen on \(listen): \(error)")
            }
        }
    }
}
