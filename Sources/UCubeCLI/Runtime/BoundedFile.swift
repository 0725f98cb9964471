import Foundation
import UCubeSupport

/// A file named on the command line or kept on disk, or standard input, read whole but never past a limit: one too
/// large, or one that never ends (`/dev/zero`, a FIFO, a pipe kept open), is refused instead of filling the memory.
/// A regular file is measured before any byte is read; anything else is read in chunks and refused as soon as it
/// passes the limit. The capture and text of `decode`, a suite of `test`, a recording replayed, a shell script, a
/// fleet run's devices file and run file, the remembered devices and the link session file.
enum BoundedFile {
    enum Failure: Error {
        /// Missing, a directory, not permitted or a failed read: the words say which.
        case unreadable(String)
        /// More than the limit.
        case tooLarge
    }

    /// How much one `read(2)` asks for: what is held beyond the limit at most.
    static let chunkSize = 64 << 10

    static func read(_ path: String, limit: Int) throws(Failure) -> Data { Data(try readBytes(path, limit: limit)) }

    /// `read` as bytes: the small files every command reads (the link session) need none of `Data`'s machinery.
    static func readBytes(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let (fd, size) = try openMeasured(path, limit: limit)
        defer { close(fd) }
        return try read(descriptor: fd, limit: limit, regularFileSize: size)
    }

    /// `path` opened for reading (the caller closes it), refused when it is a regular file larger than `limit`.
    /// The checks are made on the descriptor, not the path (no FileManager: its first use cost a short command's
    /// start-up, and a path checked before it is opened can change in between).
    static func open(_ path: String, limit: Int) throws(Failure) -> Int32 { try openMeasured(path, limit: limit).fd }

    /// `open`, and the size of a regular file (nil for anything else), from the one fstat that checked it.
    private static func openMeasured(_ path: String, limit: Int) throws(Failure) -> (fd: Int32, size: Int64?) {
        let fd = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(errno == ENOENT ? "no such file" : ErrorNumber.text(errno)) }
        let status = FileStatus.describe(fd)
        if status.isDirectory {
            close(fd)
            throw .unreadable("it is a directory")
        }
        if let size = status.regularFileSize, size > limit {
            close(fd)
            throw .tooLarge
        }
        return (fd, status.regularFileSize)
    }

    /// Standard input to its end, or refused once it passes `limit`.
    static func readStandardInput(limit: Int) throws(Failure) -> Data {
        try read(descriptor: STDIN_FILENO, limit: limit)
    }

    /// `fd` to its end in chunks; throws `tooLarge` as soon as more than `limit` bytes came, without waiting for the
    /// end (a writer that never closes).
    static func read(descriptor fd: Int32, limit: Int) throws(Failure) -> Data {
        Data(try read(descriptor: fd, limit: limit, regularFileSize: FileStatus.describe(fd).regularFileSize))
    }

    /// `read(descriptor:limit:)` with the size the caller already measured (nil: not a regular file).
    private static func read(descriptor fd: Int32, limit: Int, regularFileSize: Int64?) throws(Failure) -> [UInt8] {
        var data: [UInt8] = []
        // A regular file's size is known: a chunk one byte larger reads it in one call and sees its end in the next,
        // without zeroing 64 KiB for a one-line file (the link session, read by every command).
        let size = regularFileSize.map { Int(clamping: $0) }
        var chunk = [UInt8](repeating: 0, count: size.map { min($0 + 1, chunkSize) } ?? chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(ErrorNumber.text(errno))
            }
            if count == 0 { return data }
            guard data.count + count <= limit else { throw .tooLarge }
            data.append(contentsOf: chunk[..<count])
        }
    }

    /// One line of standard input without its "\n" (or "\r\n"), as `Swift.readLine` gives it, but never longer
    /// than `limit` bytes: `nil` at the end of the input, `tooLarge` for a longer line (the rest of it is left
    /// unread). Reads through C's `stdin`, so it shares its buffer with every other line reader of the process.
    static func readLine(limit: Int) throws(Failure) -> String? {
        var bytes: [UInt8] = []
        while true {
            let c = getchar()
            if c == EOF {
                guard !bytes.isEmpty else { return nil }
                break
            }
            if c == 0x0A { break }
            guard bytes.count < limit else { throw .tooLarge }
            bytes.append(UInt8(c))
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension BoundedFile {
    /// The lines of a descriptor as they are read, in chunks: what is held is the line being read and one chunk, not
    /// the input (`decode` shows each frame of a recording as it comes). Refused (`tooLarge`) as soon as more than
    /// `limit` bytes came in all, as `read(descriptor:limit:)` is.
    struct Lines {
        private let fd: Int32
        private let limit: Int
        private var total = 0
        private var buffer: [UInt8] = []
        /// Where the next line starts in `buffer`.
        private var start = 0
        private var ended = false

        init(descriptor fd: Int32, limit: Int) {
            self.fd = fd
            self.limit = limit
        }

        /// The next line without its "\n", or nil at the end of the input (a last line without "\n" is a line).
        mutating func next() throws(Failure) -> String? {
            var searched = start
            while true {
                if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                    start = newline + 1
                    return line
                }
                if ended {
                    guard start < buffer.count else { return nil }
                    let line = String(decoding: buffer[start...], as: UTF8.self)
                    start = buffer.count
                    return line
                }
                // Keep only the unfinished line, then read more after it.
                if start > 0 {
                    buffer.removeSubrange(..<start)
                    start = 0
                }
                searched = buffer.count
                try fill()
            }
        }

        private mutating func fill() throws(Failure) {
            let old = buffer.count
            let fd = fd
            buffer.append(contentsOf: repeatElement(0, count: BoundedFile.chunkSize))
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    systemRead(fd, $0.baseAddress! + old, BoundedFile.chunkSize)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    buffer.removeSubrange(old...)
                    throw .unreadable(ErrorNumber.text(errno))
                }
                buffer.removeSubrange((old + count)...)
                if count == 0 { ended = true }
                total += count
                guard total <= limit else { throw .tooLarge }
                return
            }
        }
    }
}

/// `open(2)`, out of reach of `BoundedFile.open`.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}

/// `read(2)`, out of reach of `BoundedFile.read`'s overloads.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
