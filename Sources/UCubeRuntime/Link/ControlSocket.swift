import Foundation
import Glibc
import Logging
import UCubeLog
import UCubeSupport

/// A per-device Unix socket under the runtime directory through which `ucube cancel` reaches the process that holds
/// the terminal: one request line in, one answer line out (docs/architecture.md, "The control socket"). Only the
/// owner can connect: the directory is 0700, and a peer of another user (root aside) is answered `denied`.
///
/// Nothing here blocks a thread the payment needs: the server runs on non-blocking sockets watched by Dispatch sources
/// on one serial queue of its own, and each connection has a time budget (`requestBudget`) and a size budget
/// (`RequestLineBuffer.maxRequest`) for its request. Idle or slow peers, however many, cost a file descriptor each
/// for at most the budget, never a thread.
package enum ControlSocket {
    /// `$XDG_RUNTIME_DIR/ucube/control-<device>.sock`.
    package static func path(forDevice device: String) -> String {
        Environment.runtimeDirectory + "/control-" + Environment.fileKey(device) + ".sock"
    }

    /// How long a connection may take to send its whole request line; then it is answered `busy` and closed.
    package static let requestBudget: Duration = .seconds(2)
    /// Connections served at once; one more is answered `busy` at once and closed. Each costs a descriptor for at
    /// most `requestBudget`.
    package static let maxConnections = 64
    /// Pending connections the kernel queues before `connect` fails with EAGAIN.
    package static let backlog: Int32 = 64
    /// How long `close` lets answers already being prepared go out before it closes their connections.
    package static let drainBudget: Duration = .seconds(1)

    /// Serves requests until the returned server is closed. `handle` gets the request line and returns the answer;
    /// `budget` is the time each connection has for its request (`requestBudget`; tests choose another).
    ///
    /// A plain Unix socket watched by Dispatch sources, not NIO: every command that holds a terminal listens, and
    /// starting NIO's event loops and a server channel for it was a measurable part of a short command's start-up.
    package static func serve(
        at path: String, budget: Duration = requestBudget, maxRequest: Int = RequestLineBuffer.maxRequest,
        handle: @escaping @Sendable (String) async -> String
    ) throws -> ControlServer {
        try Environment.ensureDirectory(PathText.directory(of: path))
        let (fd, identity) = try ListeningSocket.bind(path)
        return ControlServer(
            listener: fd, path: path, identity: identity, budget: budget, maxRequest: maxRequest, handle: handle)
    }

    // MARK: The holder's side

    /// The unit of work the current task belongs to, when the process runs several side by side: a fleet run's
    /// terminal (its device, `FleetRun`). nil: the process's one command. A control socket opened in a unit answers
    /// with that unit's route, so that `ucube cancel --device D` reaches D's work and no other terminal's.
    @TaskLocal package static var unit: String?

    /// Every process that holds a terminal listens on its device's control socket, so that `ucube cancel` reaches it,
    /// whatever the command (`Connection.open` calls this). A `cancel` request is answered by the route the command
    /// set in the socket's unit (`pay`: its cancel rule, only before the card is read; `cancel` itself: no payment
    /// runs); without one, by the unit's own stop (`unitRoute`: a fleet run's terminal stops its work), and for the
    /// process's one command by interrupting this process as Ctrl-C would (mdm-update stops after the current block,
    /// the shell stops its running command, others end).
    package static func listen(forDevice device: String) async {
        let path = path(forDevice: device)
        guard holder.claim(path) else { return }
        let unit = unit
        do {
            holder.store(try serve(at: path, handle: { line in await answer(line, unit: unit) }), for: path)
        } catch {
            holder.release(path)
            Logger(layer: .connection).notice("\(device): not listening on the control socket \(path): \(error)")
        }
    }

    /// Stops listening for `device` (the link is closed); `mdm-update` listens again when it reconnects.
    package static func stopListening(forDevice device: String) async {
        await holder.take(path(forDevice: device))?.close()
    }

    /// Sets (or with nil, clears) what answers a `cancel` in the current unit of work (`unit`).
    package static func route(_ handler: (@Sendable () async -> CancelAnswer)?) { holder.setRoute(handler, unit: unit) }

    /// Runs `body` with `handler` answering a `cancel` in the current unit of work, then puts back the route that was
    /// there (an operator's prompt inside a payment: the payment's cancel rule answers again once it is answered).
    package static func routing<T: Sendable>(
        _ handler: @escaping @Sendable () async -> CancelAnswer, _ body: () async throws -> T
    ) async rethrows -> T {
        let unit = unit
        let earlier = holder.swapRoute(handler, unit: unit)
        defer { _ = holder.swapRoute(earlier, unit: unit) }
        return try await body()
    }

    /// Runs `body` as the unit of work `name` (a fleet run's terminal): a `cancel` that reaches one of its control
    /// sockets and finds no route the work set is answered by `stop`, which stops this unit only.
    package static func inUnit<T: Sendable>(
        _ name: String, stop: @escaping @Sendable () -> CancelAnswer, _ body: () async throws -> T
    ) async rethrows -> T {
        holder.setUnitRoute(stop, unit: name)
        defer {
            holder.setUnitRoute(nil, unit: name)
            holder.setRoute(nil, unit: name)
        }
        return try await $unit.withValue(name) { try await body() }
    }

    private static let holder = Holder()

    /// Answers a `cancel` for the unit of work `unit` in this process, as its control socket would answer
    /// `ucube cancel` (`ucube serve`'s `POST /v1/payments/{id}/cancel`). A unit's answer never interrupts the process.
    package static func cancelInProcess(unit: String) async -> CancelAnswer {
        CancelAnswer(line: await answer("cancel", unit: unit))
    }

    private static func answer(_ line: String, unit: String?) async -> String {
        guard ControlRequest(line: line) == .cancel else {
            return CancelAnswer(.error, "unknown request '\(line)'").line
        }
        switch holder.route(unit: unit) {
        case .route(let route): return await route().line
        case .unit(let stop): return stop().line
        case .process: break
        }
        Task {
            // After the answer has gone out.
            try? await Task.sleep(for: .milliseconds(100))
            kill(getpid(), SIGINT)
        }
        let command = CommandLine.arguments.dropFirst().joined(separator: " ")
        return CancelAnswer(.accepted, "interrupting `ucube \(command)` (pid \(getpid())), as Ctrl-C would").line
    }

    /// What answers a `cancel` in one unit of work (`Holder.route(unit:)`).
    private enum Answerer {
        /// The route the unit's work set (a payment's cancel rule).
        case route(@Sendable () async -> CancelAnswer)
        /// The unit's own stop (a fleet run's terminal).
        case unit(@Sendable () -> CancelAnswer)
        /// Neither, in the process's one command: interrupt the process as Ctrl-C would.
        case process
    }

    /// The servers this process runs and the cancel routes of its units, behind one lock (used from any thread).
    private final class Holder: @unchecked Sendable {
        private let lock = NSLock()
        private var servers: [String: ControlServer?] = [:]
        /// By unit (`ControlSocket.unit`; the key nil: the process's one command).
        private var cancelRoutes: [String?: @Sendable () async -> CancelAnswer] = [:]
        private var unitRoutes: [String: @Sendable () -> CancelAnswer] = [:]

        /// How many `listen`s of this process hold each path: a suite run listens for its whole run, and each case's
        /// link listens and stops inside it; the socket closes with the last.
        private var holds: [String: Int] = [:]

        func claim(_ path: String) -> Bool {
            lock.withLock {
                holds[path, default: 0] += 1
                guard servers[path] == nil else { return false }
                servers[path] = .some(nil)
                return true
            }
        }
        func store(_ server: ControlServer, for path: String) { lock.withLock { servers[path] = server } }
        func release(_ path: String) {
            lock.withLock {
                _ = servers.removeValue(forKey: path)
                holds[path] = nil
            }
        }
        func take(_ path: String) -> ControlServer? {
            lock.withLock {
                if let count = holds[path], count > 1 {
                    holds[path] = count - 1
                    return nil
                }
                holds[path] = nil
                return servers.removeValue(forKey: path) ?? nil
            }
        }
        func setRoute(_ route: (@Sendable () async -> CancelAnswer)?, unit: String?) {
            lock.withLock { cancelRoutes[unit] = route }
        }
        func swapRoute(
            _ route: (@Sendable () async -> CancelAnswer)?, unit: String?
        ) -> (@Sendable () async -> CancelAnswer)? {
            lock.withLock {
                defer { cancelRoutes[unit] = route }
                return cancelRoutes[unit]
            }
        }
        func setUnitRoute(_ stop: (@Sendable () -> CancelAnswer)?, unit: String) {
            lock.withLock { unitRoutes[unit] = stop }
        }
        func route(unit: String?) -> Answerer {
            lock.withLock {
                if let route = cancelRoutes[unit] { return .route(route) }
                if let unit {
                    // A unit that has ended (its run is finishing): nothing of it runs, and nothing else is stopped.
                    return .unit(unitRoutes[unit] ?? { CancelAnswer(.none, "\(unit) has finished its work") })
                }
                return .process
            }
        }
    }

    // MARK: The asker's side

    /// How long `ucube cancel` keeps trying to hand its request over (a full queue, a holder starting or ending).
    package static let reachBudget: Duration = .seconds(5)

    /// How long `ucube cancel` waits for the answer once its request is sent.
    package static let answerTimeout: Duration = .seconds(30)

    /// Sends one request line to whoever listens at `path` and returns what came of it. Never removes anything: a
    /// socket file is removed only by the process that will bind it, once it has proved that nobody listens.
    package static func request(_ line: String, at path: String, timeout: Duration = answerTimeout) async
        -> ControlReach
    {
        await withCheckedContinuation { continuation in
            // A thread of its own: the wait for the answer is a blocking poll.
            Thread { continuation.resume(returning: ControlClient.exchange(line, at: path, timeout: timeout)) }.start()
        }
    }
}

/// What trying to reach the holder of a control socket gave (`ControlSocket.request`).
package enum ControlReach: Equatable, Sendable {
    /// The holder's answer line.
    case answered(String)
    /// Nobody listens: no socket file (ENOENT), or one that nobody accepts on (ECONNREFUSED, a stale file).
    case nobodyListens
    /// The socket or its directory belongs to another user (EACCES, EPERM): the errno.
    case notYours(Int32)
    /// The holder could not take the request now: its backlog is full (EAGAIN), it answered nothing in time, or it
    /// closed without answering (it is stopping). Trying again may work.
    case busy(String)

    /// What a failed `connect` means (the unit seam for errors a test cannot provoke, such as EACCES as root).
    package static func connectFailed(errno code: Int32) -> ControlReach {
        switch code {
        case ENOENT, ECONNREFUSED, ENOTDIR, ENOTSOCK, ENAMETOOLONG:
            // ENAMETOOLONG: no holder can bind such a path either.
            .nobodyListens
        case EACCES, EPERM:
            .notYours(code)
        case EAGAIN, EINTR, ETIMEDOUT:
            .busy("its control socket's queue is full")
        default:
            .busy(ErrorNumber.text(code))
        }
    }
}

/// The blocking client `ucube cancel` uses (on a thread of its own).
private enum ControlClient {
    /// Answers longer than this are cut (a holder's answer is one short line).
    static let maxAnswer = 4096

    static func exchange(_ line: String, at path: String, timeout: Duration) -> ControlReach {
        guard var address = UnixAddress(path) else { return .nobodyListens }
        let fd = UnixAddress.newSocket()
        guard fd >= 0 else { return .busy(ErrorNumber.text(errno)) }
        defer { close(fd) }
        // A Unix stream socket connects at once or fails at once: there is no EINPROGRESS to wait for.
        guard address.connect(fd) == 0 else { return ControlReach.connectFailed(errno: errno) }
        let request = Array((line + "\n").utf8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return .busy("it took no request") }
        let deadline = ContinuousClock.now + timeout
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !answer.contains(0x0A) && answer.count < maxAnswer {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .busy("no answer within \(timeout.components.seconds) s") }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.timeInterval * 1000 + 1, 1000))
            let polled = poll(&ready, 1, milliseconds)
            if polled < 0 && errno != EINTR { return .busy(ErrorNumber.text(errno)) }
            if polled <= 0 { continue }
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { break }  // closed (or reset)
            answer += chunk[..<count]
        }
        guard !answer.isEmpty else { return .busy("it closed the connection without answering (it is stopping)") }
        let text = answer.firstIndex(of: 0x0A).map { answer[..<$0] } ?? answer[...]
        return .answered(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// A `sockaddr_un` for a path, or nil when the path does not fit.
private struct UnixAddress {
    private var address = sockaddr_un()

    init?(_ path: String) {
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        guard !name.contains(0), name.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: name)
            raw[name.count] = 0
        }
    }

    /// A non-blocking stream socket, closed on exec (-1 when none can be made).
    static func newSocket() -> Int32 {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    }

    mutating func connect(_ fd: Int32) -> Int32 {
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
        }
    }

    mutating func bind(_ fd: Int32) -> Int32 {
        let size = socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, size) }
        }
    }
}

/// Why the control socket could not be set up.
package struct ControlSocketError: Error, CustomStringConvertible {
    package let description: String
}

/// Binding the listening socket, and the one rule for removing a socket file that is already there.
package enum ListeningSocket {
    /// The file a server bound (device and inode), so that it removes that file and never another one.
    package struct Identity: Equatable, Sendable {
        package let device: UInt64
        package let inode: UInt64
        package let isSocket: Bool

        /// The file at `path` itself (a link is not followed), or nil when there is none. lstat(2) rather than
        /// FileManager's attributes, which cost 1.5 M instructions at every command's start (callgrind).
        package init?(path: String) {
            guard let found = FileStatus.identity(ofLink: path) else { return nil }
            (device, inode, isSocket) = found
        }
    }

    /// A non-blocking listening socket at `path`. A socket file already there is removed only when a connect to it
    /// is refused (ECONNREFUSED: the process that bound it died); one somebody accepts on, or anything that is not a
    /// socket, is left alone and the bind is refused. The caller holds the device lock, so no other ucube process of
    /// this device binds between the check and the bind.
    package static func bind(_ path: String) throws -> (Int32, Identity) {
        guard var address = UnixAddress(path) else {
            throw ControlSocketError(description: "the path \(path) is too long for a socket")
        }
        if let existing = Identity(path: path) {
            guard existing.isSocket else {
                throw ControlSocketError(description: "\(path) exists and is not a socket: left alone")
            }
            // Connected (nil), or refused for another reason than "nobody listens" (a full queue, another user's).
            guard let refused = ControlClient.connectError(path),
                ControlReach.connectFailed(errno: refused) == .nobodyListens
            else {
                throw ControlSocketError(description: "another process listens on \(path): left alone")
            }
            unlink(path)
        }
        let fd = UnixAddress.newSocket()
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard address.bind(fd) == 0, Glibc.listen(fd, ControlSocket.backlog) == 0, let identity = Identity(path: path)
        else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            close(fd)
            throw POSIXError(code)
        }
        return (fd, identity)
    }
}

extension ControlClient {
    /// Why a connect to `path` fails, or nil when somebody accepts there. Nothing is sent: a server drops a
    /// connection closed before its request without an answer.
    package static func connectError(_ path: String) -> Int32? {
        guard var address = UnixAddress(path) else { return ENAMETOOLONG }
        let fd = UnixAddress.newSocket()
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return address.connect(fd) == 0 ? nil : errno
    }
}

/// A listening control socket and its connections. Every mutable field is touched only on `queue`, a serial queue
/// of its own; no handler on it blocks (non-blocking sockets, and the request's answer is computed in a task).
package final class ControlServer: @unchecked Sendable {
    // @unchecked: the state below is confined to `queue`.
    package let path: String
    private let identity: ListeningSocket.Identity
    private let handle: @Sendable (String) async -> String
    /// The time each connection has for its whole request.
    private let budget: Duration
    /// The longest request line taken.
    private let maxRequest: Int
    private let queue = DispatchQueue(label: "ucube.control-socket")
    private let listener: Int32
    private var acceptSource: (any DispatchSourceRead)?
    /// The accept source is paused after running out of descriptors (a suspended source must be resumed before it
    /// goes).
    private var acceptPaused = false
    private var peers: [Int: Peer] = [:]
    private var nextPeer = 0
    private var closing = false
    private var drained: CheckedContinuation<Void, Never>?

    /// One accepted connection.
    private final class Peer {
        let fd: Int32
        var request: RequestLineBuffer
        /// Watches the socket for the request's bytes; nil once cancelled (the request is complete or given up).
        var source: (any DispatchSourceRead)?
        /// The source's cancel handler has run: the descriptor may be closed.
        var sourceGone = false
        /// What to send before closing: nil while the answer is being prepared.
        var reply: Reply?

        enum Reply {
            case line(String)
            case nothing
        }

        init(fd: Int32, maxRequest: Int) {
            self.fd = fd
            request = RequestLineBuffer(limit: maxRequest)
        }
    }

    fileprivate init(
        listener: Int32, path: String, identity: ListeningSocket.Identity, budget: Duration, maxRequest: Int,
        handle: @escaping @Sendable (String) async -> String
    ) {
        self.listener = listener
        self.budget = budget
        self.maxRequest = maxRequest
        self.path = path
        self.identity = identity
        self.handle = handle
        let source = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptAll() }
        source.setCancelHandler { Glibc.close(listener) }
        acceptSource = source
        source.resume()
    }

    /// Stops listening and removes the socket file (if it is still the one bound here). Answers already being prepared
    /// go out first, for at most `ControlSocket.drainBudget`; connections still sending their request are closed.
    ///
    /// The stop itself runs on the calling thread (`queue.sync`: nothing on the queue blocks, so the wait is short).
    /// Handing it to the queue asynchronously woke, and at a command's end usually created, a thread only for it.
    package func close() async {
        let draining: Bool = queue.sync {
            guard !closing else { return false }
            closing = true
            acceptSource?.cancel()
            if acceptPaused { acceptSource?.resume() }
            acceptSource = nil
            if ListeningSocket.Identity(path: path) == identity { unlink(path) }
            for (id, peer) in peers where peer.source != nil { finish(id, .nothing) }
            return !peers.isEmpty
        }
        guard draining else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                if peers.isEmpty { return continuation.resume() }
                drained = continuation
                queue.asyncAfter(deadline: .now() + ControlSocket.drainBudget.timeInterval) { [self] in
                    for id in peers.keys { finish(id, .nothing) }
                }
            }
        }
    }

    // MARK: On `queue`

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    // Out of descriptors: the pending connection stays queued; look again shortly, not in a loop.
                    guard !acceptPaused else { return }
                    acceptPaused = true
                    acceptSource?.suspend()
                    queue.asyncAfter(deadline: .now() + 0.1) { [weak self] in self?.resumeAccepting() }
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if let refusal = refusal(fd) {
                let bytes = Array((refusal.line + "\n").utf8)
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Glibc.close(fd)
                continue
            }
            let id = nextPeer
            nextPeer += 1
            let peer = Peer(fd: fd, maxRequest: maxRequest)
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in self?.readable(id) }
            source.setCancelHandler { [weak self] in self?.sourceGone(id) }
            peer.source = source
            peers[id] = peer
            source.resume()
            queue.asyncAfter(deadline: .now() + budget.timeInterval) { [weak self] in
                self?.expire(id)
            }
        }
    }

    private func resumeAccepting() {
        guard acceptPaused else { return }
        acceptPaused = false
        acceptSource?.resume()
    }

    /// Why a new connection is answered at once and closed, if it is.
    private func refusal(_ fd: Int32) -> CancelAnswer? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (socket(7), SO_PEERCRED); Glibc does not export it.
        var credentials: [UInt32] = [0, 0, 0]
        var size = socklen_t(MemoryLayout<UInt32>.size * 3)
        if getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
            size == socklen_t(MemoryLayout<UInt32>.size * 3), credentials[1] != ThisProcess.effectiveUser,
            credentials[1] != 0
        {
            return CancelAnswer(.denied, "this payment belongs to another user")
        }
        if closing { return CancelAnswer(.busy, "the process is stopping; try again") }
        if peers.count >= ControlSocket.maxConnections {
            return CancelAnswer(.busy, "\(ControlSocket.maxConnections) connections are being served; try again")
        }
        return nil
    }

    private func readable(_ id: Int) {
        guard let peer = peers[id], peer.source != nil else { return }
        var chunk = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(peer.fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            guard count > 0 else { return finish(id, .nothing) }  // closed or failed before a whole request
            switch peer.request.append(Array(chunk[..<count])) {
            case .needMore:
                continue
            case .tooLong:
                return finish(id, .line(CancelAnswer(.error, "request too long").line))
            case .line(let line):
                stopReading(peer)
                let handle = handle
                Task { [weak self] in
                    let answer = await handle(line)
                    guard let server = self else { return }
                    server.queue.async { server.answered(id, answer) }
                }
                return
            }
        }
    }

    private func expire(_ id: Int) {
        guard let peer = peers[id], peer.source != nil else { return }  // answered, or being answered
        finish(id, .line(CancelAnswer(.busy, "no complete request within \(budget.shortText)").line))
    }

    private func answered(_ id: Int, _ answer: String) {
        guard peers[id] != nil else { return }  // closed meanwhile
        finish(id, .line(answer))
    }

    /// Decides what the connection gets; it is sent and the descriptor closed once the read source is gone.
    private func finish(_ id: Int, _ reply: Peer.Reply) {
        guard let peer = peers[id], peer.reply == nil else { return }
        peer.reply = reply
        stopReading(peer)
        closeIfDone(id)
    }

    private func stopReading(_ peer: Peer) {
        peer.source?.cancel()
        peer.source = nil
    }

    private func sourceGone(_ id: Int) {
        guard let peer = peers[id] else { return }
        peer.sourceGone = true
        closeIfDone(id)
    }

    private func closeIfDone(_ id: Int) {
        guard let peer = peers[id], peer.sourceGone, let reply = peer.reply else { return }
        if case .line(let text) = reply {
            // One short line into an empty socket buffer: it fits, so a non-blocking send is whole or fails.
            let bytes = Array((text + "\n").utf8)
            _ = bytes.withUnsafeBytes { send(peer.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        Glibc.close(peer.fd)
        peers[id] = nil
        resumeIfDrained()
    }

    private func resumeIfDrained() {
        guard closing, peers.isEmpty, let drained else { return }
        self.drained = nil
        drained.resume()
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`, for Dispatch.
    fileprivate var timeInterval: TimeInterval { seconds }

    /// "2 s", or "300 ms" for less than a whole second.
    package var shortText: String {
        components.attoseconds == 0 ? "\(components.seconds) s" : "\(Int((timeInterval * 1000).rounded())) ms"
    }
}

/// The requests the control socket understands.
package enum ControlRequest: Equatable {
    case cancel

    package init?(line: String) {
        guard line == "cancel" else { return nil }
        self = .cancel
    }
}

/// One request line put back together from the reads it arrives in (pure: the server feeds it).
package struct RequestLineBuffer {
    /// A control request's limit (`cancel`); the steering socket takes longer lines (`Steering.maximumLine`).
    package static let maxRequest = 256

    /// The longest line taken.
    package let limit: Int

    package init(limit: Int = maxRequest) { self.limit = limit }

    package enum Outcome: Equatable {
        /// No newline yet.
        case needMore
        /// The bytes before the first newline, trimmed.
        case line(String)
        /// More than `maxRequest` bytes and no newline.
        case tooLong
    }

    private var pending: [UInt8] = []

    package mutating func append(_ bytes: [UInt8]) -> Outcome {
        pending += bytes
        guard let newline = pending.firstIndex(of: 0x0A) else {
            return pending.count > limit ? .tooLong : .needMore
        }
        return .line(
            String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
