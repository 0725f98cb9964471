import Foundation

/// How `ucube serve` behaves where nothing outside decides it (docs/serve.md, "Limits"): one table.
package enum ServeChoices {
    /// The listener when `--listen` is not given: loopback only.
    package static let defaultHost = "127.0.0.1"
    package static let defaultPort = 8686
    /// A request body longer than this is refused (413) without being read further.
    package static let maxBody = 16 * 1024
    /// The request line and headers together: past it the connection is answered 400 and closed (NIO's decoder).
    package static let maxHeaders = 16 * 1024
    /// Connections served at once; one more is answered 503 and closed.
    package static let maxConnections = 128
    /// Event streams (`GET /v1/events`) open at once; one more is answered 503.
    package static let maxSubscribers = 32
    /// Events kept for `Last-Event-ID` replay; older ones are gone (the stream then says `reset`).
    package static let eventBuffer = 512
    /// Events one slow stream may have waiting; past it the stream is closed (its client reconnects and replays).
    package static let subscriberBacklog = 256
    /// A comment line on every event stream this often, so proxies and the idle timeout keep it open.
    package static let heartbeat: Duration = .seconds(15)
    /// A connection with neither a read nor a write for this long is closed.
    package static let idleTimeout: Duration = .seconds(60)
    /// How long an application choice waits for its answer before the payment is cancelled.
    package static let choiceTimeout: Duration = .seconds(120)
    /// Payments kept in memory (their states are answered by `GET /v1/payments/{id}`); past it the oldest finished
    /// one is forgotten, and answered from the journal.
    package static let rememberedPayments = 1000
    /// A pairing code: its digits, how long it is valid, how many wrong codes void it, how long the terminal shows it.
    package static let pairingDigits = 6
    package static let pairingLifetime: Duration = .seconds(300)
    package static let pairingAttempts = 5
    package static let pairingDisplaySeconds = 120
    /// The file of paired tokens' hashes, in the config directory (0600).
    package static let tokenFileName = "serve-tokens"
    /// How long SIGTERM waits for the running payments to end (those past the card read run to their end).
    package static let stopBudget: Duration = .seconds(300)
}
