import Logging

/// Every PROJECT CHOICE of the log module, in one place (spec §11 "Log module", §10.7 "Send logs").
package enum LogChoices {
    /// Spec §11: "before each write, if the file is larger than 2,000,000 bytes it is rotated" (iOS SDK; the Android
    /// rollover size is not in the sources, so 2 MB like iOS — the spec's own PROJECT CHOICE).
    package static let rotationSize: UInt64 = 2_000_000
    /// Spec §11: "message.5.log deleted, message.N.log → message.N+1.log (N = 4…1), messages.log → message.1.log
    /// (so at most 1 + 5 files)". Android: "the maximum log files … is 5".
    package static let rotatedFileCount = 5
    /// Spec §11: the current file is `messages.log`.
    package static let currentFileName = "messages.log"
    /// The N-th older file. PROJECT CHOICE: `messages.N.log` (the iOS SDK writes `message.N.log` without the s; one
    /// stem for all six files keeps them together in a listing and in the bundle).
    package static func rotatedFileName(_ n: Int) -> String { "messages.\(n).log" }
    /// PROJECT CHOICE: the file that several ucube processes `flock` around rotate+write. It is not a log and never
    /// goes into a bundle.
    package static let lockFileName = ".messages.lock"
    /// Spec §11 (Android): zip entries are named `logs/<file>`.
    package static let bundleEntryPrefix = "logs/"
    /// PROJECT CHOICE: the file's level when `--log-level` names none (the issue: "default level info for the file").
    package static let defaultLevel: Logger.Level = .info
    /// PROJECT CHOICE: the log directory under the state directory: `$XDG_STATE_HOME/ucube/logs` (docs/architecture.md:
    /// state under $XDG_STATE_HOME/ucube).
    package static let directoryName = "logs"
    /// PROJECT CHOICE: a bundle file is scrubbed line by line, read in chunks of this size; a "line" longer than
    /// `maximumLineLength` without a newline is cut at a byte that cannot be part of a PAN.
    static let bundleChunkSize = 64 * 1024
    static let maximumLineLength = 1 << 20
}
