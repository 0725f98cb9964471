import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// The control socket in-process (issue 23): what a failed connect means, the answer line, the server's budgets, and
/// the rule that only the process that will bind a socket file may remove it, once nobody listens there.
@Suite struct ControlSocketUnitTests {
    // MARK: Pure parts

    /// The seam for errors a test cannot always provoke (EACCES when the tests run as root): each errno of a failed
    /// connect has one meaning, and none of them is "remove the file".
    @Test(arguments: [
        (ENOENT, ControlReach.nobodyListens), (ECONNREFUSED, .nobodyListens), (ENOTDIR, .nobodyListens),
        (EACCES, .notYours(EACCES)), (EPERM, .notYours(EPERM)),
        (EAGAIN, .busy("its control socket's queue is full")), (ETIMEDOUT, .busy("its control socket's queue is full")),
    ])
    func aFailedConnectMeansOneThing(code: Int32, expected: ControlReach) {
        #expect(ControlReach.connectFailed(errno: code) == expected)
    }

    @Test func anUnknownErrnoIsBusyNotNobody() {
        guard case .busy = ControlReach.connectFailed(errno: ENOBUFS) else {
            Issue.record("ENOBUFS: \(ControlReach.connectFailed(errno: ENOBUFS))")
            return
        }
    }

    @Test(arguments: CancelAnswer.Kind.allCases)
    func anAnswerLineRoundTrips(kind: CancelAnswer.Kind) {
        let answer = CancelAnswer(kind, "a message: with a colon")
        #expect(answer.line == "\(kind.rawValue): a message: with a colon")
        #expect(CancelAnswer(line: answer.line) == answer)
    }

    @Test func aLineWithAnUnknownWordIsAnError() {
        #expect(CancelAnswer(line: "maybe: later") == CancelAnswer(.error, "maybe: later"))
        #expect(CancelAnswer(line: "") == CancelAnswer(.error, ""))
    }

    // MARK: The server

    @Test func aRequestIsAnswered() async throws {
        let place = try Place()
        let server = try ControlSocket.serve(at: place.socket) { line in "accepted: got \(line)" }
        #expect(await ControlSocket.request("cancel", at: place.socket) == .answered("accepted: got cancel"))
        await server.close()
    }

    /// Twelve idle connections and four that send a byte at a time (issue 23, repro 3) do not hold up a request:
    /// it is answered while every one of them is still waiting. (A budget of a minute here, so that the order does
    /// not depend on how loaded the machine is; the next test shows the budget ending them.)
    @Test func idleAndSlowPeersDoNotHoldUpARequest() async throws {
        let place = try Place()
        let server = try ControlSocket.serve(at: place.socket, budget: .seconds(60)) { _ in "accepted: ok" }
        let idle = try (0..<12).map { _ in try Peer(place.socket) }
        let slow = try (0..<4).map { _ in try Peer(place.socket) }
        for peer in slow { peer.send("c") }
        #expect(await ControlSocket.request("cancel", at: place.socket) == .answered("accepted: ok"))
        for peer in slow { peer.send("a") }
        #expect(await ControlSocket.request("cancel", at: place.socket) == .answered("accepted: ok"))
        for peer in idle + slow { #expect(peer.pending == false, "a jamming peer was answered before the request") }
        await server.close()
    }

    /// The budget ends a connection that has not sent its whole request: it is told why, and closed.
    @Test func aPeerOverItsBudgetIsToldAndClosed() async throws {
        let place = try Place()
        let server = try ControlSocket.serve(at: place.socket, budget: .milliseconds(300)) { _ in "accepted: ok" }
        let idle = try Peer(place.socket)
        let slow = try Peer(place.socket)
        slow.send("can")
        for peer in [idle, slow] {
            #expect(await peer.answer() == "busy: no complete request within 300 ms")
            #expect(await peer.closedAfterAnswer())
        }
        #expect(await ControlSocket.request("cancel", at: place.socket) == .answered("accepted: ok"))
        await server.close()
    }

    @Test func aRequestLongerThanALineIsRefused() async throws {
        let place = try Place()
        let server = try ControlSocket.serve(at: place.socket) { _ in "accepted: ok" }
        let peer = try Peer(place.socket)
        peer.send(String(repeating: "x", count: RequestLineBuffer.maxRequest + 1))
        #expect(await peer.answer() == "error: request too long")
        await server.close()
    }

    @Test func oneConnectionTooManyIsToldToTryAgain() async throws {
        let place = try Place()
        let server = try ControlSocket.serve(at: place.socket) { _ in "accepted: ok" }
        let held = try (0..<ControlSocket.maxConnections).map { _ in try Peer(place.socket) }
        let extra = try Peer(place.socket)
        #expect(await extra.answer() == "busy: \(ControlSocket.maxConnections) connections are being served; try again")
        #expect(held.count == ControlSocket.maxConnections)
        await server.close()
    }

    /// `close` stops listening, but an answer already being prepared still goes out.
    @Test func closingLetsAnAnswerInFlightGoOut() async throws {
        let place = try Place()
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let server = try ControlSocket.serve(at: place.socket) { _ in
            enteredContinuation.yield()
            for await _ in release { break }
            return "accepted: late"
        }
        let peer = try Peer(place.socket)
        peer.send("cancel\n")
        for await _ in entered { break }
        async let closed: Void = server.close()
        releaseContinuation.yield()
        await closed
        #expect(await peer.answer() == "accepted: late")
        #expect(!FileManager.default.fileExists(atPath: place.socket))
    }

    // MARK: Who may remove a socket file

    /// Repro 4: asking at a socket nobody accepts on, or whose queue is full, leaves the file where it is.
    @Test func askingNeverRemovesTheSocketFile() async throws {
        let place = try Place()
        let stale = try RawListener(place.socket)
        stale.closeWithoutUnlinking()
        #expect(await ControlSocket.request("cancel", at: place.socket) == .nobodyListens)
        #expect(FileManager.default.fileExists(atPath: place.socket), "a stale socket file is the binder's to remove")

        let other = try Place()
        let full = try RawListener(other.socket, backlog: 0)
        full.fillBacklog()
        #expect(await ControlSocket.request("cancel", at: other.socket) == .busy("its control socket's queue is full"))
        #expect(FileManager.default.fileExists(atPath: other.socket))
        full.close()
    }

    /// The binder removes a stale socket file (a connect is refused), and leaves a live one or a file that is not a
    /// socket, refusing to listen.
    @Test func onlyAStaleSocketIsReplaced() async throws {
        let place = try Place()
        RawListener.stale(at: place.socket)
        let server = try ControlSocket.serve(at: place.socket) { _ in "accepted: new" }
        #expect(await ControlSocket.request("cancel", at: place.socket) == .answered("accepted: new"))
        await server.close()

        let live = try RawListener(place.socket)
        #expect(throws: ControlSocketError.self) { try ControlSocket.serve(at: place.socket) { _ in "" } }
        #expect(live.accepts(), "the live listener is untouched")
        live.close()

        let file = try Place()
        #expect(FileManager.default.createFile(atPath: file.socket, contents: Data("mine".utf8)))
        #expect(throws: ControlSocketError.self) { try ControlSocket.serve(at: file.socket) { _ in "" } }
        #expect(FileManager.default.contents(atPath: file.socket) == Data("mine".utf8))
    }

    /// `close` removes the file it bound, not one that replaced it.
    @Test func closeRemovesOnlyItsOwnFile() async throws {
        let place = try Place()
        let server = try ControlSocket.serve(at: place.socket) { _ in "accepted: ok" }
        unlink(place.socket)
        let other = try RawListener(place.socket)
        await server.close()
        #expect(FileManager.default.fileExists(atPath: place.socket))
        other.close()
    }
}

// MARK: - Test helpers

/// A fresh directory and a socket path in it.
private final class Place {
    let directory: String
    var socket: String { directory + "/control-test.sock" }

    init() throws {
        // Short: a socket path must fit in sun_path (108 bytes).
        directory = "/tmp/ucs-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

private func unixAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
    }
    return address
}

/// A client connection made by hand: it sends what a test says, when the test says.
private final class Peer: @unchecked Sendable {
    let fd: Int32

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = unixAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { close(fd) }

    func send(_ text: String) { _ = text.withCString { write(fd, $0, strlen($0)) } }

    /// Whether an answer (or the end) is already waiting to be read.
    var pending: Bool {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 0) > 0
    }

    /// The answer line, waiting at most 10 s (a safety net, not a synchronisation).
    func answer() async -> String? {
        await blocking { [self] in
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while !line.contains(0x0A) {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 10_000) > 0, read(fd, &byte, 1) == 1 else { break }
                line.append(byte)
            }
            return line.isEmpty ? nil : String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
        }
    }

    /// After the answer: the server closed the connection (end of file within 10 s).
    func closedAfterAnswer() async -> Bool {
        await blocking { [self] in
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            return poll(&ready, 1, 10_000) > 0 && read(fd, &byte, 1) == 0
        }
    }
}

/// A listening socket made by hand, standing for another process.
private final class RawListener {
    let fd: Int32
    private var fillers: [Int32] = []
    private let path: String

    init(_ path: String, backlog: Int32 = 8) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = unixAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, backlog) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// A socket file left by a process that died: bound, then closed.
    static func stale(at path: String) {
        (try? RawListener(path))?.closeWithoutUnlinking()
    }

    /// Closes the listener and leaves its file, and returns once a connect to it is refused: until then a process
    /// that another test is spawning may still hold a copy of the socket (between its fork and its exec, before
    /// close-on-exec acts), and the socket would still be listening.
    func closeWithoutUnlinking() {
        Glibc.close(fd)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = unixAddress(path)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            let code = errno
            Glibc.close(probe)
            if result != 0 && code == ECONNREFUSED { return }
            usleep(10_000)
        }
        Issue.record("the closed listener at \(path) still accepts connections after 10 s")
    }

    func close() {
        for filler in fillers { Glibc.close(filler) }
        Glibc.close(fd)
        unlink(path)
    }

    /// Connects without ever being accepted until a connect fails with EAGAIN: the queue is full.
    func fillBacklog() {
        for _ in 0..<64 {
            let client = socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = unixAddress(path)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if connected != 0 {
                Glibc.close(client)
                return
            }
            fillers.append(client)
        }
    }

    /// Whether a connect to it succeeds.
    func accepts() -> Bool {
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { Glibc.close(client) }
        var address = unixAddress(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }
}
