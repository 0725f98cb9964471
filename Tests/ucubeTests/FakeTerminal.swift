import Foundation
import UCubeProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A TCP "terminal" that answers each command with hand-made bytes (a wrong CRC, a bad ETX, an oversize LEN,
/// or nothing and a hang-up), to test what `ucube` does with a hostile or broken peer.
final class FakeTerminal: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let thread: Thread

    /// `answer` gets each command frame (but CancelAll and ExitSecureSession, answered 0) and returns the bytes to send
    /// back; nil closes the connection.
    init(answer: @escaping @Sendable (RawFrame) -> [UInt8]?) throws {
        let (fd, port) = try Self.listenOnLoopback()
        self.port = port
        listener = fd
        thread = Thread {
            let conn = accept(fd, nil, nil)
            guard conn >= 0 else { return }
            var decoder = FrameDecoder()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(conn, &buffer, buffer.count)
                if n <= 0 { break }
                decoder.append(buffer[..<n])
                var open = true
                while open, let frame = try? decoder.next() {
                    // ucube's resynchronisation before a command (CancelAll, ExitSecureSession) is answered well: the
                    // hostility is for the command under test.
                    let resync = frame.command == .cancelAll || frame.command == .exitSecureSession
                    if let reply = resync ? Self.goodResponse(to: frame, data: []) : answer(frame) {
                        _ = reply.withUnsafeBytes { write(conn, $0.baseAddress, $0.count) }
                    } else {
                        open = false
                    }
                }
                if !open { break }
            }
            close(conn)
        }
        thread.start()
    }

    /// `shutdown` first: it ends an `accept` still waiting (a `close` alone would not, and the thread would outlive
    /// the test).
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// A TCP socket listening on 127.0.0.1 at a port the kernel picks.
    static func listenOnLoopback() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SandboxError(message: "socket failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 4) == 0 else { throw SandboxError(message: "bind/listen failed") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }

    /// A TCP connection to 127.0.0.1:`port`.
    static func connectToLoopback(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0 else { throw SandboxError(message: "cannot connect to 127.0.0.1:\(port)") }
        return fd
    }

    static func goodResponse(to frame: RawFrame, data: [UInt8] = [0xC4, 0x01, 0x02]) -> [UInt8] {
        try! ResponseFrame(sequence: frame.sequence, command: frame.command, status: .success, data: data).encoded()
    }
}
