import Foundation
import Logging
import UCubeProtocol

/// `--log-level` text parsed: one level for every layer ("debug"), or levels per layer with an optional default
/// ("rpc=trace,mdm=debug,info"). Layers not named use the default, which is `LogChoices.defaultLevel` when the text
/// names none.
package struct LogLevels: Sendable, Hashable, CustomStringConvertible {
    package var defaultLevel: Logger.Level
    package var perLayer: [LogLayer: Logger.Level]

    package init(defaultLevel: Logger.Level = LogChoices.defaultLevel, perLayer: [LogLayer: Logger.Level] = [:]) {
        self.defaultLevel = defaultLevel
        self.perLayer = perLayer
    }

    /// The level of a layer's loggers.
    package func level(for layer: LogLayer) -> Logger.Level { perLayer[layer] ?? defaultLevel }

    /// The lowest level any layer logs at (for a logger whose label is not one of ours).
    package var lowest: Logger.Level { ([defaultLevel] + perLayer.values).min() ?? defaultLevel }

    /// Parses `--log-level`: comma-separated items, each `LEVEL` (the default) or `LAYER=LEVEL`. Case-insensitive;
    /// spaces around items are ignored. A typo is an error listing the choices.
    package init(parsing text: String) throws(LogLevelError) {
        self.init()
        var sawDefault = false
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !(items.count == 1 && items[0].isEmpty) else {
            throw LogLevelError(.empty, "--log-level needs a value: \(Self.usage)")
        }
        for item in items {
            guard !item.isEmpty else {
                throw LogLevelError(.empty, "empty item in --log-level '\(text)': \(Self.usage)")
            }
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            if parts.count == 1 {
                guard !sawDefault else {
                    throw LogLevelError(.duplicate, "--log-level '\(text)' names the default level twice")
                }
                sawDefault = true
                defaultLevel = try Self.level(parts[0])
            } else {
                guard let layer = LogLayer(rawValue: parts[0].lowercased()) else {
                    throw LogLevelError(
                        .unknownLayer,
                        "unknown log layer '\(parts[0])' in --log-level; layers: \(LogLayer.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                guard perLayer[layer] == nil else {
                    throw LogLevelError(.duplicate, "--log-level '\(text)' names the layer \(layer) twice")
                }
                perLayer[layer] = try Self.level(parts[1])
            }
        }
    }

    /// "rpc=trace,mdm=debug,info": the canonical text, layers in `LogLayer` order, the default last.
    package var description: String {
        let layers = LogLayer.allCases.compactMap { layer in perLayer[layer].map { "\(layer)=\($0)" } }
        return (layers + [defaultLevel.rawValue]).joined(separator: ",")
    }

    package static let levelNames = Logger.Level.allCases.map(\.rawValue)
    package static let usage =
        "LEVEL or LAYER=LEVEL,…,LEVEL; levels: \(levelNames.joined(separator: ", ")); layers: \(LogLayer.allCases.map(\.rawValue).joined(separator: ", "))"

    private static func level(_ word: String) throws(LogLevelError) -> Logger.Level {
        guard let level = Logger.Level(rawValue: word.lowercased()) else {
            throw LogLevelError(
                .unknownLevel,
                "unknown log level '\(word)' in --log-level; levels: \(levelNames.joined(separator: ", "))")
        }
        return level
    }
}

/// A `--log-level` text that does not parse.
package struct LogLevelError: CodedError {
    package enum Code: Sendable, Hashable {
        case empty, unknownLevel, unknownLayer, duplicate
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
