import UCubeLink

/// One Bluetooth connect at a time in this process: BlueZ connects through one adapter (`$UCUBE_BT_ADAPTER`), and
/// a fleet run's Bluetooth terminals take their turn at it, first come first served; once connected, their commands
/// run side by side. Each connect has its own timeout, so a turn always ends.
package actor BluetoothConnectGate {
    package static let shared = BluetoothConnectGate()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// The process's gate is `shared`; a test makes its own.
    package init() {}

    package func serialized<T: Sendable>(_ connect: @Sendable () async throws(LinkError) -> T) async throws(LinkError)
        -> T
    {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await connect()
    }
}
