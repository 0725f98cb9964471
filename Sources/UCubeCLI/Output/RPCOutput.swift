import UCubeLink
import UCubeProtocol

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
        try print(reply, command: command, json: json, lines: \.summary)
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
            for line in lines(response) { Console.line(line) }
            if reply.status != .success { Console.line("status: \(reply.status)") }
        }
        if !succeeded {
            throw CLIFailure(ExitCodes.terminalStatus, statusMessage(reply.status, command: command.name))
        }
    }

    static func statusMessage(_ status: Status, command: String) -> String {
        if let info = status.info {
            return "\(command) failed: \(status) — \(info.meaning)"
        }
        return "\(command) failed: status \(status)"
    }
}
