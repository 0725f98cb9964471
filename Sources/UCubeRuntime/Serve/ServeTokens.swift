import Crypto
import Foundation
import Synchronization
import UCubeLink
import UCubePayment
import UCubeProtocol
import UCubeSupport

/// The tokens a POS shows from outside the loopback (docs/serve.md, "Pairing"): `ucube serve --pair` shows a code on
/// the terminal's screen; the POS sends it back once (`POST /v1/pair`) and gets a token. Only the token's SHA-256 is
/// kept, in `$XDG_CONFIG_HOME/ucube/serve-tokens` (0600, one `sha256:HEX NAME TIME` line per token): the file lets
/// nobody in.
package final class ServeTokens: Sendable {
    private struct Pairing {
        package let code: String
        package let expires: ContinuousClock.Instant
        package var attemptsLeft: Int
    }

    private struct State {
        package var hashes: [[UInt8]]
        package var pairing: Pairing?
    }

    private let state: Mutex<State>
    package let path: String

    package init(path: String = Environment.configDirectory + "/" + ServeChoices.tokenFileName) {
        self.path = path
        state = Mutex(State(hashes: Self.load(path), pairing: nil))
    }

    /// The hashes the file holds; a file that cannot be read holds none (every token is refused).
    private static func load(_ path: String) -> [[UInt8]] {
        guard FileStatus.isRegularFile(path), let data = try? BoundedFile.read(path, limit: 1 << 20) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let field = line.split(separator: " ").first, field.hasPrefix("sha256:") else { return nil }
            let hash: [UInt8]? = try? Hex.decode(String(field.dropFirst("sha256:".count)))
            return hash
        }
    }

    /// Whether `token` is one this server paired (its hash compared in constant time with each).
    package func isValid(_ token: String) -> Bool {
        let hash = Array(SHA256.hash(data: Array(token.utf8)))
        return state.withLock { state in
            state.hashes.reduce(false) { found, known in
                guard known.count == hash.count else { return found }
                var difference: UInt8 = 0
                for i in 0..<hash.count { difference |= known[i] ^ hash[i] }
                return found || difference == 0
            }
        }
    }

    /// Opens pairing with a new code (returned, to be shown on the terminal).
    package func openPairing() -> String {
        var generator = SystemRandomNumberGenerator()
        let code = (0..<ServeChoices.pairingDigits).map { _ in String(generator.next(upperBound: UInt8(10))) }
            .joined()
        state.withLock {
            $0.pairing = Pairing(
                code: code, expires: .now + ServeChoices.pairingLifetime, attemptsLeft: ServeChoices.pairingAttempts)
        }
        return code
    }

    /// `POST /v1/pair`: the code shown on the terminal gives a new token, once.
    package func pair(code: String, name: String) -> Result<String, ServeError> {
        let verdict: ServeError? = state.withLock { state in
            guard var pairing = state.pairing, ContinuousClock.now < pairing.expires else {
                state.pairing = nil
                return ServeError(
                    404, "pairing-closed", "no pairing code is open",
                    hint: "restart the server with --pair: the terminal shows a new code")
            }
            if code == pairing.code {
                state.pairing = nil
                return nil
            }
            pairing.attemptsLeft -= 1
            state.pairing = pairing.attemptsLeft > 0 ? pairing : nil
            return ServeError(
                403, "pairing-refused",
                pairing.attemptsLeft > 0
                    ? "that is not the code the terminal shows (\(pairing.attemptsLeft) tries left)"
                    : "that is not the code the terminal shows; the code is void now")
        }
        if let verdict { return .failure(verdict) }
        var generator = SystemRandomNumberGenerator()
        let token = Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).lowercased()
        let hash = Array(SHA256.hash(data: Array(token.utf8)))
        let label = String(
            name.unicodeScalars.filter {
                $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
            }.prefix(40))
        do {
            try Environment.ensureDirectory(Environment.configDirectory)
            var lines = (try? BoundedFile.read(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            if !lines.isEmpty && !lines.hasSuffix("\n") { lines += "\n" }
            lines +=
                "sha256:\(Hex.encode(hash).lowercased()) \(label.isEmpty ? "pos" : label) \(UTCTimestamp.string(Date()))\n"
            try PrivateFile.write(Array(lines.utf8), to: path, mode: 0o600, kind: .state)
        } catch {
            return .failure(ServeError(500, "token-file", "the token could not be stored in \(path): \(error)"))
        }
        state.withLock { $0.hashes.append(hash) }
        return .success(token)
    }
}
