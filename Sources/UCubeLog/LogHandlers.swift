import Foundation
import Logging
import UCubeSupport

/// The levels every handler of a process reads when asked for its level, so a shell's `set log-level` changes
/// loggers already made. A handler whose level was set directly (`logger.logLevel = …`) keeps its own.
package final class LogLevelSource: @unchecked Sendable {
    private let lock = NSLock()
    private var levels: LogLevels

    package init(_ levels: LogLevels = LogLevels()) { self.levels = levels }

    package var current: LogLevels {
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
    package func level(forLabel label: String) -> Logger.Level {
        let levels = current
        return LogLayer(label: label).map(levels.level(for:)) ?? levels.lowest
    }
}

/// Where a handler's formatted, scrubbed lines go.
package protocol LogSink: Sendable {
    func append(_ line: [UInt8])
}

extension LogFile: LogSink {}

/// Standard error, for `--log-level`: results stay alone on stdout. The bytes go to the writer the process gives
/// (the executable's `Console.err`, its one door to fd 2), never to the stream directly.
package struct StandardErrorSink: LogSink {
    private let write: @Sendable ([UInt8]) -> Void
    package init(write: @escaping @Sendable ([UInt8]) -> Void) { self.write = write }
    package func append(_ line: [UInt8]) { write(line) }
}

/// A swift-log handler for one label: the level comes from the process's `LogLevelSource` unless set on the
/// logger, and each event becomes one scrubbed line (`LogLine.format`) for `sink`.
package struct LayeredLogHandler<Sink: LogSink>: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let sink: Sink
    private let levels: LogLevelSource
    private var ownLevel: Logger.Level?

    package init(label: String, sink: Sink, levels: LogLevelSource) {
        self.label = label
        self.sink = sink
        self.levels = levels
    }

    package var logLevel: Logger.Level {
        get { ownLevel ?? levels.level(forLabel: label) }
        set { ownLevel = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
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
package typealias RotatingFileLogHandler = LayeredLogHandler<LogFile>

/// The same lines, scrubbed the same way, on stderr.
package typealias StandardErrorLogHandler = LayeredLogHandler<StandardErrorSink>

extension LayeredLogHandler where Sink == LogFile {
    package init(label: String, file: LogFile, levels: LogLevelSource) {
        self.init(label: label, sink: file, levels: levels)
    }

    /// A handler with its own file and a fixed level (tests, tools).
    package init(label: String, directory: String, level: Logger.Level = LogChoices.defaultLevel) {
        self.init(
            label: label, sink: LogFile(directory: directory), levels: LogLevelSource(LogLevels(defaultLevel: level)))
        ownLevel = level
    }
}

extension LayeredLogHandler where Sink == StandardErrorSink {
    package init(label: String, write: @escaping @Sendable ([UInt8]) -> Void, levels: LogLevelSource) {
        self.init(label: label, sink: StandardErrorSink(write: write), levels: levels)
    }
}

/// Unbuffered writes to a standard stream through write(2). `FileHandle.write` traps on EPIPE; here a reader that
/// has gone (`ucube … | head`) only loses the output, and the work goes on.
package enum StandardStream {
    /// Writes all of `bytes`; returns nil, or the errno of the write that failed (ENOSPC on /dev/full, EPIPE on a
    /// closed pipe when SIGPIPE is ignored) so the caller can report it at the end.
    @discardableResult
    package static func write(_ bytes: [UInt8], to fd: Int32) -> Int32? { FileDescriptor.writeAll(fd, bytes) }
}
