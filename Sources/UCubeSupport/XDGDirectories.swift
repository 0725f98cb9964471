/// The XDG base directory rules (XDG Base Directory Specification 0.8), the one place they are applied: a variable
/// that is unset or empty falls back to its default under HOME.
package struct XDGDirectories: Sendable {
    private let lookup: @Sendable (String) -> String?

    /// `lookup` gives a variable's value (the CLI reads them with getenv, which copies nothing).
    package init(lookup: @escaping @Sendable (String) -> String?) {
        self.lookup = { name in lookup(name).flatMap { $0.isEmpty ? nil : $0 } }
    }

    package init(environment: [String: String]) { self.init(lookup: { environment[$0] }) }

    /// A variable's value, nil when it is unset or empty.
    package func value(_ name: String) -> String? { lookup(name) }

    /// `$HOME`, nil when it is unset or empty.
    package var home: String? { value("HOME") }

    /// `$XDG_STATE_HOME`, default `$HOME/.local/state`; nil without either.
    package var stateHome: String? { value("XDG_STATE_HOME") ?? home.map { $0 + "/.local/state" } }

    /// `$XDG_CONFIG_HOME`, default `$HOME/.config`; nil without either.
    package var configHome: String? { value("XDG_CONFIG_HOME") ?? home.map { $0 + "/.config" } }

    /// `$XDG_RUNTIME_DIR`, which has no default.
    package var runtimeDirectory: String? { value("XDG_RUNTIME_DIR") }
}
