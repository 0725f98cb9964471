import ArgumentParser
import Foundation
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

        func validate() throws { _ = try parsedListen() }

        func run() async throws {
            let (host, port) = try parsedListen()
            let directory = stateDir ?? Environment.simulatorDirectory
            try Environment.ensureDirectory(directory)
            var configuration = SimulatorConfiguration()
            configuration.stateDirectory = directory
            if let seed { configuration.seed = seed }
            switch linkModel {
            case .none: configuration.linkModel = nil
            case .ble: configuration.linkModel = .ble
            case .classic: configuration.linkModel = .classic
            }
            let simulator = try TerminalSimulator(configuration: configuration)
            do {
                try await SimulatorServer.listen(host: host, port: port, simulator: simulator) { bound in
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
