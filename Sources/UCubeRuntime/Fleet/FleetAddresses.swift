import Synchronization

/// The addresses of a fleet's terminals as they start listening: all of them, in order, once the last one does.
package final class FleetAddresses: Sendable {
    private let state: Mutex<[String?]>

    package init(count: Int) { state = Mutex(Array(repeating: nil, count: count)) }

    /// Notes terminal `index`'s address; returns every address when this was the last one missing.
    package func bound(_ index: Int, _ address: String) -> [String]? {
        state.withLock { addresses in
            let wasMissing = addresses.contains(nil)
            addresses[index] = address
            let all = addresses.compactMap { $0 }
            return wasMissing && all.count == addresses.count ? all : nil
        }
    }
}
