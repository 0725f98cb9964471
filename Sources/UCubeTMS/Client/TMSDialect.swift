import NIOConcurrencyHelpers

/// Which SDK's form of the TMS API a request takes (spec §10.2): the current SDK's (libApp 3.5.13 / 1.3.8.19),
/// tried first, or the 2020 SDK's, for a server that refuses the current form.
package enum TMSDialect: String, Sendable, Hashable, CaseIterable, Codable {
    case current
    case v2020 = "2020"
}

/// The request kinds whose form differs between the dialects (spec §10.2); each falls back on its own.
package enum TMSRequestKind: String, Sendable, Hashable, CaseIterable {
    case register, binary, logs
}

/// What the client learnt about the servers it talked to, for the rest of the process (PROJECT CHOICE, spec §10.2):
/// per service root, which request kinds take the 2020 form, and which root of a bare server name answers (`api.`
/// + name, else the name). Shared by every `TMSClient` of the process (`shared`); a test passes its own.
package final class TMSDialectMemory: Sendable {
    private struct Key: Hashable {
        let root: String
        let kind: TMSRequestKind
    }
    private struct State {
        var legacy: Set<Key> = []
        /// configured base URL → the service root that resolved.
        var roots: [String: String] = [:]
    }
    private let state = NIOLockedValueBox(State())

    package init() {}

    /// The process's memory.
    package static let shared = TMSDialectMemory()

    /// The dialect to try first for `kind` on `root`.
    package func dialect(for kind: TMSRequestKind, root: String) -> TMSDialect {
        state.withLockedValue { $0.legacy.contains(Key(root: root, kind: kind)) } ? .v2020 : .current
    }

    func rememberLegacy(_ kind: TMSRequestKind, root: String) {
        _ = state.withLockedValue { $0.legacy.insert(Key(root: root, kind: kind)) }
    }

    /// The service root chosen for a configured base URL, once one has answered or the first failed to resolve.
    package func root(for baseURL: String) -> String? {
        state.withLockedValue { $0.roots[baseURL] }
    }

    func rememberRoot(_ root: String, for baseURL: String) {
        state.withLockedValue { $0.roots[baseURL] = root }
    }
}
