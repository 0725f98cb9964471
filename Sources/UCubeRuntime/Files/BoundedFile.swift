import Foundation
import UCubeSupport

/// A file named on the command line or kept on disk, or standard input, read whole but never past a limit: one too
/// large, or one that never ends (`/dev/zero`, a FIFO, a pipe kept open), is refused instead of filling the memory.
/// A regular file is measured before any byte is read; anything else is read in chunks and refused as soon as it
/// passes the limit. The capture and text of `decode`, a suite of `test`, a recording replayed, a shell script, a
/// fleet run's devices file and run file, the remembered devices and the link session file.
package enum BoundedFile {
    package enum Failure: Error {
        /// Missing, a directory, not permitted or a failed read: the words say which.
        case unreadable(String)
        /// More than the limit.
        case tooLarge
    }

    /// How much one `read(2)` asks for: what is held beyond the limit at most.
    package static let chunkSize = 64 << 10

    /// $UCUBE_INPUT_LIMIT, in bytes: every input limit lowered to it (never raised), so that a test reaches a limit
    /// with a few bytes, not 64 MiB through a pipe. Unset, empty or not a positive number: no change.
    package static let lowered: Int? = Environment.value(Environment.inputLimitVariable).flatMap { Int($0) }.flatMap {
        $0 > 0 ? $0 : nil
    }

    /// `nominal`, or $UCUBE_INPUT_LIMIT when that is lower: the limit every read here applies.
    package static func effectiveLimit(_ nominal: Int) -> Int { min(nominal, lowered ?? nominal) }

    /// The limit `nominal` gives, for a person: "64 MiB", or "100 bytes" when that is not a whole number of MiB.
    package static func limitText(_ nominal: Int) -> String {
        let bytes = effectiveLimit(nominal)
        return bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    package static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        Data(try readBytes(path, limit: limit))
    }

    /// `read` as bytes: the small files every command reads (the link session) need none of `Data`'s machinery.
    package static func readBytes(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let (fd, size) = try openMeasured(path, limit: limit)
        defer { close(fd) }
        return try read(descriptor: fd, limit: limit, regularFileSize: size)
    }

    /// `path` opened for reading (the caller closes it), refused when it is a regular file larger than `limit`.
    /// The checks are made on the descriptor, not the path (no FileManager: its first use cost a short command's
    /// start-up, and a path checked before it is opened can change in between).
    package static func open(_ path: String, limit: Int) throws(Failure) -> Int32 {
        try openMeasured(path, limit: limit).fd
    }

    /// `open`, and the size of a regular file (nil for anything else), from the one fstat that checked it.
    private static func openMeasured(_ path: String, limit nominal: Int) throws(Failure) -> (fd: Int32, size: Int64?) {
        let limit = effectiveLimit(nominal)
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
    package static func readStandardInput(limit: Int) throws(Failure) -> Data {
        try read(descriptor: STDIN_FILENO, limit: limit)
    }

    /// `fd` to its end in chunks; throws `tooLarge` as soon as more than `limit` bytes came, without waiting for the
    /// end (a writer that never closes).
    package static func read(descriptor fd: Int32, limit: Int) throws(Failure) -> Data {
        Data(try read(descriptor: fd, limit: limit, regularFileSize: FileStatus.describe(fd).regularFileSize))
    }

    /// `read(descriptor:limit:)` with the size the caller already measured (nil: not a regular file). Reads straight
    /// into one growing block and copies it out once: no per-byte work, so a debug build reads as fast as a release
    /// one (Benchmarks/bounded-read.sh).
    private static func read(descriptor fd: Int32, limit nominal: Int, regularFileSize: Int64?) throws(Failure)
        -> [UInt8]
    {
        let limit = effectiveLimit(nominal)
        let buffer = ReadBuffer()
        // A regular file's size is known: a chunk one byte larger reads it in one call and sees its end in the next,
        // without reserving 64 KiB for a one-line file (the link session, read by every command).
        let chunk = regularFileSize.map { min(Int(clamping: $0) + 1, chunkSize) } ?? chunkSize
        while try buffer.fill(from: fd, upTo: chunk) > 0 {
            guard buffer.count <= limit else { throw .tooLarge }
        }
        return buffer.bytes(0..<buffer.count)
    }

    /// One line of standard input without its "\n" (or "\r\n"), as `Swift.readLine` gives it, but never longer
    /// than `limit` bytes: `nil` at the end of the input, `tooLarge` for a longer line (the rest of it is left
    /// unread). Reads through C's `stdin`, so it shares its buffer with every other line reader of the process.
    package static func readLine(limit nominal: Int) throws(Failure) -> String? {
        let limit = effectiveLimit(nominal)
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
    package struct Lines {
        private let fd: Int32
        private let limit: Int
        private var total = 0
        private let buffer = ReadBuffer()
        /// Where the next line starts in `buffer`.
        private var start = 0
        private var ended = false

        package init(descriptor fd: Int32, limit: Int) {
            self.fd = fd
            self.limit = BoundedFile.effectiveLimit(limit)
        }

        /// The next line without its "\n", or nil at the end of the input (a last line without "\n" is a line).
        package mutating func next() throws(Failure) -> String? {
            var searched = start
            while true {
                if let newline = buffer.index(of: 0x0A, in: searched..<buffer.count) {
                    let line = buffer.text(start..<newline)
                    start = newline + 1
                    return line
                }
                if ended {
                    guard start < buffer.count else { return nil }
                    let line = buffer.text(start..<buffer.count)
                    start = buffer.count
                    return line
                }
                // Keep only the unfinished line, then read more after it.
                buffer.removeFirst(start)
                start = 0
                searched = buffer.count
                let count = try buffer.fill(from: fd, upTo: BoundedFile.chunkSize)
                if count == 0 { ended = true }
                total += count
                guard total <= limit else { throw .tooLarge }
            }
        }
    }
}

/// Bytes read from a descriptor into one block of memory this value manages: `read(2)` writes into it directly,
/// `memchr` searches it and `memcpy`/`memmove` move it. The standard library's generic collection code, which a debug
/// build runs unspecialised and one element at a time (2 MB/s for `decode` of 64 MiB on standard input), never sees
/// a byte. A class: the block has one owner, freed with it.
private final class ReadBuffer {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    private(set) var count = 0

    init() {}

    deinit { free(base) }

    /// One `read(2)` of at most `maximum` bytes appended (EINTR retried): the bytes read, 0 at the end.
    func fill(from fd: Int32, upTo maximum: Int) throws(BoundedFile.Failure) -> Int {
        reserve(count + maximum)
        while true {
            let read = systemRead(fd, base! + count, maximum)
            if read < 0 {
                if errno == EINTR { continue }
                throw .unreadable(ErrorNumber.text(errno))
            }
            count += read
            return read
        }
    }

    /// The first `byte` in `range`, by `memchr`.
    func index(of byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base else { return nil }
        guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return found - base
    }

    /// The bytes of `range` as UTF-8 text (invalid sequences repaired, as `String(decoding:as:)` does).
    func text(_ range: Range<Int>) -> String {
        guard let base, !range.isEmpty else { return "" }
        let start = (base + range.lowerBound).assumingMemoryBound(to: UInt8.self)
        return String(decoding: UnsafeBufferPointer(start: start, count: range.count), as: UTF8.self)
    }

    /// A copy of the bytes of `range`.
    func bytes(_ range: Range<Int>) -> [UInt8] {
        guard let base, !range.isEmpty else { return [] }
        return [UInt8](unsafeUninitializedCapacity: range.count) { storage, initialized in
            memcpy(storage.baseAddress!, base + range.lowerBound, range.count)
            initialized = range.count
        }
    }

    /// Drops the first `n` bytes, moving the rest to the front.
    func removeFirst(_ n: Int) {
        guard n > 0, let base else { return }
        memmove(base, base + n, count - n)
        count -= n
    }

    /// Room for at least `needed` bytes, growing by doubling (amortised: each byte is moved a bounded number of times).
    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let grown = max(needed, capacity * 2)
        guard let block = realloc(base, grown) else { fatalError("out of memory growing a read buffer to \(grown) B") }
        base = block
        capacity = grown
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
