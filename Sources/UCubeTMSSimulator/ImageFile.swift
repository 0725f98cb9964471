import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only file descriptor whose syscalls run on NIO's thread pool (never on the cooperative pool).
struct ImageFile: Sendable {
    let descriptor: Int32
    let size: Int

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func open(_ path: String, pool: NIOThreadPool = .singleton) async throws -> ImageFile {
        try await pool.runIfActive {
            let fd = systemOpen(path)
            guard fd >= 0 else { throw Failure(description: "cannot open \(path): errno \(errno)") }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                systemClose(fd)
                throw Failure(description: "cannot stat \(path): errno \(errno)")
            }
            return ImageFile(descriptor: fd, size: Int(info.st_size))
        }
    }

    /// Up to `count` bytes at `offset` (fewer only at end of file).
    func read(at offset: Int, count: Int, pool: NIOThreadPool = .singleton) async throws -> [UInt8] {
        let fd = descriptor
        return try await pool.runIfActive {
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = bytes.withUnsafeMutableBytes { raw in
                    pread(fd, raw.baseAddress! + done, count - done, off_t(offset + done))
                }
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { throw Failure(description: "read failed: errno \(errno)") }
                if n == 0 { break }
                done += n
            }
            return Array(bytes.prefix(done))
        }
    }

    func close(pool: NIOThreadPool = .singleton) async {
        let fd = descriptor
        _ = try? await pool.runIfActive { systemClose(fd) }
    }
}

private func systemOpen(_ path: String) -> Int32 {
    #if canImport(Glibc)
    Glibc.open(path, O_RDONLY | O_CLOEXEC)
    #else
    Darwin.open(path, O_RDONLY | O_CLOEXEC)
    #endif
}

private func systemClose(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
