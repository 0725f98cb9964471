import Foundation
import Logging

/// The levels every handler of a process reads when asked for its level, so a shell's `set log-level` changes
/// loggers already made. A handler whose level was set directly (`logger.logLevel = …`) keeps its own.
public final class LogLevelSource: @unchecked Sendable {
    private let lock = NSLock()
    private var levels: LogLevels

    public init(_ levels: LogLevels = LogLevels()) { self.levels = levels }

    public var current: LogLevels {
        get {
            lock.lock()
            defer { lock.unlock() }
            return levels
        }
        set {
            lock.lock()
            levels = newValue
            lock.unlock()
        }
    }

    /// The level of the loggers labelled `label`: the layer's, or the lowest for a label that is not a layer.
    public func level(forLabel label: String) -> Logger.Level {
        let levels = current
        return LogLayer(label: label).map(levels.level(for:)) ?? levels.lowest
    }
}

/// Writes scrubbed lines to `messages.log` in the log directory, rotated like the SDK (spec §11). See `LogFile`.
public struct RotatingFileLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let file: LogFile
    private let levels: LogLevelSource
    private var ownLevel: Logger.Level?

    public init(label: String, file: LogFile, levels: LogLevelSource) {
        self.label = label
        self.file = file
        self.levels = levels
    }

    /// A handler with its own file and a fixed level (tests, tools).
    public init(label: String, directory: String, level: Logger.Level = LogChoices.defaultLevel) {
        self.init(label: label, file: LogFile(directory: directory), levels: LogLevelSource(LogLevels(defaultLevel: level)))
        ownLevel = level
    }

    public var logLevel: Logger.Level {
        get { ownLevel ?? levels.level(forLabel: label) }
        set { ownLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        file.append(
            LogLine.format(
                date: LogLine.now(), level: event.level, label: label, message: event.message.description,
                metadata: LogLine.merge(metadata, metadataProvider, event.metadata), error: event.error))
    }
}

/// The same lines, scrubbed the same way, on stderr (when the user asked for `--log-level`): results stay alone on
/// stdout.
public struct StandardErrorLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let levels: LogLevelSource
    private var ownLevel: Logger.Level?

    public init(label: String, levels: LogLevelSource) {
        self.label = label
        self.levels = levels
    }

    public var logLevel: Logger.Level {
        get { ownLevel ?? levels.level(forLabel: label) }
        set { ownLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let line = LogLine.format(
            date: LogLine.now(), level: event.level, label: label, message: event.message.description,
            metadata: LogLine.merge(metadata, metadataProvider, event.metadata), error: event.error)
        // write(2), not FileHandle.write: that traps when stderr's reader has gone (EPIPE); a lost log line must not.
        var offset = 0
        while offset < line.count {
            let n = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}

extension LogLine {
    /// A handler's metadata, then its provider's, then the event's (later keys win), as swift-log specifies.
    static func merge(
        _ own: Logger.Metadata, _ provider: Logger.MetadataProvider?, _ event: Logger.Metadata?
    ) -> Logger.Metadata {
        var all = own
        if let provided = provider?.get() { all.merge(provided) { $1 } }
        if let event { all.merge(event) { $1 } }
        return all
    }
}
