import Foundation

/// One event of `GET /v1/events`: its id (`EPOCH-N`: the server's start and a counter, so a client that reconnects to
/// a restarted server is told it missed events) and its JSON document, already masked.
package struct ServedEvent: Sendable, Equatable {
    package let id: String
    package let sequence: Int
    package let json: String

    package init(id: String, sequence: Int, json: String) {
        self.id = id
        self.sequence = sequence
        self.json = json
    }

    /// The event as server-sent events frame it; without a document, a comment (the heartbeat); without an id, no
    /// `id:` line (a `reset`, which leaves the client's last id as it was).
    package var frame: String {
        if json.isEmpty { return ": keep-alive\n\n" }
        return (id.isEmpty ? "" : "id: \(id)\n") + "data: \(json)\n\n"
    }
}

/// The last `capacity` events, for `Last-Event-ID` replay: a value, no I/O.
package struct EventLog: Sendable {
    package let epoch: String
    package let capacity: Int
    package private(set) var events: [ServedEvent] = []
    private var next = 1

    package init(epoch: String, capacity: Int) {
        self.epoch = epoch
        self.capacity = capacity
    }

    /// Adds the document `json` and returns its event.
    package mutating func append(_ json: String) -> ServedEvent {
        let event = ServedEvent(id: "\(epoch)-\(next)", sequence: next, json: json)
        next += 1
        events.append(event)
        if events.count > capacity { events.removeFirst(events.count - capacity) }
        return event
    }

    /// What a client that last saw `lastID` missed: the events after it, and whether some of them are gone (another
    /// server's id, or older than the buffer), in which case it must read the payments' states again. nil: a new
    /// client, which gets no replay.
    package func since(_ lastID: String?) -> (events: [ServedEvent], gap: Bool) {
        guard let lastID else { return ([], false) }
        let parts = lastID.split(separator: "-")
        guard parts.count == 2, String(parts[0]) == epoch, let seen = Int(parts[1]), seen < next else {
            return (events, true)
        }
        let missed = events.filter { $0.sequence > seen }
        let gap = (events.first.map { $0.sequence > seen + 1 } ?? (seen + 1 < next))
        return (missed, gap)
    }
}
