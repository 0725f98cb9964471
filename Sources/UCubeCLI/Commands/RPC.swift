import ArgumentParser
import Foundation
import UCubeLink
import UCubeProtocol
import UCubeRuntime

extension UCube {
    /// `ucube rpc`: one subcommand per terminal command of the catalogue, plus `raw` and `list`.
    struct RPC: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "rpc",
                abstract: "Send one terminal command and show its decoded answer.",
                discussion: "Every command of the protocol has a subcommand named as in `ucube rpc list`."
                    + HelpExamples.section("rpc"),
                subcommands: [List.self, Raw.self] + (UCube.includeRPCCommands ? RPCSubcommands.all : []))
        }

        @OptionGroup var globals: GlobalOptions
    }
}

extension UCube.RPC {
    /// `ucube rpc list`: the command catalogue.
    struct List: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List every terminal command with its id and security modes.",
            discussion: HelpExamples.discussion("rpc list"))

        @OptionGroup var globals: GlobalOptions

        struct Row: Encodable {
            let id: String
            let name: String
            let command: String
            let inputMode: String
            let outputMode: String
            let longRunning: Bool
            let states: [String]
            let summary: String
        }

        func run(in context: CommandContext) async throws {
            let rows = CommandCatalogue.all.map { d in
                Row(
                    id: Hex.encode([UInt8(d.id.rawValue >> 8), UInt8(d.id.rawValue & 0xFF)]), name: d.name,
                    command: d.cliName,
                    inputMode: d.inputMode.rawValue, outputMode: d.outputMode.rawValue, longRunning: d.isLongRunning,
                    states: TerminalState.allCases.filter { d.allowedStates.contains($0) }.map(\.description),
                    summary: d.summary)
            }
            let lines = rows.map { r in
                "\(r.id)  \(r.command.padding(toLength: 30, withPad: " ", startingAt: 0)) in=\(r.inputMode) out=\(r.outputMode)  \(r.summary)"
            }
            try ValueReport(value: rows, lines: lines).print(json: context.json)
        }
    }

    /// `ucube rpc raw`: a hand-built or HSM-built payload.
    struct Raw: UCubeCommand {
        static let configuration = CommandConfiguration(
            commandName: "raw",
            abstract: "Send a hand-built command: an id and a hex payload.",
            discussion: """
                The command id is hex (5001, 0x5001) or a name from `ucube rpc list`. In a secure session, \
                --in-mode signed-not-checked wraps the payload with crypto header 7F and a zero MAC; signed or \
                signed-ciphered sends an HSM-built body (crypto header, data, MAC) as it is; none sends it plain. \
                --out-mode says how to read the answer. The sequence number used is printed (an HSM signs it).
                """ + HelpExamples.section("rpc raw"))

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("Command id in hex (5001) or a command name (get-info).", valueName: "command-id"))
        var commandID: String

        @Argument(help: ArgumentHelp("Payload in hex; spaces allowed inside quotes.", valueName: "hex-payload"))
        var payload: String = ""

        @Option(
            help: "Input security mode: none, signed-not-checked, signed, signed-ciphered (default: the catalogue's).")
        var inMode: SecurityMode?

        @Option(
            help: "Output security mode: none, signed-not-checked, signed, signed-ciphered (default: the catalogue's).")
        var outMode: SecurityMode?

        func validate() throws {
            try ValidationError.checking {
                _ = try parsedID()
                let bytes = try parsedPayload()
                // Worst case a secured body adds the crypto header and the MAC.
                let limit = FrameLimits.maxBodySize - FrameLimits.cryptoHeaderSize - FrameLimits.macSize
                if bytes.count > limit {
                    throw ValidationError(
                        "payload of \(bytes.count) bytes is too long: a frame carries at most \(limit) payload bytes (2068-byte limit, spec §2.2)"
                    )
                }
            }
        }

        func parsedID() throws -> CommandID {
            if let d = CommandCatalogue.descriptor(named: commandID) { return d.id }
            var text = Substring(commandID)
            if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
            guard text.count <= 4, let v = UInt16(text, radix: 16) else {
                throw ValidationError(
                    "'\(commandID)' is not a command id (hex, e.g. 5001) or a name from `ucube rpc list`")
            }
            return CommandID(v)
        }

        func parsedPayload() throws -> [UInt8] {
            do {
                return try Hex.decode(payload)
            } catch {
                throw ValidationError("payload: \(error)")
            }
        }

        struct RawJSON: Encodable {
            let commandID: String
            let sequence: Int
            let responseCommandID: String
            let status: RPCOutput.StatusJSON
            let secured: Bool
            let cryptoHeader: String?
            let data: [UInt8]
            let mac: [UInt8]?
            let decoded: [String]?
        }

        func run(in context: CommandContext) async throws {
            let id = try parsedID()
            let bytes = try parsedPayload()
            try await withConnection(context, prepare: .asRecorded) { connection in
                let reply = try await connection.client.sendRaw(
                    id: id, payload: bytes, inputMode: inMode, outputMode: outMode)
                let frame = reply.frame
                let decoded =
                    frame.status.isSuccess
                    ? TLVDisplay.lines(frame.data, context: id == .getInfo ? .getInfo : .payment) : nil
                if context.json {
                    try JSONOutput.print(
                        RawJSON(
                            commandID: Hex.encode([UInt8(id.rawValue >> 8), UInt8(id.rawValue & 0xFF)]),
                            sequence: Int(reply.sequence),
                            responseCommandID: Hex.encode([
                                UInt8(frame.command.rawValue >> 8), UInt8(frame.command.rawValue & 0xFF),
                            ]),
                            status: .init(frame.status), secured: frame.envelope != nil,
                            cryptoHeader: frame.envelope.map { Hex.encode([$0.cryptoHeader]) }, data: frame.data,
                            mac: frame.envelope?.mac, decoded: decoded))
                } else {
                    print("sequence: \(reply.sequence)")
                    print("command: \(frame.command)")
                    print("status: \(frame.status)")
                    if let envelope = frame.envelope {
                        print("crypto header: \(Hex.encode([envelope.cryptoHeader]))  MAC: \(Hex.encode(envelope.mac))")
                    }
                    if !frame.data.isEmpty {
                        print("data: \(Hex.encode(frame.data, separator: " "))")
                        for line in decoded ?? [] { print("  " + line) }
                    }
                }
                if frame.command == .unrecognised {
                    throw CLIFailure(
                        ExitCodes.terminalStatus, "the terminal did not recognise command \(id) (answered 0x8000)")
                }
                if !frame.status.isSuccess {
                    throw CLIFailure(
                        ExitCodes.terminalStatus, frame.status.failureMessage(command: id.description))
                }
            }
        }
    }
}

extension SecurityMode: ExpressibleByArgument {}
