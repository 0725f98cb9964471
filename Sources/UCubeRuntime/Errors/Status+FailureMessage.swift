import UCubeProtocol

extension Status {
    /// How a command's failed status is said, in an error and in a finding: "GetInfo failed: … — its meaning", or
    /// "GetInfo failed: status …" for a status the table does not know.
    package func failureMessage(command: String) -> String {
        if let info {
            return "\(command) failed: \(self) — \(info.meaning)"
        }
        return "\(command) failed: status \(self)"
    }
}
