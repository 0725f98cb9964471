import NIOPosix
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to one bytes source, synchronously (the pure §10.5 scanner reads through it).
package protocol ByteSource {
    /// The source's size in bytes.
    var size: Int { get }
    /// `count` bytes at `offset`, fewer only at the end of the source.
    func read(at offset: Int, count: Int) throws(UpdateError) -> [UInt8]
}

/// Bytes in memory as a `ByteSource` (tests, small binaries).
package struct MemoryByteSource: ByteSource, Sendable {
    package let bytes: [UInt8]
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package var size: Int { bytes.count }
    package func read(at offset: Int, count: Int) throws(UpdateError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= bytes.count else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}

/// An open, read-only file read with `pread` at explicit offsets (no shared position: safe from any thread).
///
/// The async reads run the syscall on NIO's blocking-I/O thread pool, never on the cooperative pool; the sync
/// `read(at:count:)` is for code already running there (the §10.5 scan inside `run`).
package final class BinaryFile: ByteSource, Sendable {
    package let path: String
    private let descriptor: Int32
    package let size: Int

    /// Opens `path` (on the calling thread: one `open` + `fstat`).
    package init(path: String) throws(UpdateError) {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw UpdateError(.fileUnreadable, "cannot open \(path): \(ErrorNumber.text(errno))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw UpdateError(.fileUnreadable, "\(path) is not a regular file")
        }
        descriptor = fd
        size = Int(info.st_size)
    }

    /// Opens `path` on NIO's thread pool.
    package static func opening(path: String) async throws(UpdateError) -> BinaryFile {
        try await run { () throws(UpdateError) in try BinaryFile(path: path) }
    }

    deinit { close(descriptor) }

    package func read(at offset: Int, count: Int) throws(UpdateError) -> [UInt8] {
        guard count > 0, offset >= 0, offset < size else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw UpdateError(.fileUnreadable, "cannot read \(path): \(ErrorNumber.text(errno))")
            }
            if n == 0 { break }
            filled += n
        }
        if filled < count { buffer.removeLast(count - filled) }
        return buffer
    }

    /// `read(at:count:)` on NIO's thread pool.
    package func readAsync(at offset: Int, count: Int) async throws(UpdateError) -> [UInt8] {
        try await Self.run { () throws(UpdateError) in try self.read(at: offset, count: count) }
    }

    /// Runs blocking file work on NIO's thread pool; errors come back typed.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(UpdateError) -> T) async throws(UpdateError) -> T
    {
        let result: Result<T, UpdateError>
        do {
            result = try await NIOThreadPool.singleton.runIfActive { () -> Result<T, UpdateError> in
                do throws(UpdateError) { return .success(try body()) } catch { return .failure(error) }
            }
        } catch is CancellationError {
            throw UpdateError(.cancelled, "the update was cancelled; the terminal keeps its installed version")
        } catch {
            throw UpdateError(.fileUnreadable, "the file I/O thread pool is not running: \(error)")
        }
        return try result.get()
    }
}
