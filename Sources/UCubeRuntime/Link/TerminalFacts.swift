import Foundation
import UCubeLink
import UCubeProtocol
import UCubeTMS

/// What the MDM commands need from the terminal: who it is (for the URLs) and what it runs (for the plan).
package struct TerminalFacts {
    package let identity: TerminalIdentity
    package let versions: DeviceVersions
    package let info: DeviceInfo

    package init(identity: TerminalIdentity, versions: DeviceVersions, info: DeviceInfo) {
        self.identity = identity
        self.versions = versions
        self.info = info
    }

    /// Serial, part number and every version the plan compares (spec §10.3 step 1, §10.4).
    package static let tags: [UInt8] = [0xC1, 0xC2, 0xC3, 0xC4, 0xD1, 0xE8, 0xEA, 0xEB, 0xED]

    package static func read(_ client: RPCClient) async throws -> TerminalFacts {
        let info = try await client.deviceInfo(tags: tags)
        let identity: TerminalIdentity
        do {
            identity = try TerminalIdentity(info)
        } catch {
            throw CLIFailure(ExitCodes.protocolError, error.reason)
        }
        return TerminalFacts(identity: identity, versions: DeviceVersions(info), info: info)
    }

    /// InstallForLoadKey's whole answer: the "dongle certificate" the register and binary requests carry (spec §5.2).
    package static func certificate(_ client: RPCClient) async throws -> [UInt8] {
        let reply = try await client.send(InstallForLoadKey())
        guard let response = reply.response else {
            throw CLIFailure(
                ExitCodes.terminalStatus, reply.status.failureMessage(command: "InstallForLoadKey"))
        }
        return response.encodeData()
    }
}
