import Foundation
import Logging

/// The process's logging: `bootstrap` once at start (swift-log's `LoggingSystem.bootstrap` may run only once per
/// process, so later calls only change the levels), then `Logger(layer:)` anywhere.
package enum LogSystem {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var state: (file: LogFile, levels: LogLevelSource, mirror: Bool)?

    /// Sends every logger to `directory/messages.log` (and to stderr when `mirrorToStderr`) at `levels`. Idempotent:
    /// a second call keeps the first directory and mirror choice and only applies the new levels.
    /// `metadata`: what every line adds from its context (a fleet run names the terminal it was logged for).
    /// `stderr`: where the mirror's lines go; the executable passes its one writer to fd 2 (`Console.err`).
    package static func bootstrap(
        directory: String, levels: LogLevels, mirrorToStderr: Bool, metadata: Logger.MetadataProvider? = nil,
        stderr: @escaping @Sendable ([UInt8]) -> Void
    ) {
        lock.lock()
        defer { lock.unlock() }
        if let state {
            state.levels.current = levels
            return
        }
        let file = LogFile(directory: directory)
        let source = LogLevelSource(levels)
        state = (file, source, mirrorToStderr)
        LoggingSystem.bootstrap(
            { label, provider in
                var fileHandler = RotatingFileLogHandler(label: label, file: file, levels: source)
                fileHandler.metadataProvider = provider
                guard mirrorToStderr else { return fileHandler }
                var stderrHandler = StandardErrorLogHandler(label: label, write: stderr, levels: source)
                stderrHandler.metadataProvider = provider
                return MultiplexLogHandler([fileHandler, stderrHandler])
            }, metadataProvider: metadata)
    }

    /// The levels in force (nil before `bootstrap`); setting them changes every logger (`set log-level`).
    package static var levels: LogLevels? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return state?.levels.current
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            if let newValue { state?.levels.current = newValue }
        }
    }

    /// Whether `bootstrap` ran (before it, swift-log's default handler would print to stdout).
    package static var isBootstrapped: Bool { file != nil }

    /// The file of the bootstrapped system (nil before `bootstrap`).
    package static var file: LogFile? {
        lock.lock()
        defer { lock.unlock() }
        return state?.file
    }
}
