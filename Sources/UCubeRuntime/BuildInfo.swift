import CBuildInfo

/// The version and build commit that `ucube --version` prints. The version is written here and nowhere else:
/// `make deb` reads it back from the built binary.
package enum BuildInfo {
    package static let version = "0.1.0"

    /// The git commit the binary was built from (`make` writes it in after linking), else "unknown".
    package static var commit: String { String(cString: ucube_git_commit()) }

    /// `0.1.0 (commit 1a2b3c4d5e6f)`.
    package static var versionLine: String { "\(version) (commit \(commit))" }
}
