import CDBus
import Foundation
import UCubeLink
import UCubeSupport

/// A signal received from the bus.
package struct DBusSignal: Sendable {
    package let path: String
    package let interface: String
    package let member: String
    package let arguments: [DBusValue]
}

/// An error reply to a method call (`org.bluez.Error.Failed: …`), or a failure to reach the bus.
package struct DBusCallError: Error, Sendable, CustomStringConvertible {
    package let name: String
    package let message: String
    package var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

/// A private connection to a message bus, owned by one dedicated thread that runs libdbus's dispatch loop. Callers
/// never block: a method call is queued to that thread, sent with a pending-call callback, and its reply resumes the
/// caller's continuation; signals are handed to subscribers' `AsyncStream`s. When the bus goes away, every
/// subscription finishes and every pending call fails.
package final class DBusBus: @unchecked Sendable {
    private let connection: OpaquePointer
    private let lock = NSLock()
    private var jobs: [(OpaquePointer) -> Void] = []
    private var subscribers: [Int: AsyncStream<DBusSignal>.Continuation] = [:]
    private var nextSubscriber = 0
    private var closedReason: String?
    private var closing = false

    /// How often the dispatch thread looks at its job queue while the bus is idle (milliseconds).
    private static let pollMilliseconds: Int32 = 5

    private init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// Connects to the system bus (`$DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket) on a new thread, and
    /// subscribes to the signals of `matchRules`.
    package static func system(matchRules: [String]) async throws(DBusCallError) -> DBusBus {
        let result: Result<DBusBus, DBusCallError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                _ = dbus_threads_init_default()
                let error = ucube_dbus_error_new()
                defer { ucube_dbus_error_free(error) }
                guard let connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, error) else {
                    let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
                    continuation.resume(
                        returning: .failure(
                            DBusCallError(name: "org.freedesktop.DBus.Error.NoServer", message: message)))
                    return
                }
                // Otherwise libdbus calls exit() when the bus goes away.
                dbus_connection_set_exit_on_disconnect(connection, 0)
                let bus = DBusBus(connection: connection)
                for rule in matchRules { dbus_bus_add_match(connection, rule, nil) }
                _ = dbus_connection_add_filter(connection, busFilter, Unmanaged.passUnretained(bus).toOpaque(), nil)
                continuation.resume(returning: .success(bus))
                bus.runLoop()
            }
            thread.name = "ucube-dbus"
            thread.start()
        }
        return try result.get()
    }

    /// Why the bus is closed, or nil while it is open.
    package var closed: String? { lock.withLock { closedReason } }

    /// The dispatch loop: runs queued jobs, then reads, writes and dispatches for a few milliseconds; ends when the
    /// bus disconnects or `close()` is called. Holds a strong reference to the bus for its lifetime.
    private func runLoop() {
        while true {
            let (work, stop) = lock.withLock { () -> ([(OpaquePointer) -> Void], Bool) in
                defer { jobs.removeAll() }
                return (jobs, closing)
            }
            for job in work { job(connection) }
            if stop { break }
            if dbus_connection_read_write_dispatch(connection, Self.pollMilliseconds) == 0 { break }
            if lock.withLock({ closedReason != nil }) { break }
        }
        finish("the D-Bus connection was closed")
        // Fail whatever was queued after the end.
        let late = lock.withLock {
            defer { jobs.removeAll() }; return jobs
        }
        for job in late { job(connection) }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    private func finish(_ reason: String) {
        let streams = lock.withLock { () -> [AsyncStream<DBusSignal>.Continuation] in
            if closedReason == nil { closedReason = reason }
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for s in streams { s.finish() }
    }

    /// Closes the connection; subscriptions finish, later calls fail.
    package func close() {
        lock.withLock { closing = true }
    }

    /// Signals from now on; the stream finishes when the bus closes.
    package func signals() -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream<DBusSignal>.makeStream(bufferingPolicy: .unbounded)
        let id: Int? = lock.withLock {
            guard closedReason == nil else { return nil }
            let id = nextSubscriber
            nextSubscriber += 1
            subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.lock.withLock { self?.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    fileprivate func deliver(_ signal: DBusSignal) {
        let streams = lock.withLock { Array(subscribers.values) }
        for s in streams { s.yield(signal) }
    }

    fileprivate func busDisconnected() {
        finish("the D-Bus system bus went away")
    }

    private func enqueue(_ job: @escaping (OpaquePointer) -> Void) -> Bool {
        lock.withLock {
            guard closedReason == nil && !closing else { return false }
            jobs.append(job)
            return true
        }
    }

    /// Calls a method and returns its reply's arguments. `timeout` bounds the wait for the reply.
    package func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(DBusCallError) -> [DBusValue] {
        let milliseconds = timeout.wholeMilliseconds
        let result: Result<[DBusValue], DBusCallError> = await withCheckedContinuation { continuation in
            let box = ReplyBox { continuation.resume(returning: $0) }
            let queued = enqueue { connection in
                guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
                    box.complete(
                        .failure(
                            DBusCallError(
                                name: "org.freedesktop.DBus.Error.InvalidArgs",
                                message: "bad method call \(path) \(interface).\(member)")))
                    return
                }
                defer { dbus_message_unref(message) }
                var iter = DBusMessageIter()
                dbus_message_iter_init_append(message, &iter)
                for argument in arguments where !DBusCodec.append(argument, to: &iter) {
                    box.complete(
                        .failure(
                            DBusCallError(
                                name: "org.freedesktop.DBus.Error.InvalidArgs",
                                message: "cannot encode an argument of \(member)")))
                    return
                }
                var pending: OpaquePointer? = nil
                guard dbus_connection_send_with_reply(connection, message, &pending, milliseconds) != 0, let pending
                else {
                    box.complete(
                        .failure(
                            DBusCallError(
                                name: "org.freedesktop.DBus.Error.Disconnected",
                                message: "the D-Bus connection is closed")))
                    return
                }
                let opaque = Unmanaged.passRetained(box).toOpaque()
                if dbus_pending_call_set_notify(pending, pendingCallDone, opaque, nil) == 0 {
                    Unmanaged<ReplyBox>.fromOpaque(opaque).release()
                    dbus_pending_call_unref(pending)
                    box.complete(
                        .failure(DBusCallError(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory")))
                } else if dbus_pending_call_get_completed(pending) != 0 {
                    // Completed before the callback was set (a disconnected connection): deliver now.
                    pendingCallDone(pending, opaque)
                }
            }
            if !queued {
                box.complete(
                    .failure(
                        DBusCallError(
                            name: "org.freedesktop.DBus.Error.Disconnected",
                            message: closed ?? "the D-Bus connection is closed")))
            }
        }
        return try result.get()
    }
}

/// Holds a call's continuation until libdbus reports the reply (once).
private final class ReplyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var resume: ((Result<[DBusValue], DBusCallError>) -> Void)?

    init(_ resume: @escaping (Result<[DBusValue], DBusCallError>) -> Void) { self.resume = resume }

    func complete(_ result: Result<[DBusValue], DBusCallError>) {
        let r = lock.withLock {
            defer { resume = nil }; return resume
        }
        r?(result)
    }
}

private func pendingCallDone(_ pending: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let pending, let data else { return }
    let box = Unmanaged<ReplyBox>.fromOpaque(data).takeRetainedValue()
    defer { dbus_pending_call_unref(pending) }
    guard let reply = dbus_pending_call_steal_reply(pending) else {
        box.complete(.failure(DBusCallError(name: "org.freedesktop.DBus.Error.NoReply", message: "no reply")))
        return
    }
    defer { dbus_message_unref(reply) }
    if dbus_message_get_type(reply) == 3 {  // DBUS_MESSAGE_TYPE_ERROR
        let name = dbus_message_get_error_name(reply).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = DBusCodec.arguments(of: reply).first?.string ?? ""
        box.complete(.failure(DBusCallError(name: name, message: message)))
    } else {
        box.complete(.success(DBusCodec.arguments(of: reply)))
    }
}

private func busFilter(
    _ connection: OpaquePointer?, _ message: OpaquePointer?, _ data: UnsafeMutableRawPointer?
) -> DBusHandlerResult {
    guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let bus = Unmanaged<DBusBus>.fromOpaque(data).takeUnretainedValue()
    guard dbus_message_get_type(message) == 4 else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }  // SIGNAL
    let path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
    let interface = dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
    let member = dbus_message_get_member(message).map { String(cString: $0) } ?? ""
    if interface == "org.freedesktop.DBus.Local" && member == "Disconnected" {
        bus.busDisconnected()
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    bus.deliver(
        DBusSignal(path: path, interface: interface, member: member, arguments: DBusCodec.arguments(of: message)))
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
