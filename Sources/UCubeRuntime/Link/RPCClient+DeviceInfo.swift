import UCubeLink
import UCubeProtocol

extension CLIFailure {
    /// GetInfo answered in a secure session: its data is ciphered (spec §2.3).
    package static let cipheredInfo = CLIFailure(
        ExitCodes.terminalStatus,
        "the terminal is in a secure session, so GetInfo's data is ciphered (spec §2.3); run `ucube rpc exit-secure-session` first"
    )
}

extension RPCClient {
    /// GetInfo with `tags`, decoded; a ciphered answer or a non-success status is a `CLIFailure`.
    package func deviceInfo(tags: [UInt8]) async throws -> DeviceInfo {
        let reply = try await send(GetInfo(tags: tags))
        if reply.isCiphered { throw CLIFailure.cipheredInfo }
        guard let info = reply.response else {
            throw CLIFailure(ExitCodes.terminalStatus, reply.status.failureMessage(command: "GetInfo"))
        }
        return info
    }
}
