import UCubeLink
import UCubeProtocol
import UCubeRuntime
import UCubeSupport

/// Prints a command's reply: the decoded response on success, the status and its meaning otherwise. A non-success
/// status ends the command with exit code 3 after printing.
enum RPCOutput {
    struct StatusJSON: Encodable {
        let value: Int
        let hex: String
        let name: String?
        let meaning: String?

        init(_ status: Status) {
            value = Int(status.rawValue)
            hex = Hex.encode(status.bytes)
            name = status.info?.name
            meaning = status.info?.meaning
        }
    }

    struct ReplyJSON<R: Encodable>: Encodable {
        let command: String
        let commandID: String
        let sequence: Int
        let secured: Bool
        let status: StatusJSON
        let response: R?
        let ciphered: Bool
        /// Hex, card data masked (`Masking.hex`) unless ciphered: a hostile terminal may answer a clear PAN anywhere.
        let data: String
        let mac: [UInt8]?
    }

    static func print<R: RPCResponse>(_ reply: Reply<R>, command: CommandDescriptor, json: Bool) throws {
        try print(reply, command: command, json: json, lines: ResponseLines.of)
    }

    /// The same, for an answer whose wording is known statically: no dynamic cast to `ResponseText`, whose first
    /// use scans the binary's conformances (a tenth of a millisecond of `ucube info`).
    static func print<R: RPCResponse & ResponseText>(
        _ reply: Reply<R>, command: CommandDescriptor, json: Bool
    ) throws {
        // A closure, not the key path `\.summary`: applying a key path instantiates it at run time (67 k instructions).
        try print(reply, command: command, json: json, lines: { $0.summary })
    }

    private static func print<R: RPCResponse>(
        _ reply: Reply<R>, command: CommandDescriptor, json: Bool, lines: (R) -> [String]
    ) throws {
        let succeeded = reply.succeeded
        if json {
            try JSONOutput.print(
                ReplyJSON(
                    command: command.cliName,
                    commandID: Hex.encode([UInt8(command.id.rawValue >> 8), UInt8(command.id.rawValue & 0xFF)]),
                    sequence: Int(reply.sequence), secured: reply.frame.envelope != nil,
                    status: StatusJSON(reply.status),
                    response: reply.response, ciphered: reply.isCiphered,
                    data: reply.isCiphered ? Hex.encode(reply.frame.data) : Masking.hex(reply.frame.data),
                    mac: reply.frame.envelope?.mac))
        } else if reply.isCiphered {
            Console.line(
                "data is ciphered (SIGNED_CIPHERED in a secure session, spec §2.3): \(Hex.encode(reply.frame.data))")
            if let mac = reply.frame.envelope?.mac { Console.line("MAC: \(Hex.encode(mac))") }
        } else if let response = reply.response {
            var text = lines(response)
            if reply.status != .success { text.append("status: \(reply.status)") }
            // One write for the whole answer (the scrubber sees no PAN across a newline): `info`'s 19 lines were 19
            // writes and 19 scrubs.
            if !text.isEmpty { Console.out(text.joinedWithoutLookup(separator: "\n") + "\n") }
        }
        if !succeeded {
            throw CLIFailure(ExitCodes.terminalStatus, reply.status.failureMessage(command: command.name))
        }
    }
}

extension RPCOutput.ReplyJSON: FleetSummarised {
    /// `info` in a fleet run: who the terminal is, "serial 202401001, firmware 6.0.0.54".
    var fleetSummary: FleetSummary {
        guard let info = response as? DeviceInfo, let serial = info.serialNumber else { return FleetSummary() }
        return FleetSummary(detail: "serial \(serial)" + (info.firmwareVersion.map { ", firmware \($0)" } ?? ""))
    }
}
