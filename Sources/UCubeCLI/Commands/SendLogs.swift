import ArgumentParser
import Foundation
import UCubeLog
import UCubeProtocol
import UCubeRuntime
import UCubeTMS

extension UCube {
    /// `ucube send-logs`: the log bundle (spec §10.7, §11) sent to the TMS, or written to a file with `--output`.
    struct SendLogs: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "send-logs",
            abstract: "Zip the logs and send them to the TMS, or write the bundle to a file (--output).",
            discussion: """
                The logs are $XDG_STATE_HOME/ucube/logs/messages.log and up to five older files (messages.1.log \
                … messages.5.log, rotated at 2 MB). The bundle is a zip with one entry logs/<file> per log file; \
                every PAN and track data in it is masked, even in a file another tool dropped there. After the TMS \
                answers HTTP 200 or 201 the local logs are deleted; with --output they are kept. With several \
                terminals (--device repeated, --devices FILE), a fleet run: the bundle goes to the TMS for each \
                terminal, and the local logs are deleted once every terminal of the run has it (docs/fleet.md).
                """ + HelpExamples.section("send-logs"))

        @OptionGroup var globals: GlobalOptions
        @OptionGroup var tms: TMSOptions
        @OptionGroup var fleet: FleetOptions

        @Option(
            name: .long, help: ArgumentHelp("Write the bundle to FILE instead of sending it.", valueName: "file"),
            completion: .file(extensions: ["zip"]))
        var output: String?

        @Flag(help: "With --output: replace FILE if it exists.")
        var force = false

        struct Written: Report {
            let path: String
            let bytes: Int
            let entries: [String]

            var lines: [String] { ["\(path)  \(bytes) bytes  \(entries.count) file\(entries.count == 1 ? "" : "s")"] }
        }

        func run(in context: CommandContext) async throws {
            let logDirectory = Environment.logDirectory
            try Environment.requireStateDirectory()
            if let run = try FleetRun(command: "send-logs", context: context, options: fleet.values) {
                try await sendToFleet(run, context: context, logDirectory: logDirectory)
                return
            }
            if let output {
                let path = (output as NSString).expandingTildeInPath
                try Self.checkDirectory(of: path)
                if FileManager.default.fileExists(atPath: path) {
                    guard force else {
                        throw CLIFailure(
                            ExitCodes.usage, "\(path) already exists: choose another --output or add --force")
                    }
                    do {
                        try FileManager.default.removeItem(atPath: path)
                    } catch {
                        throw CLIFailure(reporting: error)
                    }
                }
                let entries = try bundle(from: logDirectory, to: path)
                let bytes = Self.size(of: path)
                try Written(path: path, bytes: bytes, entries: entries).print(json: context.json)
                return
            }
            // Spec §10.7: "Zip all log files (temp file uCubelib-logs*.zip), POST …, delete local logs after HTTP 200".
            let settings = try tms.settings()
            // The terminal first, so this run's own connection log lines are in the bundle, not deleted unsent.
            let terminal = try await withConnection(context) { connection in
                try await TerminalFacts.read(connection.client).identity
            }
            let name = "uCubelib-logs-\(ProcessInfo.processInfo.globallyUniqueString).zip"
            let path = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let entries = try bundle(from: logDirectory, to: path)
            // In a log, a line while the bundle goes, at least every 10 s: a slow TMS is not taken for a hang.
            let progress = ProgressHeartbeat()
            if progress.writes {
                progress.status(
                    "sending \(entries.count) log file\(entries.count == 1 ? "" : "s") (\(ProgressFormat.bytes(Int64(Self.size(of: path))))) for terminal \(terminal.serial) to \(settings.baseURL)…"
                )
            }
            defer { progress.stop() }
            try await upload(path, terminal: terminal, settings: settings)
            do {
                try LogBundle.deleteLogs(in: logDirectory)
            } catch {
                throw CLIFailure(ExitCodes.ioError, "the logs were sent but not deleted: \(error.reason)")
            }
            let bytes = Self.size(of: path)
            try Sent(terminal: terminal.serial, server: settings.baseURL, bytes: bytes, entries: entries).print(
                json: context.json)
        }

        /// Several terminals (docs/fleet.md): this host's logs, bundled once, go to the TMS for each terminal (its
        /// identity); each terminal's `result` says what it sent. The local logs are deleted only once every terminal
        /// of the run has them (a re-run sends only to the others, from the run file).
        private func sendToFleet(_ run: FleetRun, context: CommandContext, logDirectory: String) async throws {
            if output != nil {
                throw CLIFailure(
                    ExitCodes.usage,
                    "--output writes this host's logs once: a fleet run sends them to the TMS for each terminal")
            }
            let settings = try tms.settings()
            let path = (NSTemporaryDirectory() as NSString).appendingPathComponent(
                "uCubelib-logs-\(ProcessInfo.processInfo.globallyUniqueString).zip")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let entries = try bundle(from: logDirectory, to: path)
            let bytes = Self.size(of: path)
            try await run.run { [self] device in
                let terminal = try await withConnection(context.single(device, json: true)) { connection in
                    try await TerminalFacts.read(connection.client).identity
                }
                try await upload(path, terminal: terminal, settings: settings)
                try JSONOutput.print(
                    Sent(terminal: terminal.serial, server: settings.baseURL, bytes: bytes, entries: entries),
                    pretty: false)
            }
            do {
                try LogBundle.deleteLogs(in: logDirectory)
            } catch {
                throw CLIFailure(ExitCodes.ioError, "the logs were sent but not deleted: \(error.reason)")
            }
        }

        struct Sent: Report {
            let terminal: String
            let server: String
            let bytes: Int
            let entries: [String]

            var lines: [String] {
                [
                    "sent \(entries.count) log file\(entries.count == 1 ? "" : "s") (\(bytes) bytes) for terminal \(terminal) to \(server); local logs deleted"
                ]
            }
        }

        /// Sends a log bundle to the TMS (spec §10.7: POST `/public/v3/dongle/logs/?type=zip` with `x-device-id`, or
        /// the 2020 form under the serial and part number for a TMS that refuses it; application/octet-stream;
        /// success = HTTP 200 or 201); the logs endpoint is public, but a stored client identity is presented when
        /// there is one. Returns only after the TMS took it.
        private func upload(_ path: String, terminal: TerminalIdentity, settings: TMSSettings) async throws {
            let identity: TMSIdentity? = try tmsChecked { () throws(TMSError) in
                try TMSContext.identities.load(serial: terminal.serial)
            }
            _ = try await TMSContext.with(settings, identity: identity) { client in
                try await client.sendLogs(terminal: terminal, zipFile: path)
            }
        }

        private func bundle(from logDirectory: String, to path: String) throws(CLIFailure) -> [String] {
            do {
                return try LogBundle.make(from: logDirectory, to: path)
            } catch {
                switch error.code {
                case .noLogs: throw CLIFailure(ExitCodes.failure, "nothing to send: \(error.reason)")
                case .exists: throw CLIFailure(ExitCodes.usage, error.reason)
                case .io: throw CLIFailure(ExitCodes.ioError, error.reason)
                }
            }
        }

        /// The bundle's directory must exist and be writable (73 otherwise, before any work).
        private static func checkDirectory(of path: String) throws(CLIFailure) {
            try Environment.checkOutputDirectory(of: path, option: "--output")
        }

        private static func size(of path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        }
    }
}

extension UCube.SendLogs.Sent: FleetSummarised {
    /// send-logs in a fleet run: what went where.
    var fleetSummary: FleetSummary { FleetSummary(detail: "serial \(terminal): \(bytes) bytes of logs sent") }
}
