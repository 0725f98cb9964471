import Foundation
import Logging
import UCubeLog
import UCubeTMS

/// The executable's TMS paths and client lifetime.
package enum TMSContext {
    /// One PKCS#12 client identity per terminal serial (spec §10.3): `$XDG_CONFIG_HOME/ucube/tms/SERIAL.p12`, 0600.
    package static var identities: TMSIdentityStore {
        TMSIdentityStore(directory: Environment.configDirectory + "/tms")
    }

    /// Downloaded binaries, each deleted once loaded: `$XDG_STATE_HOME/ucube/downloads`.
    package static var downloads: String { Environment.stateDirectory + "/downloads" }

    /// Runs `body` with a TMS client and always shuts it down (AsyncHTTPClient requires it).
    package static func with<T>(
        _ settings: TMSSettings, identity: TMSIdentity?, _ body: (TMSClient) async throws -> T
    ) async throws -> T {
        let client: TMSClient
        do {
            client = try TMSClient(settings: settings, identity: identity, logger: Logger(layer: .mdm))
        } catch {
            throw CLIFailure(error)
        }
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch let error as TMSError {
            await client.shutdown()
            throw CLIFailure(error)
        } catch {
            await client.shutdown()
            throw error
        }
    }
}
