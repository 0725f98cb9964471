import Foundation
import Logging
import UCubeSupport

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

/// Where a handler's formatted, scrubbed lines go.
public protocol LogSink: Sendable {
    func append(_ line: [UInt8])
}

extension LogFile: LogSink {}

/// Standard error, for `--log-level`: results stay alone on stdout. The bytes go to the writer the process gives
/// (the executable's `Console.err`, its one door to fd 2), never to the stream directly.
public struct StandardErrorSink: LogSink {
    private let write: @Sendable ([UInt8]) -> Void
    public init(write: @escaping @Sendable ([UInt8]) -> Void) { self.write = write }
    public func append(_ line: [UInt8]) { write(line) }
}

/// A swift-log handler for one label: the level comes from the process's `LogLevelSource` unless set on the
/// logger, and each event becomes one scrubbed line (`LogLine.format`) for `sink`.
public struct LayeredLogHandler<Sink: LogSink>: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let sink: Sink
    private let levels: LogLevelSource
    private var ownLevel: Logger.Level?

    public init(label: String, sink: Sink, levels: LogLevelSource) {
        self.label = label
        self.sink = sink
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
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        sink.append(
            LogLine.format(
                date: LogLine.now(), level: event.level, label: label, message: event.message.description,
                metadata: all, error: event.error))
    }
}

/// Writes scrubbed lines to `messages.log` in the log directory, rotated like the SDK (spec §11). See `LogFile`.
public typealias RotatingFileLogHandler = LayeredLogHandler<LogFile>

/// The same lines, scrubbed the same way, on stderr.
public typealias StandardErrorLogHandler = LayeredLogHandler<StandardErrorSink>

extension LayeredLogHandler where Sink == LogFile {
    public init(label: String, file: LogFile, levels: LogLevelSource) {
        self.init(label: label, sink: file, levels: levels)
    }

    /// A handler with its own file and a fixed level (tests, tools).
    public init(label: String, directory: String, level: Logger.Level = LogChoices.defaultLevel) {
        self.init(label: label, sink: LogFile(directory: directory), levels: LogLevelSource(LogLevels(defaultLevel: level)))
        ownLevel = level
    }
}

extension LayeredLogHandler where Sink == StandardErrorSink {
    public init(label: String, write: @escaping @Sendable ([UInt8]) -> Void, levels: LogLevelSource) {
        self.init(label: label, sink: StandardErrorSink(write: write), levels: levels)
    }
}

/// Unbuffered writes to a standard stream through write(2). `FileHandle.write` traps on EPIPE; here a reader that
/// has gone (`ucube … | head`) only loses the output, and the work goes on.
public enum StandardStream {
    /// Writes all of `bytes`; returns nil, or the errno of the write that failed (ENOSPC on /dev/full, EPIPE on a
    /// closed pipe when SIGPIPE is ignored) so the caller can report it at the end.
    @discardableResult
    public static func write(_ bytes: [UInt8], to fd: Int32) -> Int32? { FileDescriptor.writeAll(fd, bytes) }
}
