import Logging

/// The layers that log (spec §11, Android SDK "newer SDK" levels: SYSTEM 5, CONNECTION 4, RPC 3, PAYMENT 2, MDM 1,
/// API 0). Each layer is a logger label (`ucube.rpc`) with its own level.
package enum LogLayer: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case connection
    case rpc
    case payment
    case mdm
    case api

    /// The Android SDK's number for the layer (spec §11); kept for reference and for bundles read by SDK tooling.
    package var sdkNumber: Int {
        switch self {
        case .connection: 4
        case .rpc: 3
        case .payment: 2
        case .mdm: 1
        case .api: 0
        }
    }

    /// The swift-log label of the layer's loggers: "ucube.rpc".
    package var label: String { Self.labelPrefix + rawValue }

    /// The layer a label names; nil for a label that is not ours (a dependency's logger).
    package init?(label: String) {
        guard label.hasPrefix(Self.labelPrefix) else { return nil }
        self.init(rawValue: String(label.dropFirst(Self.labelPrefix.count)))
    }

    package var description: String { rawValue }

    static let labelPrefix = "ucube."
}

extension Logger {
    /// A logger for one of our layers: `Logger(layer: .rpc)`.
    package init(layer: LogLayer) {
        self.init(label: layer.label)
    }
}
