import NIOCore
import NIOPosix
import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File access for the TMS client. Small files (identities, 1 MB at most) are read and written synchronously; large
/// streams (binary downloads, log uploads) run their system calls on NIO's blocking thread pool, never on the
/// cooperative pool.
enum FileIO {
    static func errorText(_ e: Int32 = errno) -> String { ErrorNumber.text(e) }

    static func readSmallFile(_ path: String, limit: Int) throws(TMSError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TMSError(.file, "cannot open \(path): \(errorText())") }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TMSError(.file, "cannot read \(path): \(errorText())")
            }
            if n == 0 { return out }
            out += chunk[0..<n]
            if out.count > limit { throw TMSError(.file, "\(path) is larger than \(limit) bytes") }
        }
    }

    /// Creates `path` (and parents) and makes `path` itself owner-only (0700).
    static func ensurePrivateDirectory(_ path: String) throws(TMSError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw TMSError(.file, "cannot create \(prefix): \(errorText())")
            }
        }
        guard chmod(path, mode_t(TMSChoices.identityDirectoryMode)) == 0 else {
            throw TMSError(.file, "cannot set permissions of \(path): \(errorText())")
        }
    }

    /// Writes to a temporary file with `mode`, syncs it, then renames it over `path`.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: UInt16) throws(TMSError) {
        let tmp = path + ".tmp-\(getpid())"
        // A leftover of a dead process with this pid is removed; a link planted there is never followed.
        unlink(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw TMSError(.file, "cannot create \(tmp): \(errorText())") }
        var failure: String?
        bytes.withUnsafeBytes { raw in failure = writeAll(fd, raw) }
        if failure == nil, fchmod(fd, mode_t(mode)) != 0 { failure = errorText() }
        if failure == nil, fsync(fd) != 0 { failure = errorText() }
        if close(fd) != 0, failure == nil { failure = errorText() }
        if failure == nil, rename(tmp, path) != 0 { failure = errorText() }
        if let failure {
            unlink(tmp)
            throw TMSError(.file, "cannot write \(path): \(failure)")
        }
    }

    /// Writes every byte (partial writes and EINTR handled); nil on success, else the error text.
    static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> String? {
        FileDescriptor.writeAll(fd, raw).map(ErrorNumber.text)
    }

    static func fileSize(_ path: String) throws(TMSError) -> Int64 {
        var st = stat()
        guard stat(path, &st) == 0 else { throw TMSError(.file, "cannot read \(path): \(errorText())") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw TMSError(.file, "\(path) is not a regular file") }
        return Int64(st.st_size)
    }
}

/// A file being written chunk by chunk on NIO's thread pool (a binary download). Used by one task at a time.
final class FileSink: @unchecked Sendable {
    let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    static func create(_ path: String, mode: UInt16) async throws(TMSError) -> FileSink {
        let result: Result<Int32, TMSError> = await onPool {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
            return fd >= 0 ? .success(fd) : .failure(TMSError(.file, "cannot create \(path): \(FileIO.errorText())"))
        }
        return FileSink(path: path, fd: try result.get())
    }

    func write(_ buffer: ByteBuffer) async throws(TMSError) {
        let fd = self.fd
        let path = self.path
        let failure: String? = await FileSink.onPool {
            buffer.withUnsafeReadableBytes { FileIO.writeAll(fd, $0) }
        }
        if let failure { throw TMSError(.file, "cannot write \(path): \(failure)") }
    }

    /// Syncs and closes, then renames the file to `destination`.
    func finish(renamingTo destination: String) async throws(TMSError) {
        let fd = self.fd
        self.fd = -1
        let path = self.path
        let failure: String? = await FileSink.onPool {
            var failure: String?
            if fsync(fd) != 0 { failure = FileIO.errorText() }
            if close(fd) != 0, failure == nil { failure = FileIO.errorText() }
            if failure == nil, rename(path, destination) != 0 { failure = FileIO.errorText() }
            return failure
        }
        if let failure {
            unlink(path)
            throw TMSError(.file, "cannot write \(destination): \(failure)")
        }
    }

    /// Closes and deletes the partial file.
    func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(path)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Runs a blocking system call on NIO's thread pool.
    static func onPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        do {
            return try await NIOThreadPool.singleton.runIfActive(body)
        } catch {
            // The singleton pool is never shut down; should it be, run in place rather than fail.
            return body()
        }
    }
}

/// A regular file read in chunks on NIO's thread pool, as an async sequence of buffers (a log upload body).
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    let chunkSize: Int

    final class AsyncIterator: AsyncIteratorProtocol, @unchecked Sendable {
        let path: String
        let chunkSize: Int
        private var fd: Int32 = -1
        private var offset: Int64 = 0
        private var done = false

        init(path: String, chunkSize: Int) {
            self.path = path
            self.chunkSize = chunkSize
        }

        func next() async throws -> ByteBuffer? {
            guard !done else { return nil }
            let path = self.path
            let size = chunkSize
            let (openFD, offset) = (self.fd, self.offset)
            let result: Result<(Int32, ByteBuffer), TMSError> = await FileSink.onPool {
                var fd = openFD
                if fd < 0 {
                    fd = open(path, O_RDONLY | O_CLOEXEC)
                    if fd < 0 { return .failure(TMSError(.file, "cannot open \(path): \(FileIO.errorText())")) }
                }
                var buffer = ByteBufferAllocator().buffer(capacity: size)
                var r = 0
                repeat {
                    _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
                        r = pread(fd, raw.baseAddress, size, off_t(offset))
                        return Swift.max(0, r)
                    }
                } while r < 0 && errno == EINTR
                if r < 0 {
                    let text = FileIO.errorText()
                    if fd != openFD { close(fd) }  // opened in this call; an older one is closed by deinit
                    return .failure(TMSError(.file, "cannot read \(path): \(text)"))
                }
                return .success((fd, buffer))
            }
            let (newFD, buffer) = try result.get()
            self.fd = newFD
            if buffer.readableBytes == 0 {
                done = true
                close(newFD)
                self.fd = -1
                return nil
            }
            self.offset += Int64(buffer.readableBytes)
            return buffer
        }

        deinit { if fd >= 0 { close(fd) } }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(path: path, chunkSize: chunkSize) }
}
